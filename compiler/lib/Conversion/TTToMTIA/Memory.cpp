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

namespace {
/// The DMA box of a scalar access: no dimension, or, under a mask, one
/// dimension whose extent is the mask (1 or 0), so that a masked-out access
/// touches no memory.
struct ScalarBox {
  SmallVector<Value> strides, valid;
  SmallVector<int64_t> shape;
};
ScalarBox scalarBox(OpBuilder &b, Value loweredMask, Location loc) {
  ScalarBox box;
  if (loweredMask) {
    box.strides.push_back(arith::ConstantIntOp::create(b, loc, 1, 64));
    box.valid.push_back(arith::ExtUIOp::create(b, loc, b.getI64Type(), loweredMask));
    box.shape.push_back(1);
  }
  return box;
}
} // namespace

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

  // Masked-out lanes without `other` are zero; the check mode poisons them
  // (DmaReport.cpp, docs/compiler.md).
  if (!pad && op.getMask() && poisonMaskedLoads)
    pad = poisonPad(elemType, loc);

  if (!isTensor) {
    // A scalar load: a one-element DMA and a read into a core register. A
    // masked-out load touches no memory and reads the padding, as Triton's
    // does.
    int64_t cb = nextCb++;
    ScalarBox box = scalarBox(b, op.getMask() ? scalar(op.getMask()) : Value(), loc);
    mtia::DmaInOp::create(b, loc, scalar(op.getPtr()), box.strides, box.valid, ValueRange{},
                          pad, cb, elemType, box.shape);
    auto read = mtia::ReadOp::create(b, loc, lowerScalarType(resultType), cb, 0);
    if (isa<tt::PointerType>(resultType)) // an address read from memory
      read->setAttr(mtia::kPointerAttr, b.getUnitAttr());
    Value v = read;
    mtia::CbPopOp::create(b, loc, cb, mtia::elementBytes(elemType));
    scalars.map(op.getResult(), v);
    return success();
  }

  if (auto box = structuredBox(op.getPtr(), op.getMask(), shape, loc)) {
    int64_t cb = newTile(op.getResult(), elemType, shape, loc);
    if (auto order = moveInMemoryOrder(*box, shape, elemType)) {
      // The tile holds the block in the box's order: tile dimension
      // order[i] has the stride of the dense box's dimension i.
      SmallVector<int64_t> dense = Lowered::denseStrides(box->shape);
      for (auto [i, d] : llvm::enumerate(*order))
        tensors[op.getResult()].strides[d] = dense[i];
    }
    mtia::DmaInOp::create(b, loc, box->base, box->strides, box->valid, box->begin,
                          pad, cb, elemType, box->shape);
    return success();
  }

  // Unstructured: gather through a tile of addresses.
  reportNonDma(op, op.getPtr(), op.getMask(), shape);
  SmallVector<std::pair<int64_t, int64_t>> temps;
  auto tiles = addressTiles(op, op.getPtr(), op.getMask(), shape, loc, temps);
  if (failed(tiles))
    return failure();
  int64_t cb = newTile(op.getResult(), elemType, shape, loc);
  mtia::GatherInOp::create(b, loc, pad, pointerBase(op.getPtr()), cb, tiles->addrCb,
                           tiles->maskCb, elemType, shape);
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
    ScalarBox box = scalarBox(b, op.getMask() ? scalar(op.getMask()) : Value(), loc);
    int64_t cb = copyToNewTile(Lowered::splat(scalar(op.getValue())), elemType, box.shape,
                               loc, &temps);
    mtia::DmaOutOp::create(b, loc, scalar(op.getPtr()), box.strides, box.valid, ValueRange{},
                           cb, elemType, box.shape);
    for (auto [tmp, bytes] : temps)
      mtia::CbPopOp::create(b, loc, tmp, bytes);
    return success();
  }

  auto value = tensor(op.getValue());
  if (failed(value))
    return failure();
  auto box = structuredBox(op.getPtr(), op.getMask(), shape, loc);
  std::optional<SmallVector<int64_t>> order =
      box ? moveInMemoryOrder(*box, shape, elemType) : std::nullopt;
  int64_t valueCb;
  if (order && !value->isTile()) {
    valueCb = copyToNewTile(*value, elemType, box->shape, loc, &temps);
  } else if (order) {
    // The box moves in memory order: its tile is the value laid out in that
    // order (one SE copy, unless the value already is, as a tile loaded so).
    Lowered inBoxOrder = *value;
    inBoxOrder.shape = box->shape;
    for (auto [i, d] : llvm::enumerate(*order))
      inBoxOrder.strides[i] = value->strides[d];
    valueCb = inBoxOrder.isDense()
                  ? value->cb
                  : copyToNewTile(inBoxOrder, elemType, box->shape, loc, &temps);
  } else {
    valueCb = value->isDense() ? value->cb
                               : copyToNewTile(*value, elemType, shape, loc, &temps);
  }

  if (box) {
    mtia::DmaOutOp::create(b, loc, box->base, box->strides, box->valid, box->begin,
                           valueCb, elemType, box->shape);
  } else {
    reportNonDma(op, op.getPtr(), op.getMask(), shape);
    auto tiles = addressTiles(op, op.getPtr(), op.getMask(), shape, loc, temps);
    if (failed(tiles))
      return failure();
    mtia::ScatterOutOp::create(b, loc, pointerBase(op.getPtr()), valueCb, tiles->addrCb,
                               tiles->maskCb, elemType, shape);
  }
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}


} // namespace mlir::triton_mtia::tt_to_mtia
