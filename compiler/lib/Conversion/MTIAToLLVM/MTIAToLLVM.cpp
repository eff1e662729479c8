//===- MTIAToLLVM.cpp - Commands as calls through the device API ----------===//
//
// The LLVM IR code generator's own step (paper 3.5: the compiler emits LLVM IR
// or C++). It does for the LLVM dialect what MTIAToCpp does for C++, and
// nothing else:
//
//  * every mtia command becomes an indirect `llvm.call` through the kernel's
//    `DeviceOps` table (`ctx->ops->dmaIn(...)`), with its Box, Shape,
//    Operand and VecStep arguments built in stack slots of the kernel's
//    entry block. The layouts are device.h's: this file includes it and
//    takes every field's place from `offsetof`, so the header stays the one
//    definition of the ABI (a change there changes this code when the
//    compiler is rebuilt, and kDeviceAbiVersion travels with it);
//  * scalar ops whose meaning is device.h's rather than LLVM's (division by
//    zero, shifts by the width, saturating float -> integer, min/max with
//    -0 < +0, fp8 values) become calls of llvm_support.h, device.h's
//    templates under C names, so the two paths compute the same values;
//  * the kernel becomes `void mtia_kernel_NAME(Ctx *ctx, const Arg *args)`
//    with its scalar arguments loaded from `args`, beside a constant
//    `mtia_kernel_NAME_info` (KernelInfo), as the C++ path exports them.
//
// What is left, arith, math, scf and func on scalars, is MLIR's to lower
// (triton-mtia-compile --emit-llvm runs its conversions after this pass).
// The walk keeps the C++ emitter's order and its IssuePath, so both paths
// issue the same calls and the simulator charges the same cycles.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Conversion/Passes.h"

#include "triton-mtia/Dialect/MTIA/IR/MTIADialect.h"
#include "triton-mtia/Target/IssuePath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"

#include "mtia/device.h"

#include <cstddef>

namespace mlir::triton_mtia {
#define GEN_PASS_DEF_CONVERTMTIATOLLVM
#include "triton-mtia/Conversion/Passes.h.inc"
} // namespace mlir::triton_mtia

using namespace mlir;
namespace dev = ::mtia; // device.h; `mtia` below is the dialect

// offsetof is defined for standard-layout types, which the ABI structs are.
static_assert(std::is_standard_layout_v<dev::Box> && std::is_standard_layout_v<dev::Shape> &&
                  std::is_standard_layout_v<dev::Operand> &&
                  std::is_standard_layout_v<dev::VecStep> &&
                  std::is_standard_layout_v<dev::Ctx> &&
                  std::is_standard_layout_v<dev::DeviceOps> &&
                  std::is_standard_layout_v<dev::KernelInfo>,
              "the device ABI's structs must be standard-layout");
// The KernelInfo global is built as the LLVM struct {i32, ptr, i32, i32,
// [kMaxCbs x i64]}, whose natural layout must be the header's.
static_assert(offsetof(dev::KernelInfo, name) == 8 && offsetof(dev::KernelInfo, numArgs) == 16 &&
                  offsetof(dev::KernelInfo, numCbs) == 20 &&
                  offsetof(dev::KernelInfo, cbCapacity) == 24 &&
                  sizeof(dev::KernelInfo) == 24 + 8 * dev::kMaxCbs,
              "KernelInfo's layout changed: update kernelInfoType");

