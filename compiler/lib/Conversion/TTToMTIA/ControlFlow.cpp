//===- ControlFlow.cpp - scf.for and scf.if ---===//
//
// Structured control flow stays scalar code on the core; tensors carried by
// loops and yielded by branches live in one CB each.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

/// Lowers the terminator of a region that yields into `yieldCb` (-1 for
/// scalars): tensors are copied to the back of their CB, then the region's
/// pending pops, then an scf.yield of the scalars.
LogicalResult KernelLowering::lowerYield(scf::YieldOp yield,
                                         ArrayRef<int64_t> yieldCb) {
  SmallVector<Value> scalarYields;
  for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
    auto loop = dyn_cast<scf::ForOp>(yield->getParentOp());
    if (yieldCb[i] < 0) {
      if (loop && isCarriedAddress(loop, i)) {
        auto next = carriedAddressNext(loop, i);
        if (failed(next))
          return failure();
        scalarYields.append(next->begin(), next->end());
        continue;
      }
      scalarYields.push_back(scalar(v));
      continue;
    }
    // Already appended to the carried CB by its producer (LoopCarried.cpp).
    if (producedInPlace.contains(v))
      continue;
    // A pointer tensor carried as an address tile is computed here.
    SmallVector<std::pair<int64_t, int64_t>> temps;
    auto l = loop && isCarriedAddress(loop, i)
                 ? rematerialize(v, yield.getLoc(), temps)
                 : tensor(v);
    if (failed(l))
      return failure();
    auto type = cast<RankedTensorType>(v.getType());
    emitCopy(*l, yieldCb[i], tileElementType(type), type.getShape(),
             yield.getLoc());
    for (auto [tmp, bytes] : temps)
      mtia::CbPopOp::create(b, yield.getLoc(), tmp, bytes);
  }
  flushPops(yield);
  scf::YieldOp::create(b, yield.getLoc(), scalarYields);
  return success();
}

