//===- AssignCBs.cpp - Virtual to physical circular buffers ---------------===//
//
// After tt-to-mtia every tile value has a CB of its own. A PE has 15. This
// pass computes each virtual CB's live range over the kernel in program
// order, colours the ranges onto physical CBs (ranges that do not overlap
// can share a FIFO, since each is drained before the next is filled), and
// sizes each physical CB.
//
// When more ranges overlap than there are CBs, tiles whose lives overlap
// are stacked in one CB: they sit one behind the other in the FIFO, and
// every view of one is offset by the bytes in front of it at that point of
// the program (a CB is read at any offset from its front). A tile is
// popped when it and every tile in front of it are dead, so a stack can
// hold dead bytes for a while; its size is its simulated peak. Stacked are
// only tiles pushed and popped in one block, read there or inside the
// regions of its ops (a loop reading a tile made before it), and read only
// through views (never as the front of a DMA out, scatter, print, assert,
// or an address or mask tile), longest lives first, one at a time until
// the colouring fits. Kernels that fit without it are not touched.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"
#include "triton-mtia/Dialect/MTIA/Transforms/ResourceShortage.h"

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

/// What stacking needs to know of a virtual CB.
struct CbLife {
  Block *block = nullptr; ///< the block of its first use
  bool local = true;      ///< every use is an op directly in `block`
  bool viewsOnly = true;  ///< read only through views (or mtia.read)
  int64_t pushed = 0, popped = 0;
};

/// The result of colouring live ranges onto physical CBs.
struct Colouring {
  SmallVector<int64_t> physEnd, physBytes, physLoopTile;
  DenseMap<int64_t, int64_t> assignment;
  size_t size() const { return physEnd.size(); }
};

/// Greedy interval colouring in order of start.
Colouring colour(const DenseMap<int64_t, LiveRange> &ranges) {
  SmallVector<int64_t> order;
  for (auto &[cb, r] : ranges)
    order.push_back(cb);
  llvm::sort(order, [&](int64_t a, int64_t b) {
    return std::make_pair(ranges.lookup(a).start, a) < std::make_pair(ranges.lookup(b).start, b);
  });
  Colouring c;
  for (int64_t cb : order) {
    const LiveRange &r = ranges.lookup(cb);
    // Best fit among the free CBs: the one whose capacity (and loop tile,
    // which pipelining multiplies) grows least, then the smallest that
    // holds it, so that the tiles of loops one after another share CBs of
    // their own sizes instead of each CB growing to the largest it met.
    const int64_t need = std::max(r.peak, r.tileBytes);
    int64_t chosen = -1;
    std::pair<int64_t, int64_t> best;
    for (size_t p = 0; p < c.physEnd.size(); ++p) {
      if (c.physEnd[p] >= r.start)
        continue;
      const int64_t growth = std::max<int64_t>(0, need - c.physBytes[p]) +
                             std::max<int64_t>(0, r.loopTileBytes - c.physLoopTile[p]);
      const std::pair<int64_t, int64_t> key = {growth, c.physBytes[p]};
      if (chosen < 0 || key < best) {
        chosen = p;
        best = key;
      }
    }
    if (chosen < 0) {
      chosen = c.physEnd.size();
      c.physEnd.push_back(-1);
      c.physBytes.push_back(0);
      c.physLoopTile.push_back(0);
    }
    c.physEnd[chosen] = r.end;
    c.physBytes[chosen] = std::max(c.physBytes[chosen], std::max(r.peak, r.tileBytes));
    c.physLoopTile[chosen] = std::max(c.physLoopTile[chosen], r.loopTileBytes);
    c.assignment[cb] = chosen;
  }
  return c;
}

/// Tiles of several virtual CBs of one block in one FIFO: walks the block
/// in program order, keeping where each member's tile lies behind the front.
/// Fails where a member cannot stay one contiguous tile (another member
/// pushed between two of its pushes), a view's offset would not be a whole
/// number of its elements, or the block leaves bytes in the stack. With
/// `stackCb` >= 0 it rewrites the block: members become `stackCb`, views and
/// reads are offset, and pops release what reached the front.
struct Stack {
  Block *block;
  DenseSet<int64_t> members;

  struct Segment {
    int64_t cb, start, size, consumed;
  };

