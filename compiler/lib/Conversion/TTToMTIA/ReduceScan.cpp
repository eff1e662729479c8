//===- ReduceScan.cpp - Reductions and scans with any combine region ---===//
//
// A combine region that is one add/mul/max/min/and/or/xor of one operand maps
// to a single se_reduce (TTToMTIA.cpp) or se_scan. Anything else (argmax's
// (value, index) pairs, user combine functions) runs the region's scalar ops
// elementwise as SE commands over whole tiles:
//
//  * reductions: a tree. Each level combines the two halves of the reduced
//    axis, read as two views of one dense tile (the right half is the same
//    view at an element offset), so a level costs one SE command per op of
//    the region and no data movement;
//  * scans: Hillis-Steele. The scanned axis is first made the outermost one
//    (one strided copy), so that "the first d rows, then the combined rest"
//    is a concatenation of two tiles appended to one CB. log2(n) steps.
//
// Also here: tt.histogram -> se_histogram and tt.gather -> se_gather.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

using Temps = SmallVectorImpl<std::pair<int64_t, int64_t>>;

static int64_t tileBytes(Type elemType, ArrayRef<int64_t> shape) {
  return numElements(shape) * mtia::elementBytes(elemType);
}

/// A view of the dense tile in `cb` (laid out in `tileShape`) read over
/// `viewShape` starting `offset` elements past the front.
static Lowered denseView(int64_t cb, Type elemType, ArrayRef<int64_t> tileShape,
                         ArrayRef<int64_t> viewShape, int64_t offset) {
  Lowered l = Lowered::tile(cb, elemType, viewShape);
  SmallVector<int64_t> strides = Lowered::denseStrides(tileShape);
  for (auto [d, size] : llvm::enumerate(viewShape))
    if (size == 1)
      strides[d] = 0;
  l.strides = strides;
  l.offset = offset;
  return l;
}

/// Runs the scalar ops of a combine region elementwise over `shape`: each op
/// becomes one SE command whose operands are the tiles (or splats) its
/// operands became. Returns what the region's terminator operands became;
/// the tiles among them are added to `temps`. A tile that only feeds other
/// ops of the region is popped after its last reader, so that the region
/// holds as many CBs as values are live at once in it, not one per op
/// (argmax's combine has a dozen ops; a PE has 15 CBs).
FailureOr<SmallVector<Lowered>>
KernelLowering::lowerCombine(Block &body, ArrayRef<Lowered> args,
                             ArrayRef<int64_t> shape, Location loc,
                             Temps &temps) {
  Operation *terminator = body.getTerminator();
  DenseMap<Value, Operation *> lastReader;
  for (Operation &op : body.without_terminator())
    for (Value v : op.getOperands())
      lastReader[v] = &op;
  for (Value v : terminator->getOperands())
    lastReader[v] = terminator;
  // value -> (cb, bytes), in creation order so that pops come out in a
  // deterministic order.
  llvm::MapVector<Value, std::pair<int64_t, int64_t>> ownTiles;
  DenseMap<Value, Lowered> local;
  for (auto [arg, l] : llvm::zip(body.getArguments(), args))
    local[arg] = l;
  auto lookup = [&](Value v) -> std::optional<Lowered> {
    auto it = local.find(v);
    if (it != local.end())
      return it->second;
    if (Value s = scalar(v)) // a value from outside the region
      return Lowered::splat(s);
    return std::nullopt;
  };
  for (Operation &op : body.without_terminator()) {
    if (op.getNumResults() != 1)
      return op.emitError("'") << op.getName()
                               << "' in a combine region is not supported by "
                                  "the MTIA backend yet",
             failure();
    SmallVector<Lowered> operands;
    bool allSplat = true;
    for (Value v : op.getOperands()) {
      auto l = lookup(v);
      if (!l)
        return op.emitError("internal: combine operand was not lowered"),
               failure();
      allSplat &= !l->isTile();
      operands.push_back(*l);
    }
    if (allSplat) {
      // Constants and math on them: once, on the core.
      IRMapping map;
      for (auto [v, l] : llvm::zip(op.getOperands(), operands))
        map.map(v, l.scalar);
      Operation *clone = b.clone(op, map);
      local[op.getResult(0)] = Lowered::splat(clone->getResult(0));
      continue;
    }
    StringRef opcode = seOpcodeFor(&op);
    if (opcode.empty())
      return op.emitError("'") << op.getName()
                               << "' in a combine region is not supported by "
                                  "the MTIA backend yet",
             failure();
    Type elemType = lowerScalarType(op.getResult(0).getType());
    SmallVector<Value> imms;
    SmallVector<Attribute> srcs;
    for (const Lowered &l : operands)
      srcs.push_back(sourceOf(l, imms));
    int64_t cb = nextCb++;
    emitElementwise(op.getLoc(), imms, opcode, cb, elemType, shape, srcs);
    ownTiles[op.getResult(0)] = {cb, tileBytes(elemType, shape)};
    local[op.getResult(0)] = Lowered::tile(cb, elemType, shape);
    for (Value v : llvm::to_vector(llvm::make_first_range(ownTiles))) {
      auto it = lastReader.find(v);
      if (it != lastReader.end() && it->second == &op) {
        mtia::CbPopOp::create(b, loc, ownTiles[v].first, ownTiles[v].second);
        ownTiles.erase(v);
      }
    }
  }
  // Tiles nothing reads (dead code in the region) are popped; those the
  // region yields go to the caller.
  for (auto &[v, tile] : ownTiles) {
    if (lastReader.lookup(v) == terminator)
      temps.push_back(tile);
    else
      mtia::CbPopOp::create(b, loc, tile.first, tile.second);
  }
  SmallVector<Lowered> results;
  for (Value v : body.getTerminator()->getOperands()) {
    auto l = lookup(v);
    if (!l)
      return emitError(loc, "internal: combine result was not lowered"),
             failure();
    results.push_back(*l);
  }
  return results;
}

