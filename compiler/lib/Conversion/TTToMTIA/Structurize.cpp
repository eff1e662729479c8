//===- Structurize.cpp - Calls and early returns, before lowering ---===//
//
// Two rewrites of the `tt` input that make every kernel one block of
// structured code, which is what the lowering walks:
//
//  * `inlineCalls`: tt.call of noinline device functions (Triton keeps them
//    out of line; a PE has no call stack for tiles) are replaced by a copy of
//    the callee's body. Recursion is an error.
//  * `structurizeEarlyReturns`: `if cond: return` reaches ttir as
//    cf.cond_br / cf.br between blocks ending in tt.return. Each cond_br
//    becomes an scf.if whose branches hold the successor blocks; a branch
//    that falls through to a merge block continues after the scf.if, and
//    code after a one-sided return moves into the branch that does not
//    return. What cannot be expressed that way is an error at the branch.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

namespace {
/// How a flattened block ends: with a tt.return, or by branching to `next`.
struct BlockEnd {
  bool returns = false;
  Block *next = nullptr;
};
} // namespace

static FailureOr<BlockEnd> flatten(Block *block);

/// Moves `from` (a block with no arguments and no other predecessor) to the
/// end of `into`, after removing `into`'s terminator if it has one.
static void spliceInto(Block *into, Block *from) {
  if (!into->empty() && into->back().hasTrait<OpTrait::IsTerminator>())
    into->back().erase();
  into->getOperations().splice(into->end(), from->getOperations());
  from->erase();
}

/// Ends a branch block of an scf.if: its tt.return or cf.br becomes a yield.
static void endBranch(Block *branch) {
  Operation *term = &branch->back();
  OpBuilder b(term);
  scf::YieldOp::create(b, term->getLoc());
  term->erase();
}

static FailureOr<BlockEnd> flatten(Block *block) {
  while (true) {
    Operation *term = block->getTerminator();
    if (auto ret = dyn_cast<tt::ReturnOp>(term))
      return BlockEnd{true, nullptr};
    if (auto br = dyn_cast<cf::BranchOp>(term)) {
      Block *dest = br.getDest();
      if (dest->getNumArguments() != 0)
        return br.emitError("branches that carry values are not supported by "
                            "the MTIA backend yet"),
               failure();
      if (dest->getSinglePredecessor() != block)
        return BlockEnd{false, dest};
      spliceInto(block, dest);
      continue;
    }
    auto condBr = dyn_cast<cf::CondBranchOp>(term);
    if (!condBr)
      return term->emitError("'")
                 << term->getName()
                 << "' is not supported by the MTIA backend yet (unstructured "
                    "control flow)",
             failure();
    Block *sides[2] = {condBr.getTrueDest(), condBr.getFalseDest()};
    if (sides[0] == sides[1] || sides[0]->getNumArguments() ||
        sides[1]->getNumArguments())
      return condBr.emitError("this conditional branch is not supported by "
                              "the MTIA backend yet (unstructured control flow)"),
             failure();
    bool owned[2];
    for (int i = 0; i < 2; ++i)
      owned[i] = sides[i]->getSinglePredecessor() == block;
    Location loc = condBr.getLoc();
    Value cond = condBr.getCondition();
    condBr.erase();
    OpBuilder b(block, block->end());
    auto ifOp = scf::IfOp::create(b, loc, TypeRange{}, cond,
                                  /*withElseRegion=*/true);
    Block *branches[2] = {ifOp.thenBlock(), ifOp.elseBlock()};
    BlockEnd ends[2];
    for (int i = 0; i < 2; ++i) {
      if (!owned[i]) {
        ends[i] = BlockEnd{false, sides[i]};
        continue;
      }
      spliceInto(branches[i], sides[i]);
      auto end = flatten(branches[i]);
      if (failed(end))
        return failure();
      ends[i] = *end;
    }
    // One side returns, the other falls through to a block only it reaches:
    // that block belongs in the falling branch.
    for (int i = 0; i < 2; ++i) {
      int other = 1 - i;
      while (ends[i].returns && !ends[other].returns && owned[other] &&
             ends[other].next->getSinglePredecessor() == branches[other]) {
        spliceInto(branches[other], ends[other].next);
        auto end = flatten(branches[other]);
        if (failed(end))
          return failure();
        ends[other] = *end;
      }
    }
    for (int i = 0; i < 2; ++i)
      if (owned[i]) // a branch that was not spliced still has its yield
        endBranch(branches[i]);
    b.setInsertionPointToEnd(block);
    if (ends[0].returns && ends[1].returns) {
      tt::ReturnOp::create(b, loc, ValueRange{});
      return BlockEnd{true, nullptr};
    }
    if (!ends[0].returns && !ends[1].returns && ends[0].next == ends[1].next) {
      Block *merge = ends[0].next;
      cf::BranchOp::create(b, loc, merge);
      continue; // merged (or handed up) by the cf.br case above
    }
    return emitError(loc, "this early return is not supported by the MTIA "
                          "backend yet (unstructured control flow)"),
           failure();
  }
}

