//===- While.cpp - scf.while ---===//
//
// A while loop stays scalar code on the core: its scalar carried values are
// registers. Spin loops (`while tl.atomic_cas(lock, 0, 1) == 1: pass`) block
// the core on the atomic's read each iteration, so other PEs progress in
// simulated time. Tiles created inside either region live and die there.
//
// Carried tensors live in one CB each, as an scf.for's do: the current
// iteration's tile at the front, read by the condition (the before region)
// and the body (the after region), which appends the next one at its yield
// and pops the current one after its last use. This takes the form Triton
// emits for `while cond: body`, where the condition passes its arguments on
// unchanged; a condition that passes on a tensor it computed is an error.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

LogicalResult KernelLowering::lowerWhile(scf::WhileOp op) {
  Location loc = op.getLoc();
  Block &before = op.getBefore().front(), &after = op.getAfter().front();
  auto cond = cast<scf::ConditionOp>(before.getTerminator());
  auto yield = cast<scf::YieldOp>(after.getTerminator());
  const unsigned n = op.getInits().size();
  auto isTensor = [](Type t) { return isa<RankedTensorType>(t); };

  // Which positions carry a tensor, and in which CB (-1: a scalar). Without
  // tensors the regions may carry different values: sized for the longest.
  SmallVector<int64_t> carriedCb(
      std::max({n, before.getNumArguments(), after.getNumArguments(), yield.getNumOperands(),
                op.getNumResults()}),
      -1);
  if (llvm::any_of(op.getResultTypes(), isTensor) || llvm::any_of(op.getOperandTypes(), isTensor)) {
    if (before.getNumArguments() != n || after.getNumArguments() != n ||
        cond.getArgs().size() != n || op.getNumResults() != n)
      return unsupported(op, "while loops that carry tensors and reshape their state "
                             "between the condition and the body");
    for (unsigned i = 0; i < n; ++i) {
      if (!isTensor(op.getInits()[i].getType()))
        continue;
      if (cond.getArgs()[i] != before.getArgument(i))
        return unsupported(op, "while loops whose condition passes on a tensor it computed");
      carriedCb[i] = nextCb++;
    }
  }
  auto carried = [&](unsigned i) { return carriedCb[i] >= 0; };
  SmallVector<Value> inits;
  for (auto [i, v] : llvm::enumerate(op.getInits())) {
    if (carried(i)) {
      auto type = cast<RankedTensorType>(v.getType());
      auto l = tensor(v);
      if (failed(l))
        return failure();
      emitCopy(*l, carriedCb[i], tileElementType(type), type.getShape(), loc);
      continue;
    }
    inits.push_back(scalar(v));
  }
  SmallVector<Type> resultTypes;
  for (auto [i, t] : llvm::enumerate(op.getResultTypes()))
    if (!carried(i))
      resultTypes.push_back(lowerScalarType(t));
  auto newWhile = scf::WhileOp::create(b, loc, resultTypes, inits);

  // Block arguments: scalars are the new block's, tensors the front of
  // their CB.
  auto newBlock = [&](Block &from, Region &to) {
    SmallVector<Type> argTypes;
    SmallVector<Location> argLocs;
    for (auto [i, arg] : llvm::enumerate(from.getArguments()))
      if (!carried(i)) {
        argTypes.push_back(lowerScalarType(arg.getType()));
        argLocs.push_back(arg.getLoc());
      }
    Block *block = b.createBlock(&to, to.end(), argTypes, argLocs);
    unsigned next = 0;
    for (auto [i, arg] : llvm::enumerate(from.getArguments())) {
      if (carried(i)) {
        auto type = cast<RankedTensorType>(arg.getType());
        tensors[arg] = Lowered::tile(carriedCb[i], tileElementType(type), type.getShape());
      } else {
        scalars.map(arg, block->getArgument(next++));
      }
    }
    return block;
  };

  {
    // The condition reads the carried tiles and passes them on unpopped.
    OpBuilder::InsertionGuard guard(b);
    newBlock(before, newWhile.getBefore());
    if (failed(lowerBlock(before)))
      return failure();
    SmallVector<Value> args;
    for (auto [i, v] : llvm::enumerate(cond.getArgs()))
      if (!carried(i))
        args.push_back(scalar(v));
    flushPops(cond);
    scf::ConditionOp::create(b, cond.getLoc(), scalar(cond.getCondition()), args);
  }
  {
    // The body pops the current tiles after their last use and appends the
    // next ones at its yield.
    OpBuilder::InsertionGuard guard(b);
    newBlock(after, newWhile.getAfter());
    for (auto [i, arg] : llvm::enumerate(after.getArguments()))
      if (carried(i))
        schedulePop(arg, carriedCb[i], tileBytes(cast<RankedTensorType>(arg.getType())));
    registerYieldTargets(&after, carriedCb);
    if (failed(lowerBlock(after)) || failed(lowerYield(yield, carriedCb)))
      return failure();
  }
  unsigned next = 0;
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    if (!carried(i)) {
      scalars.map(result, newWhile.getResult(next++));
      continue;
    }
    bindCbFront(result, carriedCb[i]);
  }
  return success();
}

} // namespace mlir::triton_mtia::tt_to_mtia
