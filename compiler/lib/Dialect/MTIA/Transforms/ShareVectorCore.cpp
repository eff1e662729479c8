//===- ShareVectorCore.cpp - Elementwise work for the idle vector core ----===//
//
// The SIMD engine is the PE's elementwise unit; the RISC-V vector core runs
// the same opcodes with the same results at half its rate (RVV VLEN 512:
// 16 fp32 lanes against the SE's 32), on a queue of its own. A kernel bound
// by the SE leaves the vector core idle while commands that do not depend on
// the SE's current one wait behind it: in fused attention, the causal mask
// of the next K/V block and the rescale of the output accumulator do not
// depend on the softmax chain in between.
//
// For each block of the function (loop bodies and branches are blocks of
// their own, starting from idle units) the pass list-schedules the commands
// in program order: a command's inputs are ready when the commands that
// wrote the CBs it reads are done, it starts when they are and its unit is
// free, and it takes its unit's time by the simulator's formulas
// (docs/simulator.md, "Timing"). An elementwise command on the SE moves to
// the vector core when it would finish there first; every other command
// keeps its unit and only occupies it. This is the classic earliest-finish
// rule of list scheduling on two unequal processors: a command on the
// critical path stays on the faster SE, one the SE would only queue goes to
// the otherwise idle core.
//
// With `split`, a command can also run on both units at once: the SE takes
// its first rows and a second command on the vector core the rest of the
// tile (its views offset by those rows), where both finish sooner than
// either alone would. The two append their parts of the tile to the CB in
// order, so its readers see one tile.
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

  /// Estimated unit availability and tile readiness, in cycles.
  struct Schedule {
    std::array<int64_t, kNumUnits> unitFree{};
    DenseMap<int64_t, int64_t> cbReady; ///< when the CB's last tile is done
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
      auto [unit, cycles] = occupancy(&op);
      if (unit == Unit::None)
        continue;
      CbUses uses = getCbUses(&op);
      int64_t ready = 0;
      for (int64_t cb : uses.reads)
        ready = std::max(ready, state.cbReady.lookup(cb));
      auto finishOn = [&](Unit u, int64_t c) {
        return std::max(ready, state.unitFree[static_cast<int>(u)]) + c;
      };
      int64_t done = finishOn(unit, cycles);
      if (auto se = dyn_cast<SeOp>(&op); se && movable.contains(se)) {
        int64_t n = numElements(se.getShape());
        int64_t w = widestBytes(se, se.getElemType());
        int64_t onSe = finishOn(Unit::Se, seCycles(n, w));
        int64_t onVec = finishOn(Unit::Vec, vecCycles(se, n, w));
        bool vec = onVec < onSe;
        // Both units on one command, by rows, where that finishes sooner
        // than either alone by more than the second command's issue.
        auto [rows, splitDone] = bestSplit(se, state, ready);
        if (rows > 0 && splitDone + kSplitIssueCycles < std::min(onSe, onVec)) {
          int64_t rest = numElements(se.getShape()) / se.getShape()[0] * (se.getShape()[0] - rows);
          state.unitFree[static_cast<int>(Unit::Se)] =
              std::max(ready, state.unitFree[static_cast<int>(Unit::Se)]) +
              seCycles(numElements(se.getShape()) - rest, w);
          state.unitFree[static_cast<int>(Unit::Vec)] =
              std::max(ready, state.unitFree[static_cast<int>(Unit::Vec)]) + vecCycles(se, rest, w);
          state.cbReady[se.getCb()] = splitDone;
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

  void runOnOperation() override {
    getOperation().walk([&](SeOp se) {
      if (se.getUnit() == "se")
        movable.insert(se);
    });
    for (Block &block : getOperation().getBody())
      scheduleRegionBlock(block, false);
  }
};

} // namespace