/// Makes `outs[k]` dense tiles owned by the caller: a fresh tile created by
/// the combine is taken out of `temps`; anything else (an argument passed
/// through, a splat) is copied into a new CB.
static void claimResults(SmallVectorImpl<Lowered> &outs,
                         ArrayRef<Type> elemTypes, ArrayRef<int64_t> shape,
                         Temps &temps, function_ref<int64_t(const Lowered &, Type)> copy) {
  for (auto [k, out] : llvm::enumerate(outs)) {
    int64_t outCb = out.cb;
    auto it = llvm::find_if(temps, [&](auto &t) { return t.first == outCb; });
    if (out.isTile() && out.isDense() && it != temps.end() &&
        out.elemType == elemTypes[k]) {
      temps.erase(it);
      continue;
    }
    int64_t cb = copy(out, elemTypes[k]);
    outs[k] = Lowered::tile(cb, elemTypes[k], shape);
  }
}

/// Reduction whose combine region is not a single SE reduction: a tree of
/// halvings of the reduced axis.
LogicalResult KernelLowering::lowerCombineReduce(tt::ReduceOp op) {
  Location loc = op.getLoc();
  int64_t axis = op.getAxis();
  auto srcType0 = cast<RankedTensorType>(op.getSrcs()[0].getType());
  SmallVector<int64_t> shape(srcType0.getShape());
  int64_t n = shape[axis];
  if (!llvm::isPowerOf2_64(n))
    return unsupported(op, "reductions over a non-power-of-2 axis");
  Block &body = op.getCombineOp().front();

  SmallVector<Type> elemTypes;
  SmallVector<Lowered> cur;
  SmallVector<std::pair<int64_t, int64_t>> setup;
  for (Value src : op.getSrcs()) {
    auto l = tensor(src);
    if (failed(l))
      return failure();
    Type elemType = tileElementType(src.getType());
    elemTypes.push_back(elemType);
    // Always an owned dense copy: levels pop the previous level's tiles.
    int64_t cb = nextCb++;
    emitCopy(*l, cb, elemType, shape, loc);
    cur.push_back(Lowered::tile(cb, elemType, shape));
  }
  SmallVector<int64_t> curShape = shape;
  while (curShape[axis] > 1) {
    int64_t half = curShape[axis] / 2;
    SmallVector<int64_t> next = curShape;
    next[axis] = half;
    int64_t offset = half * Lowered::denseStrides(curShape)[axis];
    SmallVector<Lowered> args;
    for (const Lowered &l : cur)
      args.push_back(denseView(l.cb, l.elemType, curShape, next, 0));
    for (const Lowered &l : cur)
      args.push_back(denseView(l.cb, l.elemType, curShape, next, offset));
    SmallVector<std::pair<int64_t, int64_t>> temps;
    auto outs = lowerCombine(body, args, next, loc, temps);
    if (failed(outs))
      return failure();
    claimResults(*outs, elemTypes, next, temps,
                 [&](const Lowered &l, Type t) {
                   int64_t cb = nextCb++;
                   emitCopy(l, cb, t, next, loc);
                   return cb;
                 });
    for (auto [tmp, bytes] : temps)
      mtia::CbPopOp::create(b, loc, tmp, bytes);
    for (const Lowered &l : cur)
      mtia::CbPopOp::create(b, loc, l.cb, tileBytes(l.elemType, curShape));
    cur = std::move(*outs);
    curShape = next;
  }
  // The reduced axis has size 1: the dense tile is the result's layout.
  for (auto [k, result] : llvm::enumerate(op.getResult())) {
    SmallVector<int64_t> outShape = shapeOf(result.getType());
    tensors[result] = Lowered::tile(cur[k].cb, elemTypes[k], outShape);
    if (!isa<RankedTensorType>(result.getType()) &&
        llvm::any_of(result.getUsers(),
                     [](Operation *u) { return !isa<tt::SplatOp>(u); }))
      scalars.map(result, mtia::ReadOp::create(b, loc, elemTypes[k], cur[k].cb, 0));
    schedulePop(result, cur[k].cb, tileBytes(elemTypes[k], outShape));
  }
  return success();
}

