//===- PipelineCommands.cpp - Issue the next iteration's head early -------===//
//
// Every unit of a PE runs its commands in the order the core issued them.
// In a loop such as fused attention's
//
//   k = load K[i];  s = q k^T (DPE);  softmax(s) (SE, ten commands);
//   v = load V[i];  acc = p v (DPE)
//
// the DPE's queue is s_0, pv_0, s_1, pv_1, ...: s_1 waits behind pv_0,
// which waits for the whole softmax of block 0, so the DPE and the SE take
// turns instead of working at once. The author's fix is to compute s_{i+1}
// before softmax(s_i) by hand (paper 4.1.3, software pipelining); this pass
// does it for kernels as written.
//
// The loop body is split in two stages. Stage 0 is what the next
// iteration can issue before this one's tail: loads (dma_in, gather_in),
// dots, and the SE commands they need, whose inputs are the induction
// variable, values defined before the loop, and other stage-0 results (not
// loop-carried tiles or values, not scalars read from tiles). Everything
// else is stage 1. The loop becomes
//
//   if (lb < ub) stage0(lb)
//   for i: { if (i + step < ub) stage0(i + step);  stage1(i) }
//
// This is correct on CB FIFOs because every virtual CB that stage 0 fills
// and stage 1 reads holds one tile per iteration, pushed by one command:
// when stage1(i) reads it, tile i is at the front and tile i + 1 behind it,
// and stage1(i) pops tile i. A CB that stage 0 reads itself must be read
// only by stage 0 (its pops move with it), or stage0(i + 1) would read
// tile i. mtia-assign-cbs then sees two tiles of such a CB live at once and
// sizes it for them.
//
// Loops that write memory (stores, scatters, atomics) or wait at barriers
// are left alone: a load of iteration i + 1 issued before iteration i's
// store would not see it. A loop whose stage 0 has no dot or SE command is
// left alone too: the core already issues loads ahead (issue is
// asynchronous), so moving them alone gains nothing and costs memory.
// Nested loops are pipelined innermost first; only the body's own ops (not
// ops in nested regions) are moved.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIAPIPELINECOMMANDS
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

/// Commands that may run one iteration ahead: they only append a tile.
bool isAheadCommand(Operation *op) {
  return isa<DmaInOp, GatherInOp, DpeOp, SeOp, SeReduceOp, SeIotaOp>(op) &&
         op->getNumRegions() == 0;
}

