//===- TTOps.cpp - Operations of the tt dialect ---------------------------===//

#include "triton-mtia/Dialect/TT/IR/TTDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace mlir::triton_mtia::tt;

//===----------------------------------------------------------------------===//
// FuncOp
//===----------------------------------------------------------------------===//

ParseResult FuncOp::parse(OpAsmParser &parser, OperationState &result) {
  auto buildFuncType = [](Builder &builder, ArrayRef<Type> argTypes,
                          ArrayRef<Type> results,
                          function_interface_impl::VariadicFlag,
                          std::string &) {
    return builder.getFunctionType(argTypes, results);
  };
  return function_interface_impl::parseFunctionOp(
      parser, result, /*allowVariadic=*/false,
      getFunctionTypeAttrName(result.name), buildFuncType,
      getArgAttrsAttrName(result.name), getResAttrsAttrName(result.name));
}

void FuncOp::print(OpAsmPrinter &printer) {
  function_interface_impl::printFunctionOp(
      printer, *this, /*isVariadic=*/false, getFunctionTypeAttrName(),
      getArgAttrsAttrName(), getResAttrsAttrName());
}

//===----------------------------------------------------------------------===//
// CallOp
//===----------------------------------------------------------------------===//

LogicalResult CallOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto callee = symbolTable.lookupNearestSymbolFrom<FuncOp>(*this, getCalleeAttr());
  if (!callee)
    return emitOpError() << "calls '" << getCallee()
                         << "', which is not a tt.func in this module";
  if (TypeRange(callee.getFunctionType().getInputs()) != getOperandTypes())
    return emitOpError("operand types do not match the callee's signature");
  return success();
}

//===----------------------------------------------------------------------===//
// ExternElementwiseOp
//===----------------------------------------------------------------------===//

void ExternElementwiseOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>> &effects) {
  if (getPure())
    return;
  effects.emplace_back(MemoryEffects::Read::get(), SideEffects::DefaultResource::get());
  effects.emplace_back(MemoryEffects::Write::get(), SideEffects::DefaultResource::get());
}

Speculation::Speculatability ExternElementwiseOp::getSpeculatability() {
  return getPure() ? Speculation::Speculatable : Speculation::NotSpeculatable;
}

//===----------------------------------------------------------------------===//
// Verifiers
//===----------------------------------------------------------------------===//

LogicalResult MakeRangeOp::verify() {
  int64_t length = int64_t(getEnd()) - int64_t(getStart());
  if (length <= 0)
    return emitOpError("end must be greater than start");
  if (getType().getRank() != 1 || getType().getDimSize(0) != length)
    return emitOpError() << "result must be a 1-D tensor of " << length
                         << " elements";
  return success();
}

LogicalResult BroadcastOp::verify() {
  auto srcType = getSrc().getType();
  auto resultType = getType();
  if (srcType.getRank() != resultType.getRank())
    return emitOpError("source and result must have the same rank");
  for (auto [s, r] : llvm::zip(srcType.getShape(), resultType.getShape()))
    if (s != r && s != 1)
      return emitOpError("can only broadcast dimensions of size 1");
  return success();
}

LogicalResult UnsplatOp::verify() {
  if (getSrc().getType().getNumElements() != 1)
    return emitOpError("can only unsplat a tensor of one element, not ")
           << getSrc().getType().getNumElements();
  return success();
}

LogicalResult CatOp::verify() {
  auto srcType = cast<RankedTensorType>(getLhs().getType());
  auto resultType = cast<RankedTensorType>(getType());
  if (srcType.getRank() < 1 || srcType.getRank() != resultType.getRank() ||
      srcType.getElementType() != resultType.getElementType())
    return emitOpError("result must have the operands' rank and element type");
  for (int64_t d = 0; d < srcType.getRank(); ++d)
    if (resultType.getDimSize(d) != srcType.getDimSize(d) * (d == 0 ? 2 : 1))
      return emitOpError("result must be the operands joined along dimension 0");
  return success();
}

LogicalResult ReduceOp::verify() {
  if (getSrcs().empty())
    return emitOpError("needs at least one operand");
  auto srcType = cast<RankedTensorType>(getSrcs()[0].getType());
  if (getAxis() < 0 || getAxis() >= srcType.getRank())
    return emitOpError() << "axis " << getAxis() << " is out of range for rank "
                         << srcType.getRank();
  Block &body = getCombineOp().front();
  if (body.getNumArguments() != 2 * getSrcs().size())
    return emitOpError("combine region must take two arguments per operand");
  return success();
}

#define GET_OP_CLASSES
#include "triton-mtia/Dialect/TT/IR/TTOps.cpp.inc"