/// Inclusive scan: se_scan for a single-op combine of one operand, else
/// Hillis-Steele over the axis moved outermost.
LogicalResult KernelLowering::lowerScan(tt::ScanOp op) {
  Location loc = op.getLoc();
  int64_t axis = op.getAxis();
  bool reverse = op.getReverse();
  auto srcType0 = cast<RankedTensorType>(op.getSrcs()[0].getType());
  SmallVector<int64_t> shape(srcType0.getShape());
  int64_t rank = shape.size();
  Block &body = op.getCombineOp().front();

  StringRef kind = op.getSrcs().size() == 1 ? combineKindFor(body) : "";
  if (!kind.empty()) {
    auto in = tensor(op.getSrcs()[0]);
    if (failed(in))
      return failure();
    Type elemType = tileElementType(srcType0);
    SmallVector<std::pair<int64_t, int64_t>> temps;
    Lowered src = *in;
    if (!src.isTile())
      src = Lowered::tile(copyToNewTile(src, elemType, shape, loc, &temps),
                          elemType, shape);
    int64_t cb = newTile(op.getResult()[0], elemType, shape, loc);
    mtia::SeScanOp::create(
        b, loc, kind, cb, elemType, shape, axis, reverse,
        mtia::ViewAttr::get(b.getContext(), src.cb, src.elemType, src.offset,
                            src.strides));
    for (auto [tmp, bytes] : temps)
      mtia::CbPopOp::create(b, loc, tmp, bytes);
    return success();
  }

  // General combine. Layout [n, rest...]: the scanned axis outermost.
  SmallVector<int64_t> perm = {axis};
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis)
      perm.push_back(d);
  SmallVector<int64_t> tShape;
  for (int64_t d : perm)
    tShape.push_back(shape[d]);
  int64_t n = shape[axis];
  int64_t rest = numElements(shape) / n;
  // Views over the transposed tile are 2-D [rows, rest] (1-D when rest = 1).
  auto rows = [&](int64_t count) {
    return rest == 1 ? SmallVector<int64_t>{count}
                     : SmallVector<int64_t>{count, rest};
  };
  SmallVector<int64_t> flat = rows(n);

  SmallVector<Type> elemTypes;
  SmallVector<Lowered> cur;
  for (Value src : op.getSrcs()) {
    auto l = tensor(src);
    if (failed(l))
      return failure();
    Type elemType = tileElementType(src.getType());
    elemTypes.push_back(elemType);
    Lowered permuted = *l;
    if (permuted.isTile()) {
      permuted.shape = tShape;
      SmallVector<int64_t> strides;
      for (int64_t d : perm)
        strides.push_back(l->strides[d]);
      permuted.strides = strides;
    }
    int64_t cb = nextCb++;
    emitCopy(permuted, cb, elemType, tShape, loc);
    cur.push_back(Lowered::tile(cb, elemType, flat));
  }
  int64_t numOps = cur.size();
  for (int64_t d = 1; d < n; d *= 2) {
    SmallVector<int64_t> part = rows(n - d);
    SmallVector<Lowered> args(2 * numOps);
    for (auto [k, l] : llvm::enumerate(cur)) {
      Lowered lo = denseView(l.cb, l.elemType, flat, part, 0);
      Lowered hi = denseView(l.cb, l.elemType, flat, part, d * rest);
      // Arguments: (earlier..., current...). Forward: out[i] = f(x[i-d], x[i]);
      // reverse: out[i] = f(x[i+d], x[i]).
      args[k] = reverse ? hi : lo;
      args[numOps + k] = reverse ? lo : hi;
    }
    SmallVector<std::pair<int64_t, int64_t>> temps;
    auto outs = lowerCombine(body, args, part, loc, temps);
    if (failed(outs))
      return failure();
    SmallVector<Lowered> next;
    for (auto [k, l] : llvm::enumerate(cur)) {
      // Two commands append to one CB: the rows that keep their value and
      // the combined rows, in memory order.
      int64_t cb = nextCb++;
      Lowered kept = denseView(l.cb, l.elemType, flat, rows(d),
                               reverse ? (n - d) * rest : 0);
      if (!reverse)
        emitCopy(kept, cb, elemTypes[k], rows(d), loc);
      emitCopy((*outs)[k], cb, elemTypes[k], part, loc);
      if (reverse)
        emitCopy(kept, cb, elemTypes[k], rows(d), loc);
      next.push_back(Lowered::tile(cb, elemTypes[k], flat));
    }
    for (auto [tmp, bytes] : temps)
      mtia::CbPopOp::create(b, loc, tmp, bytes);
    for (const Lowered &l : cur)
      mtia::CbPopOp::create(b, loc, l.cb, tileBytes(l.elemType, flat));
    cur = std::move(next);
  }
  // Back to the source layout.
  SmallVector<int64_t> tStrides = Lowered::denseStrides(tShape);
  for (auto [k, result] : llvm::enumerate(op.getResult())) {
    Lowered back = Lowered::tile(cur[k].cb, elemTypes[k], shape);
    for (int64_t p = 0; p < rank; ++p)
      back.strides[perm[p]] = shape[perm[p]] == 1 ? 0 : tStrides[p];
    int64_t cb = newTile(result, elemTypes[k], shape, loc);
    emitCopy(back, cb, elemTypes[k], shape, loc);
    mtia::CbPopOp::create(b, loc, cur[k].cb, tileBytes(elemTypes[k], flat));
  }
  return success();
}

