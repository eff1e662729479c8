//===- ScalarCost.cpp - Charge the core for the kernel's scalar code ------===//
//
// The kernel's C++ runs natively in the simulator; the PE's RISC-V core is
// charged `issue_cycles` per command it issues and `core_read_cycles` per
// read, but nothing for the scalar code between the commands: address
// arithmetic, loop control, branches, scalar math. This pass puts one
// `mtia.scalar_cycles` at the start of every block that has scalar work, with
// the sum of the costs of the block's own ops (ops in nested regions count in
// their blocks). It is executed once per execution of the block, so a loop
// body pays per iteration and an untaken branch pays nothing.
//
// All costs are in scalarCost() below, the one table of the model. After
// mtia-dual-issue an op is charged to each core its `mtia.issue_cores` names
// (a block then starts with one `mtia.scalar_cycles` per core).
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIASCALARCOST
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

/// What one op costs the core.
struct ScalarCost {
  /// Cycles charged in the block that holds the op, once per execution.
  int64_t here = 0;
  /// Cycles charged at the start of the op's first region (the scf.for body,
  /// the scf.while condition) on every iteration: the loop's control.
  int64_t perIteration = 0;
};

bool isScalarType(Type t) { return isa<IntegerType, IndexType, FloatType>(t); }

/// Whether every operand and result of `op` is a scalar (no tensors).
bool isScalarOp(Operation *op) {
  return llvm::all_of(op->getOperandTypes(), isScalarType) &&
         llvm::all_of(op->getResultTypes(), isScalarType);
}

bool isConstant(Value v) { return matchPattern(v, m_Constant()); }

/// Whether `v` is an integer constant 2^k, k >= 0.
bool isPowerOf2Constant(Value v) {
  APInt value;
  return matchPattern(v, m_ConstantInt(&value)) && value.isPowerOf2();
}

/// The cost table. The core is an in-order scalar RISC-V (RV64IMF-like):
/// one instruction per cycle for simple integer ALU ops, no model of
/// forwarding or dual issue, so multi-cycle units are charged their latency
/// as if the next instruction always waited for the result.
///
///   integer add/sub/and/or/xor/shift/cmp/select/min/max, index_cast,
///     ext/trunc, bitcast (fmv)                                     1
///   integer abs (neg + max)                                        2
///   integer mul (mul)                                              3
///   integer mul high half (mulh, mulhu)                            4
///   integer div/rem (iterative divider)                           20
/// Constants are inlined into the C++, so the C++ compiler strength-reduces
/// by constants, and so does the table:
///   integer mul by 2^k (slli)                                      1
///   unsigned div/rem by 2^k (srli, andi)                           1
///   signed div/rem by 2^k (shifts and a sign fix-up)               4
///   div/rem by any other constant (mulh by a magic number, shifts) 6
///
///   float add/sub/mul/fma/cmp/min/max/convert/round                4
///   float neg/abs/copysign (sign injection, fsgnj*)                1
///   float div, sqrt (iterative)                                   20
///   float rsqrt (sqrt + div), fmod (a libm call)                  40
///   transcendentals (exp, log, sin, tanh, pow, libdevice ...):
///     libm calls of a few dozen instructions                      40
///   constants: materialized once, hoisted out of loops             0
///   scf.for: increment + compare-and-branch, per iteration         2
///   scf.while: the branch on the condition, per iteration          1
///   scf.if: the conditional branch                                 1
///   func.call: jal + ret + moving arguments                        4
///   mtia.may_alias: a bit of the alias mask the launcher passes    1
///   mtia.fence with a condition: the branch around it              1
///
/// Ops on tensors (which no longer exist after convert-tt-to-mtia) and the
/// mtia commands cost nothing here: the simulator charges each command
/// `issue_cycles` and each read `core_read_cycles`. The setup of a loop
/// (its first bound check) and terminators (yield, return) are free.
ScalarCost scalarCost(Operation *op) {
  if (isa<scf::ForOp>(op))
    return {0, 2};
  if (isa<scf::WhileOp>(op))
    return {0, 1};
  if (isa<scf::IfOp>(op))
    return {1, 0};
  if (isa<func::CallOp>(op))
    return {4, 0};
  if (isa<MayAliasOp>(op))
    return {1, 0};
  if (auto fence = dyn_cast<FenceOp>(op))
    return {fence.getCond() ? 1 : 0, 0};
  if (!isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
      !isScalarOp(op))
    return {};
  int64_t cycles =
      llvm::TypeSwitch<Operation *, int64_t>(op)
          .Case<arith::ConstantOp>([](auto) { return 0; })
          .Case<arith::MulIOp>([](arith::MulIOp mul) {
            return isPowerOf2Constant(mul.getLhs()) ||
                           isPowerOf2Constant(mul.getRhs())
                       ? 1
                       : 3;
          })
          .Case<arith::MulSIExtendedOp, arith::MulUIExtendedOp>([](auto) { return 4; })
          .Case<arith::DivUIOp, arith::RemUIOp>([](Operation *o) {
            if (isPowerOf2Constant(o->getOperand(1)))
              return 1;
            return isConstant(o->getOperand(1)) ? 6 : 20;
          })
          .Case<arith::DivSIOp, arith::RemSIOp>([](Operation *o) {
            if (isPowerOf2Constant(o->getOperand(1)))
              return 4;
            return isConstant(o->getOperand(1)) ? 6 : 20;
          })
          .Case<arith::CeilDivSIOp, arith::CeilDivUIOp, arith::FloorDivSIOp>(
              [](auto) { return 20; })
          .Case<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::CmpFOp,
                arith::MaxNumFOp, arith::MinNumFOp, arith::MaximumFOp,
                arith::MinimumFOp, arith::SIToFPOp, arith::UIToFPOp,
                arith::FPToSIOp, arith::FPToUIOp, arith::ExtFOp, arith::TruncFOp,
                math::FmaOp, math::FloorOp, math::CeilOp, math::TruncOp,
                math::RoundOp, math::RoundEvenOp>([](auto) { return 4; })
          .Case<arith::NegFOp, math::AbsFOp, math::CopySignOp>([](auto) { return 1; })
          .Case<arith::DivFOp, math::SqrtOp>([](auto) { return 20; })
          .Case<math::RsqrtOp, arith::RemFOp>([](auto) { return 40; })
          .Case<math::AbsIOp>([](auto) { return 2; })
          .Case<math::CountLeadingZerosOp, math::CountTrailingZerosOp,
                math::CtPopOp>([](auto) { return 1; })
          .Default([](Operation *o) {
            // Every other math op is a transcendental (a libm call); every
            // other arith op is one integer ALU instruction (add, sub,
            // logic, shifts, cmpi, select, min/max, int casts, bitcast).
            return isa<math::MathDialect>(o->getDialect()) ? 40 : 1;
          });
  return {cycles, 0};
}

