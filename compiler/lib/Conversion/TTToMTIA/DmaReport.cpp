//===- DmaReport.cpp - Why an access is not a DMA; poisoned masked lanes ---===//
//
// Two opt-in aids for porting GPU kernels (paper section 8.1):
//
//  * `dma-report`: every load or store that does not become a strided DMA
//    gets a remark at its source line naming the reason (which op of its
//    pointer computation the structured-access analysis does not understand,
//    or a mask that is not a box). Such accesses still run, as
//    gathers and scatters by address, at a much lower bandwidth.
//  * `poison-masked-loads`: masked-out lanes of a load without `other` take
//    NaN (floats) or the most negative integer instead of zero, so a kernel
//    that relies on their value gives visibly wrong results, and one that
//    uses them as indices faults on an out-of-bounds address.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "triton-mtia/Support/SourceLocation.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

/// The first op feeding `v` that the affine index analysis does not
/// understand, or null.
static Operation *firstNonAffine(Value v, int depth = 0) {
  Operation *def = v.getDefiningOp();
  if (!def || depth > 32)
    return def;
  if (isa<tt::MakeRangeOp, tt::SplatOp, arith::ConstantOp>(def))
    return nullptr;
  if (isa<tt::AddPtrOp, arith::AddIOp, arith::SubIOp, arith::MulIOp,
          tt::ExpandDimsOp, tt::BroadcastOp, arith::ExtSIOp, arith::ExtUIOp,
          arith::TruncIOp,
          arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(def)) {
    for (Value operand : def->getOperands())
      if (Operation *bad = firstNonAffine(operand, depth + 1))
        return bad;
    return nullptr;
  }
  return def;
}

static std::string lineOf(Location loc) {
  if (auto flc = getSourceLoc(loc))
    return " (line " + std::to_string(flc->getLine()) + ")";
  return "";
}

void KernelLowering::reportNonDma(Operation *op, Value ptr, Value mask,
                                  ArrayRef<int64_t> shape) {
  if (!dmaReport)
    return;
  std::string why;
  llvm::raw_string_ostream os(why);
  OpBuilder::InsertionGuard guard(b); // the probes below build dead scalars
  Location loc = op->getLoc();
  if (!analyzePtr(ptr, loc)) {
    if (isa<BlockArgument>(ptr))
      os << "its pointers are a loop-carried or argument tensor";
    else if (Operation *bad = firstNonAffine(ptr))
      os << "its offsets are not affine in the program's ranges: '"
         << bad->getName() << "'" << lineOf(bad->getLoc())
         << " is not an add, sub, multiply by a uniform value, `//` or `%` "
            "by a constant, broadcast or range";
    else
      os << "its offsets are not a base plus constant strides (a product of "
            "two varying tensors, or a `//` or `%` by a constant that does "
            "not split the block into whole digits: the block must start at "
            "a known multiple of the divisor, and the divisor must divide "
            "the block's extent or be a multiple of it)";
  } else if (mask && !analyzeMask(mask, shape, loc)) {
    os << "its mask is not a box (a conjunction of `lo <= index < hi` per "
          "dimension)";
  } else if (auto affine = analyzePtr(ptr, loc); affine && !affine->parts.empty()) {
    os << "its `//` and `%` index math splits the block into "
       << digitShape(affine->parts).size()
       << " digits, and either that is more than a DMA's "
       << mtia::kBoxRank
       << " dimensions or the mask's bound is not a known multiple of the "
          "inner digits (a bound given as a kernel argument is known to be "
          "a multiple of 16 at most: make it a constant)";
  } else {
    os << "its access could not be described as a strided box";
  }
  StringRef kind = isa<tt::StoreOp>(op) ? "store" : "load";
  op->emitRemark() << kind << " is not a DMA: " << why << "; it runs as a "
                   << (kind == "store" ? "scatter" : "gather")
                   << " by address on the fabric interface";
}

/// The value masked-out lanes take in the check mode.
Value KernelLowering::poisonPad(Type elemType, Location loc) {
  if (auto f = dyn_cast<FloatType>(elemType))
    return arith::ConstantOp::create(
        b, loc, FloatAttr::get(f, APFloat::getQNaN(f.getFloatSemantics())));
  if (auto i = dyn_cast<IntegerType>(elemType)) {
    if (i.getWidth() == 1)
      return {}; // booleans have no spare value
    return arith::ConstantOp::create(
        b, loc, IntegerAttr::get(i, APInt::getSignedMinValue(i.getWidth())));
  }
  return {};
}

} // namespace mlir::triton_mtia::tt_to_mtia