  LogicalResult walk(int64_t stackCb, int64_t &peak) {
    SmallVector<Segment> queue;
    int64_t front = 0, back = 0;
    peak = 0;
    MLIRContext *ctx = block->getParentOp()->getContext();
    auto find = [&](int64_t cb) -> Segment * {
      for (Segment &s : queue)
        if (s.cb == cb)
          return &s;
      return nullptr;
    };
    // Bytes from the front to where a member's live tile starts.
    auto behind = [&](int64_t cb, int64_t es, int64_t &elements) {
      Segment *s = find(cb);
      if (!s)
        return false;
      int64_t bytes = s->start + s->consumed - front;
      if (bytes % es != 0)
        return false;
      elements = bytes / es;
      return true;
    };
    for (Operation &op : llvm::make_early_inc_range(*block)) {
      if (auto pop = dyn_cast<CbPopOp>(op); pop && members.contains(pop.getCb())) {
        Segment *s = find(pop.getCb());
        if (!s || s->consumed + pop.getBytes() > s->size)
          return failure();
        s->consumed += pop.getBytes();
        int64_t newFront = front;
        while (!queue.empty() && queue.front().consumed == queue.front().size) {
          newFront = queue.front().start + queue.front().size;
          queue.erase(queue.begin());
        }
        if (!queue.empty())
          newFront = queue.front().start + queue.front().consumed;
        if (stackCb >= 0) {
          if (newFront > front) {
            pop.setCb(stackCb);
            pop.setBytes(newFront - front);
          } else {
            pop.erase();
          }
        }
        front = newFront;
        continue;
      }
      // An op with regions (a loop, a branch) may read members, at the
      // offsets they have here, but must not push or pop them.
      if (op.getNumRegions() > 0) {
        bool ok = true;
        op.walk([&](Operation *inner) {
          if (inner == &op)
            return;
          CbUses uses = getCbUses(inner);
          if (uses.writes >= 0 && members.contains(uses.writes))
            ok = false;
          if (auto pop = dyn_cast<CbPopOp>(inner); pop && members.contains(pop.getCb()))
            ok = false;
          if (ok && failed(rewriteReads(*inner, stackCb, behind)))
            ok = false;
        });
        if (!ok)
          return failure();
        continue;
      }
      if (failed(rewriteReads(op, stackCb, behind)))
        return failure();
      CbUses uses = getCbUses(&op);
      if (uses.writes >= 0 && members.contains(uses.writes)) {
        if (op.hasAttr(kReplaceFrontAttr))
          return failure(); // its pop and push are one command
        int64_t bytes = producedBytes(&op);
        Segment *s = find(uses.writes);
        if (s && s != &queue.back())
          return failure();
        if (s)
          s->size += bytes;
        else
          queue.push_back({uses.writes, back, bytes, 0});
        back += bytes;
        peak = std::max(peak, back - front);
        if (stackCb >= 0)
          op.setAttr("cb", IntegerAttr::get(IntegerType::get(ctx, 64), stackCb));
      }
    }
    return success(queue.empty());
  }

  /// Offsets `op`'s views and reads of members by where their tiles lie
  /// behind the front (rewriting them into `stackCb` when it is >= 0).
  template <typename Behind>
  LogicalResult rewriteReads(Operation &op, int64_t stackCb, Behind &behind) {
    MLIRContext *ctx = op.getContext();
    auto moved = [&](ViewAttr view, Attribute &out) {
      if (!members.contains(view.getCb()))
        return true;
      int64_t elements;
      if (!behind(view.getCb(), elementBytes(view.getElemType()), elements))
        return false;
      out = ViewAttr::get(ctx, stackCb, view.getElemType(), view.getOffset() + elements,
                          view.getStrides());
      return true;
    };
    for (NamedAttribute attr : op.getAttrs()) {
      if (auto view = dyn_cast<ViewAttr>(attr.getValue())) {
        Attribute out;
        if (!moved(view, out))
          return failure();
        if (stackCb >= 0 && out)
          op.setAttr(attr.getName(), out);
      } else if (auto array = dyn_cast<ArrayAttr>(attr.getValue())) {
        SmallVector<Attribute> elements(array.begin(), array.end());
        for (Attribute &element : elements)
          if (auto view = dyn_cast<ViewAttr>(element)) {
            Attribute out;
            if (!moved(view, out))
              return failure();
            if (out)
              element = out;
          }
        if (stackCb >= 0)
          op.setAttr(attr.getName(), ArrayAttr::get(ctx, elements));
      }
    }
    if (auto read = dyn_cast<ReadOp>(op); read && members.contains(read.getCb())) {
      int64_t elements;
      if (!behind(read.getCb(), elementBytes(read.getType()), elements))
        return failure();
      if (stackCb >= 0) {
        read.setCb(stackCb);
        read.setIndex(read.getIndex() + elements);
      }
    }
    return success();
  }
};