/// tt.histogram: se_histogram of the integer values into i32 bins.
LogicalResult KernelLowering::lowerHistogram(tt::HistogramOp op) {
  Location loc = op.getLoc();
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  SmallVector<int64_t> inShape(srcType.getShape());
  auto in = tensor(op.getSrc());
  if (failed(in))
    return failure();
  SmallVector<std::pair<int64_t, int64_t>> temps;
  Lowered src = *in;
  if (!src.isTile())
    src = Lowered::tile(copyToNewTile(src, srcType.getElementType(), inShape,
                                      loc, &temps),
                        srcType.getElementType(), inShape);
  int64_t maskCb = -1;
  if (Value mask = op.getMask()) {
    auto m = tensor(mask);
    if (failed(m))
      return failure();
    maskCb = denseCb(*m, b.getI1Type(), inShape, loc, temps);
  }
  auto resultType = cast<RankedTensorType>(op.getType());
  int64_t bins = resultType.getDimSize(0);
  int64_t cb = newTile(op.getResult(), resultType.getElementType(), {bins}, loc);
  mtia::SeHistogramOp::create(
      b, loc, cb, bins, inShape,
      mtia::ViewAttr::get(b.getContext(), src.cb, src.elemType, src.offset,
                          src.strides),
      maskCb);
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}

