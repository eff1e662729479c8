//===- ReplaceFront.cpp - A result takes the room of the tile it replaces -===//
//
// `acc += x` in a loop lowers to a command that appends the new accumulator
// to the loop-carried CB, behind the old one, and a pop of the old one after
// it: for a moment both are in the CB, and mtia-assign-cbs sizes it for two.
// A [16, 1024] int64 accumulator is 128 KiB, so two of them and the tile
// being added are most of a PE's 384 KiB.
//
// When a command reads the front tile of its own CB and the next thing that
// happens to that CB is a pop of exactly as many bytes as the command
// appends, nothing reads the popped tile after the command: the pop can go
// with it. The pass marks the command
// `mtia.replace_front` and erases the pop; the device then pops the front
// tile as the command reads it and lets the result take its room (device.h
// replaceFront). Results do not change, and neither does time, except that
// the command now waits for earlier readers of the tile it replaces (a
// store of the accumulator issued before it), which a loop's carried
// accumulator never has.
//
// Only SE and vector-core elementwise commands (and fused vector loops) are
// marked: they are what accumulates in SE-bound kernels. The DPE's `acc = tl.dot(a, b, acc)`
// could be next, once its effect on pipelined GEMMs is measured.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIAREPLACEFRONT
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

/// The pop of `cb` that is the next use of `cb` after `op` in its block, if
/// no op between touches `cb` (reads, appends, pops, or may do so inside a
/// region).
CbPopOp nextPopOf(Operation *op, int64_t cb) {
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    if (auto pop = dyn_cast<CbPopOp>(next); pop && pop.getCb() == cb)
      return pop;
    if (next->getNumRegions() > 0)
      return {};
    CbUses uses = getCbUses(next);
    if (uses.writes == cb || llvm::is_contained(uses.reads, cb))
      return {};
  }
  return {};
}

/// Whether elementwise command `op` reads at least `bytes` from the front
/// of `cb`: then `cb` holds that much before `op` appends to it, and the
/// pop after `op` pops a tile that was there before it, not the one `op`
/// appends.
bool readsFront(Operation *op, int64_t cb, int64_t bytes) {
  ArrayRef<int64_t> shape = op->getAttrOfType<DenseI64ArrayAttr>("shape").asArrayRef();
  if (numElements(shape) == 0)
    return false;
  for (Attribute src : op->getAttrOfType<ArrayAttr>("srcs")) {
    auto view = dyn_cast<ViewAttr>(src);
    if (!view || view.getCb() != cb)
      continue;
    if (viewElementRange(view, shape).second * elementBytes(view.getElemType()) >= bytes)
      return true;
  }
  return false;
}

struct MTIAReplaceFront
    : public mlir::triton_mtia::mtia::impl::MTIAReplaceFrontBase<MTIAReplaceFront> {
  void runOnOperation() override {
    SmallVector<std::pair<Operation *, CbPopOp>> folds;
    getOperation().walk([&](Operation *op) {
      if (!isa<SeOp, VecLoopOp>(op))
        return;
      const int64_t cb = getCbUses(op).writes;
      CbPopOp pop = nextPopOf(op, cb);
      if (pop && pop.getBytes() == producedBytes(op) && readsFront(op, cb, pop.getBytes()))
        folds.push_back({op, pop});
    });
    for (auto [se, pop] : folds) {
      se->setAttr(kReplaceFrontAttr, UnitAttr::get(&getContext()));
      pop.erase();
    }
  }
};

} // namespace
