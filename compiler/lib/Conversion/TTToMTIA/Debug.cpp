//===- Debug.cpp - Device print and device assert ---===//
//
// tt.print -> one mtia.print per argument (the simulator prints each element
// with its program id and index, like Triton's GPU printf); scalars are
// printed from a one-element tile so that the print happens in command order
// with the tiles around it. tt.assert -> mtia.assert on a dense i1 tile; the
// simulator raises a fault of kind "assert" carrying the message and the
// kernel's source file and line, which Python raises as an exception.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "triton-mtia/Support/SourceLocation.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

LogicalResult KernelLowering::lowerPrint(tt::PrintOp op) {
  Location loc = op.getLoc();
  if (op.getArgs().empty())
    return unsupported(op, "device_print without values");
  ArrayRef<int32_t> isSigned = op.getIsSigned();
  for (auto [i, arg] : llvm::enumerate(op.getArgs())) {
    Type type = arg.getType();
    Type elemType = tileElementType(type);
    SmallVector<int64_t> shape = shapeOf(type);
    SmallVector<std::pair<int64_t, int64_t>> temps;
    int64_t cb;
    if (isa<RankedTensorType>(type)) {
      auto l = tensor(arg);
      if (failed(l))
        return failure();
      cb = denseCb(*l, elemType, shape, loc, temps);
    } else {
      cb = copyToNewTile(Lowered::splat(scalar(arg)), elemType, {}, loc, &temps);
    }
    bool sign = i < isSigned.size() ? isSigned[i] != 0 : true;
    mtia::PrintOp::create(b, loc, op.getPrefix(), cb, elemType, shape,
                          op.getHex(), sign);
    for (auto [tmp, bytes] : temps)
      mtia::CbPopOp::create(b, loc, tmp, bytes);
  }
  return success();
}

LogicalResult KernelLowering::lowerAssert(tt::AssertOp op) {
  Location loc = op.getLoc();
  Value cond = op.getCondition();
  SmallVector<int64_t> shape = shapeOf(cond.getType());
  SmallVector<std::pair<int64_t, int64_t>> temps;
  int64_t cb;
  if (isa<RankedTensorType>(cond.getType())) {
    auto l = tensor(cond);
    if (failed(l))
      return failure();
    cb = denseCb(*l, b.getI1Type(), shape, loc, temps);
  } else {
    cb = copyToNewTile(Lowered::splat(scalar(cond)), b.getI1Type(), {}, loc,
                       &temps);
  }
  std::string file = "<unknown>";
  int64_t line = 0;
  if (auto flc = getSourceLoc(loc)) {
    file = flc->getFilename().str();
    line = flc->getLine();
  }
  mtia::AssertOp::create(b, loc, cb, shape, op.getMessage(), file, line);
  for (auto [tmp, bytes] : temps)
    mtia::CbPopOp::create(b, loc, tmp, bytes);
  return success();
}

} // namespace mlir::triton_mtia::tt_to_mtia
