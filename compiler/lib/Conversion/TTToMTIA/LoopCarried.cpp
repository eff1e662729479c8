//===- LoopCarried.cpp - Pointer tensors and tiles carried by loops ---===//
//
// GPU-style kernels advance tensors of pointers through a loop:
//
//   a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
//   for k in range(...):
//       a = tl.load(a_ptrs, ...)
//       a_ptrs += BLOCK_K * stride_ak
//
// which makes `a_ptrs` an scf.for iter_arg. A block argument has no defining
// op for the structured-access analysis to walk, so such loads would become
// gathers. But when the initial value is structured (base + strides) and the
// yield only adds a uniform offset, the strides never change: only the base
// moves. The loop then carries the base as a scalar i64 iter_arg, the strides
// stay the loop-invariant values computed before it, and the loads in the
// body remain strided DMAs.
//
// When the initial value is not structured, the pointers are still carried
// correctly, as an i64 address tile in a CB (the loop's usual way of carrying
// tensors), rematerialized before the loop and at the yield.
//
// Integer offset tensors that feed addresses and masks are carried the
// same way (batched matmuls and reductions over K write
// `offs += BLOCK; x = tl.load(p + offs, mask=offs < K)`): their base is a
// scalar iter_arg, so the load stays a DMA and the mask a box.
//
// The step may be any affine tensor, not only a uniform one
// (`ptrs += step[None, :]`): the strides then change from one iteration to
// the next, and the loop carries them as scalars beside the base. A step
// that is not affine (loaded offsets) leaves the tensor an ordinary
// loop-carried tile, read by gathers.
//
// Such a tensor may also be read as data: the flag-gems K loop clears the
// masked-off lanes with `tl.where(offs_k < K, a, 0)`, so the carried offsets
// feed a select as well as a mask. Its addresses and masks still come from
// the scalars; where it is read as data, its tile is computed from them
// (base + strides * iota) at the top of the body, or after the loop for the
// loop's result.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

//===----------------------------------------------------------------------===//
// Recognition (structural: no IR is built)
//===----------------------------------------------------------------------===//

/// Whether the integer tensor `v` is the same value everywhere, in a form the
/// index analysis (analyzeIndex) recovers.
static bool isUniformIndex(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (auto splat = dyn_cast<tt::SplatOp>(def))
    return splat.getSrc().getType().isIntOrIndex();
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<SplatElementsAttr>(cst.getValue());
    return dense && dense.getElementType().isInteger();
  }
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp, arith::ExtSIOp, arith::TruncIOp>(def))
    return isUniformIndex(def->getOperand(0));
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return isUniformIndex(def->getOperand(0)) && isUniformIndex(def->getOperand(1));
  if (isa<arith::MulIOp>(def)) {
    // analyzeIndex needs one factor to be a splat or a splat constant.
    auto direct = [](Value x) {
      Operation *d = x.getDefiningOp();
      return isa_and_nonnull<tt::SplatOp, arith::ConstantOp>(d);
    };
    return isUniformIndex(def->getOperand(0)) && isUniformIndex(def->getOperand(1)) &&
           (direct(def->getOperand(0)) || direct(def->getOperand(1)));
  }
  return false;
}

/// Whether the integer tensor `v` is affine in the tile's indices (base +
/// strides * i, no digits), in a form analyzeIndex recovers, without
/// depending on a block argument: a step a carried tensor can advance by
/// while its loop carries base and strides as scalars.
static bool isAffineStep(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<tt::MakeRangeOp>(def))
    return true;
  if (isUniformIndex(v))
    return true;
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp, arith::ExtSIOp, arith::TruncIOp>(def))
    return isAffineStep(def->getOperand(0));
  if (isa<arith::AddIOp, arith::SubIOp>(def))
    return isAffineStep(def->getOperand(0)) && isAffineStep(def->getOperand(1));
  if (isa<arith::MulIOp>(def)) {
    auto direct = [](Value x) {
      Operation *d = x.getDefiningOp();
      return isa_and_nonnull<tt::SplatOp, arith::ConstantOp>(d) && isUniformIndex(x);
    };
    Value l = def->getOperand(0), r = def->getOperand(1);
    return (direct(l) && isAffineStep(r)) || (direct(r) && isAffineStep(l));
  }
  return false;
}

