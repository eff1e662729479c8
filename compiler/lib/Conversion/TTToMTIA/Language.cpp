//===- Language.cpp - Dispatch for the rest of the Triton language ---===//
//
// lowerOp asks `lowerLanguageOp` first; it owns atomics, scans, histogram,
// gather, casts that need more than one SE opcode, debugging ops and while
// loops, and answers std::nullopt for everything else.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"

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

/// The language extension's communication between PEs
/// (python/triton_mtia/language/network.py), calls not marked pure:
/// `__mtia_re_reduce_<op>_<axis>(values, is_first, is_last)` and
/// `__mtia_broadcast_<axis>(values, is_source)`.
static constexpr llvm::StringLiteral kReReducePrefix = "__mtia_re_reduce_";
static constexpr llvm::StringLiteral kBroadcastPrefix = "__mtia_broadcast_";

/// Both move a tile between PEs as bytes, so the values are made dense and
/// the commands are 1-D (any shape is the same tile):
///
///  * re_reduce, a chain over the reduction network in three commands: the
///    first PE sends its own tile at once; every PE appends its partial
///    result (its own tile on the first, the arriving partial combined with
///    its own on the others) to the result's CB; every PE but the first and
///    the last forwards that partial.
///  * broadcast, over the NoC in two: the source sends its tile to the rest
///    of its PE row or column; every PE appends the result (its own tile on
///    the source, the one that arrives on the others).
std::optional<LogicalResult> KernelLowering::lowerCrossPe(tt::ExternElementwiseOp ext) {
  StringRef symbol = ext.getSymbol();
  const bool reduce = symbol.starts_with(kReReducePrefix);
  if (!reduce && !symbol.starts_with(kBroadcastPrefix))
    return std::nullopt;
  StringRef kind, axisName;
  if (reduce) {
    std::tie(kind, axisName) = symbol.drop_front(kReReducePrefix.size()).rsplit('_');
    kind = llvm::StringSwitch<StringRef>(kind)
               .Case("add", "Sum")
               .Case("max", "Max")
               .Case("min", "Min")
               .Default("");
    if (kind.empty() || (axisName != "0" && axisName != "1") || ext.getSrcs().size() != 3)
      return ext.emitError() << "re_reduce: unknown reduction '" << symbol
                             << "' (add, max or min, over axis 0 or 1)";
  } else {
    axisName = symbol.drop_front(kBroadcastPrefix.size());
    if ((axisName != "0" && axisName != "1") || ext.getSrcs().size() != 2)
      return ext.emitError() << "broadcast: unknown broadcast '" << symbol << "' (over axis 0 or 1)";
  }
  StringRef what = reduce ? "re_reduce" : "broadcast";
  auto type = dyn_cast<RankedTensorType>(ext.getType());
  if (!type || ext.getSrcs()[0].getType() != type ||
      llvm::any_of(ext.getSrcs().drop_front(),
                   [](Value flag) { return isa<RankedTensorType>(flag.getType()); }))
    return ext.emitError() << what << " takes a tensor of values and scalar flags";
  Location loc = ext.getLoc();
  FailureOr<Lowered> values = tensor(ext.getSrcs()[0]);
  if (failed(values))
    return failure();
  SmallVector<Value> flags;
  for (Value flag : ext.getSrcs().drop_front())
    if (!flags.emplace_back(scalar(flag)))
      return failure();

  Type elemType = tileElementType(type);
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<int64_t> flat = {numElements(shape)};
  SmallVector<std::pair<int64_t, int64_t>> temps;
  int64_t valuesCb = denseCb(*values, elemType, shape, loc, temps);
  auto dense = [&](int64_t cb) {
    return mtia::ViewAttr::get(b.getContext(), cb, elemType, 0, ArrayRef<int64_t>{1});
  };
  if (reduce) {
    // axis 0: down a PE column (north to south); 1: along a row (west to east).
    StringRef direction = axisName == "0" ? "south" : "east";
    Value isFirst = flags[0], isLast = flags[1];
    Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);
    Value forwards = arith::XOrIOp::create(b, loc, isLast, yes);
    Value firstSends = arith::AndIOp::create(b, loc, isFirst, forwards);
    Value middleSends =
        arith::AndIOp::create(b, loc, arith::XOrIOp::create(b, loc, isFirst, yes), forwards);
    mtia::ReSendOp::create(b, loc, firstSends, direction, elemType, flat, dense(valuesCb));
    int64_t cb = newTile(ext.getResult(), elemType, shape, loc);
    mtia::ReRecvOp::create(b, loc, isFirst, kind, direction, cb, elemType, flat, dense(valuesCb));
    mtia::ReSendOp::create(b, loc, middleSends, direction, elemType, flat, dense(cb));
  } else {
    const int32_t axis = axisName == "0" ? 0 : 1;
    Value isSource = flags[0];
    mtia::NocBroadcastOp::create(b, loc, isSource, axis, elemType, flat, dense(valuesCb));
    int64_t cb = newTile(ext.getResult(), elemType, shape, loc);
    mtia::NocRecvOp::create(b, loc, isSource, axis, cb, elemType, flat, dense(valuesCb));
  }
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}

