//===- EffectiveShapes.cpp - Commands on the valid part of their tiles ----===//
//
// A Triton block has a static shape, but a load masked by `offs < n` fills
// only the box [0, n) of it from memory; the rest is the load's `other`.
// Every SE command downstream still works on the whole block: softmax over
// 781 columns in a 1024-wide block spends a quarter of its SE time on
// padding. The paper's effective-shape propagation (4.1.1) lets those
// commands work on the valid box only (device.h validBox).
//
// The pass follows tiles through their CBs, before mtia-pipeline-commands,
// while every virtual CB that matters has one producer:
//
//  * Boxes. A `dma_in` with `valid` bounds (and no lower bounds) gives its
//    tile that box. An elementwise `se` takes the box of its sources that
//    read a boxed tile in the command's own layout (all the same box, as SSA
//    values); a reduction along an axis keeps its source's box in the other
//    dimensions.
//  * Pads. Besides the box, a tile may carry the value its elements outside
//    the box would hold in the program as written, when that is a constant:
//    a load's `other`, folded through a few elementwise ops; a mask tile
//    `iota < n` is false past a load's box bounded by n, so a select by it
//    takes the other side's pad. A reduction may work on the box only when
//    its source has such a pad: it then reads the lanes outside the box as
//    that value (the fill), so its result is exactly the whole tile's, bit
//    for bit.
//  * Who may be restricted. A restricted elementwise command leaves its
//    result unspecified outside the box, so every reader of that result
//    must read inside the box only: a restricted command of the same block
//    that reads it in its own layout with the same box, or a `dma_out`
//    that stores exactly that box. Starting from every candidate, the pass
//    drops those with another reader until none is left (a fixed point:
//    dropping a command makes it read its sources whole). What remains gets
//    its `valid` operands (and a reduction its `fill`).
//
// Results never change: a restricted command computes the box exactly as
// before, and nothing reads what it no longer computes (the simulator
// writes all-ones bytes there, so a mistake would show). Readers in another
// block are never trusted, since a loop-carried tile's box is another
// iteration's value of the same SSA name.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

#include <algorithm>

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIAEFFECTIVESHAPES
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

/// What the pass knows of the tile a CB's one producer appends.
struct Tile {
  Type elemType;
  SmallVector<int64_t> shape;
  /// The valid box, one i64 per dimension; empty: the whole tile is valid.
  SmallVector<Value> box;
  /// The constant the elements outside the box hold in the program as
  /// written (null: not a known constant).
  TypedAttr pad;
};

