//===- While.cpp - scf.while ---===//
//
// A while loop stays scalar code on the core: its carried values are
// registers. Spin loops (`while tl.atomic_cas(lock, 0, 1) == 1: pass`) block
// the core on the atomic's read each iteration, so other PEs progress in
// simulated time. Tiles created inside either region live and die there.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

LogicalResult KernelLowering::lowerWhile(scf::WhileOp op) {
  Location loc = op.getLoc();
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };
  if (llvm::any_of(op.getOperandTypes(), isTensor) ||
      llvm::any_of(op.getResultTypes(), isTensor) ||
      llvm::any_of(ValueRange(op.getBeforeArguments()).getTypes(), isTensor) ||
      llvm::any_of(ValueRange(op.getAfterArguments()).getTypes(), isTensor))
    return unsupported(op, "while loops that carry tensors (carry them in an "
                           "scf.for, or keep the loop state scalar)");
  SmallVector<Value> inits;
  for (Value v : op.getInits())
    inits.push_back(scalar(v));
  SmallVector<Type> resultTypes;
  for (Type t : op.getResultTypes())
    resultTypes.push_back(lowerScalarType(t));
  auto newWhile = scf::WhileOp::create(b, loc, resultTypes, inits);

  auto lowerRegion = [&](Block &from, Region &to) -> LogicalResult {
    SmallVector<Type> argTypes;
    SmallVector<Location> argLocs;
    for (BlockArgument arg : from.getArguments()) {
      argTypes.push_back(lowerScalarType(arg.getType()));
      argLocs.push_back(arg.getLoc());
    }
    OpBuilder::InsertionGuard guard(b);
    Block *block = b.createBlock(&to, to.end(), argTypes, argLocs);
    for (auto [a, n] : llvm::zip(from.getArguments(), block->getArguments()))
      scalars.map(a, n);
    if (failed(lowerBlock(from)))
      return failure();
    Operation *term = from.getTerminator();
    SmallVector<Value> args;
    if (auto cond = dyn_cast<scf::ConditionOp>(term)) {
      for (Value v : cond.getArgs())
        args.push_back(scalar(v));
      flushPops(term);
      scf::ConditionOp::create(b, term->getLoc(), scalar(cond.getCondition()),
                               args);
      return success();
    }
    for (Value v : term->getOperands())
      args.push_back(scalar(v));
    flushPops(term);
    scf::YieldOp::create(b, term->getLoc(), args);
    return success();
  };
  if (failed(lowerRegion(op.getBefore().front(), newWhile.getBefore())) ||
      failed(lowerRegion(op.getAfter().front(), newWhile.getAfter())))
    return failure();
  for (auto [from, to] : llvm::zip(op.getResults(), newWhile.getResults()))
    scalars.map(from, to);
  return success();
}

} // namespace mlir::triton_mtia::tt_to_mtia
