//===- LegalizeRank.cpp - Commands over tiles of rank above 4 ---------===//
//
// Triton tensors may have any rank; the device API's Shape, Box and view
// strides have four dimensions (so do the simulator's loops, as a unit's
// address generator would). Elementwise commands, MLU copies and SE
// reductions and scans append a dense tile, so only their source views
// constrain which dimensions can be merged: two adjacent dimensions are one
// when every view steps over the inner one exactly as a dense tile would
// (a reduced or scanned axis merges with nothing). What is left above rank
// 4 is split into one command per outer index.
//
// Commands that read and write only dense tiles (gathers, scatters, asserts)
// become 1-D. Atomics and histograms read dense address, mask and count
// tiles from the front of their CBs, which a split could not offset, so they
// only merge. DMA boxes have kMaxBoxRank dimensions of their own (their
// strides are run-time values that no compile-time merge could see through).
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIALEGALIZERANK
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

/// The dialect's kTileRank and kBoxRank (the device API's), as sizes.
constexpr size_t kDeviceRank = kTileRank;
constexpr size_t kDeviceBoxRank = kBoxRank;
/// Commands one source command may become (the kernel's code grows with it).
constexpr int64_t kMaxChunks = 4096;

/// Merges the dimensions of `shape` that every view of `views` (strides per
/// dimension) steps over densely. Returns the new shape; `views` get the
/// new strides. `axis`, when >= 0, is a reduced or scanned dimension: it is
/// kept and merged with no neighbour, and is updated to its new position.
SmallVector<int64_t> collapse(ArrayRef<int64_t> shape,
                              SmallVectorImpl<SmallVector<int64_t>> &views,
                              int64_t &axis) {
  // Size-1 dimensions index nothing.
  SmallVector<int64_t> dims;
  SmallVector<SmallVector<int64_t>> strides(views.size());
  int64_t newAxis = -1;
  for (size_t d = 0; d < shape.size(); ++d) {
    bool isAxis = static_cast<int64_t>(d) == axis;
    if (shape[d] == 1 && !isAxis)
      continue;
    if (isAxis)
      newAxis = static_cast<int64_t>(dims.size());
    dims.push_back(shape[d]);
    for (size_t v = 0; v < views.size(); ++v)
      strides[v].push_back(views[v][d]);
  }
  if (dims.empty()) {
    dims.push_back(1);
    for (auto &s : strides)
      s.push_back(0);
  }
  // Merge d into d + 1 from the inside out.
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    bool dense = llvm::all_of(strides, [&](const SmallVector<int64_t> &s) {
      return s[d] == s[d + 1] * dims[d + 1];
    });
    if (!dense || d == newAxis || d + 1 == newAxis)
      continue;
    if (newAxis > d)
      --newAxis;
    dims[d] *= dims[d + 1];
    dims.erase(dims.begin() + d + 1);
    // Element i of the merged dimension is i * (inner stride) away.
    for (auto &s : strides)
      s.erase(s.begin() + d);
  }
  for (size_t v = 0; v < views.size(); ++v)
    views[v] = strides[v];
  axis = newAxis;
  return dims;
}


