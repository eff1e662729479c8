//===- FuseVectorLoops.cpp - Elementwise chains as one vector-core loop ---===//
//
// Each elementwise command on the vector core is a loop over its tile that
// loads its operands from local memory and stores its result there; a
// chain of them (`log1p(x) * 0.5 - y`, the libdevice functions the SE has
// no table for, and what mtia-share-vector-core moved) writes every
// intermediate tile out and reads it back, and the vector unit's port to
// local memory, one vector register a cycle, is what bounds it. The paper's
// 4.2.2 runs such a chain as one loop with the intermediates in registers:
// `mtia.vec_loop` (device.h vecLoop), whose steps compute exactly what the
// commands did, so results do not change.
//
// A command P on the vector core is folded into the command Q that reads
// its result when that result is nothing but Q's operand:
//  * P is the only command that appends to its CB, Q the only one that
//    reads it, both in one block, Q after P, and the one pop of the CB in
//    that block after Q releases exactly P's tile;
//  * Q reads the tile element for element (a dense view from the front),
//    over the same shape and effective shape as P;
//  * P's views still see the same tiles where Q runs: a pop of a CB that
//    P's loop reads between P and Q (the lowering pops an input right
//    after its last reader) moves to after Q, which is safe when nothing
//    between the pop and Q reads that CB;
//  * the merged loop stays within the device's 8 inputs and 16 steps.
// The fold erases P and the pop; P's steps run in Q's loop, at Q's place.
// Chains fold transitively, so a tree of such commands becomes one loop.
//
// mtia-share-vector-core splits a command by rows, the SE's part first and
// the vector core's right after it, both appending to one CB. When the
// next command of a chain is split at the same row, its vector-core part
// reads exactly the rows the previous one's wrote: those parts fold the
// same way, the SE's parts stay commands, and the pop of the CB releases
// the SE's rows only.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIAFUSEVECTORLOOPS
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

/// A loop being built: inputs (views and immediates, `imms` in the order of
/// the #mtia.imm inputs) and steps, whose arguments >= 0 name inputs and
/// -1 - k the result of step k.
struct Loop {
  SmallVector<Attribute> srcs;
  SmallVector<Value> imms;
  SmallVector<VecStepAttr> steps;

  /// The input index of `src` (with immediate `imm`), added if new.
  int64_t input(Attribute src, Value imm) {
    for (size_t i = 0, nextImm = 0; i < srcs.size(); ++i) {
      bool isImm = isa<ImmAttr>(srcs[i]);
      if (isImm ? imms[nextImm] == imm : srcs[i] == src)
        return static_cast<int64_t>(i);
      nextImm += isImm;
    }
    srcs.push_back(src);
    if (imm)
      imms.push_back(imm);
    return static_cast<int64_t>(srcs.size()) - 1;
  }

  /// Appends `other`'s steps (its inputs merged into this loop's); returns
  /// the argument that names its result.
  int64_t inline_(const Loop &other) {
    SmallVector<int64_t> inputMap;
    for (size_t i = 0, nextImm = 0; i < other.srcs.size(); ++i) {
      bool isImm = isa<ImmAttr>(other.srcs[i]);
      inputMap.push_back(input(other.srcs[i], isImm ? other.imms[nextImm++] : Value()));
    }
    const int64_t base = static_cast<int64_t>(steps.size());
    for (VecStepAttr step : other.steps) {
      SmallVector<int64_t> args;
      for (int64_t a : step.getArgs())
        args.push_back(a >= 0 ? inputMap[a] : a - base);
      steps.push_back(
          VecStepAttr::get(step.getContext(), step.getOpcode(), step.getElemType(), args));
    }
    return -static_cast<int64_t>(steps.size()); // -1 - (last step)
  }

  /// The CBs the loop's views read.
  SmallVector<int64_t> viewCbs() const {
    SmallVector<int64_t> cbs;
    for (Attribute src : srcs)
      if (auto view = dyn_cast<ViewAttr>(src))
        cbs.push_back(view.getCb());
    return cbs;
  }
};

