//===- IssueLoadsEarly.cpp - Loads issued before the core waits -----------===//
//
// A scalar load is a one-element DMA and a blocking read of its tile: the
// core issues the DMA, then waits at the read until the element has come
// from memory (hundreds of cycles from LPDDR). Two scalar loads in a row, a
// segment's start and end offsets as every jagged or CSR kernel loads them,
// pay that wait twice, one after the other, although the second load's
// address was known before the first read:
//
//   dma_in cb0 <- offsets[b];     read cb0;  pop cb0
//   dma_in cb0 <- offsets[b + 1]; read cb0;  pop cb0
//
// The pass moves each `mtia.dma_in` of a block up past the blocking reads
// before it, together with the pure scalar ops that compute its operands, so
// that the core issues it before it starts to wait and the round trips
// overlap:
//
//   dma_in cb0 <- offsets[b]; dma_in cb0 <- offsets[b + 1]
//   read cb0; pop cb0; read cb0; pop cb0
//
// A load moves only past reads, pops, pure scalar ops and loads into other
// CBs: never past a store, scatter, atomic, fence or barrier (it would then
// see other memory), an assert (which may guard the load's address), a
// command of a compute unit (which gains nothing and holds tiles longer) or
// an op with regions. It keeps its place among the loads into its own CB,
// whose tiles the CB's readers take in order (FIFO): a read it passes reads
// the tile in front of it, and mtia-assign-cbs sizes the CB for both tiles.
// A load moves only where it passes at least one read.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIAISSUELOADSEARLY
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

struct IssueLoadsEarly
    : public mlir::triton_mtia::mtia::impl::MTIAIssueLoadsEarlyBase<IssueLoadsEarly> {
  /// Moves `load` up its block as far as it may go, with the pure scalar
  /// ops it needs, if that passes a read; returns whether it moved.
  static bool hoist(DmaInOp load) {
    // The ops that move with the load: the load and what it needs.
    SetVector<Operation *> moving;
    moving.insert(load);
    auto neededByMoving = [&](Operation *op) {
      return llvm::any_of(op->getUsers(), [&](Operation *user) { return moving.contains(user); });
    };
    Operation *target = nullptr; // the op the moving ones go before
    bool passesRead = false;
    for (Operation *prev = load->getPrevNode(); prev; prev = prev->getPrevNode()) {
      if (neededByMoving(prev)) {
        if (!isPureScalar(prev))
          break;
        moving.insert(prev);
        continue;
      }
      if (isa<ReadOp>(prev)) {
        passesRead = true;
      } else if (auto other = dyn_cast<DmaInOp>(prev)) {
        if (other.getCb() == load.getCb())
          break;
      } else if (!isa<CbPopOp>(prev) && !isPureScalar(prev)) {
        break;
      }
      target = prev;
    }
    if (!passesRead || !target)
      return false;
    // `moving` holds the load first, then its operands' defs bottom-up:
    // place them before the target in their original order.
    for (Operation *op : llvm::reverse(moving))
      op->moveBefore(target);
    return true;
  }

  void runOnOperation() override {
    SmallVector<DmaInOp> loads;
    getOperation().walk([&](DmaInOp load) { loads.push_back(load); });
    int64_t moved = llvm::count_if(loads, hoist);
    // triton-mtia-compile lowers a kernel that no longer fits again without
    // this pass, but only when the pass changed it.
    if (moved > 0)
      getOperation()->setAttr(kEarlyLoadsAttr,
                              IntegerAttr::get(IntegerType::get(&getContext(), 64), moved));
  }
};

} // namespace