LogicalResult structurizeEarlyReturns(tt::FuncOp func) {
  if (func.isExternal() || func.getBody().hasOneBlock())
    return success();
  auto end = flatten(&func.getBody().front());
  if (failed(end))
    return failure();
  if (!end->returns)
    return func.emitError("internal: structurized function does not return"),
           failure();
  // Blocks nothing branches to any more.
  for (Block &block :
       llvm::make_early_inc_range(llvm::drop_begin(func.getBody())))
    if (block.use_empty()) {
      block.dropAllDefinedValueUses();
      block.erase();
    }
  if (!func.getBody().hasOneBlock())
    return func.emitError("unstructured control flow is not supported by the "
                          "MTIA backend yet"),
           failure();
  return success();
}

namespace {
/// Finds a cycle of calls, depth first, before anything is inlined:
/// inlining a recursive function into itself doubles it each round.
class RecursionCheck {
public:
  explicit RecursionCheck(SymbolTable &symbols) : symbols(symbols) {}

  /// Reports the first call that closes a cycle through `func`, at that
  /// call's location, naming the chain.
  LogicalResult visit(tt::FuncOp func) {
    if (done.contains(func))
      return success();
    stack.push_back(func);
    WalkResult walk = func.walk([&](tt::CallOp call) {
      auto callee = symbols.lookup<tt::FuncOp>(call.getCallee());
      if (!callee)
        return WalkResult::advance(); // inlineCalls names it
      auto onStack = llvm::find(stack, callee);
      if (onStack != stack.end()) {
        std::string chain;
        for (tt::FuncOp f : llvm::make_range(onStack, stack.end()))
          chain += f.getSymName().str() + " -> ";
        call.emitError("recursive call: ")
            << chain << callee.getSymName()
            << "; the MTIA backend inlines every call (a PE has no call stack "
               "for tiles), so a kernel cannot recurse";
        return WalkResult::interrupt();
      }
      return failed(visit(callee)) ? WalkResult::interrupt() : WalkResult::advance();
    });
    stack.pop_back();
    done.insert(func);
    return failure(walk.wasInterrupted());
  }

private:
  SymbolTable &symbols;
  SmallVector<tt::FuncOp> stack;
  llvm::DenseSet<Operation *> done;
};
} // namespace

LogicalResult inlineCalls(ModuleOp module) {
  SymbolTable symbols(module);
  RecursionCheck recursion(symbols);
  for (auto func : module.getOps<tt::FuncOp>())
    if (failed(recursion.visit(func)))
      return failure();
  // Without cycles, each round shortens the longest chain of calls by one.
  while (true) {
    SmallVector<tt::CallOp> calls;
    module.walk([&](tt::CallOp call) { calls.push_back(call); });
    if (calls.empty())
      return success();
    for (tt::CallOp call : calls) {
      auto callee = symbols.lookup<tt::FuncOp>(call.getCallee());
      if (!callee || callee.isExternal())
        return call.emitError("call of '")
                   << call.getCallee()
                   << "', which has no body, is not supported by the MTIA "
                      "backend",
               failure();
      if (failed(structurizeEarlyReturns(callee)))
        return failure();
      Block &body = callee.getBody().front();
      IRMapping map;
      for (auto [arg, operand] :
           llvm::zip(body.getArguments(), call.getOperands()))
        map.map(arg, operand);
      OpBuilder b(call);
      for (Operation &op : body.without_terminator())
        b.clone(op, map);
      auto ret = cast<tt::ReturnOp>(body.getTerminator());
      for (auto [result, value] : llvm::zip(call.getResults(), ret.getSrcs()))
        result.replaceAllUsesWith(map.lookupOrDefault(value));
      call.erase();
    }
  }
}

} // namespace mlir::triton_mtia::tt_to_mtia
