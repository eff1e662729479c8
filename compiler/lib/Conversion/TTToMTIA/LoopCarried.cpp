//===- LoopCarried.cpp - Pointer tensors and tiles carried by loops ---===//
//
// GPU-style kernels advance tensors of pointers through a loop:
//
//   a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
//   for k in range(...):
//       a = tl.load(a_ptrs, ...)
//       a_ptrs += BLOCK_K * stride_ak
//
// which makes `a_ptrs` an scf.for iter_arg. A block argument has no defining
// op for the structured-access analysis to walk, so such loads would become
// gathers. But when the initial value is structured (base + strides) and the
// yield only adds a uniform offset, the strides never change: only the base
// moves. The loop then carries the base as a scalar i64 iter_arg, the strides
// stay the loop-invariant values computed before it, and the loads in the
// body remain strided DMAs.
//
// When the initial value is not structured, the pointers are still carried
// correctly, as an i64 address tile in a CB (the loop's usual way of carrying
// tensors), rematerialized before the loop and at the yield.
//
// Integer offset tensors that feed only addresses and masks are carried the
// same way (batched matmuls and reductions over K write
// `offs += BLOCK; x = tl.load(p + offs, mask=offs < K)`): their base is a
// scalar iter_arg, so the load stays a DMA and the mask a box.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

//===----------------------------------------------------------------------===//
// Recognition (structural: no IR is built)
//===----------------------------------------------------------------------===//

/// Whether the integer tensor `v` is the same value everywhere, in a form the
/// index analysis (analyzeIndex) recovers.
static bool isUniformIndex(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto splat = dyn_cast<tt::SplatOp>(def))
    return splat.getSrc().getType().isIntOrIndex();
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<SplatElementsAttr>(cst.getValue());
    return dense && dense.getElementType().isInteger();
  }
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp, arith::ExtSIOp, arith::TruncIOp>(def))
    return isUniformIndex(def->getOperand(0));
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return isUniformIndex(def->getOperand(0)) && isUniformIndex(def->getOperand(1));
  if (isa<arith::MulIOp>(def)) {
    // analyzeIndex needs one factor to be a splat or a splat constant.
    auto direct = [](Value x) {
      Operation *d = x.getDefiningOp();
      return isa_and_nonnull<tt::SplatOp, arith::ConstantOp>(d);
    };
    return isUniformIndex(def->getOperand(0)) && isUniformIndex(def->getOperand(1)) &&
           (direct(def->getOperand(0)) || direct(def->getOperand(1)));
  }
  return false;
}

/// Whether iter_arg `i` of `loop` is a tensor of pointers or integer
/// offsets that only advances by uniform offsets (a chain of tt.addptr or
/// arith.addi/subi, and of inner loops that carry it the same way, from the
/// iter_arg to the yield) and is used only as an address or in a mask.
/// Memoized per iter_arg; a query reached again while it is being answered
/// (through the yield) assumes yes.
bool KernelLowering::isCarriedAddress(scf::ForOp loop, unsigned i) {
  Value arg = loop.getRegionIterArgs()[i];
  auto it = carriedAddress.find(arg);
  if (it != carriedAddress.end())
    return it->second;
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  bool pointer = type && isa<tt::PointerType>(type.getElementType());
  bool result = pointer || (type && type.getElementType().isInteger() &&
                            type.getElementType().getIntOrFloatBitWidth() > 1);
  if (result) {
    // The yielded value is arg + uniform + uniform + ...
    Value v = loop.getBody()->getTerminator()->getOperand(i);
    while (v != arg) {
      if (auto addptr = v.getDefiningOp<tt::AddPtrOp>();
          addptr && isUniformIndex(addptr.getOffset())) {
        v = addptr.getPtr();
        continue;
      }
      if (Operation *def = v.getDefiningOp();
          isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def)) {
        if (isUniformIndex(def->getOperand(1))) {
          v = def->getOperand(0);
          continue;
        }
        if (isa<arith::AddIOp>(def) && isUniformIndex(def->getOperand(0))) {
          v = def->getOperand(1);
          continue;
        }
      }
      // An inner loop that advances it: `for ...: for ...: ptrs += BLOCK`.
      if (auto inner = v.getDefiningOp<scf::ForOp>()) {
        unsigned j = cast<OpResult>(v).getResultNumber();
        if (isCarriedAddress(inner, j)) {
          v = inner.getInitArgs()[j];
          continue;
        }
      }
      result = false;
      break;
    }
  }
  carriedAddress[arg] = result;
  if (!result)
    return false;
  // Every use of the iter_arg and of the loop's result is an address.
  auto addressUse = [&](OpOperand &use) {
    Operation *user = use.getOwner();
    if (isa<scf::YieldOp>(user)) {
      // Yielded by this loop, or by an enclosing one that carries it too.
      auto parent = dyn_cast<scf::ForOp>(user->getParentOp());
      return parent && isCarriedAddress(parent, use.getOperandNumber());
    }
    if (auto load = dyn_cast<tt::LoadOp>(user))
      return use.get() == load.getPtr();
    if (auto store = dyn_cast<tt::StoreOp>(user))
      return use.get() == store.getPtr();
    if (auto inner = dyn_cast<scf::ForOp>(user)) {
      unsigned n = use.getOperandNumber();
      return n >= inner.getNumControlOperands() &&
             isCarriedAddress(inner, n - inner.getNumControlOperands());
    }
    if (isa<tt::AddPtrOp, tt::ExpandDimsOp, tt::BroadcastOp>(user))
      return (use.getOperandNumber() == 0 || !pointer) &&
             isAddressOnly(user->getResult(0));
    // Offsets: index arithmetic and comparisons that end in addresses and
    // masks.
    if (!pointer && isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::CmpIOp,
                        arith::AndIOp, arith::ExtSIOp, arith::TruncIOp>(user))
      return isAddressOnly(user->getResult(0));
    return false;
  };
  for (Value v : {arg, loop.getResult(i)})
    for (OpOperand &use : v.getUses())
      if (!addressUse(use))
        result = false;
  if (!result) {
    // Answers found while this one was provisionally yes may rest on it
    // (`acc += s` yielded, its sum judged address-only through the yield,
    // then `acc` stored as data): drop every memo and recompute. Each
    // iter_arg can fail only once, so this happens a bounded number of times.
    addressOnly.clear();
    carriedAddress.clear();
  }
  carriedAddress[arg] = result;
  return result;
}