namespace mlir::triton_mtia {
namespace {

/// The device API's element type of `type` (fp8 scalars included).
dev::DType deviceDType(Type type) {
  if (type.isInteger(1))
    return dev::DType::I1;
  if (type.isInteger(8))
    return dev::DType::I8;
  if (type.isInteger(16))
    return dev::DType::I16;
  if (type.isInteger(32))
    return dev::DType::I32;
  if (type.isInteger(64) || type.isIndex())
    return dev::DType::I64;
  if (type.isF16())
    return dev::DType::F16;
  if (type.isBF16())
    return dev::DType::BF16;
  if (type.isF32())
    return dev::DType::F32;
  if (type.isF64())
    return dev::DType::F64;
  if (isa<Float8E4M3FNType>(type))
    return dev::DType::F8E4M3;
  return dev::DType::F8E5M2;
}

bool isFp8(Type type) { return isa<Float8E4M3FNType, Float8E5M2Type>(type); }

/// SeOp / ReduceOp values by name: the lists device.h's enums are made of.
std::optional<int64_t> seOpcode(StringRef name) {
  static const llvm::StringMap<int64_t> opcodes = [] {
    llvm::StringMap<int64_t> m;
#define MTIA_SE_OP(Name, Arity) m[#Name] = static_cast<int64_t>(dev::SeOp::Name);
#include "mtia/se_ops.def"
    return m;
  }();
  auto it = opcodes.find(name);
  return it == opcodes.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

std::optional<int64_t> reduceKind(StringRef name) {
  static const llvm::StringMap<int64_t> kinds = [] {
    llvm::StringMap<int64_t> m;
#define MTIA_SE_REDUCE(Name) m[#Name] = static_cast<int64_t>(dev::ReduceOp::Name);
#include "mtia/se_reduce_ops.def"
    return m;
  }();
  auto it = kinds.find(name);
  return it == kinds.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

std::optional<int64_t> rmwKind(StringRef name) {
  using R = dev::RmwOp;
  auto kind = llvm::StringSwitch<std::optional<R>>(name)
                  .Case("And", R::And)
                  .Case("Or", R::Or)
                  .Case("Xor", R::Xor)
                  .Case("Add", R::Add)
                  .Case("FAdd", R::FAdd)
                  .Case("Max", R::Max)
                  .Case("Min", R::Min)
                  .Case("UMax", R::UMax)
                  .Case("UMin", R::UMin)
                  .Case("Xchg", R::Xchg)
                  .Default(std::nullopt);
  return kind ? std::optional<int64_t>(static_cast<int64_t>(*kind)) : std::nullopt;
}

/// Lowers one kernel. Commands are rewritten in place, in program order.
class KernelLowering {
public:
  KernelLowering(func::FuncOp kernel, ModuleOp module)
      : kernel(kernel), module(module), ctxt(kernel.getContext()), path(kernel),
        b(kernel.getContext()) {
    ptrType = LLVM::LLVMPointerType::get(ctxt);
    i8 = b.getI8Type();
    i16 = b.getI16Type();
    i32 = b.getI32Type();
    i64 = b.getI64Type();
    f32 = b.getF32Type();
    f64 = b.getF64Type();
  }

  LogicalResult run();

private:
  // --- the walk -------------------------------------------------------------
  LogicalResult lowerBlock(Block &block);
  LogicalResult lowerOp(Operation *op);
  LogicalResult lowerCommand(Operation *op);
  LogicalResult lowerScalar(Operation *op);
  /// What replaces scalar op `op` (built before it), or null where MLIR's
  /// lowering of it is the C++ path's meaning.
  FailureOr<Value> scalarReplacement(Operation *op);
  LogicalResult lowerFp8(Operation *op);

  // --- values ---------------------------------------------------------------
  Value constant(Type type, int64_t value) {
    return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
  }
  Value constantF64(double value) {
    return LLVM::ConstantOp::create(b, loc, f64, b.getF64FloatAttr(value));
  }
  Value i32Const(int64_t value) { return constant(i32, value); }
  Value i64Const(int64_t value) { return constant(i64, value); }
  Value at(Value base, int64_t byteOffset) {
    if (byteOffset == 0)
      return base;
    return LLVM::GEPOp::create(b, loc, ptrType, i8, base,
                               ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(byteOffset)});
  }
  void store(Value value, Value base, int64_t byteOffset) {
    LLVM::StoreOp::create(b, loc, value, at(base, byteOffset));
  }
  Value load(Type type, Value base, int64_t byteOffset) {
    return LLVM::LoadOp::create(b, loc, type, at(base, byteOffset));
  }
  /// A scalar widened to an argument of a C function that takes `to` (i32
  /// or i64): sign-extended, or zero-extended for i1 and `zeroExtend`.
  Value widen(Value v, Type to, bool zeroExtend = false) {
    unsigned width = v.getType().getIntOrFloatBitWidth();
    unsigned target = to.getIntOrFloatBitWidth();
    if (width == target)
      return v;
    if (width > target)
      return LLVM::TruncOp::create(b, loc, to, v);
    if (zeroExtend || width == 1)
      return LLVM::ZExtOp::create(b, loc, to, v);
    return LLVM::SExtOp::create(b, loc, to, v);
  }

  // --- the device ABI -------------------------------------------------------
  /// A byte slot of `bytes` in the kernel's entry block, 8-aligned.
  Value slot(int64_t bytes);
  /// Fills the Shape at `dst` (elements beyond the rank 0, as C++'s
  /// aggregate initialization leaves them).
  Value shapeAt(Value dst, ArrayRef<int64_t> dims);
  Value shapeAt(Value dst, ValueRange dims);
  Value shape(ArrayRef<int64_t> dims, unsigned which = 0) { return shapeAt(shapeSlots[which], dims); }
  /// An Operand at `dst`: a view of a CB, or an immediate (device.h view,
  /// viewAt, immInt, immFloat; `Operand()` when `value` is null).
  Value viewAt(Value dst, mtia::ViewAttr view);
  Value immAt(Value dst, Value value);
  /// An immediate of the constant `value`.
  Value immAt(Value dst, TypedAttr value);
  Value operandAt(Value dst, Attribute src, ValueRange imms, unsigned &nextImm);
  void writeOperand(Value dst, dev::Operand::Kind kind, dev::DType dtype, int64_t cb, int64_t offset,
                    ArrayRef<int64_t> strides, Value i, Value f);
  /// Operands `srcs` (views and `#mtia.imm`s taking `imms` in order) in
  /// consecutive Operand slots; returns the first.
  Value operandArray(ArrayAttr srcs, ValueRange imms);
  Value operand(unsigned index) { return at(operandSlots, index * sizeof(dev::Operand)); }

  /// `ctx->ops->NAME(ctx, args...)`: the entry at `offset` of DeviceOps.
  Value callDevice(size_t offset, Type result, ArrayRef<Value> args);
  void callDevice(size_t offset, ArrayRef<Value> args) { callDevice(offset, Type(), args); }
  /// A call of llvm_support.h's `name`, declared on first use.
  Value callSupport(StringRef name, Type result, ArrayRef<Value> args);
  /// A constant NUL-terminated string; returns its address.
  Value string(StringRef text);
  /// Runs `body` under `scf.if (cond)` (with `otherwise` in the else branch).
  void ifThen(Value cond, function_ref<void()> body, function_ref<void()> otherwise = nullptr);
  /// device.h validBox(ctx, valid[, fill]) before an SE, vector or
  /// reduction command (nothing when `valid` is empty).
  void validBox(ValueRange valid, TypedAttr fill);

  Value dtype(Type t) { return i32Const(static_cast<int64_t>(deviceDType(t))); }

  func::FuncOp kernel;
  ModuleOp module;
  MLIRContext *ctxt;
  IssuePath path;
  OpBuilder b;
  Location loc = UnknownLoc::get(ctxt);
  Type ptrType, i8, i16, i32, i64, f32, f64;
  Value ctx;
  Value boxSlot, shapeSlots[2], validSlot, fillSlot, operandSlots, stepSlots;
  Operation *lastSlot = nullptr;
  /// fp8 values retyped to the f32 they are held in, and their fp8 type.
  DenseMap<Value, Type> fp8Values;
  /// The type a value has in the kernel (its fp8 type where it is held in f32).
  Type typeOf(Value v) {
    auto it = fp8Values.find(v);
    return it == fp8Values.end() ? v.getType() : it->second;
  }
  unsigned strings = 0;
};

} // namespace

//===----------------------------------------------------------------------===//
// The device ABI
//===----------------------------------------------------------------------===//

Value KernelLowering::slot(int64_t bytes) {
  OpBuilder::InsertionGuard guard(b);
  if (lastSlot)
    b.setInsertionPointAfter(lastSlot);
  else
    b.setInsertionPointToStart(&kernel.getBody().front());
  Value count = LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(bytes));
  auto alloca = LLVM::AllocaOp::create(b, loc, ptrType, i8, count, /*alignment=*/8);
  lastSlot = alloca;
  return alloca;
}

Value KernelLowering::shapeAt(Value dst, ArrayRef<int64_t> dims) {
  SmallVector<Value> values;
  for (int64_t d : dims)
    values.push_back(i64Const(d));
  return shapeAt(dst, ValueRange(values));
}

Value KernelLowering::shapeAt(Value dst, ValueRange dims) {
  store(i32Const(dims.size()), dst, offsetof(dev::Shape, rank));
  for (int d = 0; d < dev::kMaxRank; ++d)
    store(d < static_cast<int>(dims.size()) ? widen(dims[d], i64) : i64Const(0), dst,
          offsetof(dev::Shape, dim) + d * sizeof(int64_t));
  return dst;
}

void KernelLowering::writeOperand(Value dst, dev::Operand::Kind kind, dev::DType dtype, int64_t cb,
                                  int64_t offset, ArrayRef<int64_t> strides, Value i, Value f) {
  store(constant(i8, static_cast<int64_t>(kind)), dst, offsetof(dev::Operand, kind));
  store(constant(i8, static_cast<int64_t>(dtype)), dst, offsetof(dev::Operand, dtype));
  store(i32Const(cb), dst, offsetof(dev::Operand, cb));
  store(i64Const(offset), dst, offsetof(dev::Operand, offset));
  for (int d = 0; d < dev::kMaxRank; ++d)
    store(i64Const(d < static_cast<int>(strides.size()) ? strides[d] : 0), dst,
          offsetof(dev::Operand, stride) + d * sizeof(int64_t));
  store(i, dst, offsetof(dev::Operand, i));
  store(f, dst, offsetof(dev::Operand, f));
}

Value KernelLowering::viewAt(Value dst, mtia::ViewAttr view) {
  writeOperand(dst, dev::Operand::Kind::Cb, deviceDType(view.getElemType()), view.getCb(),
               view.getOffset(), view.getStrides(), i64Const(0), constantF64(0));
  return dst;
}

Value KernelLowering::immAt(Value dst, Value value) {
  Value i, f;
  Type type = typeOf(value);
  if (isa<FloatType>(type)) {
    // immFloat: `i` is the value truncated where it is in range, else 0.
    f = value.getType() == f64 ? value : LLVM::FPExtOp::create(b, loc, f64, value).getResult();
    Value above = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::ogt, f, constantF64(-9.2e18));
    Value below = LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::olt, f, constantF64(9.2e18));
    Value inRange = LLVM::AndOp::create(b, loc, above, below);
    Value truncated = LLVM::FPToSIOp::create(b, loc, i64, f);
    i = LLVM::SelectOp::create(b, loc, inRange, truncated, i64Const(0));
  } else {
    // immInt: sign-extended (a bool is 0 or 1), and its double.
    if (value.getType().isIndex())
      value = arith::IndexCastOp::create(b, loc, i64, value);
    i = widen(value, i64);
    f = LLVM::SIToFPOp::create(b, loc, f64, i);
  }
  writeOperand(dst, dev::Operand::Kind::Imm, deviceDType(type), -1, 0, {}, i, f);
  return dst;
}

