//===- SplitMaskedLoops.cpp - Loops split where their masks are all true -===//
//
// A loop over blocks masks its loads and selects against the end of the data
// (`cols < n`) or a diagonal (`offs_m >= kv_rows`): the mask is a tile the
// SE computes and applies on every iteration, though for every block but the
// last (or those before the diagonal) each of its elements is true. Such a
// comparison of two ranges is all true exactly when the largest element of
// one side is below the smallest of the other, a scalar test; when the
// induction variable moves the smaller side up, the test holds for a prefix
// of the iterations. This pass splits the loop there (index-set splitting):
// the first loop runs the prefix with the comparisons folded to true, so its
// masks, selects and the SE work on them disappear; the second runs the rest
// as written. Values carried by the loop flow from the first into the
// second, so the iterations, and the results, are the same.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/TT/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Matchers.h"

#include <optional>

namespace mlir::triton_mtia::tt {
#define GEN_PASS_DEF_TTSPLITMASKEDLOOPS
#include "triton-mtia/Dialect/TT/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::tt

using namespace mlir;
using namespace mlir::triton_mtia;

namespace {

/// The fewest iterations the first part of a split loop runs (below).
constexpr int64_t kMinPrefixIterations = 4;

/// The integers a tensor (or scalar) holds, bounded: every element lies in
/// k * iv + base + [lo, hi], where iv is the loop's induction variable
/// (k = 0 or 1) and `base` a scalar defined before the loop (null: 0).
struct Range {
  bool withIv = false;
  Value base;
  int64_t lo = 0, hi = 0;
};

class RangeAnalysis {
public:
  RangeAnalysis(scf::ForOp loop) : loop(loop) {}

  std::optional<Range> of(Value v) {
    if (auto it = memo.find(v); it != memo.end())
      return it->second;
    std::optional<Range> r = compute(v);
    memo[v] = r;
    return r;
  }

private:
  bool invariant(Value v) {
    return !loop->isAncestor(v.getParentRegion()->getParentOp()) &&
           v.getParentRegion() != &loop.getRegion();
  }

  std::optional<Range> compute(Value v) {
    APInt c;
    if (matchPattern(v, m_ConstantInt(&c)) && c.getSignificantBits() <= 32)
      return Range{false, {}, c.getSExtValue(), c.getSExtValue()};
    if (v == loop.getInductionVar())
      return Range{true, {}, 0, 0};
    if (isa<IntegerType>(v.getType()) && invariant(v))
      return Range{false, v, 0, 0};
    Operation *op = v.getDefiningOp();
    if (!op)
      return std::nullopt;
    if (auto range = dyn_cast<tt::MakeRangeOp>(op))
      return Range{false, {}, int64_t(range.getStart()), int64_t(range.getEnd()) - 1};
    if (isa<tt::SplatOp, tt::ExpandDimsOp, tt::BroadcastOp>(op))
      return of(op->getOperand(0));
    if (auto add = dyn_cast<arith::AddIOp>(op)) {
      std::optional<Range> a = of(add.getLhs()), b = of(add.getRhs());
      if (!a || !b || (a->withIv && b->withIv) || (a->base && b->base))
        return std::nullopt;
      return Range{a->withIv || b->withIv, a->base ? a->base : b->base, a->lo + b->lo,
                   a->hi + b->hi};
    }
    if (auto sub = dyn_cast<arith::SubIOp>(op)) {
      std::optional<Range> a = of(sub.getLhs()), b = of(sub.getRhs());
      if (!a || !b || b->withIv || b->base)
        return std::nullopt;
      return Range{a->withIv, a->base, a->lo - b->hi, a->hi - b->lo};
    }
    return std::nullopt;
  }

