//===- TTToMTIA.cpp - Lower Triton IR to MTIA commands --------------------===//
//
// This file lowers a `tt.func` into a `func.func` of scalar code plus `mtia`
// commands. The lowering walks the kernel once, in program order, and keeps
// for every tensor value of the source one of three representations:
//
//  * a *tile*: a strided view of the front of a (virtual) circular buffer;
//  * a *splat*: a scalar in a core register, broadcast on use (immediates of
//    SE commands cost nothing to broadcast);
//  * nothing yet, for *address-only* values: index and pointer arithmetic
//    and masks whose every use is a load, a store or more address math. Those
//    are not computed at all when the structured-access analysis recovers a
//    strided DMA; only when it fails are they rematerialized, at the use, as
//    tiles for a gather or scatter.
//
// Pops are placed after the last use of a tile in the block that defines it,
// so a tile defined outside a loop and read inside it stays at the front of
// its CB for the whole loop.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/StringSwitch.h"

#include <functional>

namespace mlir::triton_mtia {
#define GEN_PASS_DEF_CONVERTTTTOMTIA
#include "triton-mtia/Conversion/Passes.h.inc"
} // namespace mlir::triton_mtia

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

LogicalResult KernelLowering::unsupported(Operation *op, const Twine &why) {
  InFlightDiagnostic diag = op->emitError()
                            << "'" << op->getName()
                            << "' is not supported by the MTIA backend yet";
  if (!why.isTriviallyEmpty())
    diag << ": " << why;
  return failure();
}

Value KernelLowering::toI64(Value v, Location loc) {
  Type i64 = b.getI64Type();
  if (v.getType() == i64)
    return v;
  if (v.getType().isIndex())
    return arith::IndexCastOp::create(b, loc, i64, v);
  if (v.getType().getIntOrFloatBitWidth() < 64)
    return arith::ExtSIOp::create(b, loc, i64, v);
  return arith::TruncIOp::create(b, loc, i64, v);
}

Value KernelLowering::scalar(Value v) { return scalars.lookupOrNull(v); }

//===----------------------------------------------------------------------===//
// Tiles and their lifetimes
//===----------------------------------------------------------------------===//

/// Allocates a virtual CB for a new tile produced for `root` and schedules its
/// pop after the last use of `root`.
int64_t KernelLowering::newTile(Value root, Type elemType,
                                ArrayRef<int64_t> shape, Location loc) {
  int64_t cb = nextCb++;
  int64_t bytes = numElements(shape) * mtia::elementBytes(elemType);
  tensors[root] = Lowered::tile(cb, elemType, shape);
  schedulePop(root, cb, bytes);
  return cb;
}

/// Collects the ops that read `v`'s storage: its users, and the users of views
/// of it. An address-only user (e.g. the tt.addptr of a gather's indices) is
/// not computed where it stands but rematerialized where a load, store or
/// loop consumes it, so its users read `v` too.
static void collectReaders(Value v, SmallVectorImpl<Operation *> &readers,
                           function_ref<bool(Value)> isAddressOnly) {
  for (Operation *user : v.getUsers()) {
    readers.push_back(user);
    for (Value result : user->getResults()) // tt.split has two
      if (isViewOp(user) ||
          (isa<RankedTensorType>(result.getType()) && isAddressOnly(result)))
        collectReaders(result, readers, isAddressOnly);
  }
}

/// Registers a pop of `cb` after the last reader of `root`, taken in the block
/// that defines `root`; with no readers the tile is popped right away.
void KernelLowering::schedulePop(Value root, int64_t cb, int64_t bytes) {
  SmallVector<Operation *> readers;
  collectReaders(root, readers, [&](Value v) { return isAddressOnly(v); });
  Block *block = root.getParentBlock();
  Operation *last = nullptr;
  for (Operation *reader : readers) {
    Operation *ancestor = block->findAncestorOpInBlock(*reader);
    if (ancestor && (!last || last->isBeforeInBlock(ancestor)))
      last = ancestor;
  }
  if (!last) {
    // Nobody reads it: popped once its producer has made it. That is after
    // the whole source op, since the op (a scan's copy back, say) may append
    // the tile after asking for it.
    Operation *def = root.getDefiningOp();
    if (def && def->getBlock() == block && !def->hasTrait<OpTrait::IsTerminator>())
      pendingPops[def].push_back({cb, bytes});
    else
      mtia::CbPopOp::create(b, root.getLoc(), cb, bytes);
    return;
  }
  pendingPops[last].push_back({cb, bytes});
}