/// Whether `v` is an iter_arg or a result of an scf.for that carries a
/// pointer tensor as recognised by isCarriedAddress.
bool KernelLowering::isCarriedAddressValue(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() < loop.getNumInductionVars())
      return false;
    return isCarriedAddress(loop, arg.getArgNumber() - loop.getNumInductionVars());
  }
  if (auto loop = v.getDefiningOp<scf::ForOp>())
    return isCarriedAddress(loop, cast<OpResult>(v).getResultNumber());
  return false;
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// analyzePtr of a pointer tensor, analyzeIndex of an offset tensor.
std::optional<Affine> KernelLowering::analyzeAddress(Value v, Location loc) {
  if (isa<tt::PointerType>(elementTypeOf(v.getType())))
    return analyzePtr(v, loc);
  return analyzeIndex(v, loc);
}

/// For a carried pointer whose initial value is structured: records the
/// loop-invariant strides for the iter_arg and the result, and returns the
/// initial base address to carry as a scalar. std::nullopt when the initial
/// value is not structured (the pointers are then carried as a tile).
std::optional<Value> KernelLowering::carriedAddressInit(scf::ForOp loop,
                                                        unsigned i) {
  auto init = analyzeAddress(loop.getInitArgs()[i], loop.getLoc());
  if (!init)
    return std::nullopt;
  carriedStrides[loop.getRegionIterArgs()[i]] = *init;
  carriedStrides[loop.getResult(i)] = *init;
  return init->base;
}

/// The base address yielded for a carried pointer carried as a scalar: the
/// yield is the iter_arg advanced by uniform offsets, so it is structured
/// with the same strides.
FailureOr<Value> KernelLowering::carriedAddressNext(scf::ForOp loop, unsigned i) {
  Operation *yield = loop.getBody()->getTerminator();
  auto next = analyzeAddress(yield->getOperand(i), yield->getLoc());
  if (!next)
    return emitError(yield->getLoc(),
                     "internal: the advanced loop-carried pointer is not "
                     "structured"),
           failure();
  return next->base;
}

//===----------------------------------------------------------------------===//
// Results produced in place of the carried tile
//===----------------------------------------------------------------------===//
//
// `acc = tl.dot(a, b, acc)` followed by the yield would append the DPE's
// result to a temporary CB and copy it into the loop-carried CB, and the next
// iteration's DPE would wait for that copy: the copy sits on the critical
// path. When a value's only use is the yield, its producer appends straight
// to the carried CB instead (reading the current tile at the front while
// appending the next one behind it is ordinary FIFO use), and the yield
// copies nothing.

/// Records, for each tensor carried in a CB by `loop`, the yielded value if
/// the yield is its only use and it is defined in the loop body itself.
void KernelLowering::registerYieldTargets(Block *body, ArrayRef<int64_t> carriedCb) {
  Operation *yield = body->getTerminator();
  for (auto [i, v] : llvm::enumerate(yield->getOperands())) {
    if (carriedCb[i] < 0 || !v.hasOneUse())
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || def->getNumResults() != 1)
      continue;
    yieldTargets[v] = carriedCb[i];
  }
}

/// The CB a producer of `root` appends to: the loop-carried CB `root` is
/// yielded into, when registered (no pop: the loop pops it), else a new tile.
int64_t KernelLowering::newResultTile(Value root, Type elemType,
                                      ArrayRef<int64_t> shape, Location loc) {
  auto it = yieldTargets.find(root);
  if (it == yieldTargets.end())
    return newTile(root, elemType, shape, loc);
  tensors[root] = Lowered::tile(it->second, elemType, shape);
  producedInPlace.insert(root);
  return it->second;
}

} // namespace mlir::triton_mtia::tt_to_mtia