  scf::ForOp loop;
  DenseMap<Value, std::optional<Range>> memo;
};

/// `v`, an integer, sign-extended to i64 (the bounds' arithmetic).
Value toI64(OpBuilder &b, Location loc, Value v) {
  return v.getType().isInteger(64) ? v : arith::ExtSIOp::create(b, loc, b.getI64Type(), v);
}

/// For a comparison whose every element is true while iv <= T, T as an
/// i64 before the loop (built at `b`); null if it is not of that form.
Value prefixBound(OpBuilder &b, RangeAnalysis &ranges, arith::CmpIOp cmp) {
  if (!isa<RankedTensorType>(cmp.getType()))
    return {};
  // small < big (strict) or small <= big, element by element.
  Value small, big;
  bool strict;
  switch (cmp.getPredicate()) {
  case arith::CmpIPredicate::slt: small = cmp.getLhs(), big = cmp.getRhs(), strict = true; break;
  case arith::CmpIPredicate::sle: small = cmp.getLhs(), big = cmp.getRhs(), strict = false; break;
  case arith::CmpIPredicate::sgt: small = cmp.getRhs(), big = cmp.getLhs(), strict = true; break;
  case arith::CmpIPredicate::sge: small = cmp.getRhs(), big = cmp.getLhs(), strict = false; break;
  default: return {};
  }
  std::optional<Range> s = ranges.of(small), g = ranges.of(big);
  // The induction variable must raise the small side only: then all true
  // means iv + sBase + s.hi < gBase + g.lo, a prefix of the iterations.
  if (!s || !g || !s->withIv || g->withIv)
    return {};
  Location loc = cmp.getLoc();
  // T = gBase - sBase + g.lo - s.hi - (strict ? 1 : 0), in 64 bits.
  Value t = g->base ? toI64(b, loc, g->base) : arith::ConstantIntOp::create(b, loc, 0, 64);
  if (s->base)
    t = arith::SubIOp::create(b, loc, t, toI64(b, loc, s->base));
  int64_t k = g->lo - s->hi - (strict ? 1 : 0);
  return arith::AddIOp::create(b, loc, t, arith::ConstantIntOp::create(b, loc, k, 64));
}

/// Whether the SE would compute `cond` as a tile: some use of it (through
/// broadcasts and `and`s) is not the mask of a load or store, which the DMA
/// applies as its valid box at no cost.
bool materialized(Value cond) {
  for (OpOperand &use : cond.getUses()) {
    Operation *user = use.getOwner();
    if (isa<tt::ExpandDimsOp, tt::BroadcastOp, arith::AndIOp>(user)) {
      if (materialized(user->getResult(0)))
        return true;
    } else if (auto load = dyn_cast<tt::LoadOp>(user)) {
      if (load.getMask() != cond)
        return true;
    } else if (auto store = dyn_cast<tt::StoreOp>(user)) {
      if (store.getMask() != cond)
        return true;
    } else {
      return true;
    }
  }
  return false;
}

/// Replaces `cond`, all true, by a constant, and folds what that decides:
/// broadcasts and reshapes of it, `and` with it, selects and load masks on it.
void foldAllTrue(Value cond) {
  SmallVector<Value> work = {cond};
  while (!work.empty()) {
    Value v = work.pop_back_val();
    for (OpOperand &use : llvm::make_early_inc_range(v.getUses())) {
      Operation *user = use.getOwner();
      if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(user)) {
        work.push_back(user->getResult(0));
      } else if (auto andOp = dyn_cast<arith::AndIOp>(user)) {
        Value other = andOp.getLhs() == v ? andOp.getRhs() : andOp.getLhs();
        if (other != v) {
          andOp.replaceAllUsesWith(other);
        } else {
          work.push_back(andOp.getResult());
        }
      } else if (auto select = dyn_cast<arith::SelectOp>(user)) {
        if (select.getCondition() == v)
          select.replaceAllUsesWith(select.getTrueValue());
      } else if (auto load = dyn_cast<tt::LoadOp>(user)) {
        if (load.getMask() == v) {
          load.getMaskMutable().clear();
          load.getOtherMutable().clear();
        }
      }
    }
  }
  // Whatever else reads it (a store's mask, arithmetic on i1) reads a
  // constant of its shape.
  if (!cond.use_empty()) {
    OpBuilder b(cond.getContext());
    b.setInsertionPointAfterValue(cond);
    auto type = cast<RankedTensorType>(cond.getType());
    Value one = arith::ConstantOp::create(
        b, cond.getLoc(), DenseElementsAttr::get(type, b.getBoolAttr(true)));
    cond.replaceAllUsesWith(one);
  }
}

/// Splits `loop` at the end of the prefix of iterations where all of its
/// prefix-true comparisons hold; returns whether it did.
bool splitLoop(scf::ForOp loop) {
  if (!isa<IntegerType>(loop.getInductionVar().getType()))
    return false; // Triton's loops count in i32 or i64
  RangeAnalysis ranges(loop);
  SmallVector<arith::CmpIOp> cmps;
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  Value bound; // min of the comparisons' T
  // The bound arithmetic, erased again if the loop is not split.
  SmallVector<Operation *> built;
  struct Track : OpBuilder::Listener {
    SmallVector<Operation *> &ops;
    Track(SmallVector<Operation *> &ops) : ops(ops) {}
    void notifyOperationInserted(Operation *op, OpBuilder::InsertPoint) override {
      ops.push_back(op);
    }
  } track(built);
  b.setListener(&track);
  for (Operation &op : *loop.getBody()) {
    auto cmp = dyn_cast<arith::CmpIOp>(op);
    if (!cmp)
      continue;
    Value t = prefixBound(b, ranges, cmp);
    if (!t)
      continue;
    cmps.push_back(cmp);
    bound = bound ? arith::MinSIOp::create(b, loc, bound, t).getResult() : t;
  }
  // Only masks the SE would compute are worth a second copy of the loop.
  if (cmps.empty() || llvm::none_of(cmps, [](arith::CmpIOp c) { return materialized(c); })) {
    for (Operation *op : llvm::reverse(built))
      op->erase();
    return false;
  }

  b.setListener(nullptr);
  // The first iteration past the prefix: s = lb + max(0, floor((T - lb) /
  // step) + 1) * step, and the split point min(s, ub) (both loops then run
  // iterations of the original sequence, and a prefix past the end leaves
  // the second loop empty).
  Type ivType = loop.getInductionVar().getType();
  Value lb = toI64(b, loc, loop.getLowerBound()), ub = toI64(b, loc, loop.getUpperBound());
  Value step = toI64(b, loc, loop.getStep());
  // (T < lb: none; else truncating division is floor division.)
  Value count = arith::DivSIOp::create(b, loc, arith::SubIOp::create(b, loc, bound, lb), step);
  count = arith::AddIOp::create(b, loc, count, arith::ConstantIntOp::create(b, loc, 1, 64));
  Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, bound, lb);
  count = arith::SelectOp::create(b, loc, none, arith::ConstantIntOp::create(b, loc, 0, 64), count);
  Value s = arith::AddIOp::create(b, loc, lb, arith::MulIOp::create(b, loc, count, step));
  Value split = arith::MinSIOp::create(b, loc, s, ub);
  // A short prefix is not worth the split: the commands of the second
  // loop's first iteration cannot be issued ahead of the first loop's last
  // one, so the split costs about one iteration's overlap, and saves the
  // mask work of each prefix iteration (three of ten SE passes in
  // attention). Fewer than kMinPrefixIterations: all in the second loop.
  Value shortPrefix = arith::CmpIOp::create(
      b, loc, arith::CmpIPredicate::slt, arith::SubIOp::create(b, loc, split, lb),
      arith::MulIOp::create(b, loc, step,
                            arith::ConstantIntOp::create(b, loc, kMinPrefixIterations, 64)));
  split = arith::SelectOp::create(b, loc, shortPrefix, lb, split);
  if (!ivType.isInteger(64))
    split = arith::TruncIOp::create(b, loc, ivType, split);