void KernelLowering::bindCbFront(Value v, int64_t cb) {
  auto type = cast<RankedTensorType>(v.getType());
  tensors[v] = Lowered::tile(cb, tileElementType(type), type.getShape());
  schedulePop(v, cb, tileBytes(type));
}

/// The source attribute of an SE command for `l`; immediates are appended to
/// `imms`.
Attribute KernelLowering::sourceOf(const Lowered &l,
                                   SmallVectorImpl<Value> &imms) {
  if (!l.isTile()) {
    imms.push_back(l.scalar);
    return mtia::ImmAttr::get(b.getContext());
  }
  return mtia::ViewAttr::get(b.getContext(), l.cb, l.elemType, l.offset,
                             l.strides);
}

/// Appends a dense copy of `from` (a view or a splat) in `elemType` to
/// `dstCb`.
void KernelLowering::emitCopy(const Lowered &from, int64_t dstCb, Type elemType,
                              ArrayRef<int64_t> shape, Location loc) {
  SmallVector<Value> imms;
  Attribute srcAttr = sourceOf(from, imms);
  mtia::SeOp::create(b, loc, imms, ValueRange{}, "Copy", dstCb, elemType, shape,
                       b.getArrayAttr({srcAttr}));
}

void KernelLowering::emitElementwise(Location loc, ArrayRef<Value> imms, StringRef opcode,
                                     int64_t cb, Type elemType, ArrayRef<int64_t> shape,
                                     ArrayRef<Attribute> srcs) {
  StringRef unit = mtia::isVectorOnlyOpcode(opcode) ? "vec" : "se";
  mtia::SeOp::create(b, loc, imms, ValueRange{}, opcode, cb, elemType, shape, b.getArrayAttr(srcs), unit);
}

/// Copies `from` into a fresh dense tile that lives until the command being
/// lowered has been issued (`temps` collects it for its pop). Making a view
/// dense (a broadcast or transposed tile a store needs) is MLU work.
int64_t KernelLowering::copyToNewTile(
    const Lowered &from, Type elemType, ArrayRef<int64_t> shape, Location loc,
    SmallVectorImpl<std::pair<int64_t, int64_t>> *temps) {
  int64_t cb = nextCb++;
  emitMove(from, cb, elemType, shape, loc);
  temps->push_back({cb, numElements(shape) * mtia::elementBytes(elemType)});
  return cb;
}

/// The lowered form of source value `v`, a tensor or (as an operand of an
/// elementwise op, e.g. the condition of a select) a scalar.
FailureOr<Lowered> KernelLowering::tensor(Value v) {
  auto it = tensors.find(v);
  if (it != tensors.end())
    return it->second;
  if (!isa<RankedTensorType>(v.getType()))
    if (Value s = scalar(v))
      return Lowered::splat(s);
  Location loc = v.getDefiningOp() ? v.getDefiningOp()->getLoc() : v.getLoc();
  return emitError(loc, "internal: value used before it was lowered "
                        "(an address-only value used as data?)"),
         failure();
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lowerBlock(Block &block) {
  for (Operation &op : block) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue; // lowered by the parent op
    if (failed(lowerOp(&op)))
      return failure();
    flushPops(&op);
  }
  return success();
}

/// Emits the pops scheduled after terminator `op`; they must precede the
/// lowered terminator.
void KernelLowering::flushPops(Operation *op) {
  auto it = pendingPops.find(op);
  if (it == pendingPops.end())
    return;
  for (auto [cb, bytes] : it->second)
    mtia::CbPopOp::create(b, op->getLoc(), cb, bytes);
  pendingPops.erase(it);
}

LogicalResult KernelLowering::lowerOp(Operation *op) {
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return lowerFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return lowerIf(ifOp);
  if (std::optional<LogicalResult> done = lowerLanguageOp(op))
    return *done;
  if (isa<tt::ElementwiseInlineAsmOp>(op))
    return op->emitError("inline assembly (tt.elementwise_inline_asm, from "
                         "tl.inline_asm_elementwise) cannot run on MTIA: it is "
                         "GPU machine code; express the computation with "
                         "Triton operations instead"),
           failure();
  if (isa<cf::ControlFlowDialect>(op->getDialect()) || isa<scf::WhileOp>(op))
    return unsupported(op, "unstructured or while control flow is not lowered yet");
  bool hasTensor = llvm::any_of(op->getResultTypes(), [](Type t) {
    return isa<RankedTensorType>(t);
  }) || llvm::any_of(op->getOperandTypes(), [](Type t) {
    return isa<RankedTensorType>(t);
  });
  if (hasTensor)
    return lowerTensorOp(op);
  return lowerScalarOp(op);
}

