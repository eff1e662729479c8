//===- OrderMemory.cpp - Fences between a program's loads and stores ------===//
//
// A PE moves memory with two units that take their queues independently:
// dma_in (dma_in, gather_in) and dma_out (dma_out, scatter_out, atomics).
// Commands of one unit start and complete in issue order, but a load issued
// after a store may run before it, and a store before an earlier load. A
// Triton program reads its own writes, so every such pair that may touch the
// same bytes needs an `mtia.fence` between them.
//
// The pass walks each function in program order with the accesses of each
// unit that are still "pending": issued since the last fence that ordered
// them. At an access B of one unit, each pending access A of the other
// unit is judged:
//   - independent: both go through the same pointer argument, their byte
//     hulls are constant, and the difference of their addresses (an affine
//     form over SSA values) keeps the hulls apart;
//   - independent unless aliased: they go through two different pointer
//     arguments, which alias only if both lie in one allocation at run time
//     (`mtia.may_alias`, hoisted to the function's entry);
//   - dependent: anything else (an address read from memory, a gather,
//     scatter or atomic, a hull or difference that is not constant).
// A dependent pair makes an unconditional fence before B, which orders B
// after every pending access of the other unit, so the list is emptied. Pairs
// independent unless aliased make a fence conditioned on the OR of their
// `may_alias` values; the list stays as it is, since at run time the fence
// may not have been issued.
//
// Loops: an access pending at the end of a loop body is pending again at the
// top of the next iteration, as an instance of an earlier iteration. The
// body is walked until the pending lists at its top stop changing, and only
// then with fences inserted. An access remembers the loops whose back edge
// (or exit) it crossed; its address terms defined inside such a loop are
// unknown, except the loop's induction variable (or a carried address that
// moves by a constant per iteration), which lies k >= 1 steps back. So
// `x[i*B : i*B+B]` loaded after `x[(i-1)*B : i*B]` was stored is independent,
// while `acc[0:B]` read after the previous iteration wrote it is not.
//
//===----------------------------------------------------------------------===//

#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

#include <unordered_map>

namespace mlir::triton_mtia::mtia {
#define GEN_PASS_DEF_MTIAORDERMEMORY
#include "triton-mtia/Dialect/MTIA/Transforms/Passes.h.inc"
} // namespace mlir::triton_mtia::mtia

using namespace mlir;
using namespace mlir::triton_mtia::mtia;

namespace {

//===----------------------------------------------------------------------===//
// Addresses
//===----------------------------------------------------------------------===//

/// An address (or offset) as sum(coefficient * atom) + constant, over i64
/// (and narrower, extended) SSA values.
struct Affine {
  llvm::SmallMapVector<Value, int64_t, 4> terms;
  int64_t constant = 0;

  void add(const Affine &o, int64_t scale) {
    for (auto [v, c] : o.terms)
      terms[v] += c * scale;
    constant += o.constant * scale;
  }
};

std::optional<int64_t> constantOf(Value v) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return value.getSExtValue();
  return std::nullopt;
}

/// The affine form of `v`: through constants, adds, subtracts, multiplies
/// and shifts by constants, and integer casts (addresses do not overflow).
Affine affineOf(Value v, int depth = 0) {
  Affine a;
  if (auto c = constantOf(v)) {
    a.constant = *c;
    return a;
  }
  Operation *def = v.getDefiningOp();
  if (def && depth < 32) {
    if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp, arith::TruncIOp>(def))
      return affineOf(def->getOperand(0), depth + 1);
    if (isa<arith::AddIOp, arith::SubIOp>(def)) {
      a = affineOf(def->getOperand(0), depth + 1);
      a.add(affineOf(def->getOperand(1), depth + 1), isa<arith::AddIOp>(def) ? 1 : -1);
      return a;
    }
    if (isa<arith::MulIOp, arith::ShLIOp>(def)) {
      std::optional<int64_t> k = constantOf(def->getOperand(1));
      Value other = def->getOperand(0);
      if (!k && isa<arith::MulIOp>(def)) {
        k = constantOf(def->getOperand(0));
        other = def->getOperand(1);
      }
      if (k && isa<arith::ShLIOp>(def))
        k = *k >= 0 && *k < 62 ? std::optional<int64_t>(int64_t(1) << *k) : std::nullopt;
      if (k) {
        a.add(affineOf(other, depth + 1), *k);
        return a;
      }
    }
  }
  a.terms[v] = 1;
  return a;
}