  // The prefix: a clone running [lb, split) with the comparisons true.
  IRMapping map;
  auto prefix = cast<scf::ForOp>(b.clone(*loop.getOperation(), map));
  prefix.getUpperBoundMutable().assign(split);
  for (arith::CmpIOp cmp : cmps)
    foldAllTrue(map.lookup(cmp.getResult()));
  // What only the masks used (the comparisons, selects' false sides).
  for (bool erased = true; erased;) {
    erased = false;
    prefix.getBody()->walk<WalkOrder::PostOrder, ReverseIterator>([&](Operation *op) {
      if (isOpTriviallyDead(op)) {
        op->erase();
        erased = true;
      }
    });
  }
  // The rest, as written, from the split point on the prefix's results.
  loop.getLowerBoundMutable().assign(split);
  loop.getInitArgsMutable().assign(prefix.getResults());
  return true;
}

struct TTSplitMaskedLoops
    : public mlir::triton_mtia::tt::impl::TTSplitMaskedLoopsBase<TTSplitMaskedLoops> {
  void runOnOperation() override {
    // Innermost loops first; each loop once (the prefix clone is not
    // revisited: its comparisons are gone).
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) { loops.push_back(loop); });
    int64_t split = 0;
    for (scf::ForOp loop : loops)
      split += splitLoop(loop);
    if (split > 0)
      getOperation()->setAttr(tt::kSplitLoopsAttr,
                              IntegerAttr::get(IntegerType::get(&getContext(), 64), split));
  }
};

} // namespace
