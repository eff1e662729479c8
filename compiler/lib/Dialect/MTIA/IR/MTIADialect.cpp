//===- MTIADialect.cpp - The mtia command dialect -------------------------===//

#include "triton-mtia/Dialect/MTIA/IR/MTIADialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/ErrorHandling.h"

#include "mtia/device.h"

static_assert(mlir::triton_mtia::mtia::kTileRank == ::mtia::kMaxRank &&
                  mlir::triton_mtia::mtia::kBoxRank == ::mtia::kMaxBoxRank,
              "the compiler's tile and box ranks are the device API's");
static_assert(mlir::triton_mtia::mtia::kLoopInputs == ::mtia::kMaxLoopInputs &&
                  mlir::triton_mtia::mtia::kLoopSteps == ::mtia::kMaxLoopSteps,
              "the compiler's vector loop limits are the device API's");

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

#include "triton-mtia/Dialect/MTIA/IR/MTIADialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "triton-mtia/Dialect/MTIA/IR/MTIAAttrs.cpp.inc"

void MTIADialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "triton-mtia/Dialect/MTIA/IR/MTIAAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "triton-mtia/Dialect/MTIA/IR/MTIAOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Helpers shared by the passes and the C++ emitter
//===----------------------------------------------------------------------===//

int64_t mlir::triton_mtia::mtia::numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

int64_t mlir::triton_mtia::mtia::elementBytes(Type type) {
  if (type.isInteger(1))
    return 1;
  // Tiles hold integers and floats only (pointers are lowered to i64 first);
  // anything else is a lowering bug: say so instead of crashing.
  if (!type.isIntOrFloat())
    llvm::report_fatal_error("internal: a tile whose element type is not an "
                             "integer or a float",
                             /*gen_crash_diag=*/false);
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

bool mlir::triton_mtia::mtia::lookupSeOpcode(StringRef name, int &arity) {
  int found = llvm::StringSwitch<int>(name)
#define MTIA_SE_OP(Name, Arity) .Case(#Name, Arity)
#include "mtia/se_ops.def"
                  .Default(0);
  arity = found;
  return found != 0;
}

bool mlir::triton_mtia::mtia::isVectorOnlyOpcode(StringRef name) {
  return llvm::StringSwitch<bool>(name)
#define MTIA_SE_OP(Name, Arity)
#define MTIA_VEC_OP(Name, Arity) .Case(#Name, true)
#include "mtia/se_ops.def"
      .Default(false);
}

bool mlir::triton_mtia::mtia::isSeReduceKind(StringRef name) {
  return llvm::StringSwitch<bool>(name)
#define MTIA_SE_REDUCE(Name) .Case(#Name, true)
#include "mtia/se_reduce_ops.def"
      .Default(false);
}

CbUses mlir::triton_mtia::mtia::getCbUses(Operation *op) {
  CbUses uses;
  if (!isa_and_nonnull<MTIADialect>(op->getDialect()))
    return uses;
  // Every #mtia.view an op carries, directly or in `srcs`, is a read.
  for (NamedAttribute attr : op->getAttrs()) {
    if (auto view = dyn_cast<ViewAttr>(attr.getValue()))
      uses.reads.push_back(view.getCb());
    if (auto array = dyn_cast<ArrayAttr>(attr.getValue()))
      for (Attribute element : array)
        if (auto view = dyn_cast<ViewAttr>(element))
          uses.reads.push_back(view.getCb());
  }
  for (StringRef name : {"addrCb", "maskCb"})
    if (auto cb = op->getAttrOfType<IntegerAttr>(name))
      if (cb.getInt() >= 0)
        uses.reads.push_back(cb.getInt());
  auto cb = op->getAttrOfType<IntegerAttr>("cb");
  if (!cb || cb.getInt() < 0)
    return uses;
  // Commands that consume the front of `cb`; every other command with a
  // `cb` appends its result tile there.
  if (isa<DmaOutOp, ScatterOutOp, CbPopOp, ReadOp, PrintOp, AssertOp>(op))
    uses.reads.push_back(cb.getInt());
  else
    uses.writes = cb.getInt();
  return uses;
}

CbUsers mlir::triton_mtia::mtia::collectCbUsers(Operation *root) {
  CbUsers users;
  root->walk([&](Operation *op) {
    if (auto pop = dyn_cast<CbPopOp>(op)) {
      users.pops[pop.getCb()].push_back(op);
      return;
    }
    CbUses uses = getCbUses(op);
    if (uses.writes >= 0)
      users.writers[uses.writes].push_back(op);
    for (int64_t cb : uses.reads)
      if (!llvm::is_contained(users.readers[cb], op))
        users.readers[cb].push_back(op);
  });
  return users;
}

bool mlir::triton_mtia::mtia::isAssumption(Operation *op) {
  return op->getName().getStringRef() == "llvm.intr.assume";
}

bool mlir::triton_mtia::mtia::isPureScalar(Operation *op) {
  return op->getNumRegions() == 0 && isPure(op) &&
         llvm::all_of(op->getResultTypes(), [](Type t) { return t.isIntOrIndexOrFloat(); });
}

int64_t mlir::triton_mtia::mtia::producedBytes(Operation *op) {
  if (auto iota = dyn_cast<SeIotaOp>(op))
    return iota.getLength() * elementBytes(iota.getElemType());
  if (auto dpe = dyn_cast<DpeOp>(op))
    return dpe.getM() * dpe.getN() * elementBytes(dpe.getAccType());
  if (auto hist = dyn_cast<SeHistogramOp>(op))
    return hist.getNumBins() * 4;
  ArrayRef<int64_t> dims = op->getAttrOfType<DenseI64ArrayAttr>("shape").asArrayRef();
  Type elemType = op->getAttrOfType<TypeAttr>("elemType").getValue();
  if (auto reduce = dyn_cast<SeReduceOp>(op)) {
    SmallVector<int64_t> out(dims);
    out.erase(out.begin() + reduce.getAxis());
    return numElements(out) * elementBytes(elemType);
  }
  return numElements(dims) * elementBytes(elemType);
}

int64_t mlir::triton_mtia::mtia::vecCyclesPerStrip(ArrayRef<int64_t> shape,
                                                         ArrayAttr srcs, int64_t aluPasses) {
  // A view broadcast along the innermost dimension is one scalar per row
  // (the .vf form), not a vector load; loads and the store share the port.
  int64_t inner = static_cast<int64_t>(shape.size()) - 1;
  while (inner > 0 && shape[inner] == 1)
    --inner;
  int64_t loads = 0;
  for (Attribute src : srcs)
    if (auto view = dyn_cast<ViewAttr>(src))
      loads += inner < 0 || static_cast<int64_t>(view.getStrides().size()) <= inner ||
               view.getStrides()[inner] != 0;
  return std::max(loads + 1, aluPasses);
}

std::pair<int64_t, int64_t> mlir::triton_mtia::mtia::viewElementRange(ViewAttr view,
                                                                      ArrayRef<int64_t> shape) {
  int64_t first = view.getOffset(), last = view.getOffset();
  for (auto [dim, stride] : llvm::zip(shape, view.getStrides())) {
    first += (dim - 1) * std::min<int64_t>(stride, 0);
    last += (dim - 1) * std::max<int64_t>(stride, 0);
  }
  return {first, last + 1};
}

bool mlir::triton_mtia::mtia::isDenseView(ViewAttr view, ArrayRef<int64_t> shape,
                                          int64_t offset) {
  if (view.getOffset() != offset || view.getStrides().size() != shape.size())
    return false;
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] != 1 && view.getStrides()[d] != stride)
      return false;
    stride *= shape[d];
  }
  return true;
}