/// Dense row-major strides of `shape`.
SmallVector<int64_t> denseStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = int64_t(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// For a view that a command iterating `shape` reads `tile` through: the
/// tile dimension each command dimension walks (-1: broadcast, or extent
/// 1), or nothing when the view is not a plain walk of the tile (an offset,
/// a stride that is no dimension's, a tile dimension left out).
std::optional<SmallVector<int64_t>> dimensionMap(ViewAttr view, ArrayRef<int64_t> shape,
                                                 const Tile &tile) {
  if (view.getOffset() != 0 || view.getElemType() != tile.elemType)
    return std::nullopt;
  SmallVector<int64_t> tileStrides = denseStrides(tile.shape);
  SmallVector<int64_t> map(shape.size(), -1);
  SmallVector<bool> walked(tile.shape.size(), false);
  ArrayRef<int64_t> strides = view.getStrides();
  for (size_t d = 0; d < shape.size(); ++d) {
    if (strides[d] == 0 || shape[d] == 1)
      continue;
    // The tile dimension not yet walked with this stride and extent.
    for (size_t t = 0; t < tile.shape.size() && map[d] < 0; ++t)
      if (!walked[t] && tileStrides[t] == strides[d] && tile.shape[t] == shape[d])
        map[d] = int64_t(t);
    if (map[d] < 0)
      return std::nullopt;
    walked[map[d]] = true;
  }
  for (auto [t, extent] : llvm::enumerate(tile.shape))
    if (!walked[t] && extent != 1)
      return std::nullopt;
  return map;
}

/// Whether a view reads `tile` densely in the command's own layout (every
/// command dimension walks the same tile dimension).
bool isAligned(ViewAttr view, ArrayRef<int64_t> shape, const Tile &tile) {
  if (ArrayRef<int64_t>(tile.shape) != shape)
    return false;
  auto map = dimensionMap(view, shape, tile);
  if (!map)
    return false;
  for (auto [d, t] : llvm::enumerate(*map))
    if (t != int64_t(d) && shape[d] != 1)
      return false;
  return true;
}

/// The pad of an elementwise command's result from its operands' pads
/// (null: not a known constant): a select by a mask whose pad is known
/// picks one side's, and a few f32 cases whose result is exact and known
/// fold (null otherwise).
TypedAttr foldPad(SeOp se, ArrayRef<Attribute> operands) {
  if (se.getOpcode() == "Select") {
    auto mask = dyn_cast_or_null<IntegerAttr>(operands[0]);
    return mask ? dyn_cast_or_null<TypedAttr>(operands[mask.getValue().isZero() ? 2 : 1])
                : TypedAttr();
  }
  if (!se.getElemType().isF32())
    return {};
  SmallVector<APFloat> x;
  for (Attribute a : operands) {
    auto f = dyn_cast_or_null<FloatAttr>(a);
    if (!f || !f.getType().isF32())
      return {};
    x.push_back(f.getValue());
  }
  StringRef op = se.getOpcode();
  std::optional<APFloat> r;
  if (x.size() == 1) {
    if (op == "Copy" || op == "Neg" || op == "Abs") {
      r = x[0];
      if (op == "Neg")
        r->changeSign();
      if (op == "Abs")
        r->clearSign();
    } else if (op == "Exp" && x[0].isInfinity()) {
      r = x[0].isNegative() ? APFloat::getZero(x[0].getSemantics()) : x[0];
    }
  } else if (x.size() == 2) {
    APFloat v = x[0];
    if (op == "Add")
      v.add(x[1], APFloat::rmNearestTiesToEven), r = v;
    else if (op == "Sub")
      v.subtract(x[1], APFloat::rmNearestTiesToEven), r = v;
    else if (op == "Mul")
      v.multiply(x[1], APFloat::rmNearestTiesToEven), r = v;
    else if (op == "Max" && !x[0].isNaN() && !x[1].isNaN())
      r = llvm::maxnum(x[0], x[1]);
    else if (op == "Min" && !x[0].isNaN() && !x[1].isNaN())
      r = llvm::minnum(x[0], x[1]);
  }
  if (!r || r->isNaN()) // NaN payloads are the simulator's business
    return {};
  return FloatAttr::get(se.getElemType(), *r);
}

class EffectiveShapes {
public:
  explicit EffectiveShapes(func::FuncOp func) : func(func), dominance(func) {}

  void run() {
    collect();
    propagate();
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *op : llvm::to_vector(restricted))
        if (!onlyReadInsideTheBox(op)) {
          restricted.remove(op);
          changed = true;
        }
    }
    apply();
  }

