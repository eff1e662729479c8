//===- Language.cpp - Dispatch for the rest of the Triton language ---===//
//
// lowerOp asks `lowerLanguageOp` first; it owns atomics, scans, histogram,
// gather, casts that need more than one SE opcode, debugging ops and while
// loops, and answers std::nullopt for everything else.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

std::optional<LogicalResult> KernelLowering::lowerLanguageOp(Operation *op) {
  if (auto w = dyn_cast<scf::WhileOp>(op))
    return lowerWhile(w);
  if (auto rmw = dyn_cast<tt::AtomicRMWOp>(op))
    return lowerAtomicRmw(rmw);
  if (auto cas = dyn_cast<tt::AtomicCASOp>(op))
    return lowerAtomicCas(cas);
  if (auto scan = dyn_cast<tt::ScanOp>(op))
    return lowerScan(scan);
  if (auto hist = dyn_cast<tt::HistogramOp>(op))
    return lowerHistogram(hist);
  if (auto gather = dyn_cast<tt::GatherOp>(op))
    return lowerGather(gather);
  if (auto print = dyn_cast<tt::PrintOp>(op))
    return lowerPrint(print);
  if (auto assertOp = dyn_cast<tt::AssertOp>(op))
    return lowerAssert(assertOp);
  if (isa<ttg::BarrierOp>(op)) {
    // tl.debug_barrier: the core waits for every command it issued.
    mtia::BarrierOp::create(b, op->getLoc());
    return success();
  }
  return lowerCast(op);
}

} // namespace mlir::triton_mtia::tt_to_mtia
