//===- Structurize.cpp - Calls and early returns, before lowering ---------===//
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
//    return (nestBranches). Any other acyclic CFG is predicated: each block
//    in an scf.if on whether it is reached (predicateBlocks).
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/TT/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"

#include <functional>

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt {
#define GEN_PASS_DEF_TTINLINECALLS
#define GEN_PASS_DEF_TTSTRUCTURIZERETURNS
#include "triton-mtia/Dialect/TT/Transforms/Passes.h.inc"

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

/// The nested form: each cond_br an scf.if holding its successors. Fails
/// (with an error at the branch) where the CFG is not such a nest.
static LogicalResult nestBranches(tt::FuncOp func) {
  // The branches become scf.if without results: returned values have no way
  // out.
  WalkResult values = func.walk([](tt::ReturnOp ret) {
    return ret.getNumOperands() ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (values.wasInterrupted())
    return func.emitError("returns that carry values"), failure();
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

/// A placeholder of type `t` for paths that do not define a value: zero, or
/// a null pointer. Never read on the path taken.
static FailureOr<Value> placeholder(OpBuilder &b, Location loc, Type t) {
  auto shaped = dyn_cast<RankedTensorType>(t);
  Type elem = shaped ? shaped.getElementType() : t;
  if (isa<tt::PointerType>(elem)) {
    Value zero = arith::ConstantIntOp::create(b, loc, 0, 64);
    Value ptr = tt::IntToPtrOp::create(b, loc, elem, zero);
    return shaped ? Value(tt::SplatOp::create(b, loc, t, ptr)) : ptr;
  }
  if (!elem.isIntOrFloat())
    return failure();
  TypedAttr zero = b.getZeroAttr(elem);
  if (shaped)
    zero = SplatElementsAttr::get(shaped, zero);
  return Value(arith::ConstantOp::create(b, loc, t, zero));
}

/// `taken ? v : otherwise` for any type (an scf.if, so pointers and tiles
/// too).
static Value choose(OpBuilder &b, Location loc, Value taken, Value v, Value otherwise) {
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{v.getType()}, taken, /*withElse=*/true);
  OpBuilder inner = OpBuilder::atBlockBegin(ifOp.thenBlock());
  scf::YieldOp::create(inner, loc, v);
  inner.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(inner, loc, otherwise);
  return ifOp.getResult(0);
}

/// The general form, for any acyclic CFG of cf.br, cf.cond_br and
/// tt.return (branches into shared blocks, branch operands, returns that
/// carry values): blocks in topological order, each in an scf.if on whether
/// it is reached, an OR of its incoming edges' conditions. The values a
/// block defines for later ones leave its scf.if as results (a placeholder
/// where it is not reached: a use is dominated by its definition, so it is
/// never read then); block arguments and returned values are chosen by the
/// edge that was taken.
static LogicalResult predicateBlocks(tt::FuncOp func) {
  Region &body = func.getBody();
  // Topological order (reverse post-order); a back edge is a loop.
  SmallVector<Block *> order;
  DenseMap<Block *, int> state; // 1: on the DFS stack, 2: done
  std::function<LogicalResult(Block *)> visit = [&](Block *block) -> LogicalResult {
    state[block] = 1;
    for (Block *next : block->getSuccessors()) {
      if (state[next] == 1)
        return block->getTerminator()->emitError(
                   "loops made of branches are not supported by the MTIA backend"),
               failure();
      if (state[next] == 0 && failed(visit(next)))
        return failure();
    }
    state[block] = 2;
    order.push_back(block);
    return success();
  };
  if (failed(visit(&body.front())))
    return failure();
  std::reverse(order.begin(), order.end());
  for (Block *block : order)
    if (!isa<tt::ReturnOp, cf::BranchOp, cf::CondBranchOp>(block->getTerminator()))
      return block->getTerminator()->emitError("'")
                 << block->getTerminator()->getName()
                 << "' is not supported by the MTIA backend yet (unstructured control flow)",
             failure();

  // The new body: one block with the function's arguments.
  Block *entry = &body.front();
  Block *out = new Block();
  body.push_back(out);
  for (BlockArgument arg : entry->getArguments())
    arg.replaceAllUsesWith(out->addArgument(arg.getType(), arg.getLoc()));
  OpBuilder b = OpBuilder::atBlockEnd(out);
  Location loc = func.getLoc();
  Value yes = arith::ConstantIntOp::create(b, loc, 1, 1);

  // Incoming edges: (condition, operands) per block; returns: (condition, values).
  DenseMap<Block *, SmallVector<std::pair<Value, SmallVector<Value>>>> incoming;
  SmallVector<std::pair<Value, SmallVector<Value>>> returns;
  for (Block *block : order) {
    Value reached = yes;
    if (block != entry) {
      auto &edges = incoming[block];
      reached = edges.front().first;
      for (auto &edge : llvm::drop_begin(edges))
        reached = arith::OrIOp::create(b, loc, reached, edge.first);
      // Block arguments: the operands of the edge taken.
      for (BlockArgument arg : block->getArguments()) {
        auto none = placeholder(b, arg.getLoc(), arg.getType());
        if (failed(none))
          return emitError(arg.getLoc(), "a branch operand of this type is not supported by "
                                         "the MTIA backend yet"),
                 failure();
        Value v = *none;
        for (auto &edge : edges)
          v = choose(b, arg.getLoc(), edge.first, edge.second[arg.getArgNumber()], v);
        arg.replaceAllUsesWith(v);
      }
    }
    // What leaves the block: results used elsewhere, and its terminator's
    // operands.
    Operation *term = block->getTerminator();
    SmallVector<Value> escaping;
    for (Operation &op : block->without_terminator())
      for (Value r : op.getResults())
        if (llvm::any_of(r.getUsers(), [&](Operation *user) {
              return user->getBlock() != block || user == term;
            }))
          escaping.push_back(r);
    SmallVector<Type> types;
    for (Value v : escaping)
      types.push_back(v.getType());
    auto ifOp = scf::IfOp::create(b, term->getLoc(), types, reached, /*withElse=*/true);
    Block *then = ifOp.thenBlock();
    if (!then->empty())
      then->back().erase();
    then->getOperations().splice(then->end(), block->getOperations(), block->begin(),
                                 Block::iterator(term));
    OpBuilder inner = OpBuilder::atBlockEnd(then);
    scf::YieldOp::create(inner, term->getLoc(), escaping);
    if (!ifOp.elseBlock()->empty()) // the builder's yield, when nothing escapes
      ifOp.elseBlock()->back().erase();
    inner.setInsertionPointToEnd(ifOp.elseBlock());
    SmallVector<Value> none;
    for (Type t : types) {
      auto v = placeholder(inner, term->getLoc(), t);
      if (failed(v))
        return emitError(term->getLoc(), "a value of this type that crosses a branch is not "
                                         "supported by the MTIA backend yet"),
               failure();
      none.push_back(*v);
    }
    scf::YieldOp::create(inner, term->getLoc(), none);
    for (auto [v, r] : llvm::zip(escaping, ifOp.getResults()))
      v.replaceUsesWithIf(r, [&](OpOperand &use) {
        return !then->getParentOp()->isAncestor(use.getOwner());
      });
    // The edges out of the block.
    if (auto ret = dyn_cast<tt::ReturnOp>(term)) {
      returns.push_back({reached, SmallVector<Value>(ret.getOperands())});
    } else if (auto br = dyn_cast<cf::BranchOp>(term)) {
      incoming[br.getDest()].push_back({reached, SmallVector<Value>(br.getDestOperands())});
    } else {
      auto cbr = cast<cf::CondBranchOp>(term);
      Value c = cbr.getCondition();
      Value notC = arith::XOrIOp::create(b, loc, c, yes);
      incoming[cbr.getTrueDest()].push_back(
          {arith::AndIOp::create(b, loc, reached, c),
           SmallVector<Value>(cbr.getTrueDestOperands())});
      incoming[cbr.getFalseDest()].push_back(
          {arith::AndIOp::create(b, loc, reached, notC),
           SmallVector<Value>(cbr.getFalseDestOperands())});
    }
  }
  // The returned values: those of the return reached.
  SmallVector<Value> results;
  for (unsigned i = 0; i < returns.front().second.size(); ++i) {
    auto v = placeholder(b, loc, returns.front().second[i].getType());
    if (failed(v))
      return emitError(loc, "a returned value of this type is not supported by the MTIA "
                            "backend yet"),
             failure();
    Value chosen = *v;
    for (auto &ret : returns)
      chosen = choose(b, loc, ret.first, ret.second[i], chosen);
    results.push_back(chosen);
  }
  tt::ReturnOp::create(b, loc, results);
  // The old blocks hold only their terminators now; blocks the entry does
  // not reach go too. References first, so that no block is erased while a
  // branch still names it.
  for (Block &block : body)
    if (&block != out) {
      block.dropAllDefinedValueUses();
      block.dropAllReferences();
    }
  for (Block &block : llvm::make_early_inc_range(body))
    if (&block != out)
      block.erase();
  return success();
}

LogicalResult structurizeEarlyReturns(tt::FuncOp func) {
  if (func.isExternal() || func.getBody().hasOneBlock())
    return success();
  // The nested form reads best; try it on a copy, quietly.
  {
    OwningOpRef<tt::FuncOp> copy = func.clone();
    ScopedDiagnosticHandler quiet(func.getContext(), [](Diagnostic &) { return success(); });
    if (succeeded(nestBranches(*copy))) {
      func.getBody().takeBody(copy->getBody());
      return success();
    }
  }
  return predicateBlocks(func);
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

namespace {
struct TTInlineCalls : impl::TTInlineCallsBase<TTInlineCalls> {
  void runOnOperation() override {
    if (failed(inlineCalls(getOperation())))
      signalPassFailure();
  }
};

struct TTStructurizeReturns : impl::TTStructurizeReturnsBase<TTStructurizeReturns> {
  void runOnOperation() override {
    for (tt::FuncOp func : llvm::make_early_inc_range(getOperation().getOps<tt::FuncOp>()))
      if (!func.isPrivate() && failed(structurizeEarlyReturns(func)))
        return signalPassFailure();
  }
};
} // namespace

} // namespace mlir::triton_mtia::tt