Value KernelLowering::immAt(Value dst, TypedAttr value) {
  if (!value) { // Operand(): an immediate f32 zero
    writeOperand(dst, dev::Operand::Kind::Imm, dev::DType::F32, -1, 0, {}, i64Const(0),
                 constantF64(0));
    return dst;
  }
  int64_t i;
  double f;
  if (auto fa = dyn_cast<FloatAttr>(value)) {
    f = fa.getValueAsDouble();
    i = f > -9.2e18 && f < 9.2e18 ? static_cast<int64_t>(f) : 0;
  } else {
    auto ia = cast<IntegerAttr>(value);
    i = ia.getType().isInteger(1) ? ia.getValue().getZExtValue() : ia.getValue().getSExtValue();
    f = static_cast<double>(i);
  }
  writeOperand(dst, dev::Operand::Kind::Imm, deviceDType(value.getType()), -1, 0, {}, i64Const(i),
               constantF64(f));
  return dst;
}

Value KernelLowering::operandAt(Value dst, Attribute src, ValueRange imms, unsigned &nextImm) {
  if (auto view = dyn_cast<mtia::ViewAttr>(src))
    return viewAt(dst, view);
  return immAt(dst, imms[nextImm++]);
}

Value KernelLowering::operandArray(ArrayAttr srcs, ValueRange imms) {
  unsigned nextImm = 0;
  for (auto [index, src] : llvm::enumerate(srcs))
    operandAt(operand(index), src, imms, nextImm);
  return operandSlots;
}

Value KernelLowering::callDevice(size_t offset, Type result, ArrayRef<Value> args) {
  Value ops = load(ptrType, ctx, offsetof(dev::Ctx, ops));
  Value fn = load(ptrType, ops, offset);
  SmallVector<Type> argTypes{ptrType};
  SmallVector<Value> operands{fn, ctx};
  for (Value a : args) {
    argTypes.push_back(a.getType());
    operands.push_back(a);
  }
  auto type = LLVM::LLVMFunctionType::get(result ? result : LLVM::LLVMVoidType::get(ctxt), argTypes);
  auto call = LLVM::CallOp::create(b, loc, type, operands);
  return result ? call.getResult() : Value();
}

Value KernelLowering::callSupport(StringRef name, Type result, ArrayRef<Value> args) {
  auto fn = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!fn) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    SmallVector<Type> argTypes;
    for (Value a : args)
      argTypes.push_back(a.getType());
    fn = LLVM::LLVMFuncOp::create(b, loc, name, LLVM::LLVMFunctionType::get(result, argTypes));
  }
  return LLVM::CallOp::create(b, loc, fn, args).getResult();
}

Value KernelLowering::string(StringRef text) {
  std::string name;
  do
    name = (kernel.getName() + "_str" + Twine(strings++)).str();
  while (module.lookupSymbol(name));
  std::string bytes = text.str();
  bytes.push_back('\0');
  return LLVM::createGlobalString(loc, b, name, bytes, LLVM::Linkage::Private);
}

void KernelLowering::ifThen(Value cond, function_ref<void()> body, function_ref<void()> otherwise) {
  auto ifOp = scf::IfOp::create(b, loc, cond, /*withElseRegion=*/static_cast<bool>(otherwise));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&ifOp.getThenRegion().front());
  body();
  if (otherwise) {
    b.setInsertionPointToStart(&ifOp.getElseRegion().front());
    otherwise();
  }
}

