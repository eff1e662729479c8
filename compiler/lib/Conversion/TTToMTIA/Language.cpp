//===- Language.cpp - Dispatch for the rest of the Triton language ---===//
//
// lowerOp asks `lowerLanguageOp` first; it owns atomics, scans, histogram,
// gather, casts that need more than one SE opcode, debugging ops and while
// loops, and answers std::nullopt for everything else.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

/// The language extension's PE queries (python/triton_mtia/language/pe.py):
/// `tt.extern_elementwise` calls of a reserved symbol on a constant axis.
static constexpr llvm::StringLiteral kPeIdSymbol = "__mtia_get_pe_id";
static constexpr llvm::StringLiteral kPeGridSizeSymbol = "__mtia_get_pe_grid_size";

std::optional<LogicalResult> KernelLowering::lowerPeQuery(tt::ExternElementwiseOp ext) {
  StringRef symbol = ext.getSymbol();
  if (symbol != kPeIdSymbol && symbol != kPeGridSizeSymbol)
    return std::nullopt;
  APInt axis;
  if (ext.getSrcs().size() != 1 || !isa<IntegerType>(ext.getType()) ||
      !matchPattern(ext.getSrcs()[0], m_ConstantInt(&axis)) || axis.getSExtValue() < 0 ||
      axis.getSExtValue() > 1)
    return ext.emitError() << symbol.drop_front(strlen("__mtia_"))
                           << " takes one constant axis, 0 (the PE's row) or 1 (its column)";
  auto axisValue = static_cast<int32_t>(axis.getSExtValue());
  Value result = symbol == kPeIdSymbol
                     ? mtia::PeIdOp::create(b, ext.getLoc(), b.getI32Type(), axisValue).getResult()
                     : mtia::PeGridSizeOp::create(b, ext.getLoc(), b.getI32Type(), axisValue).getResult();
  scalars.map(ext.getResult(), result);
  return success();
}

std::optional<LogicalResult> KernelLowering::lowerLanguageOp(Operation *op) {
  if (auto ext = dyn_cast<tt::ExternElementwiseOp>(op))
    if (std::optional<LogicalResult> lowered = lowerPeQuery(ext))
      return lowered;
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
