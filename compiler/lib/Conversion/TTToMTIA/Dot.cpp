//===- Dot.cpp - tt.dot on the dot-product engine ---===//
//
// A tt.dot is one DPE command per batch: `a` and `b` are read through strided
// views of their tiles (so a transposed or broadcast operand costs nothing),
// and the accumulator `c` is either an immediate (a uniform value, normally
// the zero of `tl.zeros`) or a view of its tile. In `acc = tl.dot(a, b, acc)`
// inside a loop, `c` is the loop-carried CB, so the DPE accumulates in place
// of an SE add. f64 dots, which the DPE does not take, are a chain of SE
// fused multiply-adds (lowerDotOnSimdEngine).
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

//===----------------------------------------------------------------------===//
// Types the DPE multiplies
//===----------------------------------------------------------------------===//

static bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(t); }

/// The accumulator type of a DPE command for inputs `a` x `b`, or null when
/// the engine cannot multiply them. The DPE takes two 16-bit floats of one
/// kind, f32 (IEEE; tf32 requests get full precision), any pair of fp8 kinds
/// (into f32), or i8 (into i32).
static Type dpeAccType(Type a, Type bt, Builder &b) {
  if (a.isInteger(8) && bt.isInteger(8))
    return b.getI32Type();
  if (isFp8(a) && isFp8(bt))
    return b.getF32Type();
  if (a == bt && (a.isF16() || a.isBF16() || a.isF32()))
    return b.getF32Type();
  return {};
}

/// Converts scalar `v` to `to` (both integer or both float) on the core.
static Value castScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (isa<FloatType>(from) && isa<FloatType>(to))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? arith::ExtFOp::create(b, loc, to, v).getResult()
               : arith::TruncFOp::create(b, loc, to, v).getResult();
  if (from.isInteger() && to.isInteger())
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? arith::ExtSIOp::create(b, loc, to, v).getResult()
               : arith::TruncIOp::create(b, loc, to, v).getResult();
  return {};
}

//===----------------------------------------------------------------------===//
// tt.dot
//===----------------------------------------------------------------------===//

/// The DPE view of batch `batch` of operand `l` (rank 2 or 3): its last two
/// dimensions, offset to the batch.
static mtia::ViewAttr batchView(MLIRContext *ctx, const Lowered &l,
                                int64_t batch) {
  int64_t rank = l.shape.size();
  int64_t offset = l.offset + (rank == 3 ? batch * l.strides[0] : 0);
  return mtia::ViewAttr::get(ctx, l.cb, l.elemType, offset,
                             ArrayRef<int64_t>(l.strides).take_back(2));
}

/// Dot operand `v` as a CB view; a uniform operand (rare) is filled first,
/// into a tile that `temps` pops after the dot.
FailureOr<Lowered> KernelLowering::dotOperand(
    Value v, Location loc, SmallVectorImpl<std::pair<int64_t, int64_t>> &temps) {
  auto l = tensor(v);
  if (failed(l))
    return failure();
  if (l->isTile())
    return *l;
  Type elemType = tileElementType(v.getType());
  SmallVector<int64_t> shape = shapeOf(v.getType());
  return Lowered::tile(copyToNewTile(*l, elemType, shape, loc, &temps), elemType, shape);
}

/// A view of the [m, n] tile of batch `batch` of `l` (rank 2 or 3) whose
/// element (i, j) is l[.., i, kk] (kAxis = 1: a column broadcast along n) or
/// l[.., kk, j] (kAxis = 0: a row broadcast along m).
static mtia::ViewAttr broadcastK(MLIRContext *ctx, const Lowered &l,
                                 int64_t batch, int64_t kk, int kAxis) {
  int64_t rank = l.shape.size();
  int64_t offset = l.offset + (rank == 3 ? batch * l.strides[0] : 0);
  int64_t rowStride = l.strides[rank - 2], colStride = l.strides[rank - 1];
  if (kAxis == 1)
    return mtia::ViewAttr::get(ctx, l.cb, l.elemType, offset + kk * colStride,
                               ArrayRef<int64_t>{rowStride, 0});
  return mtia::ViewAttr::get(ctx, l.cb, l.elemType, offset + kk * rowStride,
                             ArrayRef<int64_t>{0, colStride});
}