/// Whether `use` reads its value as an address: the pointer or mask of a
/// memory access, pointer arithmetic, or index arithmetic that ends in
/// addresses and masks (not a yield).
bool KernelLowering::isAddressUse(OpOperand &use, bool pointer) {
  Operation *user = use.getOwner();
  if (auto load = dyn_cast<tt::LoadOp>(user))
    return use.get() == load.getPtr();
  if (auto store = dyn_cast<tt::StoreOp>(user))
    return use.get() == store.getPtr();
  if (auto inner = dyn_cast<scf::ForOp>(user)) {
    unsigned n = use.getOperandNumber();
    return n >= inner.getNumControlOperands() &&
           isCarriedAddress(inner, n - inner.getNumControlOperands());
  }
  if (isa<tt::AddPtrOp, tt::ExpandDimsOp, tt::BroadcastOp>(user))
    return (use.getOperandNumber() == 0 || !pointer) && isAddressOnly(user->getResult(0));
  if (!pointer && isa<arith::AddIOp, arith::SubIOp, arith::MulIOp, arith::CmpIOp, arith::AndIOp,
                      arith::ExtSIOp, arith::TruncIOp>(user))
    return isAddressOnly(user->getResult(0));
  return false;
}

/// Whether `v` reaches the pointer or the mask of a memory access through
/// pointer and index arithmetic (whatever else reads it), so that the
/// structured-access analysis would use what a loop carries as scalars.
static bool feedsAddress(Value v, int depth) {
  if (depth > 12) // address expressions are shallow; this bounds the walk
    return false;
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    if (auto load = dyn_cast<tt::LoadOp>(user)) {
      if (v == load.getPtr() || v == load.getMask())
        return true;
      continue;
    }
    if (auto store = dyn_cast<tt::StoreOp>(user)) {
      if (v == store.getPtr() || v == store.getMask())
        return true;
      continue;
    }
    if (auto inner = dyn_cast<scf::ForOp>(user)) {
      unsigned n = use.getOperandNumber();
      if (n >= inner.getNumControlOperands() &&
          feedsAddress(inner.getRegionIterArgs()[n - inner.getNumControlOperands()], depth + 1))
        return true;
      continue;
    }
    if (isa<tt::AddPtrOp, tt::ExpandDimsOp, tt::BroadcastOp, arith::AddIOp, arith::SubIOp,
            arith::MulIOp, arith::CmpIOp, arith::AndIOp, arith::ExtSIOp, arith::TruncIOp>(user) &&
        feedsAddress(user->getResult(0), depth + 1))
      return true;
  }
  return false;
}