/// Tensors carried by a loop live in one CB each: the tile of the current
/// iteration at the front, the next iteration's appended behind it by the
/// yield, then the current one popped.
LogicalResult KernelLowering::lowerFor(scf::ForOp op) {
  Location loc = op.getLoc();
  SmallVector<Value> scalarInits;
  SmallVector<int64_t> carriedCb(op.getNumRegionIterArgs(), -1);
  // How many scalars the lowered loop carries for each iter_arg.
  SmallVector<unsigned> numScalars(op.getNumRegionIterArgs(), 1);
  for (auto [i, init] : llvm::enumerate(op.getInitArgs())) {
    auto type = dyn_cast<RankedTensorType>(init.getType());
    if (!type) {
      scalarInits.push_back(scalar(init));
      continue;
    }
    // A pointer or offset tensor that only advances: its base (and strides)
    // are carried as scalars (LoopCarried.cpp), or, when not structured,
    // its values as a tile.
    bool pointer = isCarriedAddress(op, i);
    if (pointer)
      if (std::optional<SmallVector<Value>> carried = carriedAddressInit(op, i)) {
        scalarInits.append(carried->begin(), carried->end());
        numScalars[i] = carried->size();
        continue;
      }
    SmallVector<std::pair<int64_t, int64_t>> temps;
    auto l = pointer ? rematerialize(init, loc, temps) : tensor(init);
    if (failed(l))
      return failure();
    // The result of an earlier loop that only this one reads (the two
    // parts of a split loop): this loop takes its CB over instead of a
    // copy. Its tile is alone there, dense, and its pop was due here.
    if (!pointer && init.hasOneUse() && isa_and_nonnull<scf::ForOp>(init.getDefiningOp()) &&
        l->isDense() && l->elemType == tileElementType(type)) {
      auto pops = pendingPops.find(op);
      if (pops != pendingPops.end()) {
        auto due = llvm::find(pops->second, std::make_pair(l->cb, tileBytes(type)));
        if (due != pops->second.end()) {
          pops->second.erase(due);
          carriedCb[i] = l->cb;
          continue;
        }
      }
    }
    carriedCb[i] = nextCb++;
    emitCopy(*l, carriedCb[i], tileElementType(type), type.getShape(), loc);
    for (auto [tmp, bytes] : temps)
      mtia::CbPopOp::create(b, loc, tmp, bytes);
  }
  auto newFor = scf::ForOp::create(b, loc, scalar(op.getLowerBound()),
                                     scalar(op.getUpperBound()),
                                     scalar(op.getStep()), scalarInits);
  Block *body = newFor.getBody();
  newFor.getInductionVar().setLoc(op.getInductionVar().getLoc());
  scalars.map(op.getInductionVar(), newFor.getInductionVar());
  unsigned nextScalar = 0;
  for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs())) {
    if (carriedCb[i] < 0) {
      ValueRange carried = newFor.getRegionIterArgs().slice(nextScalar, numScalars[i]);
      nextScalar += numScalars[i];
      if (isa<RankedTensorType>(arg.getType()))
        bindCarriedAddress(arg, carried);
      else
        scalars.map(arg, carried.front());
      continue;
    }
    auto type = cast<RankedTensorType>(arg.getType());
    tensors[arg] = Lowered::tile(carriedCb[i], tileElementType(type), type.getShape());
  }
  {
    OpBuilder::InsertionGuard guard(b);
    if (!body->empty())
      body->back().erase(); // the builder's default yield
    b.setInsertionPointToStart(body);
    for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs()))
      if (carriedCb[i] >= 0) {
        int64_t bytes = tileBytes(cast<RankedTensorType>(arg.getType()));
        // Carried addresses are read last by the yield, which advances them.
        if (isCarriedAddress(op, i))
          pendingPops[op.getBody()->getTerminator()].push_back({carriedCb[i], bytes});
        else
          schedulePop(arg, carriedCb[i], bytes);
      }
    // Carried scalars read as data get their tile here, each iteration.
    for (auto [i, arg] : llvm::enumerate(op.getRegionIterArgs()))
      if (carriedCb[i] < 0 && isa<RankedTensorType>(arg.getType()))
        materializeCarried(arg, loc);
    registerYieldTargets(op.getBody(), carriedCb);
    if (failed(lowerBlock(*op.getBody())))
      return failure();
    auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
    if (failed(lowerYield(yield, carriedCb)))
      return failure();
  }
  nextScalar = 0;
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    if (carriedCb[i] < 0) {
      ValueRange carried = newFor.getResults().slice(nextScalar, numScalars[i]);
      nextScalar += numScalars[i];
      if (isa<RankedTensorType>(result.getType())) {
        bindCarriedAddress(result, carried);
        materializeCarried(result, loc);
      } else {
        scalars.map(result, carried.front());
      }
      continue;
    }
    bindCbFront(result, carriedCb[i]);
  }
  return success();
}

/// Tensor results of an scf.if are written by each branch into one CB.
LogicalResult KernelLowering::lowerIf(scf::IfOp op) {
  Location loc = op.getLoc();
  SmallVector<Type> scalarTypes;
  SmallVector<int64_t> resultCb(op.getNumResults(), -1);
  for (auto [i, type] : llvm::enumerate(op.getResultTypes())) {
    if (isa<RankedTensorType>(type))
      resultCb[i] = nextCb++;
    else
      scalarTypes.push_back(lowerScalarType(type));
  }
  auto newIf = scf::IfOp::create(b, loc, scalarTypes, scalar(op.getCondition()),
                                   /*withElseRegion=*/true);
  auto lowerBranch = [&](Region &from, Block *to) -> LogicalResult {
    OpBuilder::InsertionGuard guard(b);
    if (!to->empty() && to->back().hasTrait<OpTrait::IsTerminator>())
      to->back().erase();
    b.setInsertionPointToEnd(to);
    if (from.empty()) {
      scf::YieldOp::create(b, loc);
      return success();
    }
    if (failed(lowerBlock(from.front())))
      return failure();
    auto yield = cast<scf::YieldOp>(from.front().getTerminator());
    if (failed(lowerYield(yield, resultCb)))
      return failure();
    return success();
  };
  if (failed(lowerBranch(op.getThenRegion(), newIf.thenBlock())) ||
      failed(lowerBranch(op.getElseRegion(), newIf.elseBlock())))
    return failure();
  unsigned nextScalar = 0;
  for (auto [i, result] : llvm::enumerate(op.getResults())) {
    if (resultCb[i] < 0) {
      scalars.map(result, newIf.getResult(nextScalar++));
      continue;
    }
    bindCbFront(result, resultCb[i]);
  }
  return success();
}


} // namespace mlir::triton_mtia::tt_to_mtia
