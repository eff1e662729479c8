//===- SplitBlocks.cpp - Blocks too large for a PE, in parts that fit -----===//
//
// A PE holds its tiles in 384 KB of local memory. A kernel written for a GPU
// may use a block far larger (BLOCK = 65536 in a vector add): a GPU spills
// registers, a PE has nowhere to put the tile. When every tensor op of the
// kernel works on the block element by element, the block can be processed
// in `factor` parts one after the other, each part a tile that fits: the
// tensor ops move into an scf.for over the parts, every tensor<N x T>
// becomes tensor<N/factor x T>, and the block's index range gains the
// part's offset. The driver (triton-mtia-compile) applies it, with factors
// 2, 4, 8, ..., only to a kernel whose tiles do not fit otherwise.
//
// Element by element means: 1-D tensors of one length N, built from
// tt.make_range(0, N), splats and splat constants, and transformed by
// elementwise arith / math ops, tt.addptr, loads, stores and the other
// elementwise tt ops. Anything that relates elements of the block (reduce,
// scan, dot, reshape, gather, atomics, prints) or control flow leaves the
// kernel untouched. Scalar code stays in front of the loop; it cannot
// depend on a 1-D tensor without a reduction. Splitting reorders loads of
// one part after stores of the previous one, which Triton's semantics
// allow: a program's accesses to the same address from different elements
// of a block are unordered on every backend.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/TT/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::triton_mtia::tt {
#define GEN_PASS_DEF_TTSPLITBLOCKS
#include "triton-mtia/Dialect/TT/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::tt

using namespace mlir;
using namespace mlir::triton_mtia;

namespace {

/// The ops that act on a block element by element.
bool isElementwise(Operation *op) {
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return true;
  return isa<tt::SplatOp, tt::AddPtrOp, tt::LoadOp, tt::StoreOp, tt::BitcastOp, tt::FpToFpOp,
             tt::IntToPtrOp, tt::PtrToIntOp, tt::ExternElementwiseOp, tt::MulhiUIOp,
             tt::ClampFOp, tt::PreciseSqrtOp, tt::PreciseDivFOp, tt::MakeRangeOp>(op);
}

bool hasTensor(TypeRange types) {
  return llvm::any_of(types, [](Type t) { return isa<RankedTensorType>(t); });
}

struct TTSplitBlocks : public mlir::triton_mtia::tt::impl::TTSplitBlocksBase<TTSplitBlocks> {
  using TTSplitBlocksBase::TTSplitBlocksBase;

  void runOnOperation() override {
    if (factor <= 1)
      return;
    getOperation().walk([&](tt::FuncOp func) {
      if (!func.isExternal() && split(func))
        func->setAttr("mtia.split_factor",
                      IntegerAttr::get(IntegerType::get(&getContext(), 32), factor));
    });
  }

  /// The length of the kernel's block if every tensor op is elementwise on
  /// 1-D tensors of it, and it divides by `factor`; else 0.
  int64_t blockLength(tt::FuncOp func) {
    // A function that takes or returns tensors (a noinline helper) has its
    // block size in its signature.
    if (!llvm::hasSingleElement(func.getBody()) || hasTensor(func.getArgumentTypes()) ||
        hasTensor(func.getResultTypes()))
      return 0;
    int64_t length = 0;
    bool stored = false;
    for (Operation &op : func.getBody().front()) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        continue;
      bool tensorOp = hasTensor(op.getResultTypes()) || hasTensor(op.getOperandTypes());
      if (!tensorOp) {
        // Scalar code moves in front of the loop: it must not read memory a
        // tensor store before it may have written, nor have effects.
        if (op.getNumRegions() > 0 || isa<tt::StoreOp, tt::AtomicRMWOp, tt::AtomicCASOp,
                                          tt::PrintOp, tt::AssertOp, tt::CallOp>(op))
          return 0;
        if (stored && isa<tt::LoadOp>(op))
          return 0;
        continue;
      }
      if (!isElementwise(&op) || op.getNumRegions() > 0)
        return 0;
      stored |= isa<tt::StoreOp>(op);
      for (Type t : llvm::concat<Type>(op.getResultTypes(), op.getOperandTypes())) {
        auto tensor = dyn_cast<RankedTensorType>(t);
        if (!tensor)
          continue;
        if (tensor.getRank() != 1)
          return 0;
        if (length && tensor.getDimSize(0) != length)
          return 0;
        length = tensor.getDimSize(0);
      }
      if (auto range = dyn_cast<tt::MakeRangeOp>(op); range && range.getStart() != 0)
        return 0;
      if (auto cst = dyn_cast<arith::ConstantOp>(op))
        if (auto dense = dyn_cast<DenseElementsAttr>(cst.getValue()); dense && !dense.isSplat())
          return 0;
    }
    if (length == 0 || length % factor != 0)
      return 0;
    return length;
  }

  bool split(tt::FuncOp func) {
    int64_t length = blockLength(func);
    if (!length)
      return false;
    int64_t part = length / factor;
    Block &body = func.getBody().front();
    SmallVector<Operation *> tensorOps;
    for (Operation &op : body)
      if (!op.hasTrait<OpTrait::IsTerminator>() &&
          (hasTensor(op.getResultTypes()) || hasTensor(op.getOperandTypes())))
        tensorOps.push_back(&op);
    OpBuilder b(body.getTerminator());
    Location loc = func.getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value parts = arith::ConstantIndexOp::create(b, loc, factor);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    auto loop = scf::ForOp::create(b, loc, zero, parts, one);
    b.setInsertionPointToStart(loop.getBody());
    Value index = arith::IndexCastOp::create(b, loc, b.getI32Type(), loop.getInductionVar());
    Value base = arith::MulIOp::create(b, loc, index, arith::ConstantIntOp::create(b, loc, part, 32));
    IRMapping mapping;
    auto narrow = [&](Type t) -> Type {
      if (auto tensor = dyn_cast<RankedTensorType>(t))
        return tensor.clone({part});
      return t;
    };
    for (Operation *op : tensorOps) {
      if (auto range = dyn_cast<tt::MakeRangeOp>(op)) {
        // The part's indices: [k * part, (k + 1) * part).
        auto type = cast<RankedTensorType>(narrow(range.getType()));
        Value local = tt::MakeRangeOp::create(
                          b, loc, TypeRange{type}, ValueRange{},
                          {b.getNamedAttr("start", b.getI32IntegerAttr(0)),
                           b.getNamedAttr("end", b.getI32IntegerAttr(static_cast<int32_t>(part)))})
                          .getResult();
        Value offset = tt::SplatOp::create(b, loc, TypeRange{type}, ValueRange{base},
                                           ArrayRef<NamedAttribute>{})
                           .getResult();
        mapping.map(range.getResult(), arith::AddIOp::create(b, loc, local, offset).getResult());
        continue;
      }
      if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
        auto dense = cast<DenseElementsAttr>(cst.getValue());
        auto type = cast<RankedTensorType>(narrow(dense.getType()));
        mapping.map(cst.getResult(),
                    arith::ConstantOp::create(b, loc, dense.resizeSplat(type)).getResult());
        continue;
      }
      Operation *clone = b.clone(*op, mapping);
      for (Value result : clone->getResults())
        result.setType(narrow(result.getType()));
    }
    for (Operation *op : llvm::reverse(tensorOps))
      op->erase();
    return true;
  }
};

} // namespace