/// Where an address points: the pointer argument it is an offset from, an
/// integer (no pointer in it), or unknown (read from memory, two pointers).
/// `Self` stands for a loop-carried address while its own update is judged.
struct Root {
  enum Kind { Integer, Self, Arg, Unknown } kind = Integer;
  Value arg;
  bool operator==(const Root &o) const { return kind == o.kind && arg == o.arg; }
};

class RootFinder {
public:
  Root of(Value v) {
    if (auto it = cache.find(v); it != cache.end())
      return it->second;
    Root r = compute(v);
    // What was computed while a carried address stood for itself (Self)
    // holds only for that question.
    if (selves == 0)
      cache[v] = r;
    return r;
  }

private:
  static Root unknown() { return {Root::Unknown, {}}; }
  /// A sum's root: at most one operand may hold a pointer.
  static Root sum(Root a, Root b) {
    if (a.kind == Root::Integer)
      return b;
    if (b.kind == Root::Integer)
      return a;
    return unknown();
  }

  Root compute(Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      Operation *owner = arg.getOwner()->getParentOp();
      if (auto func = dyn_cast<func::FuncOp>(owner))
        return func.getArgAttr(arg.getArgNumber(), kPointerAttr) ? Root{Root::Arg, v}
                                                                   : Root{};
      if (auto loop = dyn_cast<scf::ForOp>(owner)) {
        if (arg == loop.getInductionVar())
          return {};
        // A carried address: its root is the initial value's, if every
        // iteration moves it by an offset (or recomputes it from that root).
        OpOperand *init = loop.getTiedLoopInit(arg);
        OpOperand *yielded = loop.getTiedLoopYieldedValue(arg);
        if (!init || !yielded)
          return unknown();
        Root start = of(init->get());
        cache[v] = {Root::Self, {}};
        ++selves;
        Root step = of(yielded->get());
        --selves;
        cache.erase(v);
        if (step.kind == Root::Self || step == start)
          return start;
        return unknown();
      }
      return unknown(); // scf.while arguments and the like
    }
    Operation *def = v.getDefiningOp();
    if (!def)
      return unknown();
    if (isa<arith::ConstantOp>(def))
      return {};
    if (isa<ReadOp>(def))
      return def->hasAttr(kPointerAttr) ? unknown() : Root{};
    if (isa<arith::AddIOp>(def))
      return sum(of(def->getOperand(0)), of(def->getOperand(1)));
    if (isa<arith::SubIOp>(def)) {
      Root r = of(def->getOperand(1));
      return r.kind == Root::Integer ? of(def->getOperand(0)) : unknown();
    }
    if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::IndexCastOp>(def))
      return of(def->getOperand(0));
    if (isa<MayAliasOp, ProgramIdOp, NumProgramsOp, PeIdOp, PeGridSizeOp>(def))
      return {};
    // Any other op of integers (a product, a quotient, a select of
    // offsets) is an integer; of pointers, something unknown.
    for (Value operand : def->getOperands())
      if (of(operand).kind != Root::Integer)
        return unknown();
    return {};
  }

  DenseMap<Value, Root> cache;
  int selves = 0; ///< carried addresses standing for themselves now
};

//===----------------------------------------------------------------------===//
// Accesses
//===----------------------------------------------------------------------===//

enum class Side { In, Out, None };

/// The fabric unit that runs `op`, if it moves memory.
Side sideOf(Operation *op) {
  if (isa<DmaInOp, GatherInOp>(op))
    return Side::In;
  if (isa<DmaOutOp, ScatterOutOp, AtomicRmwOp, AtomicCasOp>(op))
    return Side::Out;
  return Side::None;
}