LogicalResult KernelLowering::lowerScalarOp(Operation *op) {
  Location loc = op->getLoc();
  if (auto assume = dyn_cast<LLVM::AssumeOp>(op)) {
    // `tl.assume`: a fact for the C++ compiler of the core's scalar code.
    if (!scalar(assume.getCond()))
      return op->emitError("internal: the condition of an assumption was not lowered"), failure();
    b.clone(*op, scalars);
    return success();
  }
  if (auto pid = dyn_cast<tt::GetProgramIdOp>(op)) {
    scalars.map(pid.getResult(),
                mtia::ProgramIdOp::create(b, loc, b.getI32Type(), static_cast<int32_t>(pid.getAxis())));
    return success();
  }
  if (auto num = dyn_cast<tt::GetNumProgramsOp>(op)) {
    scalars.map(num.getResult(),
                mtia::NumProgramsOp::create(b, loc, b.getI32Type(), static_cast<int32_t>(num.getAxis())));
    return success();
  }
  if (auto addptr = dyn_cast<tt::AddPtrOp>(op)) {
    int64_t elemBytes = mtia::elementBytes(
        cast<tt::PointerType>(addptr.getType()).getPointeeType());
    Value off = toI64(scalar(addptr.getOffset()), loc);
    Value bytes = b.createOrFold<arith::MulIOp>(loc, off, constI64(elemBytes, loc));
    scalars.map(addptr.getResult(),
                b.createOrFold<arith::AddIOp>(loc, scalar(addptr.getPtr()), bytes));
    return success();
  }
  if (auto load = dyn_cast<tt::LoadOp>(op))
    return lowerLoad(load);
  if (auto store = dyn_cast<tt::StoreOp>(op))
    return lowerStore(store);
  if (auto ret = dyn_cast<tt::ReturnOp>(op)) {
    if (!ret.getSrcs().empty())
      return unsupported(op, "kernels return no values");
    return success();
  }
  if (isa<tt::IntToPtrOp, tt::PtrToIntOp>(op)) {
    Value v = toI64(scalar(op->getOperand(0)), loc);
    Type resultType = lowerScalarType(op->getResult(0).getType());
    if (resultType != v.getType())
      v = arith::TruncIOp::create(b, loc, resultType, v);
    scalars.map(op->getResult(0), v);
    return success();
  }
  if (isa<arith::ArithDialect, math::MathDialect>(op->getDialect())) {
    for (Value operand : op->getOperands())
      if (!scalar(operand))
        return op->emitError("internal: scalar operand was not lowered"), failure();
    Operation *clone = b.clone(*op, scalars);
    // A select between pointers (`src = a if pid == 0 else b`) selects
    // their i64 addresses.
    for (auto [from, to] : llvm::zip(op->getResults(), clone->getResults())) {
      to.setType(lowerScalarType(from.getType()));
      scalars.map(from, to);
    }
    return success();
  }
  if (auto ext = dyn_cast<tt::ExternElementwiseOp>(op)) {
    SmallVector<Value> args;
    for (Value v : ext.getSrcs())
      args.push_back(scalar(v));
    Value result = scalarLibdevice(ext, args);
    if (!result)
      return failure();
    scalars.map(ext.getResult(), result);
    return success();
  }
  if (isa<tt::ClampFOp, tt::PreciseSqrtOp, tt::PreciseDivFOp>(op)) {
    Value x = scalar(op->getOperand(0));
    Value result;
    if (auto clamp = dyn_cast<tt::ClampFOp>(op)) {
      // propagate_nan=ALL: a NaN x gives NaN (maximumf / minimumf).
      Value lo = scalar(clamp.getMin()), hi = scalar(clamp.getMax());
      if (clamp.getPropagateNan() == tt::PropagateNan::ALL)
        result = arith::MinimumFOp::create(b, loc, arith::MaximumFOp::create(b, loc, x, lo), hi);
      else
        result = arith::MinNumFOp::create(b, loc, arith::MaxNumFOp::create(b, loc, x, lo), hi);
    }
    else if (isa<tt::PreciseSqrtOp>(op))
      result = math::SqrtOp::create(b, loc, x);
    else
      result = arith::DivFOp::create(b, loc, x, scalar(op->getOperand(1)));
    scalars.map(op->getResult(0), result);
    return success();
  }
  return unsupported(op);
}

