//===- ShareVectorCore.cpp - Elementwise work for the idle vector core ----===//
//
// The SIMD engine is the PE's elementwise unit; the RISC-V vector core runs
// the same opcodes with the same results at a quarter to half its rate
// (RVV VLEN 512: a strip of 16 fp32 lanes against the SE's 32, and a strip
// costs a load and a store on the port to local memory), on a queue of its
// own. A kernel bound
// by the SE leaves the vector core idle while commands that do not depend on
// the SE's current one wait behind it: in fused attention, the causal mask
// of the next K/V block and the rescale of the output accumulator do not
// depend on the softmax chain in between.
//
// For each block of the function (loop bodies and branches are blocks of
// their own, starting from idle units) the pass list-schedules the commands
// in program order: a command's inputs are ready when the commands that
// wrote the CBs it reads are done, it starts when they are and its unit is
// free (and not before the core issues it: after a blocking read of a CB,
// `mtia.read`, the core has waited for that tile, so a unit that was busy
// until then is free, not ahead of the others), and it takes its unit's
// time by the simulator's formulas
// (docs/simulator.md, "Timing"). An elementwise command on the SE moves to
// the vector core when it would finish there first; every other command
// keeps its unit and only occupies it. This is the classic earliest-finish
// rule of list scheduling on two unequal processors: a command on the
// critical path stays on the faster SE, one the SE would only queue goes to
// the otherwise idle core. A command whose unit was chosen for it (the
// attribute mtia.pinned: `mtl.unit_hint`, the `libdevice_unit` option)
// keeps that unit and is never split.
//
// With `split`, a command can also run on both units at once: the SE takes
// its first rows and a second command on the vector core the rest of the
// tile (its views offset by those rows), where both finish sooner than
// either alone would. The two append their parts of the tile to the CB in
// order, so its readers see one tile.
//
// With `fuse`, a command whose operand is only the result of the vector
// core's loop of its chain may join that loop instead (mtia-fuse-vector-
// loops folds it in): it costs the vector core only what it adds per strip,
// at the chain's split row if the chain is split.
//
// The estimates ignore memory latency and the other units' contention for
// local memory; they only steer the choice, and the choice never changes a
// result.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIASHAREVECTORCORE
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

enum class Unit { DmaIn, DmaOut, Se, Vec, Dpe, Mlu, None };
constexpr int kNumUnits = static_cast<int>(Unit::None);

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

