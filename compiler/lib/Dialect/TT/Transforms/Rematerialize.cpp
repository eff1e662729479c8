//===- Rematerialize.cpp - Recompute instead of holding a tile -------===//
//
// A PE has 15 circular buffers, and every tile that is live holds one. When a
// kernel keeps more tiles alive than that - Inductor's max_pool2d keeps the
// nine window values for the max and again for the argmax index; bicubic
// interpolation keeps its sixteen taps and eight weights - and stacking
// tiles in one CB cannot absorb it (mtia-assign-cbs stacks only tiles read
// through views, whose whole life is in one block), the lowering's first
// attempt fails in mtia-assign-cbs. The compiler then lowers the
// kernel again after this rewrite, in increasing strengths until one fits:
// a load moves down to its first use, and every later use gets its own copy
// of it; then tiles computed by pure, region-free ops are recomputed too,
// each later use getting the whole expression back to the loads (with loads
// left in place, then moved). The value
// of a load is in memory already, so this is the spilling of a register
// allocator with the spill paid for; the price is the repeated DMAs and SE
// commands, paid only by kernels that do not fit otherwise. A load
// is copied only where it reads what the original read: no op between the
// two may write memory (stores, atomics, prints, asserts, and anything whose
// effects are unknown), and volatile loads are left alone. Uses nested in a
// region (a loop body) are served by one copy before the region's op, not
// one per iteration. The number of copies is bounded (4x the block's ops).
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/TT/Transforms/Passes.h"

#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt {
#define GEN_PASS_DEF_TTREMATERIALIZE
#include "triton-mtia/Dialect/TT/Transforms/Passes.h.inc"

/// True if `op`, or anything nested in it, may write memory. Ops say so
/// through their memory effects; ops with recursive effects are judged by
/// their bodies; anything else is assumed to write.
static bool mayWrite(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        if (auto effects = dyn_cast<MemoryEffectOpInterface>(nested))
          return effects.hasEffect<MemoryEffects::Write>() ? WalkResult::interrupt()
                                                           : WalkResult::advance();
        if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
          return WalkResult::advance();
        return WalkResult::interrupt();
      })
      .wasInterrupted();
}

/// A value the rewrite may recompute at a later use: a non-volatile load
/// (checked for intervening writes separately), or a pure op without
/// regions that makes tensors.
static bool recomputable(Operation *op, bool computed) {
  if (auto load = dyn_cast<tt::LoadOp>(op))
    return !load.getIsVolatile();
  return computed && op->getNumRegions() == 0 && op->getNumResults() > 0 && isPure(op) &&
         llvm::all_of(op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); });
}

/// True if an op strictly between `from` and `to` (same block, `from`
/// first) may write memory.
static bool writesBetween(Operation *from, Operation *to) {
  for (Operation *op = from->getNextNode(); op && op != to; op = op->getNextNode())
    if (mayWrite(op))
      return true;
  return false;
}

static void rematerializeBlock(Block &block, bool computed, bool sinkLoads) {
  // The op of this block that each clone was made for: uses of a value by
  // clones made for the same later op are served by one copy of it.
  DenseMap<Operation *, Operation *> home;
  auto homeOf = [&](Operation *op) { return home.lookup(op) ? home.lookup(op) : op; };
  // Bottom-up, so that a value recomputed at a later use makes its operands
  // used there too, and they are recomputed in turn: each later use gets the
  // whole expression back to loads (and address arithmetic).
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  int64_t budget = 4 * static_cast<int64_t>(ops.size()); // clones, at most
  for (Operation *op : llvm::reverse(ops)) {
    if (!recomputable(op, computed))
      continue;
    // Users grouped by the op they serve, in program order of the group's
    // first member.
    llvm::MapVector<Operation *, Operation *> firstOfGroup; // home -> earliest user op
    for (Operation *user : op->getUsers()) {
      Operation *anchor = block.findAncestorOpInBlock(*user);
      if (!anchor)
        continue;
      Operation *&first = firstOfGroup[homeOf(anchor)];
      if (!first || anchor->isBeforeInBlock(first))
        first = anchor;
    }
    if (firstOfGroup.empty())
      continue;
    SmallVector<std::pair<Operation *, Operation *>> groups(firstOfGroup.begin(), firstOfGroup.end());
    llvm::sort(groups, [](auto &a, auto &b) { return a.second->isBeforeInBlock(b.second); });
    bool isLoad = isa<tt::LoadOp>(op);
    // A load serves the first group from right before it: Inductor hoists
    // loads to the top of a kernel, where they would all hold a CB until
    // their first use. (Computed tiles stay: moving one down would extend
    // the lives of its operands.)
    Operation *firstUse = groups.front().second;
    if (isLoad && sinkLoads && !writesBetween(op, firstUse))
      op->moveBefore(firstUse);
    for (auto &group : llvm::drop_begin(groups)) {
      Operation *groupHome = group.first, *first = group.second;
      if (budget-- <= 0 || (isLoad && writesBetween(op, first)))
        break;
      OpBuilder b(first);
      Operation *copy = b.clone(*op);
      home[copy] = groupHome;
      for (auto [result, copied] : llvm::zip(op->getResults(), copy->getResults()))
        result.replaceUsesWithIf(copied, [&](OpOperand &use) {
          Operation *anchor = block.findAncestorOpInBlock(*use.getOwner());
          return anchor && homeOf(anchor) == groupHome;
        });
    }
  }
}

void rematerialize(tt::FuncOp func, unsigned strength) {
  // 1: loads; 2: loads, not moved, and computed tiles; 3: both, loads moved.
  // Which one fits depends on the kernel: moving a load down shortens its
  // life but can lengthen those of the tiles its recomputed users need.
  bool computed = strength >= 2, sinkLoads = strength != 2;
  SmallVector<Block *> blocks;
  func.walk([&](Block *block) { blocks.push_back(block); });
  for (Block *block : blocks)
    rematerializeBlock(*block, computed, sinkLoads);
}

namespace {
struct TTRematerialize : impl::TTRematerializeBase<TTRematerialize> {
  using TTRematerializeBase::TTRematerializeBase;
  void runOnOperation() override {
    for (tt::FuncOp func : getOperation().getOps<tt::FuncOp>())
      if (!func.isPrivate())
        rematerialize(func, strength);
  }
};
} // namespace

} // namespace mlir::triton_mtia::tt
