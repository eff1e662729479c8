//===- MTIADialect.cpp - The mtia command dialect -------------------------===//

#include "triton-mtia/Dialect/MTIA/IR/MTIADialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/TypeSwitch.h"

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

int64_t mlir::triton_mtia::mtia::elementBytes(Type type) {
  if (type.isInteger(1))
    return 1;
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

bool mlir::triton_mtia::mtia::isSeReduceKind(StringRef name) {
  return llvm::StringSwitch<bool>(name)
#define MTIA_SE_REDUCE(Name) .Case(#Name, true)
#include "mtia/se_reduce_ops.def"
      .Default(false);
}

CbUses mlir::triton_mtia::mtia::getCbUses(Operation *op) {
  CbUses uses;
  llvm::TypeSwitch<Operation *>(op)
      .Case<DmaInOp>([&](auto o) { uses.writes = o.getCb(); })
      .Case<DmaOutOp>([&](auto o) { uses.reads.push_back(o.getCb()); })
      .Case<GatherInOp>([&](auto o) {
        uses.writes = o.getCb();
        uses.reads.push_back(o.getAddrCb());
        if (o.getMaskCb() >= 0)
          uses.reads.push_back(o.getMaskCb());
      })
      .Case<ScatterOutOp>([&](auto o) {
        uses.reads.push_back(o.getCb());
        uses.reads.push_back(o.getAddrCb());
        if (o.getMaskCb() >= 0)
          uses.reads.push_back(o.getMaskCb());
      })
      .Case<SeOp>([&](auto o) {
        uses.writes = o.getCb();
        for (Attribute src : o.getSrcs())
          if (auto view = dyn_cast<ViewAttr>(src))
            uses.reads.push_back(view.getCb());
      })
      .Case<SeReduceOp>([&](auto o) {
        uses.writes = o.getCb();
        uses.reads.push_back(o.getSrc().getCb());
      })
      .Case<SeIotaOp>([&](auto o) { uses.writes = o.getCb(); })
      .Case<CbPopOp>([&](auto o) { uses.reads.push_back(o.getCb()); })
      .Case<ReadOp>([&](auto o) { uses.reads.push_back(o.getCb()); });
  return uses;
}

void mlir::triton_mtia::mtia::remapCbs(
    Operation *op, llvm::function_ref<int64_t(int64_t)> map) {
  Builder b(op->getContext());
  auto remapAttr = [&](StringRef name) {
    if (auto attr = op->getAttrOfType<IntegerAttr>(name))
      if (attr.getInt() >= 0)
        op->setAttr(name, b.getI64IntegerAttr(map(attr.getInt())));
  };
  if (!isa<MTIADialect>(op->getDialect()))
    return;
  remapAttr("cb");
  remapAttr("addrCb");
  remapAttr("maskCb");
  if (auto se = dyn_cast<SeOp>(op)) {
    SmallVector<Attribute> srcs;
    for (Attribute src : se.getSrcs()) {
      if (auto view = dyn_cast<ViewAttr>(src))
        src = view.withCb(map(view.getCb()));
      srcs.push_back(src);
    }
    se.setSrcsAttr(b.getArrayAttr(srcs));
  }
  if (auto reduce = dyn_cast<SeReduceOp>(op))
    reduce.setSrcAttr(reduce.getSrc().withCb(map(reduce.getSrc().getCb())));
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

static LogicalResult verifyBox(Operation *op, ArrayRef<int64_t> shape,
                               size_t numStrides, size_t numValid) {
  if (shape.size() > 4)
    return op->emitOpError("tiles have at most 4 dimensions");
  if (numStrides != shape.size() || numValid != shape.size())
    return op->emitOpError("needs one stride and one valid extent per dimension");
  return success();
}

LogicalResult DmaInOp::verify() {
  return verifyBox(*this, getShape(), getStrides().size(), getValid().size());
}

LogicalResult DmaOutOp::verify() {
  return verifyBox(*this, getShape(), getStrides().size(), getValid().size());
}

LogicalResult SeOp::verify() {
  int arity;
  if (!lookupSeOpcode(getOpcode(), arity))
    return emitOpError() << "unknown SE opcode '" << getOpcode() << "'";
  if (static_cast<int>(getSrcs().size()) != arity)
    return emitOpError() << getOpcode() << " takes " << arity << " operands";
  size_t numImm = llvm::count_if(getSrcs(), [](Attribute a) { return isa<ImmAttr>(a); });
  if (numImm != getImms().size())
    return emitOpError("needs one immediate operand per #mtia.imm source");
  for (Attribute src : getSrcs())
    if (auto view = dyn_cast<ViewAttr>(src))
      if (view.getStrides().size() != getShape().size())
        return emitOpError("each view needs one stride per dimension of the shape");
  return success();
}

#define GET_OP_CLASSES
#include "triton-mtia/Dialect/MTIA/IR/MTIAOps.cpp.inc"