/// Whether iter_arg `i` of `loop` is a tensor of pointers or integer
/// offsets that only advances by affine offsets (a chain of tt.addptr or
/// arith.addi/subi, and of inner loops that carry it the same way, from the
/// iter_arg to the yield) and is used as an address or in a mask: only so,
/// or at least once so besides its uses as data. Records in
/// carriedFixedStrides whether every step is uniform (the strides do not
/// change). Memoized per iter_arg; a query reached again while it is being
/// answered (through the yield) assumes yes.
bool KernelLowering::isCarriedAddress(scf::ForOp loop, unsigned i) {
  Value arg = loop.getRegionIterArgs()[i];
  auto it = carriedAddress.find(arg);
  if (it != carriedAddress.end())
    return it->second;
  auto type = dyn_cast<RankedTensorType>(arg.getType());
  bool pointer = type && isa<tt::PointerType>(type.getElementType());
  bool result = pointer || (type && type.getElementType().isInteger() &&
                            type.getElementType().getIntOrFloatBitWidth() > 1);
  bool fixedStrides = true;
  if (result) {
    // The yielded value is arg + step + step + ...
    auto step = [&](Value x) {
      if (isUniformIndex(x))
        return true;
      if (!isAffineStep(x))
        return false;
      fixedStrides = false;
      return true;
    };
    Value v = loop.getBody()->getTerminator()->getOperand(i);
    while (v != arg) {
      if (auto addptr = v.getDefiningOp<tt::AddPtrOp>(); addptr && step(addptr.getOffset())) {
        v = addptr.getPtr();
        continue;
      }
      if (Operation *def = v.getDefiningOp();
          isa_and_nonnull<arith::AddIOp, arith::SubIOp>(def)) {
        if (step(def->getOperand(1))) {
          v = def->getOperand(0);
          continue;
        }
        if (isa<arith::AddIOp>(def) && step(def->getOperand(0))) {
          v = def->getOperand(1);
          continue;
        }
      }
      // An inner loop that advances it: `for ...: for ...: ptrs += BLOCK`.
      if (auto inner = v.getDefiningOp<scf::ForOp>()) {
        unsigned j = cast<OpResult>(v).getResultNumber();
        if (isCarriedAddress(inner, j)) {
          fixedStrides &= carriedFixedStrides.lookup(inner.getRegionIterArgs()[j]);
          v = inner.getInitArgs()[j];
          continue;
        }
      }
      result = false;
      break;
    }
  }
  carriedFixedStrides[arg] = fixedStrides;
  carriedAddress[arg] = result;
  if (!result)
    return false;
  // Its uses are addresses, or at least one is besides data uses (whose
  // tile is then computed from the carried scalars). A tensor never used as
  // an address is an ordinary carried tile.
  auto addressOrYield = [&](OpOperand &use) {
    if (isa<scf::YieldOp>(use.getOwner())) {
      // Yielded by this loop, or by an enclosing one that carries it too.
      auto parent = dyn_cast<scf::ForOp>(use.getOwner()->getParentOp());
      return parent && isCarriedAddress(parent, use.getOperandNumber());
    }
    return isAddressUse(use, pointer);
  };
  bool allAddress = true, someAddress = false;
  for (Value v : {arg, loop.getResult(i)}) {
    for (OpOperand &use : v.getUses())
      allAddress &= addressOrYield(use);
    someAddress |= feedsAddress(v, /*depth=*/0);
  }
  // Narrow offsets read as data wrap at 8 or 16 bits where the scalars
  // would not: those stay tiles unless they are only addresses (as
  // everywhere, addresses are assumed not to wrap).
  bool wide = pointer || type.getElementType().getIntOrFloatBitWidth() >= 32;
  if (!allAddress && !(someAddress && wide))
    result = false;
  if (!result) {
    // Answers found while this one was provisionally yes may rest on it
    // (`acc += s` yielded, its sum judged address-only through the yield,
    // then `acc` stored as data): drop every memo and recompute. Each
    // iter_arg can fail only once, so this happens a bounded number of times.
    addressOnly.clear();
    carriedAddress.clear();
  }
  carriedAddress[arg] = result;
  return result;
}

/// Whether `v` is an iter_arg or a result of an scf.for that carries a
/// pointer tensor as recognised by isCarriedAddress.
bool KernelLowering::isCarriedAddressValue(Value v) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast_or_null<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() < loop.getNumInductionVars())
      return false;
    return isCarriedAddress(loop, arg.getArgNumber() - loop.getNumInductionVars());
  }
  if (auto loop = v.getDefiningOp<scf::ForOp>())
    return isCarriedAddress(loop, cast<OpResult>(v).getResultNumber());
  return false;
}

//===----------------------------------------------------------------------===//
// Lowering
//===----------------------------------------------------------------------===//

/// analyzePtr of a pointer tensor, analyzeIndex of an offset tensor.
std::optional<Affine> KernelLowering::analyzeAddress(Value v, Location loc) {
  if (isa<tt::PointerType>(elementTypeOf(v.getType())))
    return analyzePtr(v, loc);
  return analyzeIndex(v, loc);
}

