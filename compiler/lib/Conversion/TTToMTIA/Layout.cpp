//===- Layout.cpp - trans, reshape, join, split on views and the MLU ---===//
//
// Layout ops rearrange elements without computing. Wherever the result can be
// described as a strided view of an existing tile it is one (trans permutes
// strides, split offsets a view, reshape of a dense tile renames its shape),
// and costs nothing: the DPE and SE read views directly. Only when a dense
// tile is required (reshape of a broadcast or permuted view, join) does the
// memory layout unit copy, one `mtia.mlu_copy` per source view.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

//===----------------------------------------------------------------------===//
// Copies on the memory layout unit
//===----------------------------------------------------------------------===//

/// Appends a dense copy of `from` in `shape` to `dstCb`. A tile of the same
/// element type is pure data movement and goes to the MLU; a splat (a fill)
/// or a conversion is SIMD engine work.
void KernelLowering::emitMove(const Lowered &from, int64_t dstCb, Type elemType,
                              ArrayRef<int64_t> shape, Location loc) {
  if (!from.isTile() || from.elemType != elemType)
    return emitCopy(from, dstCb, elemType, shape, loc);
  mtia::MluCopyOp::create(b, loc, dstCb, elemType, shape,
                          mtia::ViewAttr::get(b.getContext(), from.cb,
                                              from.elemType, from.offset,
                                              from.strides));
}

//===----------------------------------------------------------------------===//
// Views
//===----------------------------------------------------------------------===//

/// tt.trans: the same tile with permuted shape and strides.
LogicalResult KernelLowering::lowerTrans(tt::TransOp op) {
  auto in = tensor(op.getSrc());
  if (failed(in))
    return failure();
  Lowered out = *in;
  if (out.isTile()) {
    ArrayRef<int32_t> order = op.getOrder();
    for (auto [i, from] : llvm::enumerate(order)) {
      out.shape[i] = in->shape[from];
      out.strides[i] = in->strides[from];
    }
  }
  tensors[op.getResult()] = out;
  return success();
}

/// tt.split: the last dimension (of size 2) is dropped; the two halves are
/// views of the same tile, the second one offset by that dimension's stride.
LogicalResult KernelLowering::lowerSplit(tt::SplitOp op) {
  auto in = tensor(op.getSrc());
  if (failed(in))
    return failure();
  Lowered lhs = *in;
  if (lhs.isTile()) {
    int64_t last = lhs.strides.back();
    lhs.shape.pop_back();
    lhs.strides.pop_back();
    Lowered rhs = lhs;
    rhs.offset += last;
    tensors[op.getOutLHS()] = lhs;
    tensors[op.getOutRHS()] = rhs;
    return success();
  }
  tensors[op.getOutLHS()] = lhs;
  tensors[op.getOutRHS()] = lhs;
  return success();
}

/// tt.reshape: a dense tile is reinterpreted in place; any other view is
/// first made dense by the MLU (Triton's reshape is row-major; with
/// allow_reorder any order is allowed, so row-major is also correct).
LogicalResult KernelLowering::lowerReshape(tt::ReshapeOp op) {
  Location loc = op.getLoc();
  auto in = tensor(op.getSrc());
  if (failed(in))
    return failure();
  if (!in->isTile()) {
    tensors[op.getResult()] = *in;
    return success();
  }
  SmallVector<int64_t> shape = shapeOf(op.getType());
  Lowered out = *in;
  if (!in->isDense()) {
    int64_t cb = newTile(op.getResult(), in->elemType, in->shape, loc);
    emitMove(*in, cb, in->elemType, in->shape, loc);
    out = Lowered::tile(cb, in->elemType, in->shape);
  }
  out.shape = shape;
  out.strides = Lowered::denseStrides(shape);
  tensors[op.getResult()] = out;
  return success();
}

//===----------------------------------------------------------------------===//
// Copies
//===----------------------------------------------------------------------===//

/// tt.join: both operands are copied, one after the other, into one CB; the
/// result [..., 2] is the view whose last dimension strides from the first
/// copy to the second, so no interleaving copy is needed.
LogicalResult KernelLowering::lowerJoin(tt::JoinOp op) {
  Location loc = op.getLoc();
  auto lhs = tensor(op.getLhs());
  if (failed(lhs))
    return failure();
  auto rhs = tensor(op.getRhs());
  if (failed(rhs))
    return failure();
  auto srcType = cast<RankedTensorType>(op.getLhs().getType());
  SmallVector<int64_t> half(srcType.getShape());
  Type elemType = tileElementType(srcType);
  if (!lhs->isTile() && !rhs->isTile()) {
    // Two uniform halves: compute nothing unless they differ.
    if (lhs->scalar == rhs->scalar) {
      tensors[op.getResult()] = *lhs;
      return success();
    }
  }
  SmallVector<int64_t> both(half);
  both.insert(both.begin(), 2);
  int64_t cb = newTile(op.getResult(), elemType, both, loc);
  emitMove(*lhs, cb, elemType, half, loc);
  emitMove(*rhs, cb, elemType, half, loc);
  Lowered out = Lowered::tile(cb, elemType, half);
  out.shape.push_back(2);
  out.strides.push_back(numElements(half));
  tensors[op.getResult()] = out;
  return success();
}

} // namespace mlir::triton_mtia::tt_to_mtia