bool onVectorCore(Operation *op) {
  auto se = dyn_cast<SeOp>(op);
  return se && se.getUnit() == "vec" && numElements(se.getShape()) > 0;
}

struct FuseVectorLoops
    : public mlir::triton_mtia::mtia::impl::MTIAFuseVectorLoopsBase<FuseVectorLoops> {
  void runOnOperation() override {
    foldable.clear();
    resultStep.clear();
    delayedPops.clear();
    claimedPops.clear();
    // Who appends to, reads and pops each CB, over the whole function.
    CbUsers users = collectCbUsers(getOperation());
    auto &[writers, readers, pops] = users;

    // The commands whose result is only their reader's operand, each with
    // its reader and the pop that releases it.
    getOperation().walk([&](SeOp p) {
      if (std::optional<Fold> fold = foldOf(p, writers[p.getCb()], readers[p.getCb()],
                                            pops[p.getCb()]))
        foldable[p] = *fold;
    });
    if (foldable.empty())
      return;

    // Build the loops in program order (a producer before its reader) and
    // fold where the merged loop fits and its views stay valid.
    DenseMap<Operation *, Loop> loops;
    DenseSet<Operation *> folded;
    getOperation().walk([&](SeOp q) {
      if (!onVectorCore(q))
        return;
      Loop loop;
      SmallVector<int64_t> args;
      unsigned nextImm = 0;
      for (auto [index, src] : llvm::enumerate(q.getSrcs())) {
        const size_t later = q.getSrcs().size() - index - 1;
        Value imm = isa<ImmAttr>(src) ? q.getImms()[nextImm++] : Value();
        auto view = dyn_cast<ViewAttr>(src);
        // The CB's last producer: the command itself or its vector-core part.
        Operation *p = view ? writers[view.getCb()].back() : nullptr;
        auto it = p ? foldable.find(p) : foldable.end();
        if (it != foldable.end() && it->second.reader == q) {
          if (folded.contains(p)) { // the same tile read twice (x * x)
            args.push_back(-1 - resultStep.lookup(p));
            continue;
          }
          if (canFold(loops[p], loop, later, p, q, delayedPops[q])) {
            args.push_back(loop.inline_(loops[p]));
            resultStep[p] = -1 - args.back();
            folded.insert(p);
            continue;
          }
        }
        args.push_back(loop.input(src, imm));
      }
      loop.steps.push_back(VecStepAttr::get(q.getContext(), q.getOpcode(), q.getElemType(), args));
      loops[q] = std::move(loop);
    });

    // Each loop of more than one step replaces its last command; the
    // commands folded into it and the pops of their tiles go.
    for (auto &[op, loop] : loops) {
      if (folded.contains(op) || loop.steps.size() < 2)
        continue;
      auto se = cast<SeOp>(op);
      OpBuilder b(se);
      // A delayed pop keeps the bytes before the first one the loop reads
      // where it was (the rows of a tile split with the SE, which the SE's
      // part read); the rest goes after the loop, whose views start that
      // much nearer the front.
      SmallVector<std::pair<CbPopOp, int64_t>> delayed;
      for (Operation *popOp : delayedPops[op]) {
        auto pop = cast<CbPopOp>(popOp);
        const int64_t bytes = static_cast<int64_t>(pop.getBytes());
        delayed.push_back({pop, std::min(bytes, firstByteRead(loop, pop.getCb(), se.getShape()))});
      }
      for (auto [pop, keep] : delayed)
        for (Attribute &src : loop.srcs)
          if (auto view = dyn_cast<ViewAttr>(src); view && view.getCb() == pop.getCb())
            src = ViewAttr::get(view.getContext(), view.getCb(), view.getElemType(),
                                view.getOffset() - keep / elementBytes(view.getElemType()),
                                view.getStrides());
      SmallVector<Attribute> steps(loop.steps.begin(), loop.steps.end());
      auto fused =
          VecLoopOp::create(b, se.getLoc(), loop.imms, se.getValid(), se.getCb(), se.getElemType(),
                            se.getShape(), b.getArrayAttr(loop.srcs), b.getArrayAttr(steps));
      if (Attribute hint = se->getAttr(kCoreHintAttr)) // all its commands' (canFold)
        fused->setAttr(kCoreHintAttr, hint);
      Operation *after = fused;
      for (auto [pop, keep] : delayed) {
        if (keep > 0) {
          OpBuilder at(pop);
          auto kept = cast<CbPopOp>(at.clone(*pop.getOperation()));
          kept.setBytes(keep);
        }
        if (keep == static_cast<int64_t>(pop.getBytes())) {
          pop.erase();
          continue;
        }
        pop.setBytes(pop.getBytes() - keep);
        pop->moveAfter(after);
        after = pop;
      }
    }
    for (auto &[op, loop] : loops)
      if (!folded.contains(op) && loop.steps.size() >= 2)
        op->erase();
    for (Operation *p : folded) {
      Fold &fold = foldable[p];
      auto pop = cast<CbPopOp>(fold.pop);
      if (pop.getBytes() == producedBytes(p))
        pop.erase();
      else // the SE's part of a split tile stays, and so does its pop
        pop.setBytes(pop.getBytes() - producedBytes(p));
      p->erase();
    }
  }

  /// A vector-core command's reader, into whose loop it can fold, and the
  /// pop that releases its result.
  struct Fold {
    Operation *reader;
    Operation *pop;
  };
  DenseMap<Operation *, Fold> foldable;

  /// Whether `p` can fold into its reader (given the ops that append to,
  /// read and pop its CB): its result is nothing but the reader's operand,
  /// read element for element over the same shape and effective shape, in
  /// the same block. Either `p` is the CB's only producer and the reader
  /// its only reader, or `p` is the vector core's part of a command split
  /// by rows (mtia-share-vector-core): the SE's part right before it
  /// appends the first rows, `p` the rest, one reader reads the SE's rows
  /// only and the other, the vector core's part of the next command of
  /// the chain, exactly `p`'s; the pop then releases the SE's rows only.
  static std::optional<Fold> foldOf(SeOp p, ArrayRef<Operation *> writers,
                                    ArrayRef<Operation *> readers, ArrayRef<Operation *> pops) {
    if (!onVectorCore(p) || pops.size() != 1)
      return std::nullopt;
    const int64_t cb = p.getCb();
    int64_t before = 0; // elements the SE's part appends before p's
    Operation *other = nullptr; // the SE part's reader
    if (writers.size() == 2 && writers[1] == p.getOperation() &&
        writers[0] == p->getPrevNode() && readers.size() == 2) {
      auto part = dyn_cast<SeOp>(writers[0]);
      if (!part || part.getElemType() != p.getElemType() ||
          part.getShape().drop_front() != p.getShape().drop_front())
        return std::nullopt;
      before = numElements(part.getShape());
      other = readers[0];
    } else if (writers.size() != 1 || readers.size() != 1) {
      return std::nullopt;
    }
    // The reader of p's elements, and the other reader (if any) of the
    // elements before them only.
    auto reads = [&](Operation *op, auto pred) {
      bool all = true, any = false;
      auto se = dyn_cast<SeOp>(op);
      if (!se)
        return false;
      for (Attribute src : se.getSrcs())
        if (auto view = dyn_cast<ViewAttr>(src); view && view.getCb() == cb) {
          any = true;
          all &= pred(se, view);
        }
      return any && all;
    };
    auto readsP = [&](SeOp se, ViewAttr view) {
      return isDenseView(view, p.getShape(), before) && view.getElemType() == p.getElemType() &&
             se.getShape() == p.getShape() && sameEffectiveShape(se.getValid(), p.getValid());
    };
    auto readsBefore = [&](SeOp se, ViewAttr view) {
      return viewElementRange(view, se.getShape()).second <= before;
    };
    Operation *q = readers.back();
    if (other && !reads(q, readsP))
      std::swap(q, other);
    if (!reads(q, readsP) || (other && !reads(other, readsBefore)) || !onVectorCore(q))
      return std::nullopt;
    Operation *pop = pops.front();
    const int64_t bytes = before * elementBytes(p.getElemType()) + producedBytes(p);
    if (q->getBlock() != p->getBlock() || !p->isBeforeInBlock(q) ||
        pop->getBlock() != q->getBlock() || !q->isBeforeInBlock(pop) ||
        (other && (other->getBlock() != pop->getBlock() || !other->isBeforeInBlock(pop))) ||
        cast<CbPopOp>(pop).getBytes() != bytes)
      return std::nullopt;
    return Fold{q, pop};
  }

  /// Whether `p`'s loop can join the loop being built for `q`: within the
  /// device's limits (with room for `later` more operands of `q` and its
  /// own step), and with `p`'s views reading the same tiles at `q`: the
  /// pops between them of CBs they read (at most one each, with no reader
  /// of the CB after it up to `q` itself, and none that another loop
  /// delays) go after the loop, with those that `p`'s own folds delayed;
  /// they are added to `delayed`.
  bool canFold(const Loop &pLoop, const Loop &built, size_t later, Operation *p, Operation *q,
               SmallVector<Operation *> &delayed) {
    // One loop is issued by one core: commands a kernel author put on
    // different cores (mtl.core_hint) stay apart.
    if (p->getAttr(kCoreHintAttr) != q->getAttr(kCoreHintAttr))
      return false;
    Loop merged = built;
    merged.inline_(pLoop);
    if (static_cast<int64_t>(merged.srcs.size() + later) > kLoopInputs ||
        static_cast<int64_t>(merged.steps.size()) + 1 > kLoopSteps)
      return false;
    SmallVector<int64_t> cbs = pLoop.viewCbs();
    SmallVector<Operation *> moved(delayedPops.lookup(p));
    DenseSet<int64_t> popped;
    for (Operation *pop : moved)
      popped.insert(cast<CbPopOp>(pop).getCb());
    for (Operation *op = p->getNextNode();; op = op->getNextNode()) {
      bool touchesPopped = false;
      op->walk([&](Operation *inner) {
        if (auto pop = dyn_cast<CbPopOp>(inner)) {
          touchesPopped |= popped.contains(pop.getCb()) ||
                           (inner != op && llvm::is_contained(cbs, pop.getCb()));
          return;
        }
        for (int64_t cb : getCbUses(inner).reads)
          touchesPopped |= popped.contains(cb);
      });
      if (touchesPopped)
        return false;
      if (op == q)
        break;
      if (auto pop = dyn_cast<CbPopOp>(op); pop && llvm::is_contained(cbs, pop.getCb())) {
        // A pop another loop already delays would release the tile before
        // one of the two loops reads it.
        if (claimedPops.contains(op))
          return false;
        popped.insert(pop.getCb());
        moved.push_back(op);
      }
    }
    claimedPops.insert(moved.begin(), moved.end());
    delayed.append(moved);
    return true;
  }

  /// The first byte of CB `cb` that `loop`'s views read over `shape` (0
  /// unless every view's first element is a whole number of every view's
  /// elements in).
  static int64_t firstByteRead(const Loop &loop, int64_t cb, ArrayRef<int64_t> shape) {
    int64_t first = std::numeric_limits<int64_t>::max(), unit = 1;
    for (Attribute src : loop.srcs) {
      auto view = dyn_cast<ViewAttr>(src);
      if (!view || view.getCb() != cb)
        continue;
      const int64_t bytes = elementBytes(view.getElemType());
      first = std::min(first, viewElementRange(view, shape).first * bytes);
      unit = std::max(unit, bytes);
    }
    if (first == std::numeric_limits<int64_t>::max() || first <= 0)
      return 0;
    return first - first % unit;
  }

  /// The step that holds a folded command's result in its reader's loop.
  DenseMap<Operation *, int64_t> resultStep;
  /// Per loop, the pops of its inputs that go after it, in program order.
  DenseMap<Operation *, SmallVector<Operation *>> delayedPops;
  /// Every pop some loop delays: one loop's at most.
  DenseSet<Operation *> claimedPops;
};

} // namespace