private:
  /// Producers and readers of every CB, and the loads' bounds.
  void collect() {
    func.walk([&](Operation *op) {
      if (auto dma = dyn_cast<DmaInOp>(op); dma && dma.getBegin().empty())
        loadBounds.insert(dma.getValid().begin(), dma.getValid().end());
      CbUses uses = getCbUses(op);
      if (uses.writes >= 0)
        producers[uses.writes].push_back(op);
      if (isa<CbPopOp>(op))
        return;
      for (int64_t cb : uses.reads)
        readers[cb].insert(op);
    });
  }

  /// The tile of `cb`, when it has one producer.
  const Tile *tileOf(int64_t cb) const {
    auto it = tiles.find(cb);
    return it == tiles.end() ? nullptr : &it->second;
  }

  /// Boxes and pads in program order, and the candidate commands.
  void propagate() {
    func.walk([&](Operation *op) {
      int64_t cb = getCbUses(op).writes;
      if (cb < 0 || producers[cb].size() != 1)
        return;
      Tile tile;
      if (auto dma = dyn_cast<DmaInOp>(op)) {
        tile.elemType = dma.getElemType();
        tile.shape.assign(dma.getShape().begin(), dma.getShape().end());
        if (dma.getBegin().empty() && dma.getValid().size() == tile.shape.size())
          tile.box.assign(dma.getValid().begin(), dma.getValid().end());
        // Constant bounds that cover the tile (an unmasked load's) restrict
        // nothing; as a box they would only keep the commands from being
        // split between the SE and the vector core.
        if (llvm::all_of(llvm::zip(tile.box, tile.shape), [](auto bound) {
              APInt v;
              return matchPattern(std::get<0>(bound), m_ConstantInt(&v)) &&
                     v.getSExtValue() >= std::get<1>(bound);
            }))
          tile.box.clear();
        if (!dma.getPad())
          tile.pad = cast<TypedAttr>(Builder(op).getZeroAttr(tile.elemType));
        else
          matchPattern(dma.getPad(), m_Constant(&tile.pad));
      } else if (auto se = dyn_cast<SeOp>(op)) {
        tile.elemType = se.getElemType();
        tile.shape.assign(se.getShape().begin(), se.getShape().end());
        elementwise(se, tile);
      } else if (auto reduce = dyn_cast<SeReduceOp>(op)) {
        tile.elemType = reduce.getElemType();
        tile.shape.assign(reduce.getShape().begin(), reduce.getShape().end());
        tile.shape.erase(tile.shape.begin() + reduce.getAxis());
        reduction(reduce, tile);
      } else {
        return;
      }
      tiles[cb] = std::move(tile);
    });
  }

  void elementwise(SeOp se, Tile &tile) {
    if (Value bound = maskBound(se)) {
      // `iota < n`: false on every lane past its box, whatever n is.
      tile.box = {bound};
      tile.pad = IntegerAttr::get(se.getElemType(), 0);
      if (dominatesOp(tile.box, se))
        restricted.insert(se);
      return;
    }
    // One pad per operand, null where it is not a known constant.
    SmallVector<Attribute> pads;
    unsigned nextImm = 0;
    for (Attribute src : se.getSrcs()) {
      auto view = dyn_cast<ViewAttr>(src);
      if (!view) {
        Attribute imm;
        matchPattern(se.getImms()[nextImm++], m_Constant(&imm));
        pads.push_back(imm);
        continue;
      }
      const Tile *from = tileOf(view.getCb());
      // A broadcast reads in-box values outside the box, and a whole tile
      // has real data where the box ends: not pads.
      if (!from || !isAligned(view, se.getShape(), *from) || from->box.empty()) {
        pads.push_back({});
        continue;
      }
      pads.push_back(from->pad);
      if (tile.box.empty())
        tile.box = from->box;
      else if (tile.box != from->box)
        return (void)(tile.box.clear()); // two different boxes: leave it whole
    }
    if (tile.box.empty())
      return;
    tile.pad = foldPad(se, pads);
    if (dominatesOp(tile.box, se))
      restricted.insert(se);
  }

  /// For `CmpLt(iota, n)` over a 1-D tile of L lanes (`offs < n`, the
  /// mask of a load): the bound of some load's box that is n clamped to
  /// [0, L], as the lowering writes it (`min(max(ext(n), 0), L)`), else
  /// null. Lanes past that bound compare false.
  Value maskBound(SeOp se) {
    ArrayRef<int64_t> shape = se.getShape();
    if (se.getOpcode() != "CmpLt" || shape.size() != 1 || se.getImms().size() != 1)
      return {};
    auto lanes = dyn_cast<ViewAttr>(se.getSrcs()[0]);
    if (!lanes || lanes.getOffset() != 0 || lanes.getStrides()[0] != 1 ||
        producers[lanes.getCb()].size() != 1)
      return {};
    auto iota = dyn_cast<SeIotaOp>(producers[lanes.getCb()].front());
    if (!iota || iota.getStart() != 0 || iota.getLength() != shape[0])
      return {};
    Value n = se.getImms()[0];
    for (Value bound : loadBounds)
      if (isClamped(bound, n, shape[0]))
        return bound;
    return {};
  }

  /// Whether `v` is `min(max(n, 0), hi)`, n perhaps sign-extended, or both
  /// are constants with that relation.
  static bool isClamped(Value v, Value n, int64_t hi) {
    auto constant = [](Value x, int64_t c) {
      APInt value;
      return matchPattern(x, m_ConstantInt(&value)) && value.getSExtValue() == c;
    };
    APInt nValue, vValue; // Triton specializes n = 1; the clamp then folds
    if (matchPattern(n, m_ConstantInt(&nValue)) && matchPattern(v, m_ConstantInt(&vValue)))
      return vValue.getSExtValue() == std::clamp<int64_t>(nValue.getSExtValue(), 0, hi);
    auto min = v.getDefiningOp<arith::MinSIOp>();
    if (!min)
      return false;
    Value lo = min.getLhs();
    if (!constant(min.getRhs(), hi))
      return false;
    auto max = lo.getDefiningOp<arith::MaxSIOp>();
    if (!max || !constant(max.getRhs(), 0))
      return false;
    Value x = max.getLhs();
    if (auto ext = x.getDefiningOp<arith::ExtSIOp>())
      x = ext.getIn();
    return x == n;
  }

  void reduction(SeReduceOp reduce, Tile &tile) {
    const Tile *from = tileOf(reduce.getSrc().getCb());
    if (!from || from->box.empty() || !from->pad ||
        !isAligned(reduce.getSrc(), reduce.getShape(), *from) || !dominatesOp(from->box, reduce))
      return;
    restricted.insert(reduce);
    tile.box = from->box;
    tile.box.erase(tile.box.begin() + reduce.getAxis());
    // Only the other dimensions' box is left; with none, the result is
    // whole (the fill made the reduction exact).
  }

  bool dominatesOp(ArrayRef<Value> values, Operation *op) {
    return llvm::all_of(values, [&](Value v) { return dominance.properlyDominates(v, op); });
  }

  /// The box a restricted command computes: a reduction's is its
  /// source's, an elementwise command's that of the tile it appends.
  ArrayRef<Value> boxOf(Operation *op) {
    if (auto reduce = dyn_cast<SeReduceOp>(op))
      return tiles[reduce.getSrc().getCb()].box;
    return tiles[getCbUses(op).writes].box;
  }

  /// Whether what restricted `op` leaves unspecified is never read: every
  /// reader of its result reads inside the box only.
  bool onlyReadInsideTheBox(Operation *op) {
    int64_t cb = getCbUses(op).writes;
    const Tile &tile = tiles[cb];
    if (tile.box.empty())
      return true; // a reduction whose result is whole
    for (Operation *reader : readers[cb]) {
      if (reader->getBlock() != op->getBlock() || !op->isBeforeInBlock(reader))
        return false;
      if (auto store = dyn_cast<DmaOutOp>(reader)) {
        if (!store.getBegin().empty() || ArrayRef<int64_t>(tile.shape) != store.getShape() ||
            !llvm::equal(store.getValid(), tile.box))
          return false;
        continue;
      }
      if (!restricted.contains(reader))
        return false;
      ArrayRef<int64_t> shape = reader->getAttrOfType<DenseI64ArrayAttr>("shape").asArrayRef();
      ArrayRef<Value> readerBox = boxOf(reader);
      SmallVector<ViewAttr> views;
      if (auto se = dyn_cast<SeOp>(reader)) {
        for (Attribute src : se.getSrcs())
          if (auto view = dyn_cast<ViewAttr>(src); view && view.getCb() == cb)
            views.push_back(view);
      } else if (auto reduce = dyn_cast<SeReduceOp>(reader)) {
        views.push_back(reduce.getSrc());
      }
      for (ViewAttr view : views) {
        if (isAligned(view, shape, tile) && llvm::equal(readerBox, tile.box))
          continue;
        // Each dimension the view walks must be bounded by the same box.
        auto map = dimensionMap(view, shape, tile);
        if (!map)
          return false;
        SmallVector<bool> bounded(tile.shape.size(), false);
        for (auto [d, t] : llvm::enumerate(*map)) {
          if (t < 0)
            continue;
          if (readerBox[d] != tile.box[t])
            return false;
          bounded[t] = true;
        }
        // A tile dimension of extent 1 that the view does not walk is read
        // at 0, inside the box only if its bound is at least 1: unknown.
        if (llvm::is_contained(bounded, false))
          return false;
      }
    }
    return true;
  }

  void apply() {
    for (Operation *op : restricted) {
      SmallVector<Value> box(boxOf(op));
      if (auto se = dyn_cast<SeOp>(op)) {
        se.getValidMutable().assign(box);
      } else {
        auto reduce = cast<SeReduceOp>(op);
        reduce.getValidMutable().assign(box);
        reduce.setFillAttr(tiles[reduce.getSrc().getCb()].pad); // the source's pad
      }
    }
  }

  func::FuncOp func;
  DominanceInfo dominance;
  DenseMap<int64_t, SmallVector<Operation *, 1>> producers;
  DenseMap<int64_t, llvm::SetVector<Operation *>> readers;
  std::map<int64_t, Tile> tiles;
  llvm::SetVector<Value> loadBounds;
  /// Commands that may work on their box, in program order.
  llvm::SetVector<Operation *> restricted;
};

struct MTIAEffectiveShapes
    : public mlir::triton_mtia::mtia::impl::MTIAEffectiveShapesBase<MTIAEffectiveShapes> {
  void runOnOperation() override { EffectiveShapes(getOperation()).run(); }
};

} // namespace