struct MTIAAssignCBs
    : public mlir::triton_mtia::mtia::impl::MTIAAssignCBsBase<MTIAAssignCBs> {
  using MTIAAssignCBsBase::MTIAAssignCBsBase;

  /// Stacks virtual CBs (see the file comment) until the colouring fits in
  /// numCbs; rewrites the function and returns true if it does.
  bool stack(DenseMap<int64_t, LiveRange> &ranges, const DenseMap<int64_t, CbLife> &lives,
             Colouring &colouring) {
    SmallVector<int64_t> candidates;
    int64_t nextCb = 0;
    for (auto &[cb, life] : lives) {
      nextCb = std::max(nextCb, cb + 1);
      if (life.local && life.viewsOnly && life.pushed > 0 && life.pushed == life.popped)
        candidates.push_back(cb);
    }
    auto length = [&](int64_t cb) { return ranges[cb].end - ranges[cb].start; };
    llvm::sort(candidates, [&](int64_t a, int64_t b) {
      return std::make_pair(-length(a), a) < std::make_pair(-length(b), b);
    });
    // One stack per block, each standing for its members as one range.
    SmallVector<Stack> stacks;
    SmallVector<int64_t> peaks;
    auto merged = [&] {
      DenseMap<int64_t, LiveRange> out = ranges;
      for (auto [i, st] : llvm::enumerate(stacks)) {
        if (st.members.size() < 2)
          continue;
        LiveRange all;
        for (int64_t cb : st.members) {
          const LiveRange &r = ranges[cb];
          all.start = std::min(all.start, r.start);
          all.end = std::max(all.end, r.end);
          all.tileBytes = std::max(all.tileBytes, r.tileBytes);
          all.loopTileBytes = std::max(all.loopTileBytes, r.loopTileBytes);
          out.erase(cb);
        }
        all.peak = peaks[i];
        out[nextCb + static_cast<int64_t>(i)] = all;
      }
      return out;
    };
    bool fits = false;
    for (int64_t cb : candidates) {
      Block *block = lives.lookup(cb).block;
      auto it = llvm::find_if(stacks, [&](const Stack &st) { return st.block == block; });
      if (it == stacks.end()) {
        stacks.push_back({block, {}});
        peaks.push_back(0);
        it = std::prev(stacks.end());
      }
      size_t i = it - stacks.begin();
      it->members.insert(cb);
      int64_t peak;
      if (failed(it->walk(-1, peak))) {
        it->members.erase(cb);
        continue;
      }
      peaks[i] = peak;
      if (static_cast<int64_t>(colour(merged()).size()) <= numCbs) {
        fits = true;
        break;
      }
    }
    if (!fits)
      return false;
    ranges = merged();
    for (auto [i, st] : llvm::enumerate(stacks)) {
      int64_t peak;
      if (st.members.size() >= 2)
        (void)st.walk(nextCb + static_cast<int64_t>(i), peak);
    }
    colouring = colour(ranges);
    return true;
  }

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    DenseMap<int64_t, LiveRange> ranges;
    DenseMap<int64_t, CbLife> lives;
    SmallVector<std::pair<int64_t, int64_t>> loops; // [first, last] op index
    int64_t index = 0;
    int64_t loopDepth = 0;
    bool useAfterPop = false;

    // Number ops in program order; a loop covers the indices of its body.
    std::function<void(Block &)> visit = [&](Block &block) {
      for (Operation &op : block) {
        int64_t here = index++;
        CbUses uses = getCbUses(&op);
        // A tile stays stackable when it is pushed and popped in one block
        // and read there or inside the regions of that block's ops (a loop
        // reading a tile defined before it): nothing moves it meanwhile.
        const bool isPop = isa<CbPopOp>(op);
        auto touch = [&](int64_t cb, bool write) {
          LiveRange &r = ranges[cb];
          r.start = std::min(r.start, here);
          r.end = std::max(r.end, here);
          CbLife &life = lives[cb];
          if (!life.block)
            life.block = &block;
          const bool nestedRead = !write && !isPop && life.block->findAncestorOpInBlock(op);
          life.local &= life.block == &block || nestedRead;
        };
        // Reads of the front: a DMA out, scatter, print or assert of `cb`,
        // address and mask tiles.
        if (isa<DmaOutOp, ScatterOutOp, PrintOp, AssertOp>(op))
          lives[op.getAttrOfType<IntegerAttr>("cb").getInt()].viewsOnly = false;
        for (StringRef name : {"addrCb", "maskCb"})
          if (auto cb = op.getAttrOfType<IntegerAttr>(name); cb && cb.getInt() >= 0)
            lives[cb.getInt()].viewsOnly = false;
        for (int64_t cb : uses.reads) {
          // A command that reads a CB none of whose tiles is there any more
          // (in program order, every byte pushed popped) waits forever on
          // the chip: a lowering bug, reported here instead of as a
          // deadlock of the kernel.
          if (!isPop && !op.hasAttr(kReplaceFrontAttr) && ranges.count(cb) &&
              ranges[cb].outstanding <= 0 && lives[cb].pushed > 0 && !useAfterPop) {
            op.emitError() << "internal: reads CB " << cb
                           << " after its every tile was popped (a tile used after its last "
                              "reader's pop): please report this compiler bug";
            useAfterPop = true;
          }
          touch(cb, /*write=*/false);
        }
        if (uses.writes >= 0) {
          touch(uses.writes, /*write=*/true);
          LiveRange &r = ranges[uses.writes];
          int64_t bytes = producedBytes(&op);
          // mtia-replace-front: the command pops the front tile, as many
          // bytes as it appends, before its result needs the room. Running
          // ahead of its reader gains it nothing (it reads that tile).
          const bool replaces = op.hasAttr(kReplaceFrontAttr);
          if (replaces) {
            r.outstanding -= bytes;
            lives[uses.writes].popped += bytes;
          }
          r.tileBytes = std::max(r.tileBytes, bytes);
          r.outstanding += bytes;
          r.peak = std::max(r.peak, r.outstanding);
          lives[uses.writes].pushed += bytes;
          if (loopDepth > 0 && !replaces)
            r.loopTileBytes = std::max(r.loopTileBytes, bytes);
        }
        if (auto pop = dyn_cast<CbPopOp>(op)) {
          ranges[pop.getCb()].outstanding -= pop.getBytes();
          lives[pop.getCb()].popped += pop.getBytes();
        }
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
    if (useAfterPop)
      return signalPassFailure();

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

    Colouring colouring = colour(ranges);
    if (static_cast<int64_t>(colouring.size()) > numCbs &&
        (!stacking || !stack(ranges, lives, colouring))) {
      recordResourceShortage({Resource::CircularBuffers,
                              static_cast<int64_t>(colouring.size()), numCbs.getValue()});
      func.emitError() << "kernel needs " << colouring.size()
                       << " circular buffers live at once; an MTIA PE has "
                       << numCbs.getValue() << " (split the kernel or use smaller blocks)";
      return signalPassFailure();
    }
    SmallVector<int64_t> &physBytes = colouring.physBytes;
    SmallVector<int64_t> &physLoopTile = colouring.physLoopTile;
    DenseMap<int64_t, int64_t> &assignment = colouring.assignment;

    // Local memory: every CB's program-order peak must fit.
    int64_t total = 0;
    for (int64_t bytes : physBytes)
      total += bytes;
    if (total > localMemoryBytes) {
      recordResourceShortage({Resource::LocalMemory, total, localMemoryBytes.getValue()});
      func.emitError() << "kernel needs " << total
                       << " bytes of local memory for its tiles; an MTIA PE has "
                       << localMemoryBytes.getValue() << " (use smaller blocks)";
      return signalPassFailure();
    }
    // Pipelining depth, Triton's num_stages: a CB filled inside a loop holds
    // up to numStages of its loop tiles, so the producer of the next ones (a
    // DMA, typically) runs that far ahead of their reader. Greedy, one stage
    // at a time over those CBs, the cheapest first, as long as local memory
    // allows; every CB is double-buffered first when everything fits twice.
    // Depth 1 is no pipelining: each CB holds its program-order peak.
    SmallVector<int64_t> capacity(physBytes);
    SmallVector<size_t> streamed;
    for (size_t p = 0; p < capacity.size(); ++p)
      if (physLoopTile[p] > 0)
        streamed.push_back(p);
    llvm::stable_sort(streamed, [&](size_t a, size_t b) {
      return physLoopTile[a] < physLoopTile[b];
    });
    if (numStages >= 2 && 2 * total <= localMemoryBytes) {
      for (int64_t &bytes : capacity)
        bytes *= 2;
      total *= 2;
    }
    for (int64_t depth = 2; depth <= numStages; ++depth)
      for (size_t p : streamed) {
        // A CB whose program-order peak already holds `depth` of its loop
        // tiles is that deep as it is.
        const int64_t want = std::max(physBytes[p], depth * physLoopTile[p]);
        if (want > capacity[p] && total + want - capacity[p] <= localMemoryBytes) {
          total += want - capacity[p];
          capacity[p] = want;
        }
      }

    func.walk([&](Operation *op) {
      remapCbs(op, [&](int64_t cb) { return assignment.lookup(cb); });
    });
    func->setAttr(kCbCapacityAttr, DenseI64ArrayAttr::get(&getContext(), capacity));
  }
};

} // namespace