LogicalResult KernelLowering::lowerTensorOp(Operation *op) {
  Location loc = op->getLoc();
  // Address-only values are not computed here; loads and stores analyze (or
  // rematerialize) them.
  if (op->getNumResults() == 1 && isa<RankedTensorType>(op->getResult(0).getType()) &&
      isAddressOnly(op->getResult(0)) &&
      (isa<tt::MakeRangeOp, tt::SplatOp, tt::ExpandDimsOp, tt::BroadcastOp,
           tt::AddPtrOp, arith::ConstantOp>(op) ||
       !seOpcodeFor(op).empty()))
    return success();

  if (auto load = dyn_cast<tt::LoadOp>(op))
    return lowerLoad(load);
  if (auto store = dyn_cast<tt::StoreOp>(op))
    return lowerStore(store);
  if (auto reduce = dyn_cast<tt::ReduceOp>(op))
    return lowerReduce(reduce);

  if (auto unsplat = dyn_cast<tt::UnsplatOp>(op)) {
    // The one element, read into a core register (or the splat's scalar).
    auto in = tensor(unsplat.getSrc());
    if (failed(in))
      return failure();
    if (!in->isTile()) {
      scalars.map(unsplat.getResult(), in->scalar);
      return success();
    }
    Type type = unsplat.getType();
    auto read = mtia::ReadOp::create(b, loc, lowerScalarType(type), in->cb, in->offset);
    if (isa<tt::PointerType>(type))
      read->setAttr(mtia::kPointerAttr, b.getUnitAttr());
    scalars.map(unsplat.getResult(), read);
    return success();
  }
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = dyn_cast<SplatElementsAttr>(cst.getValue());
    if (!dense)
      return unsupported(op, "non-uniform tensor constants");
    tensors[cst.getResult()] = Lowered::splat(arith::ConstantOp::create(b, 
        loc, cast<TypedAttr>(dense.getSplatValue<Attribute>())));
    return success();
  }
  if (auto splat = dyn_cast<tt::SplatOp>(op)) {
    Value srcV = splat.getSrc();
    auto it = tensors.find(srcV); // a reduction result that stayed a tile
    if (it != tensors.end() && !scalar(srcV)) {
      Lowered view = it->second;
      view.shape = shapeOf(splat.getType());
      view.strides.assign(view.shape.size(), 0);
      tensors[splat.getResult()] = view;
      return success();
    }
    tensors[splat.getResult()] = Lowered::splat(scalar(srcV));
    return success();
  }
  if (auto range = dyn_cast<tt::MakeRangeOp>(op)) {
    Type elemType = range.getType().getElementType();
    int64_t cb = newTile(range.getResult(), elemType, shapeOf(range.getType()), loc);
    mtia::SeIotaOp::create(b, loc, cb, elemType, range.getType().getDimSize(0),
                             range.getStart());
    return success();
  }
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(op)) {
    auto in = tensor(op->getOperand(0));
    if (failed(in))
      return failure();
    Lowered out = *in;
    if (out.isTile()) {
      out.shape = shapeOf(op->getResult(0).getType());
      if (auto expand = dyn_cast<tt::ExpandDimsOp>(op))
        out.strides.insert(out.strides.begin() + expand.getAxis(), 0);
    }
    tensors[op->getResult(0)] = out;
    return success();
  }
  if (auto reshape = dyn_cast<tt::ReshapeOp>(op))
    return lowerReshape(reshape);
  if (auto dot = dyn_cast<tt::DotOp>(op))
    return lowerDot(dot);
  if (auto trans = dyn_cast<tt::TransOp>(op))
    return lowerTrans(trans);
  if (auto join = dyn_cast<tt::JoinOp>(op))
    return lowerJoin(join);
  if (auto split = dyn_cast<tt::SplitOp>(op))
    return lowerSplit(split);
  if (auto clamp = dyn_cast<tt::ClampFOp>(op)) {
    // clamp(x, lo, hi) = min(max(x, lo), hi), as two SE commands; with
    // propagate_nan=ALL the NaN-propagating ones.
    bool nan = clamp.getPropagateNan() == tt::PropagateNan::ALL;
    auto x = tensor(clamp.getX()), lo = tensor(clamp.getMin()),
         hi = tensor(clamp.getMax());
    if (failed(x) || failed(lo) || failed(hi))
      return failure();
    auto type = cast<RankedTensorType>(clamp.getType());
    SmallVector<int64_t> shape(type.getShape());
    Type elemType = type.getElementType();
    SmallVector<Value> imms;
    int64_t tmp = nextCb++;
    Attribute xs = sourceOf(*x, imms), los = sourceOf(*lo, imms);
    mtia::SeOp::create(b, loc, imms, ValueRange{}, nan ? "Maximum" : "Max", tmp, elemType, shape,
                         b.getArrayAttr({xs, los}));
    imms.clear();
    int64_t cb = newTile(clamp.getResult(), elemType, shape, loc);
    Attribute ts = sourceOf(Lowered::tile(tmp, elemType, shape), imms);
    Attribute his = sourceOf(*hi, imms);
    mtia::SeOp::create(b, loc, imms, ValueRange{}, nan ? "Minimum" : "Min", cb, elemType, shape,
                         b.getArrayAttr({ts, his}));
    mtia::CbPopOp::create(b, loc, tmp, numElements(shape) * mtia::elementBytes(elemType));
    return success();
  }
  StringRef opcode = seOpcodeFor(op);
  if (!opcode.empty())
    return lowerElementwise(op, opcode);
  if (auto ext = dyn_cast<tt::ExternElementwiseOp>(op))
    return unsupported(op, "library function '" + ext.getSymbol() +
                               "' (MTIA provides triton.language.extra.libdevice "
                               "through triton_mtia.language.libdevice)");
  return unsupported(op);
}

