//===- DualIssue.cpp - Split command issue between the two RISC-V cores --===//
//
// Every command costs the core that issues it `issue_cycles`, and the scalar
// code that computes its operands. A kernel of many small commands (a
// layernorm over 256-column chunks issues 140 per row) is bound by that one
// core while the units idle. A PE has two cores that can both issue (paper
// 4.1.2): this pass splits the kernel's commands between them by unit. The
// fabric interface's commands stay on the scalar core 0 and the compute
// units' commands go to the vector core 1, so each unit's queue is fed by
// one core in program order, and the cores never need to agree on more than
// the CBs, whose producer/consumer order the units already enforce. A
// command a kernel author pinned to a core (`mtl.core_hint`, the attribute
// mtia.core_hint) goes there instead; the units still take their commands
// in program order, whichever core issued them.
//
// Then it records, for each scalar op, which cores compute it: an address
// only core 0, an SE immediate only core 1, a loop bound or a value both
// need on both. mtia-scalar-cost charges each core for its own share, and the
// C++ emitter switches the issuing core (device.h onCore) where it changes.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIADUALISSUE
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

constexpr unsigned kCore0 = 1, kCore1 = 2, kBothCores = kCore0 | kCore1;

/// The core a command goes to, by its unit; -1 for ops that are not
/// commands (scalar code, control flow) and for pops, which go with their
/// CB's last reader.
int unitCore(Operation *op) {
  if (auto pinned = op->getAttrOfType<IntegerAttr>(kCoreHintAttr))
    return static_cast<int>(pinned.getInt()); // the kernel author's mtl.core_hint
  // The networks between PEs: broadcasts with the fabric interface they
  // use, the reduction engine with the compute units whose results it adds.
  if (isa<NocBroadcastOp, NocRecvOp>(op))
    return 0;
  if (isa<ReSendOp, ReRecvOp>(op))
    return 1;
  if (isa<DmaInOp, DmaOutOp, GatherInOp, ScatterOutOp, AtomicRmwOp, AtomicCasOp, FenceOp>(op))
    return 0;
  if (isa<SeOp, VecLoopOp, SeReduceOp, SeIotaOp, DpeOp, MluCopyOp, SeScanOp, SeHistogramOp, SeGatherOp>(
          op))
    return 1;
  // The core's own reads and the debugging commands stay where the
  // program's scalar results are.
  if (isa<ReadOp, PrintOp, AssertOp, BarrierOp>(op))
    return 0;
  return -1;
}

/// Scalar code whose value some core needs: arith and math on scalars and
/// the launch's scalar queries.
bool isScalarCode(Operation *op) {
  if (isa<arith::ConstantOp>(op))
    return false; // inlined into its uses
  if (isa<ProgramIdOp, NumProgramsOp, PeIdOp, PeGridSizeOp, MayAliasOp>(op))
    return true;
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()))
    return false;
  auto scalar = [](Type t) { return isa<IntegerType, IndexType, FloatType>(t); };
  return llvm::all_of(op->getOperandTypes(), scalar) &&
         llvm::all_of(op->getResultTypes(), scalar);
}

struct MTIADualIssue : public mlir::triton_mtia::mtia::impl::MTIADualIssueBase<MTIADualIssue> {
  using MTIADualIssueBase::MTIADualIssueBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || func->hasAttr(kDualIssueAttr))
      return;

    // The core of each command, and of each pop: that of the command that
    // last used the CB before it in program order (its last reader), so
    // that a core releases only what its own commands have read.
    DenseMap<Operation *, int> core;
    DenseMap<int64_t, int> lastUser;
    unsigned used = 0;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      int c = -1;
      if (auto pop = dyn_cast<CbPopOp>(op)) {
        c = lastUser.lookup_or(pop.getCb(), 0);
      } else {
        c = unitCore(op);
        if (c < 0)
          return;
        CbUses uses = getCbUses(op);
        for (int64_t cb : uses.reads)
          lastUser[cb] = c;
        if (uses.writes >= 0)
          lastUser[uses.writes] = c;
      }
      core[op] = c;
      used |= 1u << c;
    });
    if (used != kBothCores)
      return; // nothing to split

    // The cores that run a region's control: those of the commands in it
    // (a loop of scalar code only: both, as its results may go anywhere).
    DenseMap<Operation *, unsigned> regionCores;
    func.walk([&](Operation *op) {
      if (op->getNumRegions() == 0 || op == func)
        return;
      unsigned m = 0;
      op->walk([&](Operation *inner) {
        if (auto it = core.find(inner); it != core.end())
          m |= 1u << it->second;
      });
      regionCores[op] = m ? m : kBothCores;
    });

    // The cores that need each scalar value: the union over its users, in
    // reverse program order so that users come first. A value that reaches
    // a yield or a loop's condition feeds a loop-carried value or a branch;
    // both cores compute it.
    SmallVector<Operation *> ops;
    func.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
    DenseMap<Operation *, unsigned> scalarCores;
    for (Operation *op : llvm::reverse(ops)) {
      if (!isScalarCode(op))
        continue;
      unsigned m = 0;
      for (Operation *user : op->getUsers()) {
        if (auto it = core.find(user); it != core.end())
          m |= 1u << it->second;
        else if (auto it = scalarCores.find(user); it != scalarCores.end())
          m |= it->second;
        else if (auto it = regionCores.find(user); it != regionCores.end())
          m |= it->second;
        else
          m |= kBothCores;
      }
      scalarCores[op] = m ? m : kCore0;
    }

    Builder b(func.getContext());
    for (auto [op, c] : core)
      if (c == 1)
        op->setAttr(kCoreAttr, b.getI64IntegerAttr(1));
    for (const DenseMap<Operation *, unsigned> *cores : {&scalarCores, &regionCores})
      for (auto [op, m] : *cores)
        if (m != kCore0)
          op->setAttr(kIssueCoresAttr, b.getI64IntegerAttr(m));
    func->setAttr(kDualIssueAttr, b.getUnitAttr());
  }
};

} // namespace