/// Whether `op` only computes facts for `tl.assume` (its results, through
/// other such ops, end in `llvm.intr.assume`, and nothing else reads them):
/// the C++ compiler keeps the fact and drops the code, so the core pays
/// nothing for it.
bool onlyFeedsAssumptions(Operation *op, DenseMap<Operation *, bool> &memo) {
  if (isAssumption(op))
    return true;
  if (op->getNumResults() == 0 || !isScalarOp(op))
    return false;
  auto [it, inserted] = memo.try_emplace(op, false);
  if (!inserted)
    return it->second;
  bool only = llvm::all_of(op->getUsers(), [&](Operation *user) { return onlyFeedsAssumptions(user, memo); }) &&
              !op->use_empty();
  memo[op] = only;
  return only;
}

struct MTIAScalarCost
    : public mlir::triton_mtia::mtia::impl::MTIAScalarCostBase<MTIAScalarCost> {
  using MTIAScalarCostBase::MTIAScalarCostBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // Running again recomputes the costs instead of adding to them.
    func.walk([](ScalarCyclesOp op) { op.erase(); });

    // After mtia-dual-issue, each op is charged to the cores that run it.
    const bool dual = func->hasAttr(kDualIssueAttr);
    auto coresOf = [&](Operation *op) -> unsigned {
      auto cores = op->getAttrOfType<IntegerAttr>(kIssueCoresAttr);
      return dual && cores ? unsigned(cores.getInt()) : 1u;
    };

    SmallVector<Block *> blocks;
    func->walk([&](Block *block) { blocks.push_back(block); });
    DenseMap<Operation *, bool> factsOnly;
    OpBuilder builder(func.getContext());
    for (Block *block : blocks) {
      int64_t cycles[2] = {0, 0};
      auto charge = [&](unsigned cores, int64_t c) {
        for (unsigned core : {0u, 1u})
          if (cores & (1u << core))
            cycles[core] += c;
      };
      Operation *parent = block->getParentOp();
      if (parent != func && block->getParent() == &parent->getRegion(0))
        charge(coresOf(parent), scalarCost(parent).perIteration);
      for (Operation &op : *block)
        if (!onlyFeedsAssumptions(&op, factsOnly))
          charge(coresOf(&op), scalarCost(&op).here);
      builder.setInsertionPointToStart(block);
      for (int64_t core : {0, 1})
        if (cycles[core] > 0)
          ScalarCyclesOp::create(builder, parent->getLoc(),
                                 builder.getI64IntegerAttr(cycles[core]),
                                 builder.getI64IntegerAttr(core));
    }
  }
};

} // namespace