/// Whether the loop writes memory or waits for the units anywhere inside.
bool writesOrWaits(scf::ForOp loop) {
  return loop.getBody()
      ->walk([](Operation *op) {
        return isa<DmaOutOp, ScatterOutOp, AtomicRmwOp, AtomicCasOp, BarrierOp, FenceOp>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

class LoopPipeliner {
public:
  explicit LoopPipeliner(scf::ForOp loop) : loop(loop), body(loop.getBody()) {}

  /// Splits and rewrites the loop; false when it is left as it is.
  bool run() {
    if (writesOrWaits(loop))
      return false;
    collectCbs();
    chooseStageZero();
    bool computes = llvm::any_of(stageZero, [](Operation *op) {
      return isa<DpeOp, SeOp, SeReduceOp, SeIotaOp>(op);
    });
    if (!computes)
      return false;
    rewrite();
    return true;
  }

private:
  /// Who pushes, reads and pops each CB inside the loop.
  void collectCbs() {
    CbUsers users = collectCbUsers(loop);
    pushers = std::move(users.writers);
    readers = std::move(users.readers);
    pops = std::move(users.pops);
    // CBs pushed before the loop and also inside it are loop-carried.
    Operation *func = loop->getParentOfType<func::FuncOp>();
    func->walk([&](Operation *op) {
      CbUses uses = getCbUses(op);
      if (uses.writes >= 0 && !loop->isAncestor(op))
        pushedOutside.insert(uses.writes);
    });
  }

  /// Whether scalar `v` is known one iteration ahead: defined before the
  /// loop, the induction variable, or computed from those by pure ops of
  /// the body (collected into `scalars`).
  bool scalarAhead(Value v) {
    if (v == loop.getInductionVar())
      return true;
    Operation *def = v.getDefiningOp();
    if (!def)
      return !body->getParent()->isAncestor(v.getParentRegion());
    if (!loop->isAncestor(def))
      return true;
    if (def->getBlock() != body || !isPureScalar(def))
      return false;
    if (scalars.contains(def))
      return true;
    if (!llvm::all_of(def->getOperands(), [&](Value o) { return scalarAhead(o); }))
      return false;
    scalars.insert(def);
    return true;
  }

  /// Whether `op` (a command of the body) can be issued an iteration early,
  /// adding it and what it needs to `candidates`.
  bool ahead(Operation *op) {
    if (candidates.contains(op))
      return true;
    if (rejected.contains(op) || op->getBlock() != body || !isAheadCommand(op))
      return false;
    auto reject = [&] {
      rejected.insert(op);
      return false;
    };
    for (Value v : op->getOperands())
      if (!scalarAhead(v))
        return reject();
    // The CB it fills holds one tile per iteration, from it alone.
    int64_t cb = getCbUses(op).writes;
    if (cb < 0 || pushedOutside.contains(cb) || pushers[cb].size() != 1)
      return reject();
    for (int64_t read : getCbUses(op).reads) {
      if (!pushers.count(read))
        continue; // filled before the loop and not inside it
      if (pushedOutside.contains(read) || pushers[read].size() != 1)
        return reject();
      Operation *producer = pushers[read].front();
      if (!producer->isBeforeInBlock(op) || !ahead(producer))
        return reject();
    }
    candidates.insert(op);
    return true;
  }

  /// Whether every reader of `cb` in the loop is in stage 0.
  bool readOnlyByStageZero(int64_t cb) {
    return llvm::all_of(readers[cb], [&](Operation *r) { return candidates.contains(r); });
  }

  void chooseStageZero() {
    for (Operation &op : *body)
      if (isa<DmaInOp, GatherInOp, DpeOp>(op))
        ahead(&op);
    // A CB read by stage 0 must be read (and popped) only by stage 0, at
    // the body's top level. Drop readers that break this until none do.
    for (bool changed = true; changed;) {
      changed = false;
      for (Operation *op : llvm::to_vector(candidates)) {
        bool ok = true;
        for (int64_t read : getCbUses(op).reads) {
          if (!pushers.count(read))
            continue;
          bool producerKept = candidates.contains(pushers[read].front());
          bool onlyStageZero = readOnlyByStageZero(read);
          bool popsHere = llvm::all_of(pops[read], [&](Operation *p) {
            return p->getBlock() == body;
          });
          ok &= producerKept && onlyStageZero && popsHere;
        }
        if (!ok) {
          candidates.remove(op);
          changed = true;
        }
      }
    }
    for (Operation &op : *body) {
      if (candidates.contains(&op)) {
        stageZero.insert(&op);
        continue;
      }
      // The pops of CBs that only stage 0 reads go with it.
      if (auto pop = dyn_cast<CbPopOp>(op)) {
        int64_t cb = pop.getCb();
        if (pushers.count(cb) && candidates.contains(pushers[cb].front()) &&
            !readers[cb].empty() && readOnlyByStageZero(cb))
          stageZero.insert(&op);
      }
    }
  }

  /// `x < y` in the loop's comparison.
  Value lessThan(OpBuilder &b, Value x, Value y) {
    return arith::CmpIOp::create(
        b, loop.getLoc(),
        loop.getUnsignedCmp() ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt, x, y);
  }

  /// Stage 0 of the iteration whose induction variable is `iv`, inside
  /// `if (cond)` at `b`'s insertion point.
  void emitStageZero(OpBuilder &b, Value iv, Value cond) {
    auto ifOp = scf::IfOp::create(b, loop.getLoc(), cond, /*withElseRegion=*/false);
    OpBuilder inner = ifOp.getThenBodyBuilder();
    IRMapping map;
    map.map(loop.getInductionVar(), iv);
    for (Operation &op : *body)
      if (scalars.contains(&op) || stageZero.contains(&op))
        inner.clone(op, map);
  }

  void rewrite() {
    // Before the loop: the first iteration's stage 0.
    OpBuilder b(loop);
    emitStageZero(b, loop.getLowerBound(), lessThan(b, loop.getLowerBound(), loop.getUpperBound()));
    // At the top of the body: the next iteration's. `i + step` is what the
    // loop's own increment computes; where it would wrap, so would the loop.
    b.setInsertionPointToStart(body);
    Value next = arith::AddIOp::create(b, loop.getLoc(), loop.getInductionVar(), loop.getStep());
    emitStageZero(b, next, lessThan(b, next, loop.getUpperBound()));
    for (Operation *op : stageZero)
      op->erase();
    // Scalars that only stage 0 used.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
      if (scalars.contains(&op) && op.use_empty())
        op.erase();
  }

  scf::ForOp loop;
  Block *body;
  DenseMap<int64_t, SmallVector<Operation *>> pushers, readers, pops;
  DenseSet<int64_t> pushedOutside;
  llvm::SetVector<Operation *> candidates;
  DenseSet<Operation *> rejected, scalars;
  llvm::SetVector<Operation *> stageZero; ///< in body order, pops included
};

struct MTIAPipelineCommands
    : public mlir::triton_mtia::mtia::impl::MTIAPipelineCommandsBase<MTIAPipelineCommands> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); }); // innermost first
    int64_t pipelined = 0;
    for (scf::ForOp loop : loops)
      pipelined += LoopPipeliner(loop).run();
    // triton-mtia-compile lowers a kernel that no longer fits again without
    // this pass, but only when the pass changed it.
    if (pipelined > 0)
      getOperation()->setAttr(kPipelinedLoopsAttr,
                              IntegerAttr::get(IntegerType::get(&getContext(), 64), pipelined));
  }
};

} // namespace
