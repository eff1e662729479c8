//===- Memory.cpp - Loads and stores ---===//
//
// tt.load and tt.store: strided DMA when the access is structured, gather or
// scatter otherwise, one-element DMA plus a core read for scalars.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

LogicalResult KernelLowering::lowerLoad(tt::LoadOp op) {
  Location loc = op.getLoc();
  Type resultType = op.getType();
  Type elemType = tileElementType(resultType);
  SmallVector<int64_t> shape = shapeOf(resultType);
  bool isTensor = isa<RankedTensorType>(resultType);

  // The padding value: `other` if given (uniform), else zero.
  Value pad;
  if (Value other = op.getOther()) {
    if (isTensor) {
      auto l = tensor(other);
      if (failed(l))
        return failure();
      if (l->isTile())
        return unsupported(op, "a non-uniform 'other' value");
      pad = l->scalar;
    } else {
      pad = scalar(other);
    }
  }

  if (!isTensor) {
    // A scalar load: a one-element DMA and a read into a core register.
    if (op.getMask())
      return unsupported(op, "masked scalar loads");
    int64_t cb = nextCb++;
    mtia::DmaInOp::create(b, loc, scalar(op.getPtr()), ValueRange{}, ValueRange{},
                            pad, cb, elemType, ArrayRef<int64_t>{});
    Value v = mtia::ReadOp::create(b, loc, lowerScalarType(resultType), cb, 0);
    mtia::CbPopOp::create(b, loc, cb, mtia::elementBytes(elemType));
    scalars.map(op.getResult(), v);
    return success();
  }

  if (auto ptr = analyzePtr(op.getPtr(), loc)) {
    std::optional<SmallVector<Value>> valid;
    if (Value mask = op.getMask())
      valid = analyzeMask(mask, shape, loc);
    else {
      valid.emplace();
      for (int64_t d : shape)
        valid->push_back(constI64(d, loc));
    }
    if (valid) {
      int64_t cb = newTile(op.getResult(), elemType, shape, loc);
      mtia::DmaInOp::create(b, loc, ptr->base, ptr->strides, *valid, pad, cb,
                              elemType, shape);
      return success();
    }
  }

  // Unstructured: gather through a tile of addresses.
  SmallVector<std::pair<int64_t, int64_t>> temps;
  auto addrs = rematerialize(op.getPtr(), loc, temps);
  if (failed(addrs))
    return unsupported(op, "its pointers could not be computed");
  Type i64 = b.getI64Type();
  int64_t addrCb = addrs->isDense() ? addrs->cb
                                    : copyToNewTile(*addrs, i64, shape, loc, &temps);
  int64_t maskCb = -1;
  if (Value mask = op.getMask()) {
    auto m = rematerialize(mask, loc, temps);
    if (failed(m))
      return unsupported(op, "its mask could not be computed");
    maskCb = m->isDense() ? m->cb
                          : copyToNewTile(*m, b.getI1Type(), shape, loc, &temps);
  }
  int64_t cb = newTile(op.getResult(), elemType, shape, loc);
  mtia::GatherInOp::create(b, loc, pad, cb, addrCb, maskCb, elemType, shape);
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}

LogicalResult KernelLowering::lowerStore(tt::StoreOp op) {
  Location loc = op.getLoc();
  Type valueType = op.getValue().getType();
  Type elemType = tileElementType(valueType);
  SmallVector<int64_t> shape = shapeOf(valueType);
  SmallVector<std::pair<int64_t, int64_t>> temps;

  if (!isa<RankedTensorType>(valueType)) {
    if (op.getMask())
      return unsupported(op, "masked scalar stores");
    int64_t cb = copyToNewTile(Lowered::splat(scalar(op.getValue())), elemType,
                               {}, loc, &temps);
    mtia::DmaOutOp::create(b, loc, scalar(op.getPtr()), ValueRange{}, ValueRange{},
                             cb, elemType, ArrayRef<int64_t>{});
    for (auto [tmp, bytes] : temps)
      mtia::CbPopOp::create(b, loc, tmp, bytes);
    return success();
  }

  auto value = tensor(op.getValue());
  if (failed(value))
    return failure();
  int64_t valueCb = value->isDense()
                        ? value->cb
                        : copyToNewTile(*value, elemType, shape, loc, &temps);

  bool done = false;
  if (auto ptr = analyzePtr(op.getPtr(), loc)) {
    std::optional<SmallVector<Value>> valid;
    if (Value mask = op.getMask())
      valid = analyzeMask(mask, shape, loc);
    else {
      valid.emplace();
      for (int64_t d : shape)
        valid->push_back(constI64(d, loc));
    }
    if (valid) {
      mtia::DmaOutOp::create(b, loc, ptr->base, ptr->strides, *valid, valueCb,
                               elemType, shape);
      done = true;
    }
  }
  if (!done) {
    auto addrs = rematerialize(op.getPtr(), loc, temps);
    if (failed(addrs))
      return unsupported(op, "its pointers could not be computed");
    Type i64 = b.getI64Type();
    int64_t addrCb = addrs->isDense()
                         ? addrs->cb
                         : copyToNewTile(*addrs, i64, shape, loc, &temps);
    int64_t maskCb = -1;
    if (Value mask = op.getMask()) {
      auto m = rematerialize(mask, loc, temps);
      if (failed(m))
        return unsupported(op, "its mask could not be computed");
      maskCb = m->isDense() ? m->cb
                            : copyToNewTile(*m, b.getI1Type(), shape, loc, &temps);
    }
    mtia::ScatterOutOp::create(b, loc, valueCb, addrCb, maskCb, elemType, shape);
  }
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}


} // namespace mlir::triton_mtia::tt_to_mtia