/// For a carried tensor whose initial value is structured: records its
/// strides for the iter_arg and the result, and returns the scalars the
/// loop carries for it: the initial base, and the strides too where a step
/// is not uniform. std::nullopt where the tensor is carried as a tile
/// instead: its initial value is not structured, or it has digits (`//`,
/// `%`) that changing strides or a tile read as data cannot keep.
std::optional<SmallVector<Value>> KernelLowering::carriedAddressInit(scf::ForOp loop,
                                                                     unsigned i) {
  Value arg = loop.getRegionIterArgs()[i];
  auto init = analyzeAddress(loop.getInitArgs()[i], loop.getLoc());
  if (!init)
    return std::nullopt;
  bool fixedStrides = carriedFixedStrides.lookup(arg);
  auto asData = [&](Value v) { return !v.use_empty() && !isAddressOnly(v); };
  bool readAsData = asData(arg) || asData(loop.getResult(i));
  if (!init->parts.empty() && (!fixedStrides || readAsData))
    return std::nullopt;
  carriedStrides[arg] = *init;
  carriedStrides[loop.getResult(i)] = *init;
  SmallVector<Value> carried{init->base};
  if (!fixedStrides)
    carried.append(init->strides.begin(), init->strides.end());
  return carried;
}

/// Binds `v`, a carried iter_arg or loop result, to the scalars the lowered
/// loop carries for it (carriedAddressInit's order).
void KernelLowering::bindCarriedAddress(Value v, ValueRange carried) {
  scalars.map(v, carried.front());
  Affine &a = carriedStrides[v];
  if (carried.size() > 1)
    a.strides.assign(carried.begin() + 1, carried.end());
}

/// The scalars yielded for a tensor carried as scalars: the yield is the
/// iter_arg advanced by affine steps, so it is structured, with the same
/// strides where every step is uniform.
FailureOr<SmallVector<Value>> KernelLowering::carriedAddressNext(scf::ForOp loop, unsigned i) {
  Operation *yield = loop.getBody()->getTerminator();
  auto next = analyzeAddress(yield->getOperand(i), yield->getLoc());
  bool fixedStrides = carriedFixedStrides.lookup(loop.getRegionIterArgs()[i]);
  if (!next || (!fixedStrides && !next->parts.empty()))
    return emitError(yield->getLoc(),
                     "internal: the advanced loop-carried pointer is not "
                     "structured"),
           failure();
  SmallVector<Value> carried{next->base};
  if (!fixedStrides)
    carried.append(next->strides.begin(), next->strides.end());
  return carried;
}

/// A dense tile of `type` holding the values of `a` (no digits): base +
/// sum_d stride_d * i_d, bytes for pointers. Each dimension's term is an
/// iota scaled at its own size; the terms are summed over the whole shape.
/// The tile's CB is appended to `temps`; intermediates are popped here.
Lowered KernelLowering::materializeAffine(const Affine &a, RankedTensorType type, Location loc,
                                          SmallVectorImpl<std::pair<int64_t, int64_t>> &temps) {
  SmallVector<int64_t> shape(type.getShape());
  Type elemType = tileElementType(type), i64 = b.getI64Type();
  int64_t scale = 1;
  if (auto ptr = dyn_cast<tt::PointerType>(type.getElementType()))
    scale = mtia::elementBytes(ptr.getPointeeType());
  SmallVector<std::pair<int64_t, int64_t>> intermediates; // popped before returning
  std::optional<Lowered> sum;
  for (auto [d, stride] : llvm::enumerate(a.strides)) {
    if (shape[d] == 1 || matchPattern(stride, m_Zero()))
      continue;
    int64_t iota = nextCb++;
    mtia::SeIotaOp::create(b, loc, iota, i64, shape[d], 0);
    intermediates.push_back({iota, shape[d] * 8});
    Lowered index = Lowered::tile(iota, i64, {shape[d]});
    index.shape = shape;
    index.strides.assign(shape.size(), 0);
    index.strides[d] = 1;
    Value factor = scale == 1 ? stride : b.createOrFold<arith::MulIOp>(loc, stride, constI64(scale, loc));
    Lowered term = matchPattern(factor, m_One())
                       ? index
                       : i64AtOwnShape("Mul", index, factor, /*immFirst=*/false, shape, loc,
                                       intermediates);
    if (!sum) {
      sum = term;
      continue;
    }
    int64_t cb = nextCb++;
    SmallVector<Value> imms;
    Attribute lhs = sourceOf(*sum, imms), rhs = sourceOf(term, imms);
    mtia::SeOp::create(b, loc, imms, ValueRange{}, "Add", cb, i64, shape, b.getArrayAttr({lhs, rhs}));
    intermediates.push_back({cb, numElements(shape) * 8});
    sum = Lowered::tile(cb, i64, shape);
  }
  int64_t out = nextCb++;
  if (!sum) {
    emitCopy(Lowered::splat(a.base), out, i64, shape, loc);
  } else {
    SmallVector<Value> imms;
    Attribute lhs = sourceOf(*sum, imms), rhs = sourceOf(Lowered::splat(a.base), imms);
    mtia::SeOp::create(b, loc, imms, ValueRange{}, "Add", out, i64, shape, b.getArrayAttr({lhs, rhs}));
  }
  if (elemType != i64) {
    // Narrowed at the end: the sum wraps as the tensor's own arithmetic would.
    intermediates.push_back({out, numElements(shape) * 8});
    int64_t narrow = nextCb++;
    emitCopy(Lowered::tile(out, i64, shape), narrow, elemType, shape, loc);
    out = narrow;
  }
  for (auto [cb, bytes] : intermediates)
    mtia::CbPopOp::create(b, loc, cb, bytes);
  temps.push_back({out, numElements(shape) * mtia::elementBytes(elemType)});
  return Lowered::tile(out, elemType, shape);
}