/// What the pass knows of one access op.
struct AccessInfo {
  Root root;
  /// Boxes only: the start address and the byte hull [lo, hi) around it,
  /// when the strides are constants.
  std::optional<Affine> start;
  int64_t lo = 0, hi = 0;
};

/// A pending access: its op and the loops whose back edge or exit it
/// crossed since it was issued (sorted, no repeats).
struct Pending {
  Operation *op;
  SmallVector<Operation *, 2> crossed;
  bool operator==(const Pending &o) const { return op == o.op && crossed == o.crossed; }
};

struct State {
  SmallVector<Pending> in, out; ///< pending on dma_in / dma_out
  /// As sets: the order of a list is the order accesses joined it.
  bool operator==(const State &o) const { return sameSet(in, o.in) && sameSet(out, o.out); }
  static bool sameSet(ArrayRef<Pending> x, ArrayRef<Pending> y) {
    return x.size() == y.size() &&
           llvm::all_of(x, [&](const Pending &p) { return llvm::is_contained(y, p); });
  }

  static void addUnique(SmallVector<Pending> &list, const Pending &p) {
    if (!llvm::is_contained(list, p))
      list.push_back(p);
  }
  void join(const State &o) {
    for (const Pending &p : o.in)
      addUnique(in, p);
    for (const Pending &p : o.out)
      addUnique(out, p);
  }
  /// Marks the accesses issued inside `loop` as having crossed its back
  /// edge (or exit).
  void cross(Operation *loop) {
    for (auto *list : {&in, &out}) {
      SmallVector<Pending> next;
      for (Pending p : *list) {
        if (loop->isProperAncestor(p.op) && !llvm::is_contained(p.crossed, loop)) {
          p.crossed.push_back(loop);
          llvm::sort(p.crossed);
        }
        addUnique(next, p);
      }
      *list = std::move(next);
    }
  }
};

/// Which of two accesses' instances may overlap.
enum class Verdict { Independent, IfAliased, Dependent };

class MemoryOrderer {
public:
  explicit MemoryOrderer(func::FuncOp func) : func(func) {}

  void run() {
    State s;
    walkRegion(func.getBody(), s, /*insert=*/true);
    mergeFences();
  }

private:
  //===--------------------------------------------------------------------===//
  // Judging a pair
  //===--------------------------------------------------------------------===//

  const AccessInfo &infoOf(Operation *op) {
    auto it = infos.find(op);
    if (it != infos.end())
      return it->second;
    AccessInfo info;
    if (auto in = dyn_cast<DmaInOp>(op))
      fillBox(info, in.getAddr(), in.getStrides(), in.getShape(), in.getElemType());
    else if (auto out = dyn_cast<DmaOutOp>(op))
      fillBox(info, out.getAddr(), out.getStrides(), out.getShape(), out.getElemType());
    else
      info.root = rootOfBase(op); // per-element addresses
    return infos[op] = std::move(info);
  }

  /// Gathers and scatters: the pointer their addresses are offsets from,
  /// when the lowering recorded it; atomics: unknown.
  Root rootOfBase(Operation *op) {
    Value base;
    if (auto g = dyn_cast<GatherInOp>(op))
      base = g.getBase();
    else if (auto s = dyn_cast<ScatterOutOp>(op))
      base = s.getBase();
    Root r = base ? roots.of(base) : Root{Root::Unknown, {}};
    return r.kind == Root::Arg ? r : Root{Root::Unknown, {}};
  }

  void fillBox(AccessInfo &info, Value addr, ValueRange strides, ArrayRef<int64_t> shape,
               Type elemType) {
    info.root = roots.of(addr);
    if (info.root.kind == Root::Integer)
      info.root = {Root::Unknown, {}}; // an address made of integers
    const int64_t bytes = elementBytes(elemType);
    int64_t lo = 0, hi = 0;
    for (auto [stride, size] : llvm::zip(strides, shape)) {
      if (size == 0) { // nothing moves
        info.start = Affine();
        info.lo = info.hi = 0;
        return;
      }
      std::optional<int64_t> s = constantOf(stride);
      if (!s)
        return;
      const int64_t last = *s * (size - 1) * bytes;
      lo += std::min<int64_t>(0, last);
      hi += std::max<int64_t>(0, last);
    }
    info.start = affineOf(addr);
    info.lo = lo;
    info.hi = hi + bytes;
  }