LogicalResult KernelLowering::lowerElementwise(Operation *op, StringRef opcode) {
  Location loc = op->getLoc();
  SmallVector<Lowered> operands;
  bool allSplat = true;
  for (Value v : op->getOperands()) {
    auto l = tensor(v);
    if (failed(l))
      return failure();
    allSplat &= !l->isTile();
    operands.push_back(*l);
  }
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  // Pointers as data (`tl.where(c, p, q)` on pointer tensors) are i64
  // address tiles and i64 core values, as everywhere else.
  Type elemType = tileElementType(type);
  if (!elemType.isIntOrFloat())
    return unsupported(op, "tensors of this element type");
  // Uniform operands: compute once on the core and keep it a splat.
  if (allSplat && isa<tt::ExternElementwiseOp>(op)) {
    SmallVector<Value> args;
    for (const Lowered &l : operands)
      args.push_back(l.scalar);
    Value result = scalarLibdevice(cast<tt::ExternElementwiseOp>(op), args);
    if (!result)
      return failure();
    tensors[op->getResult(0)] = Lowered::splat(result);
    return success();
  }
  if (allSplat) {
    OperationState state(loc, op->getName());
    for (const Lowered &l : operands)
      state.addOperands(l.scalar);
    state.addTypes(elemType);
    state.addAttributes(op->getAttrs());
    Operation *scalarOp = b.create(state);
    tensors[op->getResult(0)] = Lowered::splat(scalarOp->getResult(0));
    return success();
  }
  SmallVector<Value> imms;
  SmallVector<Attribute> srcs;
  for (const Lowered &l : operands)
    srcs.push_back(sourceOf(l, imms));
  SmallVector<int64_t> shape(type.getShape());
  int64_t cb = newResultTile(op->getResult(0), elemType, shape, loc);
  emitElementwise(loc, imms, opcode, cb, elemType, shape, srcs);
  if (isa<tt::ExternElementwiseOp>(op) && libdeviceUnit != "auto") {
    // The libdevice placement directive (6.1.3): pinned where it says, but
    // math the SE has no lookup table for stays on the vector core.
    auto se = cast<mtia::SeOp>(std::prev(b.getInsertionPoint()));
    if (!mtia::isVectorOnlyOpcode(opcode))
      se.setUnit(libdeviceUnit);
    se->setAttr(mtia::kPinnedAttr, b.getUnitAttr());
  }
  return success();
}

