//===- TTDialect.cpp - tt dialect, types and attributes -------------------===//

#include "triton-mtia/Dialect/TT/IR/TTDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::triton_mtia::tt;

#include "triton-mtia/Dialect/TT/IR/TTDialect.cpp.inc"
#include "triton-mtia/Dialect/TT/IR/TTEnums.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "triton-mtia/Dialect/TT/IR/TTTypes.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "triton-mtia/Dialect/TT/IR/TTAttrs.cpp.inc"

void TTDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "triton-mtia/Dialect/TT/IR/TTTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "triton-mtia/Dialect/TT/IR/TTAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "triton-mtia/Dialect/TT/IR/TTOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// PointerType
//===----------------------------------------------------------------------===//

/// Triton prints the default address space (1) as `!tt.ptr<f32>`.
Type PointerType::parse(AsmParser &parser) {
  Type pointee;
  int addressSpace = 1;
  if (parser.parseLess() || parser.parseType(pointee))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      parser.parseInteger(addressSpace))
    return {};
  if (parser.parseGreater())
    return {};
  return PointerType::get(pointee, addressSpace);
}

void PointerType::print(AsmPrinter &printer) const {
  printer << "<" << getPointeeType();
  if (getAddressSpace() != 1)
    printer << ", " << getAddressSpace();
  printer << ">";
}

//===----------------------------------------------------------------------===//
// TensorDescType: `!tt.tensordesc<32x32xf32>`
//===----------------------------------------------------------------------===//

Type TensorDescType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseGreater())
    return {};
  return TensorDescType::get(parser.getContext(),
                             RankedTensorType::get(shape, elementType));
}

void TensorDescType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getBlockType().getShape())
    printer << d << "x";
  printer << getBlockType().getElementType() << ">";
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

Type mlir::triton_mtia::tt::getPointeeType(Type ptrLike) {
  if (auto tensor = dyn_cast<RankedTensorType>(ptrLike))
    return tensor.clone(getPointeeType(tensor.getElementType()));
  if (auto ptr = dyn_cast<PointerType>(ptrLike))
    return ptr.getPointeeType();
  return ptrLike;
}

Type mlir::triton_mtia::tt::getI1SameShape(Type type) {
  auto i1 = IntegerType::get(type.getContext(), 1);
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return tensor.clone(i1);
  return i1;
}