  /// The constant step per iteration of `loop` of `v`, its induction
  /// variable or an address it carries that moves by a constant.
  std::optional<int64_t> stepOf(Value v, Operation *loop) {
    auto forOp = dyn_cast<scf::ForOp>(loop);
    auto arg = dyn_cast<BlockArgument>(v);
    if (!forOp || !arg || arg.getOwner()->getParentOp() != loop)
      return std::nullopt;
    if (arg == forOp.getInductionVar())
      return constantOf(forOp.getStep());
    OpOperand *yielded = forOp.getTiedLoopYieldedValue(arg);
    if (!yielded)
      return std::nullopt;
    Affine next = affineOf(yielded->get());
    if (next.terms.size() != 1 || next.terms.begin()->first != v ||
        next.terms.begin()->second != 1)
      return std::nullopt;
    return next.constant;
  }

  /// Whether the value of `v` may differ between the instance of an
  /// access that crossed `crossed` and now: it is defined inside one of
  /// those loops (block arguments of a loop's body included).
  static Operation *varyingIn(Value v, ArrayRef<Operation *> crossed) {
    Operation *def = isa<BlockArgument>(v) ? cast<BlockArgument>(v).getOwner()->getParentOp()
                                           : v.getDefiningOp();
    for (Operation *loop : crossed)
      if (def && (def == loop || loop->isProperAncestor(def)))
        return loop;
    return nullptr;
  }

  Verdict judge(const Pending &earlier, Operation *later) {
    const AccessInfo &a = infoOf(earlier.op);
    const AccessInfo &b = infoOf(later);
    if (a.root.kind != Root::Arg || b.root.kind != Root::Arg)
      return Verdict::Dependent;
    if (a.root.arg != b.root.arg)
      return Verdict::IfAliased;
    if (!a.start || !b.start)
      return Verdict::Dependent;
    if (a.lo == a.hi || b.lo == b.hi)
      return Verdict::Independent; // an empty box
    // d = start(b) - start(a) = constant + perIteration * k, k >= 1.
    int64_t constant = b.start->constant - a.start->constant;
    int64_t perIteration = 0;
    bool iterates = false;
    llvm::SmallMapVector<Value, int64_t, 4> atoms;
    for (auto [v, c] : b.start->terms)
      atoms[v] += c;
    for (auto [v, c] : a.start->terms) {
      Operation *loop = varyingIn(v, earlier.crossed);
      if (!loop) {
        atoms[v] -= c;
        continue;
      }
      // a's instance of v is k steps back, if v steps by a constant and
      // the loop still encloses the later access (a back edge, not an exit).
      std::optional<int64_t> step = stepOf(v, loop);
      if (!step || iterates || !loop->isProperAncestor(later) ||
          llvm::any_of(earlier.crossed,
                       [&](Operation *o) { return o != loop && o->isProperAncestor(loop); }))
        return Verdict::Dependent;
      atoms[v] -= c; // v - (v - k * step) = k * step, scaled by c
      perIteration = c * *step;
      iterates = true;
    }
    for (auto [v, c] : atoms)
      if (c != 0)
        return Verdict::Dependent;
    // Disjoint when [d + b.lo, d + b.hi) and [a.lo, a.hi) do not meet for
    // every k >= 1 (monotone in k, so k = 1 decides).
    const int64_t d = constant + (iterates ? perIteration : 0);
    auto apart = [&](int64_t at) { return at + b.lo >= a.hi || at + b.hi <= a.lo; };
    if (!iterates)
      return apart(d) ? Verdict::Independent : Verdict::Dependent;
    if (perIteration > 0 && d + b.lo >= a.hi)
      return Verdict::Independent;
    if (perIteration < 0 && d + b.hi <= a.lo)
      return Verdict::Independent;
    return Verdict::Dependent;
  }

