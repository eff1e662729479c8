//===- IssuePath.h - What a code generator says before a command -*- C++ -*-===//
//
// Both code generators (Target/Cpp and Conversion/MTIAToLLVM) walk a kernel's
// ops in program order and print, before a command, what the PE must know
// that the IR keeps as attributes and locations: the RISC-V core that issues
// it (device.h `onCore`) and the kernel's source line it stands for
// (`ctx->line`, which names faults). Each is said only where it changes on
// the path the code takes, so that both paths issue the same calls and the
// simulator charges the same cycles. This tracker is that one rule.
//
//===----------------------------------------------------------------------===//

#ifndef TRITON_MTIA_TARGET_ISSUEPATH_H
#define TRITON_MTIA_TARGET_ISSUEPATH_H

#include "triton-mtia/Dialect/MTIA/IR/MTIADialect.h"
#include "triton-mtia/Support/SourceLocation.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <optional>

namespace mlir::triton_mtia {

class IssuePath {
public:
  /// Every program starts on core 0; a kernel that mtia-dual-issue did not
  /// split never leaves it.
  explicit IssuePath(func::FuncOp kernel)
      : dualIssue(kernel->hasAttr(mtia::kDualIssueAttr)) {}

  /// Whether `op` is a command: an mtia op that the core issues to a unit
  /// (not a read of the PE's ids, an alias test or a cost).
  static bool isCommand(Operation *op) {
    return isa<mtia::MTIADialect>(op->getDialect()) &&
           !isa<mtia::ProgramIdOp, mtia::NumProgramsOp, mtia::PeIdOp, mtia::PeGridSizeOp,
                mtia::MayAliasOp, mtia::ScalarCyclesOp>(op);
  }

  /// The source line to store in `ctx->line` before `op`, where the path's
  /// is another: before every command, and before a scalar cost inside a
  /// loop or branch (the simulator's watchdog names the line a loop of
  /// scalar code spins on).
  std::optional<int64_t> lineBefore(Operation *op) {
    bool named = isCommand(op) ||
                 (isa<mtia::ScalarCyclesOp>(op) && !isa<func::FuncOp>(op->getParentOp()));
    if (!named)
      return std::nullopt;
    auto flc = getSourceLoc(op->getLoc());
    if (!flc || int64_t(flc->getLine()) == line)
      return std::nullopt;
    line = flc->getLine();
    return line;
  }

  /// The core to select (`onCore`) before `op`, where the path may be on
  /// the other one: a command goes to its `mtia.core` (core 0 without
  /// one), a scalar cost to the core it charges.
  std::optional<int64_t> coreBefore(Operation *op) {
    int64_t wanted;
    if (auto cost = dyn_cast<mtia::ScalarCyclesOp>(op))
      wanted = cost.getCore();
    else if (isCommand(op))
      wanted = op->hasAttr(mtia::kCoreAttr)
                   ? op->getAttrOfType<IntegerAttr>(mtia::kCoreAttr).getInt()
                   : 0;
    else
      return std::nullopt;
    if (!dualIssue || wanted == core)
      return std::nullopt;
    core = wanted;
    return core;
  }

  /// At the top of a loop body or branch, and after one: the path's line
  /// and core are unknown (the body runs after itself too).
  void forget() {
    line = -1;
    core = -1;
  }

private:
  bool dualIssue;
  int64_t line = -1;
  int64_t core = 0;
};

/// mtia-legalize-rank brings what it can to the device's kTileRank
/// dimensions; a command whose tile still has more is an error at its
/// location (DMA boxes have kBoxRank, checked by their verifier).
inline LogicalResult checkTileRank(Operation *op) {
  auto shape = op->getAttrOfType<DenseI64ArrayAttr>("shape");
  if (shape && shape.size() > static_cast<size_t>(mtia::kTileRank) &&
      !isa<mtia::DmaInOp, mtia::DmaOutOp>(op))
    return op->emitError() << "a tile of rank " << shape.size()
                           << " is not supported by the MTIA backend yet (the device API has "
                           << mtia::kTileRank << " dimensions)";
  return success();
}

} // namespace mlir::triton_mtia

#endif // TRITON_MTIA_TARGET_ISSUEPATH_H