/// A libdevice call on scalars: core math, or an error naming the function.
Value KernelLowering::scalarLibdevice(tt::ExternElementwiseOp op,
                                      ArrayRef<Value> args) {
  Location loc = op.getLoc();
  StringRef opcode = libdeviceOpcode(op.getSymbol());
  Value x = args.empty() ? Value() : args[0];
  auto unary = [&](auto tag) -> Value {
    using MathOp = decltype(tag);
    return MathOp::create(b, loc, x);
  };
  Value result = llvm::StringSwitch<std::function<Value()>>(opcode)
      .Case("Exp", [&] { return unary(math::ExpOp()); })
      .Case("Exp2", [&] { return unary(math::Exp2Op()); })
      .Case("Log", [&] { return unary(math::LogOp()); })
      .Case("Log2", [&] { return unary(math::Log2Op()); })
      .Case("Log10", [&] { return unary(math::Log10Op()); })
      .Case("Log1p", [&] { return unary(math::Log1pOp()); })
      .Case("Expm1", [&] { return unary(math::ExpM1Op()); })
      .Case("Sqrt", [&] { return unary(math::SqrtOp()); })
      .Case("Rsqrt", [&] { return unary(math::RsqrtOp()); })
      .Case("Tanh", [&] { return unary(math::TanhOp()); })
      .Case("Erf", [&] { return unary(math::ErfOp()); })
      .Case("Erfc", [&] { return unary(math::ErfcOp()); })
      .Case("Tan", [&] { return unary(math::TanOp()); })
      .Case("Atan", [&] { return unary(math::AtanOp()); })
      .Case("Asin", [&] { return unary(math::AsinOp()); })
      .Case("Acos", [&] { return unary(math::AcosOp()); })
      .Case("Sinh", [&] { return unary(math::SinhOp()); })
      .Case("Cosh", [&] { return unary(math::CoshOp()); })
      .Case("Asinh", [&] { return unary(math::AsinhOp()); })
      .Case("Acosh", [&] { return unary(math::AcoshOp()); })
      .Case("Atanh", [&] { return unary(math::AtanhOp()); })
      .Case("Cbrt", [&] { return unary(math::CbrtOp()); })
      .Case("Rint", [&] { return unary(math::RoundEvenOp()); })
      .Case("Trunc", [&] { return unary(math::TruncOp()); })
      .Case("Pow", [&] { return Value(math::PowFOp::create(b, loc, x, args[1])); })
      .Case("Atan2", [&] { return Value(math::Atan2Op::create(b, loc, x, args[1])); })
      .Default([] { return Value(); })();
  if (!result && !opcode.empty() && mtia::isVectorOnlyOpcode(opcode)) {
    // No core math for it: the vector core computes a one-element tile of
    // immediates, read back into a register. One implementation, the
    // simulator's, serves tiles and scalars.
    Type type = op.getType();
    SmallVector<Value> imms(args);
    SmallVector<Attribute> srcs(args.size(), mtia::ImmAttr::get(b.getContext()));
    int64_t cb = nextCb++;
    emitElementwise(loc, imms, opcode, cb, type, {}, srcs);
    result = mtia::ReadOp::create(b, loc, type, cb, 0);
    mtia::CbPopOp::create(b, loc, cb, mtia::elementBytes(type));
  }
  if (!result)
    (void)unsupported(op, "library function '" + op.getSymbol() +
                              "' on scalars (MTIA provides "
                              "triton.language.extra.libdevice through "
                              "triton_mtia.language.libdevice)");
  return result;
}

