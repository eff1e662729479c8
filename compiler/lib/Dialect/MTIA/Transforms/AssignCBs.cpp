//===- AssignCBs.cpp - Virtual to physical circular buffers ---------------===//
//
// After tt-to-mtia every tile value has a CB of its own. A PE has 15. This
// pass computes each virtual CB's live range over the kernel in program
// order, colours the ranges onto physical CBs (ranges that do not overlap
// can share a FIFO, since each is drained before the next is filled), and
// sizes each physical CB.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIAASSIGNCBS
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

struct LiveRange {
  int64_t start = INT64_MAX, end = -1;
  int64_t tileBytes = 0;   ///< largest tile appended
  int64_t outstanding = 0; ///< bytes pushed and not yet popped, in program order
  int64_t peak = 0;        ///< most outstanding bytes at any point
  int64_t loopTileBytes = 0; ///< largest tile appended inside a loop
};

/// Bytes of the tile an op appends to its destination CB.
int64_t producedBytes(Operation *op) {
  auto product = [](ArrayRef<int64_t> dims) {
    int64_t n = 1;
    for (int64_t d : dims)
      n *= d;
    return n;
  };
  if (auto iota = dyn_cast<SeIotaOp>(op))
    return iota.getLength() * elementBytes(iota.getElemType());
  if (auto dpe = dyn_cast<DpeOp>(op))
    return dpe.getM() * dpe.getN() * elementBytes(dpe.getAccType());
  if (auto hist = dyn_cast<SeHistogramOp>(op))
    return hist.getNumBins() * 4;
  ArrayRef<int64_t> dims = op->getAttrOfType<DenseI64ArrayAttr>("shape").asArrayRef();
  Type elemType = op->getAttrOfType<TypeAttr>("elemType").getValue();
  if (auto reduce = dyn_cast<SeReduceOp>(op)) {
    SmallVector<int64_t> out(dims);
    out.erase(out.begin() + reduce.getAxis());
    return product(out) * elementBytes(elemType);
  }
  return product(dims) * elementBytes(elemType);
}

struct MTIAAssignCBs
    : public mlir::triton_mtia::mtia::impl::MTIAAssignCBsBase<MTIAAssignCBs> {
  using MTIAAssignCBsBase::MTIAAssignCBsBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    DenseMap<int64_t, LiveRange> ranges;
    SmallVector<std::pair<int64_t, int64_t>> loops; // [first, last] op index
    int64_t index = 0;
    int64_t loopDepth = 0;

    // Number ops in program order; a loop covers the indices of its body.
    std::function<void(Block &)> visit = [&](Block &block) {
      for (Operation &op : block) {
        int64_t here = index++;
        CbUses uses = getCbUses(&op);
        auto touch = [&](int64_t cb) {
          LiveRange &r = ranges[cb];
          r.start = std::min(r.start, here);
          r.end = std::max(r.end, here);
        };
        for (int64_t cb : uses.reads)
          touch(cb);
        if (uses.writes >= 0) {
          touch(uses.writes);
          LiveRange &r = ranges[uses.writes];
          int64_t bytes = producedBytes(&op);
          r.tileBytes = std::max(r.tileBytes, bytes);
          r.outstanding += bytes;
          r.peak = std::max(r.peak, r.outstanding);
          if (loopDepth > 0)
            r.loopTileBytes = std::max(r.loopTileBytes, bytes);
        }
        if (auto pop = dyn_cast<CbPopOp>(op))
          ranges[pop.getCb()].outstanding -= pop.getBytes();
        const bool loop = isa<scf::ForOp, scf::WhileOp>(op);
        loopDepth += loop;
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            visit(inner);
        loopDepth -= loop;
        if (loop)
          loops.push_back({here, index - 1});
      }
    };
    visit(func.getBody().front());

    // A range that reaches into a loop from outside is live for the whole
    // loop: every iteration reads it.
    for (bool changed = true; changed;) {
      changed = false;
      for (auto &[cb, r] : ranges)
        for (auto [first, last] : loops) {
          bool overlaps = r.start <= last && r.end >= first;
          bool inside = r.start >= first && r.end <= last;
          if (overlaps && !inside &&
              (r.start > first || r.end < last)) {
            r.start = std::min(r.start, first);
            r.end = std::max(r.end, last);
            changed = true;
          }
        }
    }

    // Greedy interval colouring in order of start.
    SmallVector<int64_t> order;
    for (auto &[cb, r] : ranges)
      order.push_back(cb);
    llvm::sort(order, [&](int64_t a, int64_t b) {
      return std::make_pair(ranges[a].start, a) < std::make_pair(ranges[b].start, b);
    });
    SmallVector<int64_t> physEnd, physBytes, physLoopTile;
    DenseMap<int64_t, int64_t> assignment;
    for (int64_t cb : order) {
      LiveRange &r = ranges[cb];
      int64_t chosen = -1;
      for (size_t p = 0; p < physEnd.size(); ++p)
        if (physEnd[p] < r.start) {
          chosen = p;
          break;
        }
      if (chosen < 0) {
        chosen = physEnd.size();
        physEnd.push_back(-1);
        physBytes.push_back(0);
        physLoopTile.push_back(0);
      }
      physEnd[chosen] = r.end;
      physBytes[chosen] = std::max(physBytes[chosen], std::max(r.peak, r.tileBytes));
      physLoopTile[chosen] = std::max(physLoopTile[chosen], r.loopTileBytes);
      assignment[cb] = chosen;
    }
    if (static_cast<int64_t>(physEnd.size()) > numCbs) {
      func.emitError() << "kernel needs " << physEnd.size()
                       << " circular buffers live at once; an MTIA PE has "
                       << numCbs.getValue() << " (split the kernel or use smaller blocks)";
      return signalPassFailure();
    }

    // Double-buffer when local memory allows.
    int64_t total = 0;
    for (int64_t bytes : physBytes)
      total += bytes;
    if (total > localMemoryBytes) {
      func.emitError() << "kernel needs " << total
                       << " bytes of local memory for its tiles; an MTIA PE has "
                       << localMemoryBytes.getValue() << " (use smaller blocks)";
      return signalPassFailure();
    }
    // Double-buffer every CB when local memory allows. Otherwise give the
    // CBs filled inside loops room for one more tile, so that the next
    // iteration's tile (a DMA, typically) can arrive while this one is
    // used: the cheapest first, as long as they fit.
    SmallVector<int64_t> capacity(physBytes);
    if (2 * total <= localMemoryBytes) {
      for (int64_t &bytes : capacity)
        bytes *= 2;
    } else {
      SmallVector<size_t> streamed;
      for (size_t p = 0; p < capacity.size(); ++p)
        if (physLoopTile[p] > 0)
          streamed.push_back(p);
      llvm::stable_sort(streamed, [&](size_t a, size_t b) {
        return physLoopTile[a] < physLoopTile[b];
      });
      for (size_t p : streamed) {
        // A CB whose program-order peak already holds two of its loop tiles
        // (one read while the next is loaded) is double-buffered as it is.
        const int64_t want = std::max(physBytes[p], 2 * physLoopTile[p]);
        if (want > capacity[p] && total + want - capacity[p] <= localMemoryBytes) {
          total += want - capacity[p];
          capacity[p] = want;
        }
      }
    }

    func.walk([&](Operation *op) {
      remapCbs(op, [&](int64_t cb) { return assignment.lookup(cb); });
    });
    func->setAttr(kCbCapacityAttr, DenseI64ArrayAttr::get(&getContext(), capacity));
  }
};

} // namespace