/// tt.gather: se_gather along `axis` of a tile by an index tile.
/// The values of an integer tensor that constants alone determine, row-major:
/// ranges, constant splats, their sums, differences and products, integer
/// casts and layout ops that keep row-major order or broadcast. std::nullopt
/// for anything else, or a tensor too large to be worth evaluating.
static std::optional<SmallVector<int64_t>> constantIndices(Value v, unsigned depth = 0) {
  constexpr int64_t kMaxElements = 1 << 16;
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || !type.getElementType().isInteger() || depth > 16 ||
      type.getNumElements() > kMaxElements)
    return std::nullopt;
  const int64_t n = type.getNumElements();
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  DenseIntElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense))) {
    SmallVector<int64_t> values;
    if (dense.isSplat())
      values.assign(n, dense.getSplatValue<APInt>().getSExtValue());
    else
      for (const APInt &x : dense.getValues<APInt>())
        values.push_back(x.getSExtValue());
    return values;
  }
  if (auto range = dyn_cast<tt::MakeRangeOp>(def)) {
    SmallVector<int64_t> values(n);
    for (int64_t i = 0; i < n; ++i)
      values[i] = int64_t(range.getStart()) + i;
    return values;
  }
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    APInt x;
    if (!matchPattern(splat.getSrc(), m_ConstantInt(&x)))
      return std::nullopt;
    return SmallVector<int64_t>(n, x.getSExtValue());
  }
  if (isa<tt::ExpandDimsOp, tt::ReshapeOp, arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(def))
    return constantIndices(def->getOperand(0), depth + 1);
  if (auto bc = dyn_cast<tt::BroadcastOp>(def)) {
    auto in = constantIndices(bc.getSrc(), depth + 1);
    if (!in)
      return std::nullopt;
    ArrayRef<int64_t> from = cast<RankedTensorType>(bc.getSrc().getType()).getShape();
    ArrayRef<int64_t> to = type.getShape();
    SmallVector<int64_t> values(n);
    for (int64_t i = 0; i < n; ++i) {
      // Row-major position in `to` -> in `from` (size-1 dimensions repeat).
      int64_t rest = i, at = 0, stride = 1;
      for (int64_t d = int64_t(to.size()) - 1; d >= 0; --d) {
        const int64_t index = rest % to[d];
        rest /= to[d];
        at += (from[d] == 1 ? 0 : index) * stride;
        stride *= from[d];
      }
      values[i] = (*in)[at];
    }
    return values;
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MulIOp>(def)) {
    auto lhs = constantIndices(def->getOperand(0), depth + 1);
    auto rhs = lhs ? constantIndices(def->getOperand(1), depth + 1) : std::nullopt;
    if (!rhs)
      return std::nullopt;
    for (int64_t i = 0; i < n; ++i)
      (*lhs)[i] = isa<arith::AddIOp>(def)   ? (*lhs)[i] + (*rhs)[i]
                  : isa<arith::SubIOp>(def) ? (*lhs)[i] - (*rhs)[i]
                                            : (*lhs)[i] * (*rhs)[i];
    return lhs;
  }
  return std::nullopt;
}

std::optional<int64_t> constantSliceOffset(tt::GatherOp op) {
  auto indices = constantIndices(op.getIndices());
  if (!indices || indices->empty())
    return std::nullopt;
  ArrayRef<int64_t> shape = cast<RankedTensorType>(op.getIndices().getType()).getShape();
  ArrayRef<int64_t> srcShape = cast<RankedTensorType>(op.getSrc().getType()).getShape();
  const int64_t axis = op.getAxis(), offset = (*indices)[0];
  if (offset < 0 || offset + shape[axis] > srcShape[axis])
    return std::nullopt;
  int64_t inner = 1; // elements per step along `axis` in row-major order
  for (int64_t d = axis + 1; d < int64_t(shape.size()); ++d)
    inner *= shape[d];
  for (auto [i, value] : llvm::enumerate(*indices))
    if (value != offset + (int64_t(i) / inner) % shape[axis])
      return std::nullopt;
  return offset;
}

LogicalResult KernelLowering::lowerGather(tt::GatherOp op) {
  Location loc = op.getLoc();
  auto srcType = cast<RankedTensorType>(op.getSrc().getType());
  auto idxType = cast<RankedTensorType>(op.getIndices().getType());
  SmallVector<int64_t> srcShape(srcType.getShape()), outShape(idxType.getShape());
  auto src = tensor(op.getSrc());
  if (failed(src))
    return failure();
  // A slice at a constant offset: a view of the source's tile, no command
  // (isViewOp keeps the source's tile until the view's last reader).
  if (std::optional<int64_t> offset = constantSliceOffset(op)) {
    Lowered view = *src;
    if (view.isTile()) {
      view.offset += *offset * view.strides[op.getAxis()];
      view.shape = outShape;
    }
    tensors[op.getResult()] = view;
    return success();
  }
  auto idx = tensor(op.getIndices());
  if (failed(idx))
    return failure();
  SmallVector<std::pair<int64_t, int64_t>> temps;
  Type elemType = tileElementType(srcType);
  Lowered s = *src, i = *idx;
  if (!s.isTile())
    s = Lowered::tile(copyToNewTile(s, elemType, srcShape, loc, &temps),
                      elemType, srcShape);
  if (!i.isTile())
    i = Lowered::tile(copyToNewTile(i, idxType.getElementType(), outShape, loc,
                                    &temps),
                      idxType.getElementType(), outShape);
  int64_t cb = newTile(op.getResult(), elemType, outShape, loc);
  mtia::SeGatherOp::create(
      b, loc, cb, elemType, outShape, op.getAxis(),
      mtia::ViewAttr::get(b.getContext(), s.cb, s.elemType, s.offset, s.strides),
      srcShape,
      mtia::ViewAttr::get(b.getContext(), i.cb, i.elemType, i.offset, i.strides));
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}

} // namespace mlir::triton_mtia::tt_to_mtia