void KernelLowering::validBox(ValueRange valid, TypedAttr fill) {
  if (valid.empty())
    return;
  Value shapeValue = shapeAt(validSlot, valid);
  Value fillValue = immAt(fillSlot, fill);
  callDevice(offsetof(dev::DeviceOps, validBox), {shapeValue, fillValue});
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::run() {
  auto capacity = kernel->getAttrOfType<DenseI64ArrayAttr>(mtia::kCbCapacityAttr);
  if (!capacity)
    return kernel.emitError("CBs are not assigned (run mtia-assign-cbs)");
  std::string name = kernel.getName().str();
  // The entry point is exported under a prefix of ours (see MTIAToCpp.cpp).
  std::string symbol = "mtia_kernel_" + name;
  loc = kernel.getLoc();

  // KernelInfo, as the C++ path's `extern "C" const KernelInfo NAME_info`.
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(kernel);
    auto capacityType = LLVM::LLVMArrayType::get(i64, dev::kMaxCbs);
    auto infoType = LLVM::LLVMStructType::getLiteral(ctxt, {i32, ptrType, i32, i32, capacityType});
    std::string nameBytes = name;
    nameBytes.push_back('\0');
    auto nameType = LLVM::LLVMArrayType::get(i8, nameBytes.size());
    LLVM::GlobalOp::create(b, loc, nameType, /*isConstant=*/true, LLVM::Linkage::Private,
                           symbol + "_name", b.getStringAttr(nameBytes));
    auto info = LLVM::GlobalOp::create(b, loc, infoType, /*isConstant=*/true,
                                       LLVM::Linkage::External, symbol + "_info", Attribute());
    Block *init = b.createBlock(&info.getInitializerRegion());
    b.setInsertionPointToStart(init);
    Value value = LLVM::UndefOp::create(b, loc, infoType);
    auto insert = [&](Value v, ArrayRef<int64_t> position) {
      value = LLVM::InsertValueOp::create(b, loc, value, v, position);
    };
    insert(i32Const(dev::kDeviceAbiVersion), {0});
    insert(LLVM::AddressOfOp::create(b, loc, ptrType, symbol + "_name"), {1});
    insert(i32Const(kernel.getNumArguments()), {2});
    insert(i32Const(capacity.size()), {3});
    for (int64_t i = 0; i < dev::kMaxCbs; ++i)
      insert(i64Const(i < static_cast<int64_t>(capacity.size()) ? capacity[i] : 0), {4, i});
    LLVM::ReturnOp::create(b, loc, value);
  }

  // `void mtia_kernel_NAME(Ctx *ctx, const Arg *args)`: each scalar argument
  // is an 8-byte slot of `args` (integers in `i`, floats in `f`).
  Block &entry = kernel.getBody().front();
  unsigned numArgs = kernel.getNumArguments();
  ctx = entry.addArgument(ptrType, loc);
  Value args = entry.addArgument(ptrType, loc);
  b.setInsertionPointToStart(&entry);
  for (unsigned i = 0; i < numArgs; ++i) {
    BlockArgument arg = entry.getArgument(i);
    Type t = arg.getType();
    Value slotValue;
    if (isa<FloatType>(t)) {
      slotValue = load(f64, args, i * sizeof(dev::Arg));
      if (isFp8(t))
        return kernel.emitError("an fp8 scalar argument is not supported by the LLVM IR path");
      if (t != f64)
        slotValue = LLVM::FPTruncOp::create(b, loc, t, slotValue);
    } else {
      slotValue = load(i64, args, i * sizeof(dev::Arg));
      if (t.isInteger(1)) // static_cast<bool>: nonzero
        slotValue = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, slotValue, i64Const(0));
      else if (t.isIndex())
        slotValue = arith::IndexCastOp::create(b, loc, t, slotValue);
      else if (t != i64)
        slotValue = LLVM::TruncOp::create(b, loc, t, slotValue);
    }
    arg.replaceAllUsesWith(slotValue);
  }
  entry.eraseArguments(0, numArgs);
  kernel.setFunctionType(FunctionType::get(ctxt, {ptrType, ptrType}, {}));
  kernel.removeArgAttrsAttr();
  kernel.setName(symbol);

  // The structs commands take, one set per kernel (the runtime copies them
  // when a command is issued, so every command reuses the same slots).
  boxSlot = slot(sizeof(dev::Box));
  shapeSlots[0] = slot(sizeof(dev::Shape));
  shapeSlots[1] = slot(sizeof(dev::Shape));
  validSlot = slot(sizeof(dev::Shape));
  fillSlot = slot(sizeof(dev::Operand));
  operandSlots = slot(dev::kMaxLoopInputs * sizeof(dev::Operand));
  stepSlots = slot(dev::kMaxLoopSteps * sizeof(dev::VecStep));

  if (failed(lowerBlock(entry)))
    return failure();
  // Attributes of ours mean nothing to LLVM.
  kernel->walk([](Operation *op) {
    for (NamedAttribute attr : llvm::to_vector(op->getDiscardableAttrs()))
      if (attr.getName().strref().starts_with("mtia."))
        op->removeDiscardableAttr(attr.getName());
  });
  return success();
}

LogicalResult KernelLowering::lowerBlock(Block &block) {
  for (Operation &op : llvm::make_early_inc_range(block))
    if (failed(lowerOp(&op)))
      return failure();
  return success();
}