bool mlir::triton_mtia::mtia::sameEffectiveShape(ValueRange a, ValueRange b) {
  return llvm::equal(a, b, [](Value x, Value y) {
    APInt cx, cy;
    return x == y || (matchPattern(x, m_ConstantInt(&cx)) && matchPattern(y, m_ConstantInt(&cy)) &&
                      cx == cy);
  });
}

void mlir::triton_mtia::mtia::remapCbs(
    Operation *op, llvm::function_ref<int64_t(int64_t)> map) {
  if (!isa_and_nonnull<MTIADialect>(op->getDialect()))
    return;
  Builder b(op->getContext());
  auto remap = [&](Attribute attr) -> Attribute {
    if (auto view = dyn_cast<ViewAttr>(attr))
      return view.withCb(map(view.getCb()));
    return attr;
  };
  for (NamedAttribute attr : op->getAttrs()) {
    StringRef name = attr.getName();
    Attribute value = attr.getValue();
    if (name == "cb" || name == "addrCb" || name == "maskCb") {
      int64_t cb = cast<IntegerAttr>(value).getInt();
      if (cb >= 0)
        op->setAttr(name, b.getI64IntegerAttr(map(cb)));
    } else if (isa<ViewAttr>(value)) {
      op->setAttr(name, remap(value));
    } else if (auto array = dyn_cast<ArrayAttr>(value)) {
      SmallVector<Attribute> elements;
      for (Attribute element : array)
        elements.push_back(remap(element));
      op->setAttr(name, b.getArrayAttr(elements));
    }
  }
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

static LogicalResult verifyBox(Operation *op, ArrayRef<int64_t> shape,
                               size_t numStrides, size_t numValid,
                               size_t numBegin) {
  if (shape.size() > static_cast<size_t>(kBoxRank))
    return op->emitOpError() << "DMA boxes have at most " << kBoxRank << " dimensions";
  if (numStrides != shape.size() || numValid != shape.size())
    return op->emitOpError("needs one stride and one valid extent per dimension");
  if (numBegin != 0 && numBegin != shape.size())
    return op->emitOpError("needs no begin or one begin per dimension");
  return success();
}

LogicalResult DmaInOp::verify() {
  return verifyBox(*this, getShape(), getStrides().size(), getValid().size(),
                   getBegin().size());
}

LogicalResult DmaOutOp::verify() {
  return verifyBox(*this, getShape(), getStrides().size(), getValid().size(),
                   getBegin().size());
}

LogicalResult FenceOp::verify() {
  if (getKind() != "loads_after_stores" && getKind() != "stores_after_loads" &&
      getKind() != "both")
    return emitOpError() << "kind must be \"loads_after_stores\", \"stores_after_loads\" or "
                            "\"both\", not \""
                         << getKind() << "\"";
  return success();
}

LogicalResult SeOp::verify() {
  int arity;
  if (!lookupSeOpcode(getOpcode(), arity))
    return emitOpError() << "unknown SE opcode '" << getOpcode() << "'";
  if (static_cast<int>(getSrcs().size()) != arity)
    return emitOpError() << getOpcode() << " takes " << arity << " operands";
  if (getUnit() != "se" && getUnit() != "vec")
    return emitOpError() << "unit must be \"se\" or \"vec\", not \"" << getUnit()
                         << "\"";
  if (getUnit() == "se" && isVectorOnlyOpcode(getOpcode()))
    return emitOpError() << getOpcode()
                         << " has no SE lookup table; it runs on the vector core (unit = \"vec\")";
  size_t numImm = llvm::count_if(getSrcs(), [](Attribute a) { return isa<ImmAttr>(a); });
  if (numImm != getImms().size())
    return emitOpError("needs one immediate operand per #mtia.imm source");
  for (Attribute src : getSrcs())
    if (auto view = dyn_cast<ViewAttr>(src))
      if (view.getStrides().size() != getShape().size())
        return emitOpError("each view needs one stride per dimension of the shape");
  if (!getValid().empty() && getValid().size() != getShape().size())
    return emitOpError("needs one valid extent per dimension of the shape, or none");
  return success();
}

LogicalResult VecLoopOp::verify() {
  if (getSrcs().empty() || static_cast<int64_t>(getSrcs().size()) > kLoopInputs)
    return emitOpError() << "takes 1 to " << kLoopInputs << " inputs";
  if (getSteps().empty() || static_cast<int64_t>(getSteps().size()) > kLoopSteps)
    return emitOpError() << "takes 1 to " << kLoopSteps << " steps";
  size_t numImm = llvm::count_if(getSrcs(), [](Attribute a) { return isa<ImmAttr>(a); });
  if (numImm != getImms().size())
    return emitOpError("needs one immediate operand per #mtia.imm input");
  for (Attribute src : getSrcs()) {
    auto view = dyn_cast<ViewAttr>(src);
    if (!view && !isa<ImmAttr>(src))
      return emitOpError("inputs are #mtia.view or #mtia.imm");
    if (view && view.getStrides().size() != getShape().size())
      return emitOpError("each view needs one stride per dimension of the shape");
  }
  const int64_t numInputs = static_cast<int64_t>(getSrcs().size());
  for (auto [k, attr] : llvm::enumerate(getSteps())) {
    auto step = dyn_cast<VecStepAttr>(attr);
    if (!step)
      return emitOpError() << "step " << k << " is not a #mtia.vec_step";
    int arity;
    if (!lookupSeOpcode(step.getOpcode(), arity))
      return emitOpError() << "step " << k << ": unknown SE opcode '" << step.getOpcode() << "'";
    if (static_cast<int>(step.getArgs().size()) != arity)
      return emitOpError() << "step " << k << ": " << step.getOpcode() << " takes " << arity
                           << " arguments";
    for (int64_t arg : step.getArgs())
      if (arg >= numInputs || -1 - arg >= static_cast<int64_t>(k))
        return emitOpError() << "step " << k << ": argument " << arg
                             << " is neither an input nor an earlier step";
  }
  if (cast<VecStepAttr>(getSteps()[getSteps().size() - 1]).getElemType() != getElemType())
    return emitOpError("elemType must be the last step's");
  if (!getValid().empty() && getValid().size() != getShape().size())
    return emitOpError("needs one valid extent per dimension of the shape, or none");
  return success();
}

LogicalResult SeReduceOp::verify() {
  if (!getValid().empty() && getValid().size() != getShape().size())
    return emitOpError("needs one valid extent per dimension of the shape, or none");
  if (getValid().empty() != !getFill())
    return emitOpError("takes `valid` and `fill` together");
  return success();
}

/// The reduction network's directions a chain may flow (down a PE column,
/// along a PE row): the ends of a chain are at the north or west edge.
static bool isReDirection(StringRef direction) {
  return direction == "south" || direction == "east";
}

LogicalResult ReRecvOp::verify() {
  if (!isReDirection(getDirection()))
    return emitOpError("direction must be \"south\" or \"east\", not \"") << getDirection() << "\"";
  if (getKind() != "Sum" && getKind() != "Max" && getKind() != "Min")
    return emitOpError("kind must be Sum, Max or Min, not ") << getKind();
  return success();
}

LogicalResult ReSendOp::verify() {
  if (!isReDirection(getDirection()))
    return emitOpError("direction must be \"south\" or \"east\", not \"") << getDirection() << "\"";
  return success();
}

#define GET_OP_CLASSES
#include "triton-mtia/Dialect/MTIA/IR/MTIAOps.cpp.inc"