/// d = a x b + c for operands the DPE does not multiply (f64): per batch, k
/// fused multiply-adds over the [m, n] tile, acc = a[:, kk] * b[kk, :] +
/// acc for kk = 0..k-1, in k order (the order of a GPU's FMA dot path).
/// Partial sums ping-pong between two CBs of one tile each; the last step
/// of each batch appends to the result, which makes the dense [batch, m, n].
LogicalResult KernelLowering::lowerDotOnSimdEngine(tt::DotOp op) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto dType = cast<RankedTensorType>(op.getD().getType());
  Type elemType = dType.getElementType();
  SmallVector<int64_t> dShape(dType.getShape());
  int64_t rank = dShape.size();
  int64_t batches = rank == 3 ? dShape[0] : 1;
  int64_t m = dShape[rank - 2], n = dShape[rank - 1];
  int64_t k = aType.getShape()[rank - 1];
  SmallVector<std::pair<int64_t, int64_t>> temps;
  auto a = dotOperand(op.getA(), loc, temps);
  if (failed(a))
    return failure();
  auto bIn = dotOperand(op.getB(), loc, temps);
  if (failed(bIn))
    return failure();
  auto c = tensor(op.getC());
  if (failed(c))
    return failure();
  MLIRContext *ctx = b.getContext();
  int64_t tileBytes = m * n * mtia::elementBytes(elemType);
  int64_t partial[2] = {nextCb++, nextCb++};
  int64_t resultCb = newResultTile(op.getD(), elemType, dShape, loc);
  SmallVector<int64_t> tileShape = {m, n};
  for (int64_t i = 0; i < batches; ++i) {
    for (int64_t kk = 0; kk < k; ++kk) {
      SmallVector<Value> imms;
      Attribute acc;
      if (kk > 0)
        acc = mtia::ViewAttr::get(ctx, partial[(kk - 1) % 2], elemType, 0,
                                  ArrayRef<int64_t>{n, 1});
      else if (c->isTile())
        acc = batchView(ctx, *c, i);
      else
        acc = sourceOf(*c, imms);
      int64_t dst = kk + 1 == k ? resultCb : partial[kk % 2];
      emitElementwise(loc, imms, "Fma", dst, elemType, tileShape,
                      {broadcastK(ctx, *a, i, kk, 1), broadcastK(ctx, *bIn, i, kk, 0), acc});
      if (kk > 0)
        mtia::CbPopOp::create(b, loc, partial[(kk - 1) % 2], tileBytes);
    }
  }
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}

LogicalResult KernelLowering::lowerDot(tt::DotOp op) {
  Location loc = op.getLoc();
  auto aType = cast<RankedTensorType>(op.getA().getType());
  auto bType = cast<RankedTensorType>(op.getB().getType());
  auto dType = cast<RankedTensorType>(op.getD().getType());
  int64_t rank = aType.getRank();
  if (rank != 2 && rank != 3)
    return unsupported(op, "dots of rank other than 2 or 3");
  Type aElem = aType.getElementType(), bElem = bType.getElementType();
  Type dElem = dType.getElementType();
  if (aElem.isF64() && bElem.isF64() && dElem.isF64())
    return lowerDotOnSimdEngine(op);
  Type accType = dpeAccType(aElem, bElem, b);
  if (!accType)
    return unsupported(op, "the DPE multiplies f16, bf16, f32 and fp8 (into "
                           "f32) or i8 (into i32) operands, not these");
  if (isa<FloatType>(accType) != isa<FloatType>(dElem))
    return unsupported(op, "the result type does not match the DPE's "
                           "accumulator kind");

  SmallVector<int64_t> aShape(aType.getShape()), bShape(bType.getShape()),
      dShape(dType.getShape());
  int64_t batches = rank == 3 ? dShape[0] : 1;
  int64_t m = dShape[rank - 2], n = dShape[rank - 1], k = aShape[rank - 1];
  SmallVector<std::pair<int64_t, int64_t>> temps;

  auto a = dotOperand(op.getA(), loc, temps);
  if (failed(a))
    return failure();
  auto bIn = dotOperand(op.getB(), loc, temps);
  if (failed(bIn))
    return failure();

  // The accumulator: an immediate when uniform, else a view in accType.
  auto c = tensor(op.getC());
  if (failed(c))
    return failure();
  Lowered acc = *c;
  SmallVector<Value> accImm;
  if (!acc.isTile()) {
    Value v = castScalar(b, loc, acc.scalar, accType);
    if (!v)
      return unsupported(op, "an accumulator of another kind than the result");
    accImm.push_back(v);
  } else if (acc.elemType != accType) {
    // e.g. out_dtype=float16: the DPE still accumulates in f32.
    acc = Lowered::tile(copyToNewTile(acc, accType, dShape, loc, &temps),
                        accType, dShape);
  }

  // The result tile: the DPE writes accType; another result type is one SE
  // conversion behind it. Batches append one [m, n] tile each, which makes
  // the dense [batch, m, n] tile.
  bool convert = dElem != accType;
  int64_t dpeCb =
      convert ? nextCb++ : newResultTile(op.getD(), accType, dShape, loc);
  MLIRContext *ctx = b.getContext();
  for (int64_t i = 0; i < batches; ++i) {
    Attribute accSrc = acc.isTile() ? Attribute(batchView(ctx, acc, i))
                                    : Attribute(mtia::ImmAttr::get(ctx));
    mtia::DpeOp::create(
        b, loc, accImm, dpeCb, accType, m, n, k,
        b.getArrayAttr({batchView(ctx, *a, i), batchView(ctx, *bIn, i), accSrc}));
  }
  if (convert) {
    int64_t cb = newResultTile(op.getD(), dElem, dShape, loc);
    emitCopy(Lowered::tile(dpeCb, accType, dShape), cb, dElem, dShape, loc);
    temps.push_back({dpeCb, numElements(dShape) * mtia::elementBytes(accType)});
  }
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}

} // namespace mlir::triton_mtia::tt_to_mtia
