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

/// The address space is a name (`"constant"`) or, from older Triton, a
/// number; number 1 is the global space, the default, which is not printed.
Type PointerType::parse(AsmParser &parser) {
  Type pointee;
  std::string addressSpace = "global";
  if (parser.parseLess() || parser.parseType(pointee))
    return {};
  if (succeeded(parser.parseOptionalComma()) &&
      failed(parser.parseOptionalString(&addressSpace))) {
    int number;
    if (parser.parseInteger(number))
      return {};
    addressSpace = number == 1 ? "global" : std::to_string(number);
  }
  if (parser.parseGreater())
    return {};
  return PointerType::get(pointee, addressSpace);
}

void PointerType::print(AsmPrinter &printer) const {
  printer << "<" << getPointeeType();
  StringRef space = getAddressSpace();
  if (space != "global") {
    printer << ", ";
    if (llvm::all_of(space, llvm::isDigit))
      printer << space;
    else
      printer << '"' << space << '"';
  }
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