LogicalResult KernelLowering::lowerOp(Operation *op) {
  loc = op->getLoc();
  if (isa<mtia::MTIADialect>(op->getDialect()))
    return lowerCommand(op);
  if (failed(lowerFp8(op)) || failed(lowerScalar(op)))
    return failure();
  // Structured control flow: as the C++ emitter, the path's state is unknown
  // at the top of a body and after it.
  if (isa<scf::ForOp, scf::IfOp, scf::WhileOp>(op)) {
    for (Region &region : op->getRegions()) {
      path.forget();
      for (Block &block : region)
        if (failed(lowerBlock(block)))
          return failure();
    }
    path.forget();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Commands
//===----------------------------------------------------------------------===//

#define DEVICE_OP(name) offsetof(dev::DeviceOps, name)

LogicalResult KernelLowering::lowerCommand(Operation *op) {
  b.setInsertionPoint(op);
  // The same order of statements as MTIAToCpp: the line, the core, then a
  // replaceFront binding to the command.
  auto setLine = [&] {
    if (auto lineNo = path.lineBefore(op))
      store(i32Const(*lineNo), ctx, offsetof(dev::Ctx, line));
  };
  if (!isa<mtia::ScalarCyclesOp>(op))
    setLine();
  if (failed(checkTileRank(op)))
    return failure();
  if (auto core = path.coreBefore(op))
    callDevice(DEVICE_OP(onCore), {i32Const(*core)});
  if (op->hasAttr(mtia::kReplaceFrontAttr))
    callDevice(DEVICE_OP(replaceFront),
               {i32Const(op->getAttrOfType<IntegerAttr>("cb").getInt())});

  auto ctxField = [&](size_t offset, int64_t axis) {
    return load(i32, ctx, offset + axis * sizeof(int32_t));
  };
  auto replaceWith = [&](Value v) {
    op->getResult(0).replaceAllUsesWith(v);
    op->erase();
    return success();
  };
  auto boxAt = [&](ArrayRef<int64_t> shapeDims, ValueRange strides, ValueRange valid,
                   ValueRange begin) {
    store(i32Const(shapeDims.size()), boxSlot, offsetof(dev::Box, rank));
    // Box{rank, {shape}, {strides}, {valid}[, {begin}]}: what the braces
    // leave out is 0.
    auto array = [&](size_t offset, function_ref<Value(int)> element, size_t count) {
      for (int d = 0; d < dev::kMaxBoxRank; ++d)
        store(d < static_cast<int>(count) ? element(d) : i64Const(0), boxSlot,
              offset + d * sizeof(int64_t));
    };
    array(offsetof(dev::Box, shape), [&](int d) { return i64Const(shapeDims[d]); },
          shapeDims.size());
    array(offsetof(dev::Box, stride), [&](int d) { return widen(strides[d], i64); }, strides.size());
    array(offsetof(dev::Box, valid), [&](int d) { return widen(valid[d], i64); }, valid.size());
    array(offsetof(dev::Box, begin), [&](int d) { return widen(begin[d], i64); }, begin.size());
    return boxSlot;
  };
  auto padAt = [&](Value pad, Type elemType) {
    if (pad)
      return immAt(operand(0), pad);
    // immInt(dtype, 0)
    writeOperand(operand(0), dev::Operand::Kind::Imm, deviceDType(elemType), -1, 0, {}, i64Const(0),
                 constantF64(0));
    return operand(0);
  };
  auto viewOperand = [&](mtia::ViewAttr view, unsigned index) {
    return viewAt(operand(index), view);
  };

  if (auto pid = dyn_cast<mtia::ProgramIdOp>(op))
    return replaceWith(ctxField(offsetof(dev::Ctx, programId), pid.getAxis()));
  if (auto num = dyn_cast<mtia::NumProgramsOp>(op))
    return replaceWith(ctxField(offsetof(dev::Ctx, numPrograms), num.getAxis()));
  if (auto pe = dyn_cast<mtia::PeIdOp>(op))
    return replaceWith(ctxField(offsetof(dev::Ctx, peId), pe.getAxis()));
  if (auto grid = dyn_cast<mtia::PeGridSizeOp>(op))
    return replaceWith(ctxField(offsetof(dev::Ctx, peGrid), grid.getAxis()));
  if (auto alias = dyn_cast<mtia::MayAliasOp>(op)) {
    Value may = callDevice(DEVICE_OP(mayAlias), i32, {alias.getLhs(), alias.getRhs()});
    return replaceWith(LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, may, i32Const(0)));
  }
  if (auto read = dyn_cast<mtia::ReadOp>(op)) {
    Type t = read.getType();
    bool isFloat = isa<FloatType>(t);
    Value v = callDevice(isFloat ? DEVICE_OP(readFloat) : DEVICE_OP(readInt), isFloat ? f64 : i64,
                         {i32Const(read.getCb()), dtype(t), i64Const(read.getIndex())});
    if (isFp8(t)) { // held as float
      v = LLVM::FPTruncOp::create(b, loc, f32, v);
      fp8Values[v] = t;
    } else if (isFloat && t != f64) {
      v = LLVM::FPTruncOp::create(b, loc, t, v);
    } else if (t.isInteger(1)) {
      v = LLVM::ICmpOp::create(b, loc, LLVM::ICmpPredicate::ne, v, i64Const(0));
    } else if (t.isIndex()) {
      v = arith::IndexCastOp::create(b, loc, t, v);
    } else if (!isFloat && t != i64) {
      v = LLVM::TruncOp::create(b, loc, t, v);
    }
    return replaceWith(v);
  }

  if (auto dma = dyn_cast<mtia::DmaInOp>(op)) {
    Value box = boxAt(dma.getShape(), dma.getStrides(), dma.getValid(), dma.getBegin());
    Value pad = padAt(dma.getPad(), dma.getElemType());
    callDevice(DEVICE_OP(dmaIn), {i32Const(dma.getCb()), dtype(dma.getElemType()), dma.getAddr(), box, pad});
  } else if (auto dma = dyn_cast<mtia::DmaOutOp>(op)) {
    Value box = boxAt(dma.getShape(), dma.getStrides(), dma.getValid(), dma.getBegin());
    callDevice(DEVICE_OP(dmaOut), {i32Const(dma.getCb()), dtype(dma.getElemType()), dma.getAddr(), box});
  } else if (auto g = dyn_cast<mtia::GatherInOp>(op)) {
    Value pad = padAt(g.getPad(), g.getElemType());
    callDevice(DEVICE_OP(gatherIn), {i32Const(g.getCb()), dtype(g.getElemType()), shape(g.getShape()),
                                     i32Const(g.getAddrCb()), i32Const(g.getMaskCb()), pad});
  } else if (auto s = dyn_cast<mtia::ScatterOutOp>(op)) {
    callDevice(DEVICE_OP(scatterOut), {i32Const(s.getCb()), dtype(s.getElemType()), shape(s.getShape()),
                                       i32Const(s.getAddrCb()), i32Const(s.getMaskCb())});
  } else if (auto se = dyn_cast<mtia::SeOp>(op)) {
    auto opcode = seOpcode(se.getOpcode());
    if (!opcode)
      return se.emitError() << "unknown SE opcode '" << se.getOpcode() << "'";
    validBox(se.getValid(), nullptr);
    Value operands = operandArray(se.getSrcs(), se.getImms());
    callDevice(se.getUnit() == "vec" ? DEVICE_OP(vec) : DEVICE_OP(se),
               {constant(i32, *opcode), i32Const(se.getCb()), dtype(se.getElemType()),
                shape(se.getShape()), operands, i32Const(se.getSrcs().size())});
  } else if (auto loop = dyn_cast<mtia::VecLoopOp>(op)) {
    validBox(loop.getValid(), nullptr);
    Value inputs = operandArray(loop.getSrcs(), loop.getImms());
    for (auto [index, attr] : llvm::enumerate(loop.getSteps())) {
      auto step = cast<mtia::VecStepAttr>(attr);
      auto opcode = seOpcode(step.getOpcode());
      if (!opcode)
        return loop.emitError() << "unknown vector opcode '" << step.getOpcode() << "'";
      Value dst = at(stepSlots, index * sizeof(dev::VecStep));
      store(constant(i16, *opcode), dst, offsetof(dev::VecStep, op));
      store(constant(i8, static_cast<int64_t>(deviceDType(step.getElemType()))), dst,
            offsetof(dev::VecStep, dtype));
      store(constant(i8, step.getArgs().size()), dst, offsetof(dev::VecStep, numArgs));
      for (int a = 0; a < 3; ++a) // an argument k < 0 is stepResult(-1 - k)
        store(constant(i8, a < static_cast<int>(step.getArgs().size()) ? step.getArgs()[a] : 0), dst,
              offsetof(dev::VecStep, arg) + a);
    }
    callDevice(DEVICE_OP(vecLoop), {i32Const(loop.getCb()), shape(loop.getShape()), inputs,
                                    i32Const(loop.getSrcs().size()), stepSlots,
                                    i32Const(loop.getSteps().size())});
  } else if (auto dpe = dyn_cast<mtia::DpeOp>(op)) {
    operandArray(dpe.getSrcs(), dpe.getImms());
    callDevice(DEVICE_OP(dpe), {i32Const(dpe.getCb()), dtype(dpe.getAccType()), i64Const(dpe.getM()),
                                i64Const(dpe.getN()), i64Const(dpe.getK()), operand(0), operand(1),
                                operand(2)});
  } else if (auto mlu = dyn_cast<mtia::MluCopyOp>(op)) {
    callDevice(DEVICE_OP(mluCopy), {i32Const(mlu.getCb()), dtype(mlu.getElemType()),
                                    shape(mlu.getShape()), viewOperand(mlu.getSrc(), 0)});
  } else if (auto recv = dyn_cast<mtia::ReRecvOp>(op)) {
    auto kind = reduceKind(recv.getKind());
    if (!kind)
      return recv.emitError() << "unknown reduction '" << recv.getKind() << "'";
    // The chain's first PE starts it with its own tile.
    ifThen(
        recv.getFirst(),
        [&] {
          callDevice(DEVICE_OP(mluCopy), {i32Const(recv.getCb()), dtype(recv.getElemType()),
                                          shape(recv.getShape()), viewOperand(recv.getSrc(), 0)});
        },
        [&] {
          auto from = recv.getDirection() == "south" ? dev::ReDir::North : dev::ReDir::West;
          callDevice(DEVICE_OP(reRecv),
                     {constant(i32, *kind), i32Const(recv.getCb()), dtype(recv.getElemType()),
                      shape(recv.getShape()), viewOperand(recv.getSrc(), 0),
                      i32Const(static_cast<int64_t>(from))});
        });
  } else if (auto send = dyn_cast<mtia::ReSendOp>(op)) {
    ifThen(send.getEnable(), [&] {
      auto to = send.getDirection() == "south" ? dev::ReDir::South : dev::ReDir::East;
      callDevice(DEVICE_OP(reSend), {i32Const(static_cast<int64_t>(to)), dtype(send.getElemType()),
                                     shape(send.getShape()), viewOperand(send.getSrc(), 0)});
    });
  } else if (auto send = dyn_cast<mtia::NocBroadcastOp>(op)) {
    ifThen(send.getEnable(), [&] {
      callDevice(DEVICE_OP(nocBroadcast), {i32Const(send.getAxis()), dtype(send.getElemType()),
                                           shape(send.getShape()), viewOperand(send.getSrc(), 0)});
    });
  } else if (auto recv = dyn_cast<mtia::NocRecvOp>(op)) {
    // The source keeps its own tile.
    ifThen(
        recv.getSource(),
        [&] {
          callDevice(DEVICE_OP(mluCopy), {i32Const(recv.getCb()), dtype(recv.getElemType()),
                                          shape(recv.getShape()), viewOperand(recv.getSrc(), 0)});
        },
        [&] {
          callDevice(DEVICE_OP(nocRecv), {i32Const(recv.getAxis()), i32Const(recv.getCb()),
                                          dtype(recv.getElemType()), shape(recv.getShape())});
        });
  } else if (auto scan = dyn_cast<mtia::SeScanOp>(op)) {
    auto kind = reduceKind(scan.getKind());
    if (!kind)
      return scan.emitError() << "unknown scan '" << scan.getKind() << "'";
    callDevice(DEVICE_OP(seScan), {constant(i32, *kind), i32Const(scan.getCb()), dtype(scan.getElemType()),
                                   shape(scan.getShape()), i32Const(scan.getAxis()),
                                   i32Const(scan.getReverse()), viewOperand(scan.getSrc(), 0)});
  } else if (auto hist = dyn_cast<mtia::SeHistogramOp>(op)) {
    callDevice(DEVICE_OP(seHistogram), {i32Const(hist.getCb()), i64Const(hist.getNumBins()),
                                        shape(hist.getShape()), viewOperand(hist.getSrc(), 0),
                                        i32Const(hist.getMaskCb())});
  } else if (auto g = dyn_cast<mtia::SeGatherOp>(op)) {
    callDevice(DEVICE_OP(seGather),
               {i32Const(g.getCb()), dtype(g.getElemType()), shape(g.getShape(), 0), i32Const(g.getAxis()),
                viewOperand(g.getSrc(), 0), shape(g.getSrcShape(), 1), viewOperand(g.getIndex(), 1)});
  } else if (auto rmw = dyn_cast<mtia::AtomicRmwOp>(op)) {
    auto kind = rmwKind(rmw.getKind());
    if (!kind)
      return rmw.emitError() << "unknown atomic operation '" << rmw.getKind() << "'";
    Value value = operandArray(rmw.getSrcs(), rmw.getImms());
    callDevice(DEVICE_OP(atomicRmw), {i32Const(rmw.getCb()), constant(i32, *kind), dtype(rmw.getElemType()),
                                      shape(rmw.getShape()), i32Const(rmw.getAddrCb()), value,
                                      i32Const(rmw.getMaskCb())});
  } else if (auto cas = dyn_cast<mtia::AtomicCasOp>(op)) {
    operandArray(cas.getSrcs(), cas.getImms());
    callDevice(DEVICE_OP(atomicCas), {i32Const(cas.getCb()), dtype(cas.getElemType()), shape(cas.getShape()),
                                      i32Const(cas.getAddrCb()), operand(0), operand(1)});
  } else if (auto print = dyn_cast<mtia::PrintOp>(op)) {
    callDevice(DEVICE_OP(printTile), {string(print.getPrefix()), i32Const(print.getCb()),
                                      dtype(print.getElemType()), shape(print.getShape()),
                                      i32Const(print.getHex()), i32Const(print.getIsSigned())});
  } else if (auto a = dyn_cast<mtia::AssertOp>(op)) {
    callDevice(DEVICE_OP(assertTile), {i32Const(a.getCb()), shape(a.getShape()), string(a.getMessage()),
                                       string(a.getFile()), i32Const(a.getLine())});
  } else if (auto cost = dyn_cast<mtia::ScalarCyclesOp>(op)) {
    setLine();
    callDevice(DEVICE_OP(scalarCycles), {i64Const(cost.getCycles())});
  } else if (isa<mtia::BarrierOp>(op)) {
    callDevice(DEVICE_OP(barrier), ArrayRef<Value>{});
  } else if (auto fence = dyn_cast<mtia::FenceOp>(op)) {
    dev::Fence kind = fence.getKind() == "loads_after_stores"   ? dev::Fence::LoadsAfterStores
                      : fence.getKind() == "stores_after_loads" ? dev::Fence::StoresAfterLoads
                                                                : dev::Fence::Both;
    auto issue = [&] { callDevice(DEVICE_OP(fence), {i32Const(static_cast<int64_t>(kind))}); };
    if (fence.getCond())
      ifThen(fence.getCond(), issue);
    else
      issue();
  } else if (auto r = dyn_cast<mtia::SeReduceOp>(op)) {
    auto kind = reduceKind(r.getKind());
    if (!kind)
      return r.emitError() << "unknown reduction '" << r.getKind() << "'";
    validBox(r.getValid(), r.getFillAttr());
    callDevice(DEVICE_OP(seReduce), {constant(i32, *kind), i32Const(r.getCb()), dtype(r.getElemType()),
                                     shape(r.getShape()), i32Const(r.getAxis()), viewOperand(r.getSrc(), 0)});
  } else if (auto iota = dyn_cast<mtia::SeIotaOp>(op)) {
    callDevice(DEVICE_OP(seIota), {i32Const(iota.getCb()), dtype(iota.getElemType()),
                                   i64Const(iota.getLength()), i64Const(iota.getStart())});
  } else if (auto pop = dyn_cast<mtia::CbPopOp>(op)) {
    callDevice(DEVICE_OP(cbPop), {i32Const(pop.getCb()), i64Const(pop.getBytes())});
  } else {
    return op->emitError() << "the LLVM IR code generator does not handle '" << op->getName() << "'";
  }
  op->erase();
  return success();
}

#undef DEVICE_OP

//===----------------------------------------------------------------------===//
// Scalar code whose meaning is device.h's
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lowerScalar(Operation *op) {
  if (op->getNumResults() != 1)
    return success();
  b.setInsertionPoint(op);
  FailureOr<Value> replacement = scalarReplacement(op);
  if (failed(replacement))
    return failure();
  if (*replacement) {
    op->getResult(0).replaceAllUsesWith(*replacement);
    op->erase();
  }
  return success();
}

FailureOr<Value> KernelLowering::scalarReplacement(Operation *op) {
  Type t = op->getResult(0).getType();
  auto replace = [](Value v) -> FailureOr<Value> { return v; };
  // Integer division, remainder and shifts (an i1 has nothing to trap: LLVM's).
  StringRef integerFn =
      llvm::TypeSwitch<Operation *, StringRef>(op)
          .Case<arith::DivSIOp>([](auto) { return "divSigned"; })
          .Case<arith::RemSIOp>([](auto) { return "remSigned"; })
          .Case<arith::DivUIOp>([](auto) { return "divUnsigned"; })
          .Case<arith::RemUIOp>([](auto) { return "remUnsigned"; })
          .Case<arith::ShLIOp>([](auto) { return "shiftLeft"; })
          .Case<arith::ShRSIOp>([](auto) { return "shiftRightSigned"; })
          .Case<arith::ShRUIOp>([](auto) { return "shiftRightUnsigned"; })
          .Default([](Operation *) { return ""; });
  if (!integerFn.empty() && !t.isInteger(1)) {
    unsigned width = t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
    if (width != 8 && width != 16 && width != 32 && width != 64)
      return op->emitError() << "the LLVM IR code generator does not handle " << t, failure();
    Type wide = width == 64 ? i64 : i32;
    auto operandAs = [&](unsigned i) {
      Value v = op->getOperand(i);
      if (v.getType().isIndex())
        v = arith::IndexCastOp::create(b, loc, i64, v);
      return widen(v, wide);
    };
    Value r = callSupport(("mtia_" + integerFn + "_i" + Twine(width)).str(), wide,
                          {operandAs(0), operandAs(1)});
    if (t.isIndex())
      r = arith::IndexCastOp::create(b, loc, t, r);
    else if (width < 32)
      r = LLVM::TruncOp::create(b, loc, t, r);
    return replace(r);
  }
  // Float -> integer: truncating, saturating, NaN -> 0; to a bool, nonzero.
  if (isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
    Value x = op->getOperand(0);
    if (x.getType() != f64)
      x = LLVM::FPExtOp::create(b, loc, f64, x);
    if (t.isInteger(1))
      return replace(LLVM::FCmpOp::create(b, loc, LLVM::FCmpPredicate::une, x, constantF64(0)));
    unsigned width = t.getIntOrFloatBitWidth();
    if (width != 8 && width != 16 && width != 32 && width != 64)
      return op->emitError() << "the LLVM IR code generator does not handle " << t, failure();
    bool isUnsigned = isa<arith::FPToUIOp>(op);
    Value r = callSupport(("mtia_floatToInt_" + Twine(isUnsigned ? "u" : "i") + Twine(width)).str(),
                          i64, {x});
    return replace(width == 64 ? r : LLVM::TruncOp::create(b, loc, t, r).getResult());
  }
  // IEEE min / max with -0 < +0, on float for 16-bit floats (as C++ does).
  StringRef minMaxFn = llvm::TypeSwitch<Operation *, StringRef>(op)
                           .Case<arith::MaxNumFOp>([](auto) { return "maxNumOf"; })
                           .Case<arith::MinNumFOp>([](auto) { return "minNumOf"; })
                           .Case<arith::MaximumFOp>([](auto) { return "maximumOf"; })
                           .Case<arith::MinimumFOp>([](auto) { return "minimumOf"; })
                           .Default([](Operation *) { return ""; });
  if (!minMaxFn.empty()) {
    Type as = t == f64 ? f64 : f32;
    auto operandAs = [&](unsigned i) {
      Value v = op->getOperand(i);
      return v.getType() == as ? v : LLVM::FPExtOp::create(b, loc, as, v).getResult();
    };
    Value r = callSupport(("mtia_" + minMaxFn + (as == f64 ? "_f64" : "_f32")).str(), as,
                          {operandAs(0), operandAs(1)});
    return replace(t == as ? r : LLVM::FPTruncOp::create(b, loc, t, r).getResult());
  }
  return Value();
}

//===----------------------------------------------------------------------===//
// fp8 scalars, held as the float they denote (as in the C++ path)
//===----------------------------------------------------------------------===//

LogicalResult KernelLowering::lowerFp8(Operation *op) {
  auto touchesFp8 = [&](ValueRange values) {
    return llvm::any_of(values, [&](Value v) { return isFp8(v.getType()) || fp8Values.contains(v); });
  };
  if (!touchesFp8(op->getOperands()) && !touchesFp8(op->getResults()))
    return success();
  b.setInsertionPoint(op);
  // Result types of fp8 become f32; region arguments of loops follow.
  auto retype = [&](Value v) {
    if (isFp8(v.getType())) {
      fp8Values[v] = v.getType();
      v.setType(f32);
    }
  };
  auto roundFn = [&](Type fp8) {
    return isa<Float8E4M3FNType>(fp8) ? "mtia_roundToE4m3" : "mtia_roundToE5m2";
  };
  if (op->getNumResults() == 1 && isa<arith::ArithDialect>(op->getDialect())) {
    Value result = op->getResult(0);
    Type t = result.getType();
    Value in = op->getNumOperands() ? op->getOperand(0) : Value();
    bool fromFp8 = in && fp8Values.contains(in);
    auto replace = [&](Value v) {
      result.replaceAllUsesWith(v);
      op->erase();
      return success();
    };
    if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
      if (auto f = dyn_cast<FloatAttr>(cst.getValue()); f && isFp8(t)) {
        Value v = LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(f.getValueAsDouble()));
        fp8Values[v] = t;
        return replace(v);
      }
      return success();
    }
    if (auto cast = dyn_cast<arith::BitcastOp>(op)) {
      if (fromFp8) { // the fp8 code of the value
        Value code = callSupport(isa<Float8E4M3FNType>(typeOf(in)) ? "mtia_e4m3FromFloat"
                                                                                 : "mtia_e5m2FromFloat",
                                 i32, {in});
        return replace(LLVM::TruncOp::create(b, loc, t, code));
      }
      Value v = callSupport(isa<Float8E4M3FNType>(t) ? "mtia_floatFromE4m3" : "mtia_floatFromE5m2",
                            f32, {widen(in, i32, /*zeroExtend=*/true)});
      fp8Values[v] = t;
      return replace(v);
    }
    // Conversions out of fp8: from the float it is held in.
    if (fromFp8 && !isFp8(t) && isa<arith::ExtFOp, arith::TruncFOp>(op)) {
      if (t == f32)
        return replace(in);
      return replace(t == f64 ? LLVM::FPExtOp::create(b, loc, f64, in).getResult()
                              : LLVM::FPTruncOp::create(b, loc, t, in).getResult());
    }
    if (fromFp8 && isa<arith::FPToSIOp, arith::FPToUIOp>(op)) {
      op->setOperand(0, in);
      return success(); // lowerScalar's, from f32
    }
    if (isFp8(t)) {
      // Anything that makes an fp8 value: computed on floats (the operands
      // held as f32, others converted as static_cast<float> does), then
      // rounded as the C++ path's roundToE4m3 / roundToE5m2 of a float.
      Value v;
      if (isa<arith::ExtFOp, arith::TruncFOp>(op)) {
        v = fromFp8 ? in
            : in.getType() == f32 ? in
            : in.getType() == f64 ? LLVM::FPTruncOp::create(b, loc, f32, in).getResult()
                                  : LLVM::FPExtOp::create(b, loc, f32, in).getResult();
      } else if (isa<arith::SIToFPOp>(op)) {
        v = LLVM::SIToFPOp::create(b, loc, f32, in);
      } else if (isa<arith::UIToFPOp>(op)) {
        v = LLVM::UIToFPOp::create(b, loc, f32, in);
      } else if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp, arith::NegFOp,
                     arith::SelectOp, arith::MaxNumFOp, arith::MinNumFOp, arith::MaximumFOp,
                     arith::MinimumFOp>(op)) {
        // The same op on the f32 operands, lowered as any f32 op.
        Operation *clone = b.clone(*op);
        clone->getResult(0).setType(f32);
        b.setInsertionPoint(clone);
        FailureOr<Value> lowered = scalarReplacement(clone);
        if (failed(lowered))
          return failure();
        v = *lowered ? *lowered : clone->getResult(0);
        if (*lowered)
          clone->erase();
        b.setInsertionPoint(op);
        if (isa<arith::SelectOp>(op)) { // choosing needs no rounding
          fp8Values[v] = t;
          return replace(v);
        }
      } else {
        return op->emitError() << "the LLVM IR code generator does not handle '" << op->getName()
                               << "' on fp8 scalars";
      }
      Value wide = LLVM::FPExtOp::create(b, loc, f64, v);
      Value rounded = callSupport(roundFn(t), f32, {wide});
      fp8Values[rounded] = t;
      return replace(rounded);
    }
    if (isa<arith::CmpFOp>(op))
      return success(); // compares the floats
    return op->emitError() << "the LLVM IR code generator does not handle '" << op->getName()
                           << "' on fp8 scalars";
  }
  // Control flow carries them as f32.
  if (isa<scf::ForOp, scf::IfOp, scf::WhileOp, scf::YieldOp, scf::ConditionOp>(op)) {
    for (Value r : op->getResults())
      retype(r);
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          retype(arg);
    return success();
  }
  return op->emitError() << "the LLVM IR code generator does not handle '" << op->getName()
                         << "' on fp8 scalars";
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {
struct ConvertMTIAToLLVM : public impl::ConvertMTIAToLLVMBase<ConvertMTIAToLLVM> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto kernel : llvm::to_vector(module.getOps<func::FuncOp>())) {
      KernelLowering lowering(kernel, module);
      if (failed(lowering.run()))
        return signalPassFailure();
    }
  }
};
} // namespace
} // namespace mlir::triton_mtia