/// `mtl.core_hint(x, core)` and `mtl.unit_hint(x, unit)`
/// (python/triton_mtia/language/placement.py): identities on a tensor,
/// `__mtia_core_hint_<0|1>` and `__mtia_unit_hint_<se|vec>`, that place the
/// command which computed it.
static constexpr llvm::StringLiteral kCoreHintPrefix = "__mtia_core_hint_";
static constexpr llvm::StringLiteral kUnitHintPrefix = "__mtia_unit_hint_";

bool isPlacementHint(Operation *op) {
  auto ext = dyn_cast<tt::ExternElementwiseOp>(op);
  return ext && (ext.getSymbol().starts_with(kCoreHintPrefix) ||
                 ext.getSymbol().starts_with(kUnitHintPrefix));
}

std::optional<LogicalResult> KernelLowering::lowerPlacementHint(tt::ExternElementwiseOp ext) {
  if (!isPlacementHint(ext))
    return std::nullopt;
  StringRef symbol = ext.getSymbol();
  const bool core = symbol.consume_front(kCoreHintPrefix);
  if (!core)
    symbol.consume_front(kUnitHintPrefix);
  StringRef what = core ? "core_hint" : "unit_hint";
  if (ext.getSrcs().size() != 1 || ext.getSrcs()[0].getType() != ext.getType() ||
      !isa<RankedTensorType>(ext.getType()))
    return ext.emitError() << what << " takes one tensor and returns it";
  if (core ? symbol != "0" && symbol != "1" : symbol != "se" && symbol != "vec")
    return ext.emitError() << what << ": unknown placement '" << symbol << "'";
  FailureOr<Lowered> value = tensor(ext.getSrcs()[0]);
  if (failed(value))
    return failure();
  // The command that computed the value: the last one before this point of
  // the block to append to its CB.
  Operation *producer = nullptr;
  if (value->isTile())
    for (auto it = b.getInsertionPoint(); !producer && it != b.getInsertionBlock()->begin();) {
      --it;
      if (mtia::getCbUses(&*it).writes == value->cb)
        producer = &*it;
    }
  if (!producer || isa<mtia::CbPopOp>(producer))
    return ext.emitError() << what
                           << " applies to a tensor computed by a command just before it, in the "
                              "same block (not to a constant, a splat or a loop-carried value)";
  if (core) {
    producer->setAttr(mtia::kCoreHintAttr, b.getI64IntegerAttr(symbol == "1" ? 1 : 0));
  } else {
    auto se = dyn_cast<mtia::SeOp>(producer);
    if (!se)
      return ext.emitError() << "unit_hint applies to the result of an elementwise operation "
                                "(an SE or vector-core command), not of "
                             << producer->getName();
    if (symbol == "se" && mtia::isVectorOnlyOpcode(se.getOpcode()))
      return ext.emitError() << "unit_hint: the SE has no lookup table for " << se.getOpcode()
                             << "; it runs on the vector core only";
    se.setUnit(symbol);
    se->setAttr(mtia::kPinnedAttr, b.getUnitAttr());
  }
  tensors[ext.getResult()] = *value; // the same tile (isViewOp keeps it alive)
  return success();
}

std::optional<LogicalResult> KernelLowering::lowerLanguageOp(Operation *op) {
  if (auto ext = dyn_cast<tt::ExternElementwiseOp>(op)) {
    if (std::optional<LogicalResult> lowered = lowerPeQuery(ext))
      return lowered;
    if (std::optional<LogicalResult> lowered = lowerCrossPe(ext))
      return lowered;
    if (std::optional<LogicalResult> lowered = lowerPlacementHint(ext))
      return lowered;
  }
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
