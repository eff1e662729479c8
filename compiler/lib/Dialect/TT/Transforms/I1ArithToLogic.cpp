//===- I1ArithToLogic.cpp - Integer arithmetic on i1 as logic ops ----------===//
//
// A 1-bit integer has two values, so every integer op on it is a logic
// function of its operands. Rewriting them here, before the lowering, lets
// the SE's logic opcodes, its xor reduction and the C++ bool operators of
// scalar code serve all three places i1 arithmetic appears (tiles, scalars,
// reduce regions) with one meaning. Passes.td gives the table.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/TT/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::triton_mtia::tt {
#define GEN_PASS_DEF_TTI1ARITHTOLOGIC
#include "triton-mtia/Dialect/TT/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::tt

using namespace mlir;

namespace {

/// The logic op equal to `op` on i1 operands, built in front of it; null for
/// ops that are not integer arithmetic.
Value buildLogic(OpBuilder &b, Operation *op) {
  Location loc = op->getLoc();
  auto x = [&] { return op->getOperand(0); };
  auto y = [&] { return op->getOperand(1); };
  auto notY = [&]() -> Value {
    Type t = y().getType();
    TypedAttr one = b.getBoolAttr(true);
    if (auto shaped = dyn_cast<ShapedType>(t))
      one = SplatElementsAttr::get(shaped, b.getBoolAttr(true));
    Value ones = arith::ConstantOp::create(b, loc, t, one);
    return arith::XOrIOp::create(b, loc, y(), ones);
  };
  return llvm::TypeSwitch<Operation *, Value>(op)
      .Case<arith::AddIOp, arith::SubIOp>(
          [&](auto) { return arith::XOrIOp::create(b, loc, x(), y()); })
      .Case<arith::MulIOp, arith::MaxSIOp, arith::MinUIOp>(
          [&](auto) { return arith::AndIOp::create(b, loc, x(), y()); })
      .Case<arith::MinSIOp, arith::MaxUIOp>(
          [&](auto) { return arith::OrIOp::create(b, loc, x(), y()); })
      .Case<arith::DivSIOp, arith::DivUIOp>(
          [&](auto) { return arith::OrIOp::create(b, loc, x(), notY()); })
      .Case<arith::RemSIOp, arith::RemUIOp, arith::ShLIOp, arith::ShRUIOp>(
          [&](auto) { return arith::AndIOp::create(b, loc, x(), notY()); })
      .Case<arith::ShRSIOp>([&](auto) { return x(); })
      .Default([](Operation *) { return Value(); });
}

struct TTI1ArithToLogic
    : public mlir::triton_mtia::tt::impl::TTI1ArithToLogicBase<TTI1ArithToLogic> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation().walk([&](Operation *op) {
      if (op->getDialect() && isa<arith::ArithDialect>(op->getDialect()) &&
          op->getNumResults() == 1 && getElementTypeOrSelf(op->getResult(0)).isInteger(1))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      if (Value logic = buildLogic(b, op)) {
        op->getResult(0).replaceAllUsesWith(logic);
        op->erase();
      }
    }
  }
};

} // namespace
