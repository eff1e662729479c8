//===- MTIAToCpp.cpp - Emit kernels as human-readable C++ -----------------===//
//
// The emitter prints one C++ statement per op. Values are named after the
// Triton variables they come from (the name locations Triton attaches), and
// constants are inlined, so the output reads like the kernel it came from.
// Arithmetic is 2's-complement wrapping like Triton's: kernels are compiled
// with -fwrapv.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Target/Cpp/MTIAToCpp.h"

#include "triton-mtia/Dialect/MTIA/IR/MTIADialect.h"
#include "triton-mtia/Support/SourceLocation.h"
#include "triton-mtia/Target/IssuePath.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <optional>

using namespace mlir;
using namespace mlir::triton_mtia;
namespace mtia = mlir::triton_mtia::mtia;

namespace {

/// The C++ type of a scalar.
std::string cppType(Type type) {
  if (type.isInteger(1))
    return "bool";
  if (type.isIndex())
    return "int64_t";
  if (auto i = dyn_cast<IntegerType>(type))
    return "int" + std::to_string(std::max(8u, llvm::PowerOf2Ceil(i.getWidth()) > 64 ? 64u : (unsigned)llvm::PowerOf2Ceil(i.getWidth()))) + "_t";
  if (type.isF16())
    return "_Float16";
  if (type.isBF16())
    return "__bf16";
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  // An fp8 scalar is held as the float it denotes; conversions into fp8
  // round with device.h's roundToE4m3 / roundToE5m2 (see fp8Rounding).
  if (isa<Float8E4M3FNType, Float8E5M2Type>(type))
    return "float";
  return "";
}

/// The device.h function that rounds a value to fp8 type `type`, or "" when
/// `type` is no fp8 type.
static std::string fp8Rounding(Type type) {
  if (isa<Float8E4M3FNType>(type))
    return "roundToE4m3";
  if (isa<Float8E5M2Type>(type))
    return "roundToE5m2";
  return "";
}

std::string unsignedType(Type type) {
  std::string s = cppType(type);
  if (s == "bool")
    return s;
  return "u" + s;
}

/// The device-API dtype of a tile element type.
std::string dtypeName(Type type) {
  if (type.isInteger(1))
    return "DType::I1";
  if (auto i = dyn_cast<IntegerType>(type))
    return "DType::I" + std::to_string(i.getWidth());
  if (type.isF16())
    return "DType::F16";
  if (type.isBF16())
    return "DType::BF16";
  if (type.isF32())
    return "DType::F32";
  if (type.isF64())
    return "DType::F64";
  if (isa<Float8E4M3FNType>(type))
    return "DType::F8E4M3";
  if (isa<Float8E5M2Type>(type))
    return "DType::F8E5M2";
  return "DType::/*unsupported*/";
}

/// The variable name Triton gave a value, if any.
std::string nameHint(Location loc) {
  std::string name;
  loc->walk([&](Location inner) {
    if (auto named = dyn_cast<NameLoc>(inner)) {
      name = named.getName().str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  std::string clean;
  for (char c : name)
    clean += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (!clean.empty() && std::isdigit(static_cast<unsigned char>(clean[0])))
    clean = "v" + clean;
  return clean;
}

/// Identifiers a kernel's variable must not take: C++'s keywords and
/// alternative tokens, macros of the C headers device.h includes, and the
/// names the generated code refers to (the kernel's parameters, the device
/// API of mtia/device.h). A Python variable named `ctx`, `int`, `new` or
/// `tile` would otherwise redefine or shadow one of them.
bool isReservedName(StringRef name) {
  static const llvm::StringSet<> reserved = {
      // C++17 keywords and alternative tokens a Python name can spell.
      "alignas", "alignof", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "case", "catch",
      "char", "char16_t", "char32_t", "class", "compl", "const", "constexpr", "const_cast",
      "decltype", "default", "delete", "do", "double", "dynamic_cast", "enum", "explicit",
      "export", "extern", "float", "friend", "goto", "inline", "int", "long", "mutable",
      "namespace", "new", "noexcept", "not_eq", "nullptr", "operator", "or_eq", "private",
      "protected", "public", "register", "reinterpret_cast", "short", "signed", "sizeof",
      "static", "static_assert", "static_cast", "struct", "switch", "template", "this",
      "thread_local", "throw", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "xor", "xor_eq", "true", "false",
      // Macros of <cmath>, <cstdint>, <cstring>, <limits>.
      "NULL", "NAN", "INFINITY", "HUGE_VAL", "HUGE_VALF", "errno", "assert",
      // The generated code's own names.
      "ctx", "args", "std", "mtia", "_Float16", "__bf16",
      // mtia/device.h.
      "Arg", "Box", "Ctx", "DType", "DeviceOps", "Fence", "KernelEntry", "KernelInfo",
      "Operand", "ReDir", "ReduceOp", "RmwOp", "SeOp", "Shape", "dtypeIsFloat", "dtypeSize",
      "kDeviceAbiVersion", "kMaxBoxRank", "kMaxCbs", "kMaxRank", "assertTile", "atomicCas",
      "atomicRmw", "barrier", "bf16FromDouble", "bf16FromFloat", "bitsOf", "cbPop",
      "divSigned", "divUnsigned", "dmaIn", "dmaOut", "dpe", "e4m3FromFloat", "e5m2FromFloat",
      "fence", "floatFromE4m3", "floatFromE5m2", "floatFromFp8", "floatOf",
      "floatRoundedToOdd", "floatToInt", "fp8FromFloat", "gatherIn", "immFloat", "immInt",
      "maximumOf", "maxNumOf", "mayAlias", "minimumOf", "minNumOf", "mluCopy", "nocBroadcast",
      "nocRecv", "numPrograms", "onCore", "peGridSize", "peId", "printTile",
      "programId", "reRecv", "reSend", "readFloat", "readInt", "remSigned", "remUnsigned",
      "replaceFront", "roundToE4m3", "roundToE5m2", "scalarCycles", "scatterOut", "se",
      "seGather", "seHistogram", "seIota", "seReduce", "seScan", "shiftLeft",
      "shiftRightSigned", "shiftRightUnsigned", "stepResult", "tile", "validBox", "vec",
      "vecLoop", "VecStep", "kMaxLoopInputs", "kMaxLoopSteps", "view", "viewAt",
      // the arrays of a vecLoop's scope
      "inputs", "steps"};
  // Identifiers with a double underscore, or an underscore and a capital
  // first, belong to the implementation.
  return reserved.contains(name) || name.contains("__") ||
         (name.size() > 1 && name[0] == '_' && std::isupper(static_cast<unsigned char>(name[1])));
}

class CppEmitter {
public:
  CppEmitter(raw_ostream &os) : os(os) {}
  LogicalResult emitKernel(func::FuncOp func);

private:
  LogicalResult emitBlock(Block &block);
  LogicalResult emitOp(Operation &op);
  LogicalResult emitMtia(Operation &op);
  LogicalResult emitArith(Operation &op);
  LogicalResult emitFor(scf::ForOp op);
  LogicalResult emitIf(scf::IfOp op);
  LogicalResult emitWhile(scf::WhileOp op);

  std::string name(Value v);
  std::string declare(Value v);
  std::string shapeLiteral(ArrayRef<int64_t> shape);
  std::string viewLiteral(mtia::ViewAttr view);
  /// `mluCopy(ctx, dst, dtype, shape, view)`: a dense copy of `src` into
  /// `cb` (mtia.mlu_copy, and the first PE's or the source's own tile of
  /// mtia.re_recv and mtia.noc_recv).
  std::string mluCopyCall(int64_t cb, Type elemType, ArrayRef<int64_t> shape, mtia::ViewAttr src) {
    return "mluCopy(ctx, /*dst=*/" + std::to_string(cb) + ", " + dtypeName(elemType) + ", " +
           shapeLiteral(shape) + ", " + viewLiteral(src) + ")";
  }
  std::string immLiteral(Value v);
  std::optional<std::string> constantLiteral(Attribute value);
  void emitValidBox(ValueRange valid, TypedAttr fill);
  SmallVector<std::string> operandLiterals(ArrayAttr srcs, ValueRange imms);
  static std::string cppString(StringRef text);
  void sourceComment(Location loc);
  raw_ostream &line() { return os.indent(indent); }

  raw_ostream &os;
  unsigned indent = 2;
  DenseMap<Value, std::string> names;
  llvm::StringMap<unsigned> used;
  llvm::StringSet<> taken;
  llvm::StringMap<std::vector<std::string>> sourceFiles;
  std::string lastSource;
  /// What the path has said about the issuing core and the source line
  /// (set per kernel).
  std::optional<IssuePath> path;
  /// `ctx->line = N;` / `onCore(ctx, N);` where the path needs them.
  void commandLine(Operation &op);
  void issueOn(Operation &op);
};

void CppEmitter::issueOn(Operation &op) {
  if (auto core = path->coreBefore(&op))
    line() << "onCore(ctx, " << *core << ");\n";
}

std::string CppEmitter::name(Value v) {
  auto it = names.find(v);
  if (it != names.end())
    return it->second;
  return "/*undefined*/";
}

/// Picks a fresh variable name for `v`: Triton's name for it where it has
/// one (with a `v` in front of a reserved one), numbered from the second use
/// on, and never a name already given (a Python variable may be called
/// `values_1` beside a second `values`).
///
/// No form of the base may be reserved, or no candidate would ever do: a
/// `v_` in front does not unreserve `_X` (`v__X`) or `a__b` (`v_a__b`), so
/// a reserved hint also has its runs of `_` folded into one (`v_X`,
/// `v_a_b`); and a hint ending in `_` is numbered without a second one
/// (`x_`, `x_1`, not the reserved `x__1`). In case some hint still slips
/// through: among taken.size() + 1 unreserved candidates one is free, so
/// after that many in vain the base is `v`, whose `v_N` are never reserved.
std::string CppEmitter::declare(Value v) {
  std::string base = nameHint(v.getLoc());
  if (base.empty()) {
    base = "v";
  } else if (isReservedName(base)) {
    std::string folded = "v_";
    for (char c : base)
      if (c != '_' || folded.back() != '_')
        folded += c;
    base = folded;
  }
  unsigned *count = &used[base];
  for (size_t tries = 0, limit = taken.size() + 1;; ++tries) {
    if (tries == limit && base != "v") { // not reached for Triton's names
      base = "v";
      count = &used[base];
    }
    const char *sep = StringRef(base).ends_with("_") ? "" : "_";
    std::string n = *count == 0 && base != "v" ? base : base + sep + std::to_string(*count);
    ++*count;
    if (!isReservedName(n) && taken.insert(n).second) {
      names[v] = n;
      return n;
    }
  }
}

std::string CppEmitter::shapeLiteral(ArrayRef<int64_t> shape) {
  std::string s = "Shape{" + std::to_string(shape.size()) + ", {";
  for (auto [i, d] : llvm::enumerate(shape))
    s += (i ? ", " : "") + std::to_string(d);
  return s + "}}";
}

std::string CppEmitter::viewLiteral(mtia::ViewAttr view) {
  std::string s = view.getOffset() == 0
                      ? "view(" + std::to_string(view.getCb()) + ", " +
                            dtypeName(view.getElemType())
                      : "viewAt(" + std::to_string(view.getCb()) + ", " +
                            dtypeName(view.getElemType()) + ", " +
                            std::to_string(view.getOffset());
  for (int64_t stride : view.getStrides())
    s += ", " + std::to_string(stride);
  return s + ")";
}

std::optional<std::string> CppEmitter::constantLiteral(Attribute value) {
  if (auto i = dyn_cast<IntegerAttr>(value)) {
    if (i.getType().isInteger(1))
      return std::string(i.getValue().isZero() ? "false" : "true");
    if (i.getType().isIndex() || i.getType().getIntOrFloatBitWidth() == 64)
      return "int64_t(" + std::to_string(i.getValue().getSExtValue()) + ")";
    return std::to_string(i.getValue().getSExtValue());
  }
  auto f = dyn_cast<FloatAttr>(value);
  if (!f)
    return std::nullopt;
  double d = f.getValueAsDouble();
  std::string t = cppType(f.getType());
  // Through double: std::numeric_limits has no _Float16 or __bf16
  // specialization, and its primary template gives 0 for infinity() and
  // quiet_NaN() (an f16 -inf became -0.0). A double inf or NaN converts to
  // every float type exactly.
  if (std::isinf(d))
    return t + "(" + std::string(d < 0 ? "-" : "") + "__builtin_inf())";
  if (std::isnan(d))
    return t + "(" + std::string(std::signbit(d) ? "-" : "") + "__builtin_nan(\"\"))";
  if (f.getType().isF64()) // 17 significant digits round-trip a double
    return t + "(" + llvm::formatv("{0:e16}", d).str() + ")";
  return t + "(" + llvm::formatv("{0:e9}", d).str() + ")"; // 10 are more than a float's 9
}

/// mtia-effective-shapes: `validBox(ctx, Shape{...}[, fill]);` before the
/// command whose effective shape `valid` is (nothing when it has none).
void CppEmitter::emitValidBox(ValueRange valid, TypedAttr fill) {
  if (valid.empty())
    return;
  line() << "validBox(ctx, Shape{" << valid.size() << ", {";
  for (auto [i, v] : llvm::enumerate(valid))
    os << (i ? ", " : "") << name(v);
  os << "}}";
  if (fill)
    os << ", " << (isa<FloatType>(fill.getType()) ? "immFloat(" : "immInt(")
       << dtypeName(fill.getType()) << ", " << *constantLiteral(fill) << ")";
  os << ");\n";
}

std::string CppEmitter::immLiteral(Value v) {
  Type t = v.getType();
  if (isa<FloatType>(t))
    return "immFloat(" + dtypeName(t) + ", " + name(v) + ")";
  return "immInt(" + dtypeName(t) + ", " + name(v) + ")";
}

/// The device-API operands of a `srcs` list: views, and `#mtia.imm`
/// placeholders taking `imms` in order.
SmallVector<std::string> CppEmitter::operandLiterals(ArrayAttr srcs,
                                                      ValueRange imms) {
  SmallVector<std::string> out;
  unsigned nextImm = 0;
  for (Attribute src : srcs) {
    if (auto view = dyn_cast<mtia::ViewAttr>(src))
      out.push_back(viewLiteral(view));
    else
      out.push_back(immLiteral(imms[nextImm++]));
  }
  return out;
}

/// A C++ string literal with the same bytes as `text`.
std::string CppEmitter::cppString(StringRef text) {
  std::string s = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      s += '\\';
    if (c == '\n') {
      s += "\\n";
      continue;
    }
    s += c;
  }
  return s + "\"";
}

/// Emits `// file:line: <source text>` when the source line changes.
void CppEmitter::sourceComment(Location loc) {
  auto flc = getSourceLoc(loc);
  if (!flc)
    return;
  std::string file = flc->getFilename().str();
  unsigned lineNo = flc->getLine();
  std::string key = file + ":" + std::to_string(lineNo);
  if (key == lastSource)
    return;
  lastSource = key;
  auto it = sourceFiles.find(file);
  if (it == sourceFiles.end()) {
    std::vector<std::string> lines;
    if (auto buf = llvm::MemoryBuffer::getFile(file)) {
      StringRef text = (*buf)->getBuffer();
      SmallVector<StringRef> split;
      text.split(split, '\n');
      for (StringRef l : split)
        lines.push_back(l.str());
    }
    it = sourceFiles.insert({file, std::move(lines)}).first;
  }
  StringRef shortName = llvm::sys::path::filename(file);
  line() << "// " << shortName << ":" << lineNo;
  if (lineNo >= 1 && lineNo <= it->second.size())
    os << ": " << StringRef(it->second[lineNo - 1]).trim();
  os << "\n";
}

/// Stores the op's source line in `ctx->line` when it changes, so that the
/// simulator names the Triton line of a faulting command.
void CppEmitter::commandLine(Operation &op) {
  if (auto lineNo = path->lineBefore(&op))
    line() << "ctx->line = " << *lineNo << ";\n";
}

LogicalResult CppEmitter::emitKernel(func::FuncOp func) {
  std::string kernel = func.getName().str();
  // The entry point is exported under a prefix of ours: a kernel may be
  // named like a C library function (`exp`, `free`, `main`) or like a name
  // of the device API (`Shape`, `mtia`, `std`), and its C symbol must clash
  // with neither. KernelInfo keeps the Triton name for messages; the Python
  // launcher reads the symbol from this line of the generated C++.
  std::string symbol = "mtia_kernel_" + kernel;
  auto capacity = func->getAttrOfType<DenseI64ArrayAttr>(mtia::kCbCapacityAttr);
  if (!capacity)
    return func.emitError("CBs are not assigned (run mtia-assign-cbs)");
  os << "extern \"C\" const KernelInfo " << symbol << "_info = {\n"
     << "    kDeviceAbiVersion, \"" << kernel << "\", /*numArgs=*/"
     << func.getNumArguments() << ", /*numCbs=*/" << capacity.size()
     << ",\n    /*cbCapacity=*/{";
  for (auto [i, c] : llvm::enumerate(capacity.asArrayRef()))
    os << (i ? ", " : "") << c;
  os << "}};\n\n";
  os << "extern \"C\" void " << symbol << "(Ctx *ctx, const Arg *args) {\n";
  path.emplace(func);
  for (auto [i, arg] : llvm::enumerate(func.getArguments())) {
    std::string n = declare(arg);
    Type t = arg.getType();
    line() << "const " << cppType(t) << " " << n << " = ";
    if (isa<FloatType>(t))
      os << "static_cast<" << cppType(t) << ">(args[" << i << "].f);\n";
    else
      os << "static_cast<" << cppType(t) << ">(args[" << i << "].i);\n";
  }
  if (failed(emitBlock(func.getBody().front())))
    return failure();
  os << "}\n";
  return success();
}

LogicalResult CppEmitter::emitBlock(Block &block) {
  for (Operation &op : block)
    if (failed(emitOp(op)))
      return failure();
  return success();
}

LogicalResult CppEmitter::emitOp(Operation &op) {
  if (auto cst = dyn_cast<arith::ConstantOp>(op)) {
    // Constants are inlined at their uses.
    std::optional<std::string> lit = constantLiteral(cst.getValue());
    if (!lit)
      return op.emitError("the C++ emitter cannot print this constant");
    names[cst.getResult()] = *lit;
    return success();
  }
  // The cost of a block's scalar code belongs to no one source line.
  if (!isa<func::ReturnOp, mtia::ScalarCyclesOp>(op))
    sourceComment(op.getLoc());
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return emitFor(forOp);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return emitIf(ifOp);
  // `tl.assume`, kept for the C++ compiler.
  if (mtia::isAssumption(&op)) {
    line() << "__builtin_assume(" << name(op.getOperand(0)) << ");\n";
    return success();
  }
  if (auto whileOp = dyn_cast<scf::WhileOp>(op))
    return emitWhile(whileOp);
  if (isa<func::ReturnOp>(op)) {
    line() << "return;\n";
    return success();
  }
  if (isa<mtia::MTIADialect>(op.getDialect())) {
    if (!isa<mtia::ScalarCyclesOp>(op))
      commandLine(op);
    return emitMtia(op);
  }
  return emitArith(op);
}

LogicalResult CppEmitter::emitArith(Operation &op) {
  if (op.getNumResults() != 1)
    return op.emitError() << "the C++ emitter does not handle '" << op.getName() << "'";
  Value result = op.getResult(0);
  Type t = result.getType();
  std::string type = cppType(t);
  auto operand = [&](unsigned i) { return name(op.getOperand(i)); };
  auto bin = [&](StringRef sym) {
    return "(" + operand(0) + " " + sym.str() + " " + operand(1) + ")";
  };
  auto ubin = [&](StringRef sym) {
    std::string u = unsignedType(op.getOperand(0).getType());
    return "static_cast<" + type + ">(static_cast<" + u + ">(" + operand(0) +
           ") " + sym.str() + " static_cast<" + u + ">(" + operand(1) + "))";
  };
  // fn(a, b, ...) with every operand cast to one type: the operands' own
  // (an integer constant prints as an int literal, and std::max(int8_t,
  // int) has no overload), float for 16-bit floats (std::fabs and
  // std::fmax of _Float16 are ambiguous; the result is rounded back below).
  auto call = [&](StringRef fn, unsigned n) {
    Type argType = op.getOperand(0).getType();
    std::string as = argType.isF16() || argType.isBF16() ? "float" : cppType(argType);
    std::string s = fn.str() + "(";
    for (unsigned i = 0; i < n; ++i)
      s += (i ? ", " : "") + ("static_cast<" + as + ">(" + operand(i) + ")");
    return s + ")";
  };
  auto cast = [&]() { return "static_cast<" + type + ">(" + operand(0) + ")"; };
  // fn<T>(a, b, ...) on the result's C++ type (i1 has no arithmetic to
  // trap: the plain C++ operator of `fn`).
  auto typed = [&](StringRef fn, unsigned n) {
    if (type == "bool") {
      StringRef sym = llvm::StringSwitch<StringRef>(fn)
                          .StartsWith("div", "/")
                          .StartsWith("rem", "%")
                          .Case("shiftLeft", "<<")
                          .Default(">>");
      return bin(sym);
    }
    std::string s = fn.str() + "<" + type + ">(";
    for (unsigned i = 0; i < n; ++i)
      s += (i ? ", " : "") + operand(i);
    return s + ")";
  };
  std::string expr =
      llvm::TypeSwitch<Operation *, std::string>(&op)
          .Case<arith::AddIOp, arith::AddFOp>([&](auto) { return bin("+"); })
          .Case<arith::SubIOp, arith::SubFOp>([&](auto) { return bin("-"); })
          .Case<arith::MulIOp, arith::MulFOp>([&](auto) { return bin("*"); })
          .Case<arith::DivFOp>([&](auto) { return bin("/"); })
          // Integer ops where C++ traps or is undefined (x / 0, INT_MIN / -1,
          // shifts by the width): device.h's semantics, the SE's.
          .Case<arith::DivSIOp>([&](auto) { return typed("divSigned", 2); })
          .Case<arith::RemSIOp>([&](auto) { return typed("remSigned", 2); })
          .Case<arith::RemFOp>([&](auto) { return call("std::fmod", 2); })
          .Case<arith::DivUIOp>([&](auto) { return typed("divUnsigned", 2); })
          .Case<arith::RemUIOp>([&](auto) { return typed("remUnsigned", 2); })
          .Case<arith::AndIOp>([&](auto) { return bin("&"); })
          .Case<arith::OrIOp>([&](auto) { return bin("|"); })
          .Case<arith::XOrIOp>([&](auto) { return bin("^"); })
          .Case<arith::ShLIOp>([&](auto) { return typed("shiftLeft", 2); })
          .Case<arith::ShRSIOp>([&](auto) { return typed("shiftRightSigned", 2); })
          .Case<arith::ShRUIOp>([&](auto) { return typed("shiftRightUnsigned", 2); })
          .Case<arith::MaxSIOp>([&](auto) { return call("std::max", 2); })
          .Case<arith::MinSIOp>([&](auto) { return call("std::min", 2); })
          // device.h's: the SE's semantics, -0 < +0.
          .Case<arith::MaxNumFOp>([&](auto) { return call("maxNumOf", 2); })
          .Case<arith::MinNumFOp>([&](auto) { return call("minNumOf", 2); })
          // NaN-propagating, -0 < +0: device.h's, the SE's.
          .Case<arith::MaximumFOp>([&](auto) { return call("maximumOf", 2); })
          .Case<arith::MinimumFOp>([&](auto) { return call("minimumOf", 2); })
          .Case<arith::NegFOp>([&](auto) { return "(-" + operand(0) + ")"; })
          .Case<arith::SelectOp>([&](auto) {
            return "(" + operand(0) + " ? " + operand(1) + " : " + operand(2) + ")";
          })
          .Case<arith::ExtSIOp, arith::TruncIOp, arith::IndexCastOp,
                arith::SIToFPOp, arith::ExtFOp, arith::TruncFOp>([&](auto) { return cast(); })
          .Case<arith::FPToSIOp>([&](auto) {
            return type == "bool" ? cast() : "floatToInt<" + type + ">(" + operand(0) + ")";
          })
          .Case<arith::BitcastOp>([&](auto) {
            // fp8 scalars are floats here: their bits are the code.
            Type from = op.getOperand(0).getType();
            if (isa<Float8E4M3FNType>(from))
              return "static_cast<" + type + ">(e4m3FromFloat(" + operand(0) + "))";
            if (isa<Float8E5M2Type>(from))
              return "static_cast<" + type + ">(e5m2FromFloat(" + operand(0) + "))";
            if (isa<Float8E4M3FNType>(t))
              return "floatFromE4m3(static_cast<uint8_t>(" + operand(0) + "))";
            if (isa<Float8E5M2Type>(t))
              return "floatFromE5m2(static_cast<uint8_t>(" + operand(0) + "))";
            return "__builtin_bit_cast(" + type + ", " + operand(0) + ")";
          })
          .Case<arith::FPToUIOp>([&](auto) {
            return type == "bool" ? cast()
                                  : "static_cast<" + type + ">(floatToInt<" + unsignedType(t) +
                                        ">(" + operand(0) + "))";
          })
          .Case<arith::MaxUIOp>([&](auto) {
            return "static_cast<" + type + ">(std::max(static_cast<" +
                   unsignedType(t) + ">(" + operand(0) + "), static_cast<" +
                   unsignedType(t) + ">(" + operand(1) + ")))";
          })
          .Case<arith::MinUIOp>([&](auto) {
            return "static_cast<" + type + ">(std::min(static_cast<" +
                   unsignedType(t) + ">(" + operand(0) + "), static_cast<" +
                   unsignedType(t) + ">(" + operand(1) + ")))";
          })
          .Case<math::RoundEvenOp>([&](auto) { return call("std::nearbyint", 1); })
          .Case<math::TruncOp>([&](auto) { return call("std::trunc", 1); })
          .Case<arith::ExtUIOp, arith::UIToFPOp>([&](auto) {
            return "static_cast<" + type + ">(static_cast<" +
                   unsignedType(op.getOperand(0).getType()) + ">(" + operand(0) + "))";
          })
          .Case<arith::CmpIOp>([&](arith::CmpIOp c) -> std::string {
            using P = arith::CmpIPredicate;
            switch (c.getPredicate()) {
            case P::eq: return bin("==");
            case P::ne: return bin("!=");
            case P::slt: return bin("<");
            case P::sle: return bin("<=");
            case P::sgt: return bin(">");
            case P::sge: return bin(">=");
            case P::ult: return ubin("<");
            case P::ule: return ubin("<=");
            case P::ugt: return ubin(">");
            case P::uge: return ubin(">=");
            }
            return "";
          })
          .Case<arith::CmpFOp>([&](arith::CmpFOp c) -> std::string {
            using P = arith::CmpFPredicate;
            switch (c.getPredicate()) {
            case P::OEQ: return bin("==");
            case P::UNE: return bin("!=");
            case P::OLT: return bin("<");
            case P::OLE: return bin("<=");
            case P::OGT: return bin(">");
            case P::OGE: return bin(">=");
            case P::ONE: return "(" + bin("<") + " || " + bin(">") + ")";
            default: return "";
            }
          })
          .Case<math::SqrtOp>([&](auto) { return call("std::sqrt", 1); })
          .Case<math::RsqrtOp>([&](auto) { return "(1 / std::sqrt(" + operand(0) + "))"; })
          .Case<math::ExpOp>([&](auto) { return call("std::exp", 1); })
          .Case<math::Exp2Op>([&](auto) { return call("std::exp2", 1); })
          .Case<math::LogOp>([&](auto) { return call("std::log", 1); })
          .Case<math::Log2Op>([&](auto) { return call("std::log2", 1); })
          .Case<math::AbsFOp>([&](auto) { return call("std::fabs", 1); })
          .Case<math::AbsIOp>([&](auto) { return call("std::abs", 1); })
          .Case<math::TanhOp>([&](auto) { return call("std::tanh", 1); })
          .Case<math::ErfOp>([&](auto) { return call("std::erf", 1); })
          .Case<math::SinOp>([&](auto) { return call("std::sin", 1); })
          .Case<math::CosOp>([&](auto) { return call("std::cos", 1); })
          .Case<math::FloorOp>([&](auto) { return call("std::floor", 1); })
          .Case<math::CeilOp>([&](auto) { return call("std::ceil", 1); })
          .Case<math::PowFOp>([&](auto) { return call("std::pow", 2); })
          .Case<math::FmaOp>([&](auto) { return call("std::fma", 3); })
          .Case<math::Log10Op>([&](auto) { return call("std::log10", 1); })
          .Case<math::Log1pOp>([&](auto) { return call("std::log1p", 1); })
          .Case<math::ExpM1Op>([&](auto) { return call("std::expm1", 1); })
          .Case<math::ErfcOp>([&](auto) { return call("std::erfc", 1); })
          .Case<math::TanOp>([&](auto) { return call("std::tan", 1); })
          .Case<math::AtanOp>([&](auto) { return call("std::atan", 1); })
          .Case<math::AsinOp>([&](auto) { return call("std::asin", 1); })
          .Case<math::AcosOp>([&](auto) { return call("std::acos", 1); })
          .Case<math::SinhOp>([&](auto) { return call("std::sinh", 1); })
          .Case<math::CoshOp>([&](auto) { return call("std::cosh", 1); })
          .Case<math::AsinhOp>([&](auto) { return call("std::asinh", 1); })
          .Case<math::AcoshOp>([&](auto) { return call("std::acosh", 1); })
          .Case<math::AtanhOp>([&](auto) { return call("std::atanh", 1); })
          .Case<math::CbrtOp>([&](auto) { return call("std::cbrt", 1); })
          .Case<math::Atan2Op>([&](auto) { return call("std::atan2", 2); })
          .Default([&](Operation *) { return std::string(); });
  if (expr.empty() || type.empty())
    return op.emitError() << "the C++ emitter does not handle '" << op.getName()
                          << "' on " << t;
  // Narrow results (i1, f16 arithmetic promoted to int/float) are cast back;
  // conversions already are casts.
  bool isCast = StringRef(expr).starts_with("static_cast<" + type + ">");
  std::string round = fp8Rounding(t);
  std::string n = declare(result);
  line() << "const " << type << " " << n << " = ";
  if (!round.empty() && !isa<arith::BitcastOp>(op))
    os << round << "(" << expr << ");\n";
  else if (isCast)
    os << expr << ";\n";
  else
    os << "static_cast<" << type << ">(" << expr << ");\n";
  return success();
}

LogicalResult CppEmitter::emitMtia(Operation &op) {
  if (failed(checkTileRank(&op)))
    return failure();
  // Before replaceFront, which binds to the next command of the same core.
  issueOn(op);
  // mtia-replace-front: the command right after pops the front tile of its CB.
  if (op.hasAttr(mtia::kReplaceFrontAttr))
    line() << "replaceFront(ctx, /*cb=*/" << op.getAttrOfType<IntegerAttr>("cb").getInt()
           << ");\n";
  if (auto pid = dyn_cast<mtia::ProgramIdOp>(op)) {
    line() << "const int32_t " << declare(pid.getResult()) << " = programId(ctx, "
           << pid.getAxis() << ");\n";
    return success();
  }
  if (auto num = dyn_cast<mtia::NumProgramsOp>(op)) {
    line() << "const int32_t " << declare(num.getResult())
           << " = numPrograms(ctx, " << num.getAxis() << ");\n";
    return success();
  }
  if (auto pe = dyn_cast<mtia::PeIdOp>(op)) {
    line() << "const int32_t " << declare(pe.getResult()) << " = peId(ctx, " << pe.getAxis() << ");\n";
    return success();
  }
  if (auto grid = dyn_cast<mtia::PeGridSizeOp>(op)) {
    line() << "const int32_t " << declare(grid.getResult()) << " = peGridSize(ctx, " << grid.getAxis()
           << ");\n";
    return success();
  }
  // Box{rank, {shape}, {strides}, {valid}[, {begin}]}: begin is printed
  // only when the op has one (Box::begin defaults to 0).
  auto boxLiteral = [&](ArrayRef<int64_t> shape, ValueRange strides,
                        ValueRange valid, ValueRange begin) {
    auto list = [&](ValueRange values) {
      std::string s = ", {";
      for (auto [i, v] : llvm::enumerate(values))
        s += (i ? ", " : "") + name(v);
      return s + "}";
    };
    std::string s = "Box{" + std::to_string(shape.size()) + ", {";
    for (auto [i, d] : llvm::enumerate(shape))
      s += (i ? ", " : "") + std::to_string(d);
    s += "}" + list(strides) + list(valid);
    if (!begin.empty())
      s += list(begin);
    return s + "}";
  };
  if (auto dma = dyn_cast<mtia::DmaInOp>(op)) {
    std::string pad = dma.getPad() ? immLiteral(dma.getPad())
                                   : "immInt(" + dtypeName(dma.getElemType()) + ", 0)";
    line() << "dmaIn(ctx, /*cb=*/" << dma.getCb() << ", "
           << dtypeName(dma.getElemType()) << ", " << name(dma.getAddr()) << ", "
           << boxLiteral(dma.getShape(), dma.getStrides(), dma.getValid(), dma.getBegin()) << ", "
           << pad << ");\n";
    return success();
  }
  if (auto dma = dyn_cast<mtia::DmaOutOp>(op)) {
    line() << "dmaOut(ctx, /*cb=*/" << dma.getCb() << ", "
           << dtypeName(dma.getElemType()) << ", " << name(dma.getAddr()) << ", "
           << boxLiteral(dma.getShape(), dma.getStrides(), dma.getValid(), dma.getBegin())
           << ");\n";
    return success();
  }
  if (auto g = dyn_cast<mtia::GatherInOp>(op)) {
    std::string pad = g.getPad() ? immLiteral(g.getPad())
                                 : "immInt(" + dtypeName(g.getElemType()) + ", 0)";
    line() << "gatherIn(ctx, /*cb=*/" << g.getCb() << ", "
           << dtypeName(g.getElemType()) << ", " << shapeLiteral(g.getShape())
           << ", /*addrCb=*/" << g.getAddrCb() << ", /*maskCb=*/" << static_cast<int64_t>(g.getMaskCb())
           << ", " << pad << ");\n";
    return success();
  }
  if (auto s = dyn_cast<mtia::ScatterOutOp>(op)) {
    line() << "scatterOut(ctx, /*cb=*/" << s.getCb() << ", "
           << dtypeName(s.getElemType()) << ", " << shapeLiteral(s.getShape())
           << ", /*addrCb=*/" << s.getAddrCb() << ", /*maskCb=*/" << static_cast<int64_t>(s.getMaskCb())
           << ");\n";
    return success();
  }
  if (auto se = dyn_cast<mtia::SeOp>(op)) {
    emitValidBox(se.getValid(), nullptr);
    line() << se.getUnit() << "(ctx, SeOp::" << se.getOpcode() << ", /*dst=*/" << se.getCb()
           << ", " << dtypeName(se.getElemType()) << ", "
           << shapeLiteral(se.getShape());
    for (const std::string &src : operandLiterals(se.getSrcs(), se.getImms()))
      os << ", " << src;
    os << ");\n";
    return success();
  }
  if (auto loop = dyn_cast<mtia::VecLoopOp>(op)) {
    // The loop's inputs and steps as arrays in a scope of their own.
    emitValidBox(loop.getValid(), nullptr);
    line() << "{\n";
    indent += 2;
    line() << "const Operand inputs[] = {";
    for (auto [i, src] : llvm::enumerate(operandLiterals(loop.getSrcs(), loop.getImms())))
      os << (i ? ", " : "") << src;
    os << "};\n";
    line() << "const VecStep steps[] = {\n";
    for (Attribute attr : loop.getSteps()) {
      auto step = cast<mtia::VecStepAttr>(attr);
      line() << "    {SeOp::" << step.getOpcode() << ", " << dtypeName(step.getElemType())
             << ", " << step.getArgs().size() << ", {";
      for (auto [i, arg] : llvm::enumerate(step.getArgs()))
        os << (i ? ", " : "")
           << (arg >= 0 ? std::to_string(arg) : "stepResult(" + std::to_string(-1 - arg) + ")");
      os << "}},\n";
    }
    line() << "};\n";
    line() << "vecLoop(ctx, /*dst=*/" << loop.getCb() << ", " << shapeLiteral(loop.getShape())
           << ", inputs, " << loop.getSrcs().size() << ", steps, " << loop.getSteps().size()
           << ");\n";
    indent -= 2;
    line() << "}\n";
    return success();
  }
  if (auto dpe = dyn_cast<mtia::DpeOp>(op)) {
    auto srcs = operandLiterals(dpe.getSrcs(), dpe.getImms());
    line() << "dpe(ctx, /*dst=*/" << dpe.getCb() << ", " << dtypeName(dpe.getAccType())
           << ", /*m=*/" << dpe.getM() << ", /*n=*/" << dpe.getN() << ", /*k=*/"
           << dpe.getK() << ", " << srcs[0] << ", " << srcs[1] << ", " << srcs[2]
           << ");\n";
    return success();
  }
  if (auto mlu = dyn_cast<mtia::MluCopyOp>(op)) {
    line() << mluCopyCall(mlu.getCb(), mlu.getElemType(), mlu.getShape(), mlu.getSrc()) << ";\n";
    return success();
  }
  if (auto recv = dyn_cast<mtia::ReRecvOp>(op)) {
    // The chain's first PE starts it with its own tile; every other PE
    // combines its tile with what arrives from the chain's side.
    line() << "if (" << name(recv.getFirst()) << ")\n";
    line() << "  " << mluCopyCall(recv.getCb(), recv.getElemType(), recv.getShape(), recv.getSrc())
           << ";\n";
    line() << "else\n";
    line() << "  reRecv(ctx, ReduceOp::" << recv.getKind() << ", /*dst=*/" << recv.getCb() << ", "
           << dtypeName(recv.getElemType()) << ", " << shapeLiteral(recv.getShape()) << ", "
           << viewLiteral(recv.getSrc()) << ", ReDir::"
           << (recv.getDirection() == "south" ? "North" : "West") << ");\n";
    return success();
  }
  if (auto send = dyn_cast<mtia::ReSendOp>(op)) {
    line() << "if (" << name(send.getEnable()) << ")\n";
    line() << "  reSend(ctx, ReDir::" << (send.getDirection() == "south" ? "South" : "East")
           << ", " << dtypeName(send.getElemType()) << ", " << shapeLiteral(send.getShape())
           << ", " << viewLiteral(send.getSrc()) << ");\n";
    return success();
  }
  if (auto send = dyn_cast<mtia::NocBroadcastOp>(op)) {
    line() << "if (" << name(send.getEnable()) << ")\n";
    line() << "  nocBroadcast(ctx, /*axis=*/" << send.getAxis() << ", "
           << dtypeName(send.getElemType()) << ", " << shapeLiteral(send.getShape()) << ", "
           << viewLiteral(send.getSrc()) << ");\n";
    return success();
  }
  if (auto recv = dyn_cast<mtia::NocRecvOp>(op)) {
    // The source keeps its own tile; every other PE of the line takes it
    // from the NoC.
    line() << "if (" << name(recv.getSource()) << ")\n";
    line() << "  " << mluCopyCall(recv.getCb(), recv.getElemType(), recv.getShape(), recv.getSrc())
           << ";\n";
    line() << "else\n";
    line() << "  nocRecv(ctx, /*axis=*/" << recv.getAxis() << ", /*dst=*/" << recv.getCb() << ", "
           << dtypeName(recv.getElemType()) << ", " << shapeLiteral(recv.getShape()) << ");\n";
    return success();
  }
  if (auto scan = dyn_cast<mtia::SeScanOp>(op)) {
    line() << "seScan(ctx, ReduceOp::" << scan.getKind() << ", /*dst=*/"
           << scan.getCb() << ", " << dtypeName(scan.getElemType()) << ", "
           << shapeLiteral(scan.getShape()) << ", /*axis=*/" << scan.getAxis()
           << ", /*reverse=*/" << (scan.getReverse() ? "true" : "false") << ", "
           << viewLiteral(scan.getSrc()) << ");\n";
    return success();
  }
  if (auto hist = dyn_cast<mtia::SeHistogramOp>(op)) {
    line() << "seHistogram(ctx, /*dst=*/" << hist.getCb() << ", /*numBins=*/"
           << hist.getNumBins() << ", " << shapeLiteral(hist.getShape()) << ", "
           << viewLiteral(hist.getSrc()) << ", /*maskCb=*/" << static_cast<int64_t>(hist.getMaskCb())
           << ");\n";
    return success();
  }
  if (auto g = dyn_cast<mtia::SeGatherOp>(op)) {
    line() << "seGather(ctx, /*dst=*/" << g.getCb() << ", "
           << dtypeName(g.getElemType()) << ", " << shapeLiteral(g.getShape())
           << ", /*axis=*/" << g.getAxis() << ", " << viewLiteral(g.getSrc()) << ", "
           << shapeLiteral(g.getSrcShape()) << ", " << viewLiteral(g.getIndex())
           << ");\n";
    return success();
  }
  if (auto rmw = dyn_cast<mtia::AtomicRmwOp>(op)) {
    auto srcs = operandLiterals(rmw.getSrcs(), rmw.getImms());
    line() << "atomicRmw(ctx, /*dst=*/" << static_cast<int64_t>(rmw.getCb()) << ", RmwOp::" << rmw.getKind()
           << ", " << dtypeName(rmw.getElemType()) << ", "
           << shapeLiteral(rmw.getShape()) << ", /*addrCb=*/" << rmw.getAddrCb()
           << ", " << srcs[0] << ", /*maskCb=*/" << static_cast<int64_t>(rmw.getMaskCb()) << ");\n";
    return success();
  }
  if (auto cas = dyn_cast<mtia::AtomicCasOp>(op)) {
    auto srcs = operandLiterals(cas.getSrcs(), cas.getImms());
    line() << "atomicCas(ctx, /*dst=*/" << cas.getCb() << ", "
           << dtypeName(cas.getElemType()) << ", " << shapeLiteral(cas.getShape())
           << ", /*addrCb=*/" << cas.getAddrCb() << ", " << srcs[0] << ", "
           << srcs[1] << ");\n";
    return success();
  }
  if (auto print = dyn_cast<mtia::PrintOp>(op)) {
    line() << "printTile(ctx, " << cppString(print.getPrefix()) << ", /*cb=*/"
           << print.getCb() << ", " << dtypeName(print.getElemType()) << ", "
           << shapeLiteral(print.getShape()) << ", /*hex=*/"
           << (print.getHex() ? "true" : "false") << ", /*isSigned=*/"
           << (print.getIsSigned() ? "true" : "false") << ");\n";
    return success();
  }
  if (auto a = dyn_cast<mtia::AssertOp>(op)) {
    line() << "assertTile(ctx, /*cb=*/" << a.getCb() << ", "
           << shapeLiteral(a.getShape()) << ", " << cppString(a.getMessage())
           << ", " << cppString(a.getFile()) << ", " << a.getLine() << ");\n";
    return success();
  }
  if (auto cost = dyn_cast<mtia::ScalarCyclesOp>(op)) {
    commandLine(op);
    line() << "scalarCycles(ctx, " << cost.getCycles() << ");\n";
    return success();
  }
  if (isa<mtia::BarrierOp>(op)) {
    line() << "barrier(ctx);\n";
    return success();
  }
  if (auto fence = dyn_cast<mtia::FenceOp>(op)) {
    StringRef kind = fence.getKind() == "loads_after_stores"   ? "LoadsAfterStores"
                     : fence.getKind() == "stores_after_loads" ? "StoresAfterLoads"
                                                               : "Both";
    line();
    if (fence.getCond())
      os << "if (" << name(fence.getCond()) << ") ";
    os << "fence(ctx, Fence::" << kind << ");\n";
    return success();
  }
  if (auto alias = dyn_cast<mtia::MayAliasOp>(op)) {
    line() << "const bool " << declare(alias.getResult()) << " = mayAlias(ctx, "
           << name(alias.getLhs()) << ", " << name(alias.getRhs()) << ");\n";
    return success();
  }
  if (auto r = dyn_cast<mtia::SeReduceOp>(op)) {
    emitValidBox(r.getValid(), r.getFillAttr());
    line() << "seReduce(ctx, ReduceOp::" << r.getKind() << ", /*dst=*/" << r.getCb()
           << ", " << dtypeName(r.getElemType()) << ", " << shapeLiteral(r.getShape())
           << ", /*axis=*/" << r.getAxis() << ", " << viewLiteral(r.getSrc()) << ");\n";
    return success();
  }
  if (auto iota = dyn_cast<mtia::SeIotaOp>(op)) {
    line() << "seIota(ctx, /*dst=*/" << iota.getCb() << ", "
           << dtypeName(iota.getElemType()) << ", " << iota.getLength() << ", "
           << iota.getStart() << ");\n";
    return success();
  }
  if (auto pop = dyn_cast<mtia::CbPopOp>(op)) {
    line() << "cbPop(ctx, /*cb=*/" << pop.getCb() << ", " << pop.getBytes() << ");\n";
    return success();
  }
  if (auto read = dyn_cast<mtia::ReadOp>(op)) {
    Type t = read.getType();
    std::string fn = isa<FloatType>(t) ? "readFloat" : "readInt";
    line() << "const " << cppType(t) << " " << declare(read.getResult())
           << " = static_cast<" << cppType(t) << ">(" << fn << "(ctx, /*cb=*/"
           << read.getCb() << ", " << dtypeName(t) << ", " << read.getIndex() << "));\n";
    return success();
  }
  return op.emitError() << "the C++ emitter does not handle '" << op.getName() << "'";
}

LogicalResult CppEmitter::emitFor(scf::ForOp op) {
  // Loop-carried values are variables assigned at the end of each iteration.
  SmallVector<std::string> carried;
  for (auto [init, arg] : llvm::zip(op.getInitArgs(), op.getRegionIterArgs())) {
    std::string n = declare(arg);
    line() << cppType(arg.getType()) << " " << n << " = " << name(init) << ";\n";
    carried.push_back(n);
  }
  Value iv = op.getInductionVar();
  std::string ivName = declare(iv);
  std::string t = cppType(iv.getType());
  line() << "for (" << t << " " << ivName << " = " << name(op.getLowerBound())
         << "; " << ivName << " < " << name(op.getUpperBound()) << "; " << ivName
         << " += " << name(op.getStep()) << ") {\n";
  indent += 2;
  path->forget(); // the body runs after itself too
  Block *body = op.getBody();
  for (Operation &inner : body->without_terminator())
    if (failed(emitOp(inner)))
      return failure();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  // Read every yielded value before assigning any carried variable.
  SmallVector<std::string> next;
  for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
    std::string tmp = carried[i] + "_next";
    line() << "const " << cppType(v.getType()) << " " << tmp << " = " << name(v) << ";\n";
    next.push_back(tmp);
  }
  for (auto [i, n] : llvm::enumerate(next))
    line() << carried[i] << " = " << n << ";\n";
  indent -= 2;
  line() << "}\n";
  path->forget();
  for (auto [result, n] : llvm::zip(op.getResults(), carried))
    names[result] = n;
  return success();
}

LogicalResult CppEmitter::emitIf(scf::IfOp op) {
  SmallVector<std::string> results;
  for (Value r : op.getResults()) {
    std::string n = declare(r);
    line() << cppType(r.getType()) << " " << n << "{};\n";
    results.push_back(n);
  }
  auto branch = [&](Region &region) -> LogicalResult {
    indent += 2;
    path->forget();
    Block &block = region.front();
    for (Operation &inner : block.without_terminator())
      if (failed(emitOp(inner)))
        return failure();
    auto yield = cast<scf::YieldOp>(block.getTerminator());
    for (auto [i, v] : llvm::enumerate(yield.getOperands()))
      line() << results[i] << " = " << name(v) << ";\n";
    indent -= 2;
    return success();
  };
  line() << "if (" << name(op.getCondition()) << ") {\n";
  if (failed(branch(op.getThenRegion())))
    return failure();
  if (!op.getElseRegion().empty()) {
    line() << "} else {\n";
    if (failed(branch(op.getElseRegion())))
      return failure();
  }
  line() << "}\n";
  path->forget();
  return success();
}

/// A while loop: the before-region's arguments are variables; the condition
/// leaves the loop with the results or hands its values to the after-region,
/// whose yield assigns the before-region's variables for the next test.
LogicalResult CppEmitter::emitWhile(scf::WhileOp op) {
  SmallVector<std::string> results, carried;
  for (Value r : op.getResults()) {
    std::string n = declare(r);
    line() << cppType(r.getType()) << " " << n << "{};\n";
    results.push_back(n);
  }
  Block &before = op.getBefore().front();
  for (auto [init, arg] : llvm::zip(op.getInits(), before.getArguments())) {
    std::string n = declare(arg);
    line() << cppType(arg.getType()) << " " << n << " = " << name(init) << ";\n";
    carried.push_back(n);
  }
  line() << "while (true) {\n";
  indent += 2;
  path->forget();
  for (Operation &inner : before.without_terminator())
    if (failed(emitOp(inner)))
      return failure();
  auto cond = cast<scf::ConditionOp>(before.getTerminator());
  line() << "if (!" << name(cond.getCondition()) << ") {\n";
  for (auto [i, v] : llvm::enumerate(cond.getArgs()))
    line() << "  " << results[i] << " = " << name(v) << ";\n";
  line() << "  break;\n";
  line() << "}\n";
  Block &after = op.getAfter().front();
  for (auto [arg, v] : llvm::zip(after.getArguments(), cond.getArgs())) {
    std::string n = declare(arg);
    line() << "const " << cppType(arg.getType()) << " " << n << " = " << name(v)
           << ";\n";
  }
  for (Operation &inner : after.without_terminator())
    if (failed(emitOp(inner)))
      return failure();
  auto yield = cast<scf::YieldOp>(after.getTerminator());
  SmallVector<std::string> next;
  for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
    std::string tmp = carried[i] + "_next";
    line() << "const " << cppType(v.getType()) << " " << tmp << " = " << name(v)
           << ";\n";
    next.push_back(tmp);
  }
  for (auto [i, n] : llvm::enumerate(next))
    line() << carried[i] << " = " << n << ";\n";
  indent -= 2;
  line() << "}\n";
  path->forget();
  return success();
}

} // namespace

LogicalResult mlir::triton_mtia::translateToCpp(ModuleOp module, raw_ostream &os) {
  os << "// Generated by triton-mtia-compile. Each command below is issued by the\n"
        "// PE's RISC-V core to a fixed-function unit; see mtia/device.h.\n"
        "// Comments name the Triton source line each group of statements came from.\n"
        "#include \"mtia/kernel_prelude.h\"\n\n"
        "using namespace mtia;\n\n";
  for (auto func : module.getOps<func::FuncOp>()) {
    CppEmitter emitter(os);
    if (failed(emitter.emitKernel(func)))
      return failure();
  }
  return success();
}