struct MTIALegalizeRank
    : public mlir::triton_mtia::mtia::impl::MTIALegalizeRankBase<MTIALegalizeRank> {
  using MTIALegalizeRankBase::MTIALegalizeRankBase;

  void runOnOperation() override {
    WalkResult result = getOperation().walk([&](Operation *op) {
      auto shapeAttr = op->getAttrOfType<DenseI64ArrayAttr>("shape");
      if (!shapeAttr || shapeAttr.size() <= kDeviceRank)
        return WalkResult::advance();
      if (failed(legalize(op, shapeAttr.asArrayRef())))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult legalize(Operation *op, ArrayRef<int64_t> shape) {
    auto fail = [&] {
      return op->emitError() << "a tile of rank " << shape.size()
                             << " whose views do not collapse to the device's "
                             << kDeviceRank << " dimensions is not supported by the "
                             << "MTIA backend yet";
    };
    MLIRContext *ctx = op->getContext();
    if (isa<DmaInOp, DmaOutOp>(op)) {
      if (shape.size() <= kDeviceBoxRank)
        return success();
      return op->emitError() << "a DMA of rank " << shape.size()
                             << " is not supported by the MTIA backend (DMA boxes have "
                             << kDeviceBoxRank << " dimensions)";
    }
    if (isa<GatherInOp, ScatterOutOp, AssertOp>(op)) {
      op->setAttr("shape", DenseI64ArrayAttr::get(ctx, {numElements(shape)}));
      return success();
    }
    // The views the command reads, in order of its srcs.
    SmallVector<ViewAttr> views;
    ArrayAttr srcs;
    bool splittable = true;
    if (isa<AtomicRmwOp, AtomicCasOp>(op)) {
      srcs = op->getAttrOfType<ArrayAttr>("srcs");
      for (Attribute a : srcs)
        if (auto v = dyn_cast<ViewAttr>(a))
          views.push_back(v);
      splittable = false;
    } else if (auto hist = dyn_cast<SeHistogramOp>(op)) {
      views.push_back(hist.getSrc());
      splittable = false;
    } else if (auto se = dyn_cast<SeOp>(op)) {
      srcs = se.getSrcs();
      for (Attribute a : srcs)
        if (auto v = dyn_cast<ViewAttr>(a))
          views.push_back(v);
    } else if (auto copy = dyn_cast<MluCopyOp>(op)) {
      views.push_back(copy.getSrc());
    } else if (isa<SeReduceOp, SeScanOp>(op)) {
      // One view, along an axis; the result is dense (without the axis, for
      // a reduction), so it collapses with the input.
      views.push_back(cast<ViewAttr>(op->getAttr("src")));
    } else {
      return fail();
    }
    int64_t axis = -1;
    if (auto a = op->getAttrOfType<IntegerAttr>("axis"))
      axis = a.getInt();
    SmallVector<SmallVector<int64_t>> strides;
    for (ViewAttr v : views)
      strides.emplace_back(v.getStrides());
    SmallVector<int64_t> dims = collapse(shape, strides, axis);
    // Still too many: one command per index of the outer dimensions, each
    // over the inner four, in row-major order, so the results append to
    // the same dense tile. A reduced or scanned axis must be inner.
    size_t outer = dims.size() > kDeviceRank ? dims.size() - kDeviceRank : 0;
    if (axis >= 0 && static_cast<size_t>(axis) < outer)
      return fail();
    if (outer > 0 && !splittable)
      return fail();
    int64_t chunks = 1;
    for (size_t d = 0; d < outer; ++d)
      chunks *= dims[d];
    if (chunks > kMaxChunks)
      return fail();
    if (axis >= 0)
      op->setAttr("axis", IntegerAttr::get(IntegerType::get(ctx, 64),
                                           axis - static_cast<int64_t>(outer)));
    SmallVector<int64_t> inner(dims.begin() + outer, dims.end());
    op->setAttr("shape", DenseI64ArrayAttr::get(ctx, inner));
    OpBuilder b(op);
    for (int64_t c = 0; c < chunks; ++c) {
      // The chunk's outer index, row-major, and each view's offset there.
      SmallVector<int64_t> offsets(views.size(), 0);
      for (int64_t rest = c, d = static_cast<int64_t>(outer) - 1; d >= 0; --d) {
        int64_t i = rest % dims[d];
        rest /= dims[d];
        for (size_t v = 0; v < views.size(); ++v)
          offsets[v] += i * strides[v][d];
      }
      auto rebuilt = [&](size_t v) {
        ArrayRef<int64_t> s(strides[v]);
        return ViewAttr::get(ctx, views[v].getCb(), views[v].getElemType(),
                             views[v].getOffset() + offsets[v], s.drop_front(outer));
      };
      Operation *chunk = c + 1 == chunks ? op : b.clone(*op);
      if (srcs) {
        SmallVector<Attribute> newSrcs;
        size_t next = 0;
        for (Attribute a : srcs)
          newSrcs.push_back(isa<ViewAttr>(a) ? Attribute(rebuilt(next++)) : a);
        chunk->setAttr("srcs", ArrayAttr::get(ctx, newSrcs));
      } else {
        chunk->setAttr("src", rebuilt(0));
      }
    }
    return success();
  }
};

} // namespace
