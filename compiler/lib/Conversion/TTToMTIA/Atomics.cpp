//===- Atomics.cpp - tt.atomic_rmw and tt.atomic_cas ---===//
//
// Atomics are memory-side operations of the fabric interface, so they are
// atomic across PEs: each element's read-modify-write happens at the memory
// at the command's simulated time. The pointers are rematerialized as an I64
// address tile (as for a gather), the mask as an I1 tile.
//
// Memory ordering: Triton's default is acq_rel. Commands of one PE run
// asynchronously, so a release must wait for the core's earlier commands
// (a store in a critical section must land before the unlock), and an
// acquire must complete before later commands issue (a load after taking a
// lock must not read stale data). Both are a `mtia.barrier` around the atomic:
// correct, and cheap next to the fabric round trip an atomic costs anyway.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

/// The `mtia::RmwOp` name of a Triton RMW kind.
static StringRef rmwKind(tt::RMWOp kind) {
  switch (kind) {
  case tt::RMWOp::AND: return "And";
  case tt::RMWOp::OR: return "Or";
  case tt::RMWOp::XOR: return "Xor";
  case tt::RMWOp::ADD: return "Add";
  case tt::RMWOp::FADD: return "FAdd";
  case tt::RMWOp::MAX: return "Max";
  case tt::RMWOp::MIN: return "Min";
  case tt::RMWOp::UMAX: return "UMax";
  case tt::RMWOp::UMIN: return "UMin";
  case tt::RMWOp::XCHG: return "Xchg";
  }
  return "";
}

static bool releases(tt::MemSemantic sem) {
  return sem == tt::MemSemantic::RELEASE ||
         sem == tt::MemSemantic::ACQUIRE_RELEASE;
}
static bool acquires(tt::MemSemantic sem) {
  return sem == tt::MemSemantic::ACQUIRE ||
         sem == tt::MemSemantic::ACQUIRE_RELEASE;
}

/// A dense tile of `l` in `elemType`: `l`'s own CB when it already is one,
/// else a copy that lives until the command being lowered is issued.
int64_t KernelLowering::denseCb(
    const Lowered &l, Type elemType, ArrayRef<int64_t> shape, Location loc,
    SmallVectorImpl<std::pair<int64_t, int64_t>> &temps) {
  if (l.isDense() && l.elemType == elemType &&
      llvm::equal(l.shape, shape))
    return l.cb;
  return copyToNewTile(l, elemType, shape, loc, &temps);
}

/// Address and mask tiles of an atomic. A scalar pointer is a one-element
/// (rank-0) address tile; a mask that is the constant true is dropped.
static bool isConstTrue(Value v) {
  if (!v)
    return true;
  if (matchPattern(v, m_One()))
    return true;
  DenseElementsAttr dense;
  return matchPattern(v, m_Constant(&dense)) && dense.isSplat() &&
         dense.getElementType().isInteger(1) &&
         dense.getSplatValue<bool>();
}