/// Where `v`, an iter_arg or a loop result carried as scalars, is read as
/// data, computes its tile from them at the insertion point; it is popped
/// after its last reader.
void KernelLowering::materializeCarried(Value v, Location loc) {
  auto it = carriedStrides.find(v);
  if (it == carriedStrides.end() || !scalar(v) || v.use_empty() || isAddressOnly(v))
    return;
  Affine a = it->second;
  a.base = scalar(v);
  SmallVector<std::pair<int64_t, int64_t>> temps;
  Lowered tile = materializeAffine(a, cast<RankedTensorType>(v.getType()), loc, temps);
  tensors[v] = tile;
  schedulePop(v, tile.cb, temps.back().second);
}

//===----------------------------------------------------------------------===//
// Results produced in place of the carried tile
//===----------------------------------------------------------------------===//
//
// `acc = tl.dot(a, b, acc)` followed by the yield would append the DPE's
// result to a temporary CB and copy it into the loop-carried CB, and the next
// iteration's DPE would wait for that copy: the copy sits on the critical
// path. When a value's only use is the yield, its producer appends straight
// to the carried CB instead (reading the current tile at the front while
// appending the next one behind it is ordinary FIFO use), and the yield
// copies nothing.

/// Records, for each tensor carried in a CB by `loop`, the yielded value if
/// the yield is its only use and it is defined in the loop body itself.
void KernelLowering::registerYieldTargets(Block *body, ArrayRef<int64_t> carriedCb) {
  Operation *yield = body->getTerminator();
  for (auto [i, v] : llvm::enumerate(yield->getOperands())) {
    if (carriedCb[i] < 0 || !v.hasOneUse())
      continue;
    Operation *def = v.getDefiningOp();
    if (!def || def->getBlock() != body || def->getNumResults() != 1)
      continue;
    yieldTargets[v] = carriedCb[i];
  }
}

/// The CB a producer of `root` appends to: the loop-carried CB `root` is
/// yielded into, when registered (no pop: the loop pops it), else a new tile.
int64_t KernelLowering::newResultTile(Value root, Type elemType,
                                      ArrayRef<int64_t> shape, Location loc) {
  auto it = yieldTargets.find(root);
  if (it == yieldTargets.end())
    return newTile(root, elemType, shape, loc);
  tensors[root] = Lowered::tile(it->second, elemType, shape);
  producedInPlace.insert(root);
  return it->second;
}

} // namespace mlir::triton_mtia::tt_to_mtia