  //===--------------------------------------------------------------------===//
  // The walk
  //===--------------------------------------------------------------------===//

  /// Two pointer arguments in argument order.
  static std::pair<Value, Value> ordered(Value x, Value y) {
    if (cast<BlockArgument>(x).getArgNumber() > cast<BlockArgument>(y).getArgNumber())
      std::swap(x, y);
    return {x, y};
  }

  /// The hoisted `may_alias` of two pointer arguments.
  Value mayAlias(Value x, Value y) {
    std::tie(x, y) = ordered(x, y);
    Value &v = aliasValues[{x, y}];
    if (!v) {
      OpBuilder b = OpBuilder::atBlockBegin(&func.getBody().front());
      v = MayAliasOp::create(b, func.getLoc(), b.getI1Type(), x, y);
    }
    return v;
  }

  /// What ordering `later` after the pending accesses `pending` takes: an
  /// unconditional fence (dependent), or one conditioned on the alias tests
  /// of `pairs` (the entries they cover in `covered`), or nothing.
  struct Need {
    bool dependent = false;
    SmallVector<std::pair<Value, Value>> pairs;
    SmallVector<Pending> covered;
  };
  Need need(ArrayRef<Pending> pending, ArrayRef<Operation *> later) {
    Need n;
    for (const Pending &p : pending) {
      bool covered = false;
      for (Operation *op : later) {
        Verdict v = judge(p, op);
        if (v == Verdict::Dependent) {
          n.dependent = true;
          return n;
        }
        if (v == Verdict::IfAliased) {
          auto pair = ordered(infoOf(p.op).root.arg, infoOf(op).root.arg);
          if (!llvm::is_contained(n.pairs, pair))
            n.pairs.push_back(pair);
          covered = true;
        }
      }
      if (covered)
        n.covered.push_back(p);
    }
    return n;
  }

  /// The OR of two conditions, at the function's entry, after both.
  Value orAtEntry(Value x, Value y) {
    Value &v = orValues[{x, y}];
    if (!v) {
      Operation *later = x.getDefiningOp()->isBeforeInBlock(y.getDefiningOp())
                             ? y.getDefiningOp()
                             : x.getDefiningOp();
      OpBuilder b(later->getContext());
      b.setInsertionPointAfter(later);
      v = arith::OrIOp::create(b, func.getLoc(), x, y);
    }
    return v;
  }

  /// A fence of the kind that holds `side` back, before `at`.
  void insertFence(Operation *at, Side side, const Need &n) {
    Value cond;
    if (!n.dependent)
      for (auto [x, y] : n.pairs) {
        Value c = mayAlias(x, y);
        cond = cond ? orAtEntry(cond, c) : c;
      }
    OpBuilder b(at);
    FenceOp::create(b, at->getLoc(), cond,
                    side == Side::In ? "loads_after_stores" : "stores_after_loads");
  }

  void visitAccess(Operation *op, Side side, State &s, bool insert) {
    SmallVector<Pending> &other = side == Side::In ? s.out : s.in;
    Need n = need(other, {op});
    if (insert && (n.dependent || !n.pairs.empty()))
      insertFence(op, side, n);
    if (n.dependent)
      other.clear();
    State::addUnique(side == Side::In ? s.in : s.out, Pending{op, {}});
  }

  /// Before a loop: the accesses pending at its entry are ordered against
  /// every access inside it by one fence in front of it, instead of one
  /// per iteration. `s` (what follows the loop) loses what an unconditional
  /// fence orders; `body` (the loop's top) also what a conditional one
  /// covers: if it was not issued, those accesses do not overlap the loop's.
  void hoistFences(Operation *loop, State &s, State &body, bool insert) {
    SmallVector<Operation *> ins, outs;
    loop->walk([&](Operation *op) {
      if (Side side = sideOf(op); side == Side::In)
        ins.push_back(op);
      else if (side == Side::Out)
        outs.push_back(op);
    });
    for (Side side : {Side::In, Side::Out}) {
      ArrayRef<Operation *> later = side == Side::In ? ins : outs;
      SmallVector<Pending> &after = side == Side::In ? s.out : s.in;
      SmallVector<Pending> &top = side == Side::In ? body.out : body.in;
      if (later.empty() || after.empty())
        continue;
      Need n = need(after, later);
      if (!n.dependent && n.pairs.empty())
        continue;
      if (insert)
        insertFence(loop, side, n);
      if (n.dependent) {
        after.clear();
        top.clear();
      } else {
        llvm::erase_if(top, [&](const Pending &p) { return llvm::is_contained(n.covered, p); });
      }
    }
  }

