//===- DecomposeDotScaled.cpp - tt.dot_scaled as a tt.dot of scaled operands ===//
//
// Microscaling formats (OCP MX: mxfp4 = e2m1, mxfp8 = e4m3 / e5m2) pair
// narrow elements with one power-of-two scale per group of K elements. The
// DPE has no such mode, so each operand is brought to a type it takes, with
// its scale applied, before one ordinary tt.dot. See Passes.td for why the
// result is exact products summed in f32.
//
// All of it is ordinary Triton IR (integer bit manipulation, tt.join /
// tt.trans / tt.reshape, tt.expand_dims / tt.broadcast), so what the
// lowering does with those ops (SE commands, MLU copies, views) it does here.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/TT/Transforms/Passes.h"

namespace mlir::triton_mtia::tt {
#define GEN_PASS_DEF_TTDECOMPOSEDOTSCALED
#include "triton-mtia/Dialect/TT/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::tt

using namespace mlir;
using namespace mlir::triton_mtia;

namespace {

/// Builds the decomposition of one tt.dot_scaled in front of it.
class ScaledDotBuilder {
public:
  ScaledDotBuilder(tt::DotScaledOp op) : op(op), b(op), loc(op.getLoc()) {}

  LogicalResult run() {
    auto dType = cast<RankedTensorType>(op.getD().getType());
    int64_t rank = dType.getRank();
    int64_t k = cast<RankedTensorType>(op.getA().getType()).getShape()[rank - 1];
    if (op.getAElemType() == tt::ScaleDotElemType::E2M1 && op.getLhsKPack())
      k *= 2;
    bool anyFp16 = op.getAElemType() == tt::ScaleDotElemType::FP16 ||
                   op.getBElemType() == tt::ScaleDotElemType::FP16;
    Type computeType = anyFp16 ? Type(b.getF32Type()) : Type(b.getBF16Type());

    // lhs [.., M, K]: K is its last dimension; rhs [.., K, N]: the one
    // before. An e2m1 operand packs along K unless its k_pack is false, in
    // which case it packs along M (lhs) or N (rhs).
    FailureOr<Value> a = operand(op.getA(), op.getAElemType(),
                                 op.getLhsKPack() ? rank - 1 : rank - 2);
    if (failed(a))
      return failure();
    FailureOr<Value> bv = operand(op.getB(), op.getBElemType(),
                                  op.getRhsKPack() ? rank - 2 : rank - 1);
    if (failed(bv))
      return failure();
    Value lhs = *a, rhs = *bv;
    if (Value s = op.getAScale()) {
      FailureOr<Value> scale = expandScale(s, k);
      if (failed(scale))
        return failure();
      lhs = arith::MulFOp::create(b, loc, lhs, *scale);
    }
    if (Value s = op.getBScale()) {
      // The rhs scale is [.., N, K / group]: expanded to [.., N, K], then
      // transposed to the rhs's [.., K, N].
      FailureOr<Value> scale = expandScale(s, k);
      if (failed(scale))
        return failure();
      rhs = arith::MulFOp::create(b, loc, rhs, transposeLastTwo(*scale));
    }
    lhs = convert(lhs, computeType);
    rhs = convert(rhs, computeType);
    Value dot = tt::DotOp::create(b, loc, TypeRange{dType}, ValueRange{lhs, rhs, op.getC()},
                                  ArrayRef<NamedAttribute>{})
                    .getResult();
    op.getD().replaceAllUsesWith(dot);
    op.erase();
    return success();
  }

private:
  RankedTensorType like(Value v, Type elemType) {
    return cast<RankedTensorType>(v.getType()).clone(elemType);
  }
  Value splat(RankedTensorType type, int64_t value) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, b.getIntegerAttr(type.getElementType(), value)));
  }
  Value i32(Value v, int64_t c) { return splat(like(v, b.getI32Type()), c); }
  Value andI(Value v, int64_t c) { return arith::AndIOp::create(b, loc, v, i32(v, c)); }
  Value shl(Value v, int64_t c) { return arith::ShLIOp::create(b, loc, v, i32(v, c)); }
  Value shr(Value v, int64_t c) { return arith::ShRUIOp::create(b, loc, v, i32(v, c)); }
  Value eq(Value v, int64_t c) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, v, i32(v, c));
  }
  Value select(Value c, Value t, Value f) { return arith::SelectOp::create(b, loc, c, t, f); }
  Value asF32(Value bits) {
    return tt::BitcastOp::create(b, loc, TypeRange{like(bits, b.getF32Type())}, ValueRange{bits},
                                 ArrayRef<NamedAttribute>{})
        .getResult();
  }
  Value convert(Value v, Type to) {
    Type from = cast<RankedTensorType>(v.getType()).getElementType();
    if (from == to)
      return v;
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtFOp::create(b, loc, like(v, to), v);
    return arith::TruncFOp::create(b, loc, like(v, to), v);
  }
  Value transposeLastTwo(Value v) {
    auto type = cast<RankedTensorType>(v.getType());
    int64_t rank = type.getRank();
    SmallVector<int32_t> order;
    for (int32_t d = 0; d < rank; ++d)
      order.push_back(d);
    std::swap(order[rank - 1], order[rank - 2]);
    return transpose(v, order);
  }
  Value transpose(Value v, ArrayRef<int32_t> order) {
    auto type = cast<RankedTensorType>(v.getType());
    SmallVector<int64_t> shape;
    for (int32_t d : order)
      shape.push_back(type.getShape()[d]);
    return tt::TransOp::create(b, loc, TypeRange{type.clone(shape)}, ValueRange{v},
                               {b.getNamedAttr("order", b.getDenseI32ArrayAttr(order))})
        .getResult();
  }
  Value reshape(Value v, ArrayRef<int64_t> shape) {
    auto type = cast<RankedTensorType>(v.getType());
    return tt::ReshapeOp::create(b, loc, TypeRange{type.clone(shape)}, ValueRange{v},
                                 ArrayRef<NamedAttribute>{})
        .getResult();
  }

  /// The f32 value of each e2m1 nibble (the low 4 bits of an i32 tile):
  /// sign in bit 3, a 2-bit exponent of bias 1, one mantissa bit. Exponent 0
  /// is 0 or the subnormal 0.5.
  Value decodeE2m1(Value nibble) {
    Value sign = shl(andI(nibble, 8), 28);
    Value exp = andI(shr(nibble, 1), 3);
    Value man = andI(nibble, 1);
    Value normal = arith::OrIOp::create(
        b, loc, shl(arith::AddIOp::create(b, loc, exp, i32(exp, 127 - 1)), 23), shl(man, 22));
    Value subnormal = select(eq(man, 0), i32(man, 0), i32(man, 0x3F000000));
    Value magnitude = select(eq(exp, 0), subnormal, normal);
    return asF32(arith::OrIOp::create(b, loc, magnitude, sign));
  }

  /// Operand `v` in f32. An e2m1 operand's bytes hold two elements along
  /// dimension `packedDim`, the low nibble first.
  FailureOr<Value> operand(Value v, tt::ScaleDotElemType format, int64_t packedDim) {
    auto type = cast<RankedTensorType>(v.getType());
    switch (format) {
    case tt::ScaleDotElemType::BF16:
    case tt::ScaleDotElemType::FP16:
      return convert(v, b.getF32Type());
    case tt::ScaleDotElemType::E4M3:
    case tt::ScaleDotElemType::E5M2:
      return tt::FpToFpOp::create(b, loc, TypeRange{type.clone(b.getF32Type())}, ValueRange{v},
                                  ArrayRef<NamedAttribute>{})
          .getResult();
    case tt::ScaleDotElemType::E2M1:
      break;
    default:
      return op.emitError() << "tt.dot_scaled operands of format "
                            << tt::stringifyScaleDotElemType(format)
                            << " are not supported by the MTIA backend yet";
    }
    if (!type.getElementType().isInteger(8))
      return op.emitError() << "e2m1 operands of tt.dot_scaled must be packed in i8";
    Value bytes = arith::ExtUIOp::create(b, loc, type.clone(b.getI32Type()), v);
    Value lo = decodeE2m1(andI(bytes, 15));
    Value hi = decodeE2m1(shr(bytes, 4));
    int64_t rank = type.getRank();
    SmallVector<int64_t> joined(type.getShape());
    joined.push_back(2);
    Value pair = tt::JoinOp::create(b, loc, TypeRange{type.clone(joined, b.getF32Type())},
                                    ValueRange{lo, hi}, ArrayRef<NamedAttribute>{})
                     .getResult();
    // [.., P, .., 2] -> [.., P, 2, ..] -> [.., 2P, ..].
    if (packedDim != rank - 1) {
      SmallVector<int32_t> order;
      for (int32_t d = 0; d <= packedDim; ++d)
        order.push_back(d);
      order.push_back(static_cast<int32_t>(rank));
      for (int32_t d = static_cast<int32_t>(packedDim) + 1; d < rank; ++d)
        order.push_back(d);
      pair = transpose(pair, order);
    }
    SmallVector<int64_t> unpacked(type.getShape());
    unpacked[packedDim] *= 2;
    return reshape(pair, unpacked);
  }

  /// Scale tile [.., R, K / group] -> the f32 factor of every element,
  /// [.., R, K].
  FailureOr<Value> expandScale(Value scale, int64_t k) {
    auto type = cast<RankedTensorType>(scale.getType());
    Value factor;
    if (type.getElementType().isInteger(8)) {
      // e8m0: s << 23 are the f32 bits of 2^(s - 127) for 1 <= s <= 254;
      // s = 0 is the subnormal 2^-127 and s = 255 is NaN.
      Value s = arith::ExtUIOp::create(b, loc, type.clone(b.getI32Type()), scale);
      Value bits = select(eq(s, 0), i32(s, 0x00400000), shl(s, 23));
      bits = select(eq(s, 255), i32(s, 0x7FC00000), bits);
      factor = asF32(bits);
    } else if (isa<FloatType>(type.getElementType())) {
      factor = tt::FpToFpOp::create(b, loc, TypeRange{type.clone(b.getF32Type())},
                                    ValueRange{scale}, ArrayRef<NamedAttribute>{})
                   .getResult();
    } else {
      return op.emitError() << "tt.dot_scaled scales must be i8 (e8m0) or fp8, not "
                            << type.getElementType();
    }
    ArrayRef<int64_t> shape = type.getShape();
    int64_t groups = shape.back();
    if (groups <= 0 || k % groups != 0)
      return op.emitError() << "tt.dot_scaled scale of " << groups
                            << " columns does not divide K = " << k;
    int64_t group = k / groups;
    int64_t rank = type.getRank();
    SmallVector<int64_t> expanded(shape);
    expanded.push_back(1);
    auto f32Type = type.clone(b.getF32Type());
    Value column = tt::ExpandDimsOp::create(
                       b, loc, TypeRange{f32Type.clone(expanded)}, ValueRange{factor},
                       {b.getNamedAttr("axis", b.getI32IntegerAttr(static_cast<int32_t>(rank)))})
                       .getResult();
    expanded.back() = group;
    Value wide = tt::BroadcastOp::create(b, loc, TypeRange{f32Type.clone(expanded)},
                                         ValueRange{column}, ArrayRef<NamedAttribute>{})
                     .getResult();
    SmallVector<int64_t> perElement(shape);
    perElement.back() = k;
    return reshape(wide, perElement);
  }

  tt::DotScaledOp op;
  OpBuilder b;
  Location loc;
};

struct TTDecomposeDotScaled
    : public mlir::triton_mtia::tt::impl::TTDecomposeDotScaledBase<TTDecomposeDotScaled> {
  void runOnOperation() override {
    SmallVector<tt::DotScaledOp> dots;
    getOperation().walk([&](tt::DotScaledOp op) { dots.push_back(op); });
    for (tt::DotScaledOp op : dots)
      if (failed(ScaledDotBuilder(op).run()))
        return signalPassFailure();
  }
};

} // namespace