LogicalResult KernelLowering::lowerReduce(tt::ReduceOp op) {
  Location loc = op.getLoc();
  StringRef kind = reduceKindFor(op);
  if (kind.empty()) // argmax-style pairs, user combine functions
    return lowerCombineReduce(op);
  auto in = tensor(op.getSrcs()[0]);
  if (failed(in))
    return failure();
  auto srcType = cast<RankedTensorType>(op.getSrcs()[0].getType());
  Type elemType = srcType.getElementType();
  SmallVector<int64_t> inShape(srcType.getShape());
  Lowered src = *in;
  SmallVector<std::pair<int64_t, int64_t>> temps;
  if (!src.isTile())
    src = Lowered::tile(copyToNewTile(src, elemType, inShape, loc, &temps),
                        elemType, inShape);
  Value result = op.getResult()[0];
  SmallVector<int64_t> outShape = shapeOf(result.getType());
  int64_t cb = newTile(result, elemType, outShape, loc);
  mtia::SeReduceOp::create(b, 
      loc, ValueRange{}, kind, cb, elemType, inShape, op.getAxis(),
      mtia::ViewAttr::get(b.getContext(), src.cb, src.elemType, src.offset,
                          src.strides), /*fill=*/nullptr);
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  // A scalar result used by scalar code is read into a core register now.
  if (!isa<RankedTensorType>(result.getType()) &&
      llvm::any_of(result.getUsers(),
                   [](Operation *u) { return !isa<tt::SplatOp>(u); })) {
    auto read = mtia::ReadOp::create(b, loc, elemType, cb, 0);
    if (isa<tt::PointerType>(result.getType()))
      read->setAttr(mtia::kPointerAttr, b.getUnitAttr());
    scalars.map(result, read);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Functions
//===----------------------------------------------------------------------===//

FailureOr<func::FuncOp> KernelLowering::run() {
  if (src.isExternal())
    return src.emitError("external function declarations are not supported"),
           failure();
  if (!src.getBody().hasOneBlock())
    return unsupported(src, "kernels with more than one block (early returns)");
  SmallVector<Type> argTypes;
  for (Type t : src.getArgumentTypes()) {
    if (isa<RankedTensorType, tt::TensorDescType>(t))
      return src.emitError("kernel arguments must be scalars or pointers"),
             failure();
    argTypes.push_back(lowerScalarType(t));
  }
  if (!src.getResultTypes().empty())
    return unsupported(src, "device functions that return values (tt.call)");
  b.setInsertionPoint(src);
  dst = func::FuncOp::create(b, src.getLoc(), src.getName(),
                               b.getFunctionType(argTypes, {}));
  Block *entry = dst.addEntryBlock();
  for (auto [from, to] : llvm::zip(src.getArguments(), entry->getArguments())) {
    to.setLoc(from.getLoc()); // keeps the argument's name for the emitter
    scalars.map(from, to);
    // Triton's specialization (a multiple of 16) is a fact the index math
    // uses (knownDivisor).
    if (auto div = src.getArgAttr(from.getArgNumber(), "tt.divisibility"))
      dst.setArgAttr(to.getArgNumber(), "tt.divisibility", div);
    // Which i64 arguments are addresses (mtia-order-memory's alias roots).
    if (isa<tt::PointerType>(from.getType()))
      dst.setArgAttr(to.getArgNumber(), mtia::kPointerAttr, b.getUnitAttr());
  }
  b.setInsertionPointToStart(entry);
  if (failed(lowerBlock(src.getBody().front()))) {
    dst.erase();
    return failure();
  }
  func::ReturnOp::create(b, src.getLoc());
  return dst;
}

} // namespace mlir::triton_mtia::tt_to_mtia

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

namespace {
using tt_to_mtia::KernelLowering;

struct ConvertTTToMTIA
    : public triton_mtia::impl::ConvertTTToMTIABase<ConvertTTToMTIA> {
  using ConvertTTToMTIABase::ConvertTTToMTIABase; // options (Passes.td)
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (libdeviceUnit != "auto" && libdeviceUnit != "se" && libdeviceUnit != "vec") {
      module.emitError() << "libdevice-unit must be auto, se or vec, not '" << libdeviceUnit << "'";
      return signalPassFailure();
    }
    // Kernels are the public functions, each one block of structured code
    // (tt-inline-calls and tt-structurize-returns ran before).
    SmallVector<tt::FuncOp> funcs(module.getOps<tt::FuncOp>());
    for (tt::FuncOp func : funcs) {
      if (func.isPrivate())
        continue;
      if (func.getBody().getBlocks().size() != 1) {
        func.emitError("convert-tt-to-mtia takes kernels of one block: run tt-inline-calls and "
                       "tt-structurize-returns first");
        return signalPassFailure();
      }
      KernelLowering lowering(func);
      lowering.dmaReport = dmaReport;
      lowering.poisonMaskedLoads = poisonMaskedLoads;
      lowering.indexMath = indexMath;
      lowering.libdeviceUnit = libdeviceUnit;
      if (failed(lowering.run()))
        return signalPassFailure();
    }
    for (tt::FuncOp func : funcs)
      func.erase();
  }
};

} // namespace