  void walkRegion(Region &region, State &s, bool insert) {
    for (Block &block : region)
      walkBlock(block, s, insert);
  }

  void walkBlock(Block &block, State &s, bool insert) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (Side side = sideOf(&op); side != Side::None) {
        visitAccess(&op, side, s, insert);
      } else if (isa<BarrierOp>(op)) {
        s.in.clear(); // the core waited for every unit
        s.out.clear();
      } else if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        State thenState = s, elseState = s;
        walkRegion(ifOp.getThenRegion(), thenState, insert);
        walkRegion(ifOp.getElseRegion(), elseState, insert);
        thenState.join(elseState);
        s = std::move(thenState);
      } else if (op.getNumRegions() > 0) {
        walkLoop(&op, s, insert);
      }
    }
  }

  /// A loop (scf.for, scf.while, and any other op with regions, taken as
  /// a loop over them): fixpoint of the pending lists at the top of its
  /// body, then the body once more with fences inserted.
  void walkLoop(Operation *loop, State &s, bool insert) {
    State bodyEntry = s;
    hoistFences(loop, s, bodyEntry, insert);
    const State entry = s;
    State top = bodyEntry;
    auto body = [&](State &state, bool withFences) {
      for (Region &r : loop->getRegions())
        walkRegion(r, state, withFences);
    };
    for (int round = 0; round < 16; ++round) {
      State end = top;
      body(end, /*withFences=*/false);
      end.cross(loop);
      State next = bodyEntry;
      next.join(end);
      if (next == top)
        break;
      top = std::move(next);
    }
    State end = top;
    body(end, insert);
    end.cross(loop);
    s = entry; // the loop may not run at all
    s.join(end);
  }

  /// Fences of one kind in a block with no access of the other unit
  /// between them: the first one, issued when either's condition holds,
  /// orders what the second would (nothing new to wait for was issued in
  /// between), so the second goes, its condition ORed into the first's. After
  /// an unconditional one, the second is simply redundant. In a loop body
  /// this leaves one branch per iteration and unit instead of one per access.
  void mergeFences() {
    func.walk([&](Block *block) {
      FenceOp last[2] = {}; // loads_after_stores, stores_after_loads
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        if (auto fence = dyn_cast<FenceOp>(op)) {
          const int k = fence.getKind() == "loads_after_stores" ? 0 : 1;
          if (FenceOp prev = last[k]) {
            if (!prev.getCond()) {
              fence.erase();
              continue;
            }
            if (fence.getCond()) {
              prev.getCondMutable().assign(orAtEntry(prev.getCond(), fence.getCond()));
              fence.erase();
              continue;
            }
          }
          last[k] = fence;
          continue;
        }
        Side side = sideOf(&op);
        if (side == Side::Out || op.getNumRegions() > 0)
          last[0] = {}; // stores a later load may need to wait for
        if (side == Side::In || op.getNumRegions() > 0)
          last[1] = {};
      }
    });
  }

  func::FuncOp func;
  RootFinder roots;
  /// Node-based: infoOf hands out references that must survive later
  /// insertions.
  std::unordered_map<Operation *, AccessInfo> infos;
  DenseMap<std::pair<Value, Value>, Value> aliasValues;
  DenseMap<std::pair<Value, Value>, Value> orValues;
};

struct OrderMemory
    : public mlir::triton_mtia::mtia::impl::MTIAOrderMemoryBase<OrderMemory> {
  using MTIAOrderMemoryBase::MTIAOrderMemoryBase;
  void runOnOperation() override { MemoryOrderer(getOperation()).run(); }
};

} // namespace