struct ShareVectorCore
    : public mlir::triton_mtia::mtia::impl::MTIAShareVectorCoreBase<ShareVectorCore> {
  using MTIAShareVectorCoreBase::MTIAShareVectorCoreBase;

  /// Widest element, in bytes, among an SE command's result and views.
  static int64_t widestBytes(Operation *op, Type elemType) {
    int64_t widest = elementBytes(elemType);
    for (NamedAttribute attr : op->getAttrs()) {
      auto note = [&](Attribute a) {
        if (auto view = dyn_cast<ViewAttr>(a))
          widest = std::max(widest, elementBytes(view.getElemType()));
      };
      note(attr.getValue());
      if (auto array = dyn_cast<ArrayAttr>(attr.getValue()))
        llvm::for_each(array, note);
    }
    return std::max<int64_t>(widest, 1);
  }

  int64_t seCycles(int64_t elements, int64_t widest) const {
    return seFillCycles + ceilDiv(elements, std::max<int64_t>(1, seLanes * 4 / widest));
  }
  /// The vector core's time for `se` over `elements` of its tile, by
  /// strips of VLEN bits (vecCyclesPerStrip).
  int64_t vecCycles(SeOp se, int64_t elements, int64_t widest) const {
    return vecFillCycles +
           vecCyclesPerStrip(se.getShape(), se.getSrcs(), 1) *
               ceilDiv(elements, std::max<int64_t>(1, vecBytesPerCycle / widest));
  }

  /// The unit a command occupies and for how long (estimates).
  std::pair<Unit, int64_t> occupancy(Operation *op) const {
    auto elemsOf = [&](Operation *o) {
      auto shape = o->getAttrOfType<DenseI64ArrayAttr>("shape");
      return shape ? numElements(shape.asArrayRef()) : 1;
    };
    auto typeOf = [&](Operation *o) {
      auto t = o->getAttrOfType<TypeAttr>("elemType");
      return t ? t.getValue() : Type();
    };
    return llvm::TypeSwitch<Operation *, std::pair<Unit, int64_t>>(op)
        .Case<SeOp>([&](SeOp se) {
          int64_t w = widestBytes(se, se.getElemType());
          int64_t n = elemsOf(se);
          return se.getUnit() == "vec" ? std::pair{Unit::Vec, vecCycles(se, n, w)}
                                       : std::pair{Unit::Se, seCycles(n, w)};
        })
        .Case<SeReduceOp, SeScanOp, SeGatherOp>([&](Operation *o) {
          return std::pair{Unit::Se, seCycles(elemsOf(o), widestBytes(o, typeOf(o)))};
        })
        .Case<SeIotaOp>([&](SeIotaOp iota) {
          return std::pair{Unit::Se, seCycles(iota.getLength(), elementBytes(iota.getElemType()))};
        })
        .Case<SeHistogramOp>([&](SeHistogramOp h) {
          return std::pair{Unit::Se, seCycles(numElements(h.getShape()), 4)};
        })
        .Case<DpeOp>([&](DpeOp dpe) {
          // MACs per cycle by operand width (fp16 1024, f32 256, 8-bit 2048).
          int64_t rate = 1024;
          if (auto a = dyn_cast<ViewAttr>(dpe.getSrcs()[0]))
            rate = elementBytes(a.getElemType()) >= 4 ? 256
                   : elementBytes(a.getElemType()) == 1 ? 2048
                                                        : 1024;
          return std::pair{Unit::Dpe, 32 + ceilDiv(dpe.getM() * dpe.getN() * dpe.getK(), rate)};
        })
        .Case<DmaInOp, GatherInOp>([&](Operation *o) {
          return std::pair{Unit::DmaIn, ceilDiv(elemsOf(o) * elementBytes(typeOf(o)), 64)};
        })
        .Case<DmaOutOp, ScatterOutOp>([&](Operation *o) {
          return std::pair{Unit::DmaOut, ceilDiv(elemsOf(o) * elementBytes(typeOf(o)), 64)};
        })
        .Case<MluCopyOp>([&](MluCopyOp m) {
          return std::pair{Unit::Mlu, 8 + ceilDiv(elemsOf(m) * elementBytes(m.getElemType()), 128)};
        })
        .Default([](Operation *) { return std::pair{Unit::None, int64_t(0)}; });
  }

  /// A loop on the vector core that the next command of its chain can
  /// join: mtia-fuse-vector-loops folds a chain whose every result is only
  /// the next command's operand into one loop, so the next command costs
  /// the vector core only what it adds to each strip. Keyed by the CB the
  /// chain's last command appends to.
  struct OpenLoop {
    int64_t start = 0, done = 0; ///< the vector core's part
    int64_t strips = 0;          ///< of that part
    int64_t port = 0, alu = 0;   ///< cycles per strip on each pipe
    int64_t steps = 0, inputs = 0;
    /// Rows the SE's part keeps (a split chain), 0 when the vector core
    /// runs the whole tile, and when that part is done.
    int64_t rows = 0, seDone = 0;
    /// The whole tile the chain's last command appends.
    SmallVector<int64_t> shape;
    Type elemType;
    SmallVector<Value> valid;
  };

  /// Estimated unit availability and tile readiness, in cycles.
  struct Schedule {
    std::array<int64_t, kNumUnits> unitFree{};
    /// No command after a blocking read of a CB (`mtia.read`) is issued
    /// before the tile it reads is done: the core waits for it.
    int64_t issued = 0;
    DenseMap<int64_t, int64_t> cbReady; ///< when the CB's last tile is done
    DenseMap<int64_t, OpenLoop> openLoops;
  };

  /// Elementwise commands the frontend put on the SE: the ones to place.
  DenseSet<Operation *> movable;

  /// The rows of `se` (its first dimension) the SE keeps when the vector
  /// core takes the others and both finish soonest, and when they finish;
  /// rows 0 when `se` cannot be split: its tile has fewer than two rows, it
  /// reads the CB it appends to (an accumulator's update, whose pop goes
  /// with it), or a view has no stride per dimension.
  std::pair<int64_t, int64_t> bestSplit(SeOp se, const Schedule &state, int64_t ready) const {
    ArrayRef<int64_t> shape = se.getShape();
    if (!split || shape.empty() || shape[0] < 2 || !se.getValid().empty() ||
        llvm::is_contained(getCbUses(se).reads, se.getCb()))
      return {0, 0};
    for (Attribute src : se.getSrcs())
      if (auto view = dyn_cast<ViewAttr>(src); view && view.getStrides().size() != shape.size())
        return {0, 0}; // a view whose row stride is not known
    const int64_t rows = shape[0], inner = numElements(shape) / rows;
    const int64_t w = widestBytes(se, se.getElemType());
    const int64_t seFree = std::max(ready, state.unitFree[static_cast<int>(Unit::Se)]);
    const int64_t vecFree = std::max(ready, state.unitFree[static_cast<int>(Unit::Vec)]);
    std::pair<int64_t, int64_t> best = {0, 0};
    for (int64_t r = 1; r < rows; ++r) {
      const int64_t done = std::max(seFree + seCycles(r * inner, w),
                                    vecFree + vecCycles(se, (rows - r) * inner, w));
      if (best.first == 0 || done < best.second)
        best = {r, done};
    }
    return best;
  }

  /// Splits `se` after its first `rows` rows: it keeps them on the SE, and
  /// a copy on the vector core right after it appends the rest of the tile
  /// (its views start `rows` rows further on). Returns the copy.
  SeOp splitRows(SeOp se, int64_t rows) {
    SmallVector<int64_t> shape(se.getShape());
    SmallVector<Attribute> srcs;
    for (Attribute src : se.getSrcs()) {
      auto view = dyn_cast<ViewAttr>(src);
      if (!view) {
        srcs.push_back(src);
        continue;
      }
      srcs.push_back(ViewAttr::get(se.getContext(), view.getCb(), view.getElemType(),
                                   view.getOffset() + rows * view.getStrides()[0],
                                   view.getStrides()));
    }
    OpBuilder b(se);
    b.setInsertionPointAfter(se);
    auto rest = cast<SeOp>(b.clone(*se.getOperation()));
    SmallVector<int64_t> restShape(shape);
    restShape[0] -= rows;
    rest.setShape(restShape);
    rest.setSrcsAttr(b.getArrayAttr(srcs));
    rest.setUnit("vec");
    shape[0] = rows;
    se.setShape(shape);
    se.setUnit("se");
    return rest;
  }

  /// Vector loads per strip of `se`'s views, but those of CB `except`.
  static int64_t streamedViews(SeOp se, int64_t except = -1) {
    SmallVector<Attribute> others;
    for (Attribute src : se.getSrcs())
      if (auto view = dyn_cast<ViewAttr>(src); view && view.getCb() != except)
        others.push_back(view);
    return vecCyclesPerStrip(se.getShape(), ArrayAttr::get(se.getContext(), others), 0) - 1;
  }

  int64_t vecLanes(int64_t widest) const { return std::max<int64_t>(1, vecBytesPerCycle / widest); }

  /// A new loop of `se` alone on the vector core, over `elements` from
  /// `start`, its SE part (`rows`) done at `seDone`.
  OpenLoop openLoop(SeOp se, ArrayRef<int64_t> wholeShape, int64_t elements, int64_t start,
                    int64_t done, int64_t rows, int64_t seDone) const {
    OpenLoop loop;
    loop.start = start;
    loop.done = done;
    loop.strips = ceilDiv(elements, vecLanes(widestBytes(se, se.getElemType())));
    loop.inputs = streamedViews(se);
    loop.port = loop.inputs + 1;
    loop.alu = loop.steps = 1;
    loop.rows = rows;
    loop.seDone = seDone;
    loop.shape.assign(wholeShape.begin(), wholeShape.end());
    loop.elemType = se.getElemType();
    loop.valid.assign(se.getValid().begin(), se.getValid().end());
    return loop;
  }

  /// The open loop that `q` can join, with the CB of the chain's tile that
  /// it reads: that tile is only `q`'s operand, read element for element
  /// over the same tile, and the vector core has nothing queued after the
  /// loop; the loop stays within the device's limits.
  std::pair<int64_t, const OpenLoop *> joinable(SeOp q, const Schedule &state) const {
    for (Attribute src : q.getSrcs()) {
      auto view = dyn_cast<ViewAttr>(src);
      auto it = view ? state.openLoops.find(view.getCb()) : state.openLoops.end();
      if (it == state.openLoops.end())
        continue;
      const int64_t cb = it->first;
      const OpenLoop &loop = it->second;
      // Its views of the chain's tile dense; for a split, every view with a
      // stride per dimension (splitRows moves them by rows).
      bool dense = llvm::all_of(q.getSrcs(), [&](Attribute a) {
        auto v = dyn_cast<ViewAttr>(a);
        if (v && loop.rows > 0 && v.getStrides().size() != q.getShape().size())
          return false;
        return !v || v.getCb() != cb ||
               (isDenseView(v, q.getShape(), 0) && v.getElemType() == loop.elemType);
      });
      if (!dense || cbUsers.readers.lookup(cb).size() != 1 ||
          cbUsers.pops.lookup(cb).size() != 1 ||
          q.getShape() != ArrayRef<int64_t>(loop.shape) || q.getCb() == cb ||
          llvm::is_contained(getCbUses(q).reads, q.getCb()) ||
          !sameEffectiveShape(q.getValid(), loop.valid) ||
          (loop.rows > 0 && !q.getValid().empty()) ||
          state.unitFree[static_cast<int>(Unit::Vec)] != loop.done || loop.steps + 1 > kLoopSteps ||
          loop.inputs + streamedViews(q, cb) + 1 > kLoopInputs)
        return {-1, nullptr};
      return {cb, &loop};
    }
    return {-1, nullptr};
  }

  /// List-schedules `block` from `state`, placing the movable commands.
  /// Splits happen only when `apply` (a loop body's final pass); a pass
  /// that only warms the units up schedules as if they had.
  void scheduleBlock(Block &block, Schedule &state, bool apply) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (apply)
        for (Region &region : op.getRegions())
          for (Block &inner : region)
            scheduleRegionBlock(inner, isa<scf::ForOp, scf::WhileOp>(op));
      if (splitOff.contains(&op))
        continue; // scheduled with the command it was split from
      if (auto read = dyn_cast<ReadOp>(op)) {
        state.issued = std::max(state.issued, state.cbReady.lookup(read.getCb()));
        continue;
      }
      auto [unit, cycles] = occupancy(&op);
      if (unit == Unit::None)
        continue;
      CbUses uses = getCbUses(&op);
      int64_t ready = state.issued;
      for (int64_t cb : uses.reads)
        ready = std::max(ready, state.cbReady.lookup(cb));
      auto finishOn = [&](Unit u, int64_t c) {
        return std::max(ready, state.unitFree[static_cast<int>(u)]) + c;
      };
      int64_t done = finishOn(unit, cycles);
      int64_t &seFree = state.unitFree[static_cast<int>(Unit::Se)];
      int64_t &vecFree = state.unitFree[static_cast<int>(Unit::Vec)];
      auto se = dyn_cast<SeOp>(&op);
      if (se && movable.contains(se)) {
        SmallVector<int64_t> shape(se.getShape());
        int64_t n = numElements(shape);
        int64_t w = widestBytes(se, se.getElemType());
        int64_t onSe = finishOn(Unit::Se, seCycles(n, w));
        int64_t onVec = finishOn(Unit::Vec, vecCycles(se, n, w));
        bool vec = onVec < onSe;
        // Both units on one command, by rows, where that finishes sooner
        // than either alone by more than the second command's issue.
        auto [rows, splitDone] = bestSplit(se, state, ready);
        bool split = rows > 0 && splitDone + kSplitIssueCycles < std::min(onSe, onVec);
        // Or the command joins the vector core's loop of its chain, which
        // then takes what it adds per strip, and its rows if the chain is
        // split (its SE part then takes the SE's rows).
        if (auto [cb, loop] = fuse ? joinable(se, state) : std::pair{int64_t(-1), nullptr};
            loop) {
          int64_t otherReady = state.issued;
          for (int64_t read : uses.reads)
            if (read != cb)
              otherReady = std::max(otherReady, state.cbReady.lookup(read));
          OpenLoop joined = *loop;
          joined.start = std::max(loop->start, otherReady);
          joined.inputs += streamedViews(se, cb);
          joined.port += streamedViews(se, cb);
          joined.alu += 1;
          joined.steps += 1;
          joined.done = joined.start + vecFillCycles +
                        joined.strips * std::max(joined.port, joined.alu);
          int64_t joinDone = joined.done;
          if (loop->rows > 0) {
            joined.seDone = std::max(seFree, std::max(otherReady, loop->seDone)) +
                            seCycles(loop->rows * (n / shape[0]), w);
            joinDone = std::max(joinDone, joined.seDone);
          }
          if (joinDone < std::min({onSe, onVec, split ? splitDone + kSplitIssueCycles : onSe})) {
            if (loop->rows == 0) {
              se.setUnit("vec");
            } else {
              seFree = joined.seDone;
              if (apply) {
                movable.erase(se);
                splitOff.insert(splitRows(se, loop->rows));
              }
            }
            vecFree = joined.done;
            state.cbReady[se.getCb()] = joinDone;
            joined.elemType = se.getElemType();
            state.openLoops.erase(cb);
            state.openLoops[se.getCb()] = std::move(joined);
            continue;
          }
        }
        if (split) {
          int64_t rest = n / shape[0] * (shape[0] - rows);
          int64_t vecStart = std::max(ready, vecFree);
          seFree = std::max(ready, seFree) + seCycles(n - rest, w);
          vecFree = vecStart + vecCycles(se, rest, w);
          state.cbReady[se.getCb()] = splitDone;
          state.openLoops[se.getCb()] =
              openLoop(se, shape, rest, vecStart, vecFree, rows, seFree);
          if (apply) {
            movable.erase(se);
            splitOff.insert(splitRows(se, rows));
          }
          continue;
        }
        se.setUnit(vec ? "vec" : "se");
        unit = vec ? Unit::Vec : Unit::Se;
        done = vec ? onVec : onSe;
      }
      if (se && unit == Unit::Vec)
        state.openLoops[se.getCb()] =
            openLoop(se, se.getShape(), numElements(se.getShape()),
                     std::max(ready, vecFree), done, /*rows=*/0, /*seDone=*/0);
      state.unitFree[static_cast<int>(unit)] = done;
      if (uses.writes >= 0)
        state.cbReady[uses.writes] = done;
    }
  }

  /// A nested block starts from idle units. A loop body is scheduled twice,
  /// the second time from where the first left the units, so that its
  /// choices are those of an iteration in the steady state (the previous
  /// iteration's tail still on the SE).
  void scheduleRegionBlock(Block &block, bool isLoop) {
    Schedule state;
    if (isLoop)
      scheduleBlock(block, state, /*apply=*/false);
    scheduleBlock(block, state, /*apply=*/true);
  }

  /// The vector core's halves of split commands.
  DenseSet<Operation *> splitOff;
  /// What the second command of a split costs the core (issue_cycles), which
  /// the split must save at least twice over.
  static constexpr int64_t kSplitIssueCycles = 16;

  /// Who appends to, reads and pops each CB, in the function.
  CbUsers cbUsers;

  void runOnOperation() override {
    // A pass instance runs on every function: nothing carries over.
    movable.clear();
    splitOff.clear();
    cbUsers = collectCbUsers(getOperation());
    getOperation().walk([&](SeOp se) {
      if (se.getUnit() == "se" && !se->hasAttr(kPinnedAttr))
        movable.insert(se);
    });
    for (Block &block : getOperation().getBody())
      scheduleRegionBlock(block, false);
  }
};

} // namespace