LogicalResult KernelLowering::lowerAtomicRmw(tt::AtomicRMWOp op) {
  Location loc = op.getLoc();
  Type valType = op.getVal().getType();
  Type elemType = tileElementType(valType);
  SmallVector<int64_t> shape = shapeOf(valType);
  bool isTensor = isa<RankedTensorType>(valType);
  StringRef kind = rmwKind(op.getAtomicRmwOp());
  if (kind == "FAdd" && !isa<FloatType>(elemType))
    return unsupported(op, "fadd on integers");
  if (kind != "FAdd" && kind != "Xchg" && isa<FloatType>(elemType))
    return unsupported(op, "atomic '" + stringifyRMWOp(op.getAtomicRmwOp()) +
                               "' on floats (Triton emits integer atomics "
                               "for float max/min)");

  SmallVector<std::pair<int64_t, int64_t>> temps;
  AddressTiles tiles;
  Value mask = isConstTrue(op.getMask()) ? Value() : op.getMask();
  if (isTensor) {
    auto t = addressTiles(op, op.getPtr(), mask, shape, loc, temps);
    if (failed(t))
      return failure();
    tiles = *t;
  } else {
    tiles.addrCb = copyToNewTile(Lowered::splat(scalar(op.getPtr())),
                                 b.getI64Type(), {}, loc, &temps);
    if (mask)
      tiles.maskCb = copyToNewTile(Lowered::splat(scalar(mask)), b.getI1Type(),
                                   {}, loc, &temps);
  }
  auto value = tensor(op.getVal());
  if (failed(value))
    return failure();
  SmallVector<Value> imms;
  Attribute valueSrc = sourceOf(*value, imms);

  if (releases(op.getSem()))
    mtia::BarrierOp::create(b, loc);
  Value result = op.getResult();
  bool used = !result.use_empty();
  int64_t cb = -1;
  if (used)
    cb = isTensor ? newTile(result, elemType, shape, loc) : nextCb++;
  mtia::AtomicRmwOp::create(b, loc, imms, kind, cb, elemType, shape,
                            tiles.addrCb, tiles.maskCb,
                            b.getArrayAttr({valueSrc}));
  if (acquires(op.getSem()))
    mtia::BarrierOp::create(b, loc);
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  if (used && !isTensor) {
    // The old value goes to a core register (the core blocks on the read, so
    // a spin loop waits at simulated time and other PEs progress).
    scalars.map(result, mtia::ReadOp::create(b, loc, lowerScalarType(valType),
                                             cb, 0));
    mtia::CbPopOp::create(b, loc, cb, mtia::elementBytes(elemType));
  }
  return success();
}

LogicalResult KernelLowering::lowerAtomicCas(tt::AtomicCASOp op) {
  Location loc = op.getLoc();
  Type valType = op.getVal().getType();
  Type elemType = tileElementType(valType);
  SmallVector<int64_t> shape = shapeOf(valType);
  bool isTensor = isa<RankedTensorType>(valType);

  SmallVector<std::pair<int64_t, int64_t>> temps;
  int64_t addrCb;
  if (isTensor) {
    auto t = addressTiles(op, op.getPtr(), Value(), shape, loc, temps);
    if (failed(t))
      return failure();
    addrCb = t->addrCb;
  } else {
    addrCb = copyToNewTile(Lowered::splat(scalar(op.getPtr())), b.getI64Type(),
                           {}, loc, &temps);
  }
  auto cmp = tensor(op.getCmp());
  auto value = tensor(op.getVal());
  if (failed(cmp) || failed(value))
    return failure();
  SmallVector<Value> imms;
  Attribute cmpSrc = sourceOf(*cmp, imms);
  Attribute valueSrc = sourceOf(*value, imms);

  if (releases(op.getSem()))
    mtia::BarrierOp::create(b, loc);
  Value result = op.getResult();
  // The device API always appends the old values; give them a CB even when
  // unused and pop them right away.
  int64_t cb = isTensor && !result.use_empty()
                   ? newTile(result, elemType, shape, loc)
                   : nextCb++;
  mtia::AtomicCasOp::create(b, loc, imms, cb, elemType, shape, addrCb,
                            b.getArrayAttr({cmpSrc, valueSrc}));
  if (acquires(op.getSem()))
    mtia::BarrierOp::create(b, loc);
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  int64_t bytes = numElements(shape) * mtia::elementBytes(elemType);
  if (!isTensor) {
    if (!result.use_empty())
      scalars.map(result, mtia::ReadOp::create(b, loc, lowerScalarType(valType),
                                               cb, 0));
    mtia::CbPopOp::create(b, loc, cb, bytes);
  } else if (result.use_empty()) {
    mtia::CbPopOp::create(b, loc, cb, bytes);
  }
  return success();
}

} // namespace mlir::triton_mtia::tt_to_mtia
