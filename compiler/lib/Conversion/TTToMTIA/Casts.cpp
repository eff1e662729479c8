//===- Casts.cpp - Casts that are not one SE opcode ---===//
//
// Elementwise casts on tiles are single SE opcodes (OpMapping.cpp: Copy,
// CopyU, CopyToU, Bitcast). This file lowers what is left:
//
//  * the scalar forms of Triton's own cast ops (tt.bitcast, tt.fp_to_fp,
//    tt.mulhiui), and tensor forms whose operands are all splats, as core
//    arithmetic (the emitter prints only upstream arith/math);
//  * tensors of pointers used as data (tt.addptr, tt.int_to_ptr,
//    tt.ptr_to_int, tt.bitcast between pointer types): i64 address tiles.
//    Address-only ones are left to the structured-access analysis.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

static bool isPtrLike(Type t) {
  return isa<tt::PointerType>(elementTypeOf(t));
}

/// The scalar value of `op` (a tt cast or mulhiui) from lowered scalar
/// operands, as upstream arith ops; null when it has no scalar form.
static Value scalarCast(OpBuilder &b, Operation *op, ArrayRef<Value> args) {
  Location loc = op->getLoc();
  Type to = lowerScalarType(elementTypeOf(op->getResult(0).getType()));
  Value x = args[0];
  if (isa<tt::BitcastOp, tt::IntToPtrOp, tt::PtrToIntOp>(op)) {
    if (x.getType() == to)
      return x;
    if (isa<tt::BitcastOp>(op) &&
        x.getType().getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
      return arith::BitcastOp::create(b, loc, to, x);
    if (isa<IntegerType>(x.getType()) && isa<IntegerType>(to))
      return x.getType().getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
                 ? Value(arith::ExtSIOp::create(b, loc, to, x))
                 : Value(arith::TruncIOp::create(b, loc, to, x));
    return {};
  }
  if (auto fp = dyn_cast<tt::FpToFpOp>(op)) {
    unsigned from = x.getType().getIntOrFloatBitWidth();
    unsigned width = to.getIntOrFloatBitWidth();
    if (width > from)
      return arith::ExtFOp::create(b, loc, to, x);
    if (width < from)
      return arith::TruncFOp::create(b, loc, to, x);
    if (x.getType() != to) {
      // float16 <-> bfloat16: exactly to f32, then rounded (nearest even);
      // arith.truncf takes only narrowing conversions.
      Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), x);
      return arith::TruncFOp::create(b, loc, to, wide);
    }
    return x;
  }
  if (isa<tt::MulhiUIOp>(op)) {
    // The high half of the unsigned 2N-bit product.
    unsigned width = to.getIntOrFloatBitWidth();
    if (width > 32)
      return {};
    Type wide = b.getIntegerType(2 * width);
    Value a = arith::ExtUIOp::create(b, loc, wide, x);
    Value c = arith::ExtUIOp::create(b, loc, wide, args[1]);
    Value prod = arith::MulIOp::create(b, loc, a, c);
    Value hi = arith::ShRUIOp::create(
        b, loc, prod, arith::ConstantIntOp::create(b, loc, width, 2 * width));
    return arith::TruncIOp::create(b, loc, to, hi);
  }
  return {};
}

std::optional<LogicalResult> KernelLowering::lowerCast(Operation *op) {
  if (!isa<tt::BitcastOp, tt::FpToFpOp, tt::MulhiUIOp, tt::IntToPtrOp,
           tt::PtrToIntOp, tt::AddPtrOp>(op))
    return std::nullopt;
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (auto fp = dyn_cast<tt::FpToFpOp>(op))
    if (fp.getRounding() && *fp.getRounding() == tt::RoundingMode::RTZ)
      return unsupported(op, "round-toward-zero float conversion (the SIMD "
                             "engine rounds to nearest even)");

  if (!type) {
    if (isa<tt::AddPtrOp>(op))
      return std::nullopt; // scalar pointer arithmetic: TTToMTIA.cpp
    SmallVector<Value> args;
    for (Value v : op->getOperands())
      args.push_back(scalar(v));
    Value v = scalarCast(b, op, args);
    if (!v)
      return unsupported(op, "this scalar form");
    scalars.map(result, v);
    return success();
  }

  // Tensors. Address-only values are computed only where a gather, scatter
  // or atomic needs them (rematerialize).
  if (isAddressOnly(result))
    return isa<tt::AddPtrOp>(op) ? std::nullopt
                                 : std::optional<LogicalResult>(success());
  bool pointerOp = isa<tt::AddPtrOp, tt::IntToPtrOp, tt::PtrToIntOp>(op) ||
                   isPtrLike(op->getOperand(0).getType());
  SmallVector<Lowered> operands;
  bool allSplat = true;
  for (Value v : op->getOperands()) {
    auto l = tensor(v);
    if (failed(l))
      return failure();
    allSplat &= !l->isTile();
    operands.push_back(*l);
  }
  SmallVector<int64_t> shape(type.getShape());
  Type elemType = tileElementType(type);
  if (allSplat && !isa<tt::AddPtrOp>(op)) {
    SmallVector<Value> args;
    for (const Lowered &l : operands)
      args.push_back(l.scalar);
    Value v = scalarCast(b, op, args);
    if (!v)
      return unsupported(op, "this form with uniform operands");
    tensors[result] = Lowered::splat(v);
    return success();
  }
  if (!pointerOp)
    return std::nullopt; // one SE opcode (OpMapping.cpp)

  // Pointers as data: an i64 address tile (or a converted integer tile).
  SmallVector<std::pair<int64_t, int64_t>> temps;
  Lowered from = operands[0];
  if (isa<tt::AddPtrOp>(op)) {
    auto addrs = rematerialize(result, loc, temps);
    if (failed(addrs))
      return unsupported(op, "its pointers could not be computed");
    from = *addrs;
  }
  int64_t cb = newTile(result, elemType, shape, loc);
  emitCopy(from, cb, elemType, shape, loc);
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}

} // namespace mlir::triton_mtia::tt_to_mtia
