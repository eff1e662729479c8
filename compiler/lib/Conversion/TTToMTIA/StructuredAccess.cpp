//===- StructuredAccess.cpp - Pointer and mask analysis ---===//
//
// Recovers tensors of pointers as base + strides and masks as boxes,
// so loads and stores become N-D DMAs; rematerializes them as tiles for a
// gather or scatter when they are not structured.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

//===----------------------------------------------------------------------===//
// Structured-access analysis
//===----------------------------------------------------------------------===//

/// A value is address-only if every use is pointer arithmetic, the pointer or
/// mask of a load or store, or another address-only value.
bool KernelLowering::isAddressOnly(Value v) {
  auto it = addressOnly.find(v);
  if (it != addressOnly.end())
    return it->second;
  addressOnly[v] = true; // cycles (loop-carried values) are not address-only
  bool result = !v.use_empty();
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    unsigned idx = use.getOperandNumber();
    bool ok = false;
    if (auto load = dyn_cast<tt::LoadOp>(user))
      ok = v == load.getPtr() || v == load.getMask();
    else if (auto store = dyn_cast<tt::StoreOp>(user))
      ok = v == store.getPtr() || v == store.getMask();
    else if (auto rmw = dyn_cast<tt::AtomicRMWOp>(user))
      ok = v == rmw.getPtr() || v == rmw.getMask();
    else if (auto cas = dyn_cast<tt::AtomicCASOp>(user))
      ok = v == cas.getPtr() && v != cas.getCmp() && v != cas.getVal();
    else if (auto gather = dyn_cast<tt::GatherOp>(user))
      // The indices of a slice at a constant offset, a view (never computed).
      ok = v == gather.getIndices() && constantSliceOffset(gather).has_value();
    else if (isa<tt::BitcastOp>(user) &&
             isa<tt::PointerType>(elementTypeOf(user->getResult(0).getType())))
      ok = isAddressOnly(user->getResult(0)); // ptr<f32> -> ptr<i32> (atomics)
    else if (isa<tt::AddPtrOp, tt::ExpandDimsOp, tt::BroadcastOp, arith::AddIOp,
                 arith::SubIOp, arith::MulIOp, arith::CmpIOp, arith::AndIOp,
                 arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::DivSIOp,
                 arith::DivUIOp,
                 arith::RemSIOp, arith::RemUIOp>(user))
      ok = isa<RankedTensorType>(user->getResult(0).getType()) &&
           isAddressOnly(user->getResult(0));
    else if (auto loop = dyn_cast<scf::ForOp>(user))
      // The initial value of a pointer tensor the loop only advances.
      ok = idx >= loop.getNumControlOperands() &&
           isCarriedAddress(loop, idx - loop.getNumControlOperands());
    else if (auto loop = dyn_cast_or_null<scf::ForOp>(user->getParentOp()))
      // The yield of such a pointer tensor (advanced by uniform offsets).
      ok = isa<scf::YieldOp>(user) && isCarriedAddress(loop, idx);
    if (!ok) {
      result = false;
      break;
    }
  }
  // Loop-carried tensors are data: their storage must exist across
  // iterations.
  // Iterations only advance a carried pointer tensor (LoopCarried.cpp).
  if ((isa<BlockArgument>(v) ||
       isa_and_nonnull<scf::ForOp, scf::IfOp, scf::WhileOp>(v.getDefiningOp())) &&
      !isCarriedAddressValue(v))
    result = false;
  addressOnly[v] = result;
  return result;
}

/// `a` (of the operand of `def`, an expand_dims or a broadcast) as the
/// expression of the result: a new dimension has index 0 (stride 0); a
/// broadcast dimension had size 1, so its index is 0 as well.
void KernelLowering::reshapeAffine(Affine &a, Operation *def, Location loc) {
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    int64_t axis = expand.getAxis();
    int64_t k = a.parts.empty() ? axis : firstDigit(a.parts, axis);
    a.strides.insert(a.strides.begin() + k, constI64(0, loc));
    if (!a.parts.empty())
      a.parts.insert(a.parts.begin() + axis, {1});
    return;
  }
  auto srcShape = cast<RankedTensorType>(def->getOperand(0).getType()).getShape();
  auto shape = cast<RankedTensorType>(def->getResult(0).getType()).getShape();
  for (auto [d, n] : llvm::enumerate(srcShape)) {
    if (n != 1)
      continue;
    int64_t k = a.parts.empty() ? d : firstDigit(a.parts, d);
    a.strides[k] = constI64(0, loc);
    if (!a.parts.empty())
      a.parts[d] = {shape[d]};
  }
}

/// Recovers `v` (an integer tensor) as base + sum stride_d * i_d.
std::optional<Affine> KernelLowering::analyzeIndex(Value v, Location loc) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type)
    return std::nullopt;
  int64_t rank = type.getRank();
  auto zeros = [&] {
    return SmallVector<Value>(rank, constI64(0, loc));
  };
  // An offset tensor carried by a loop as a scalar base (LoopCarried.cpp).
  auto carried = carriedStrides.find(v);
  if (carried != carriedStrides.end() && scalar(v)) {
    Affine a = carried->second;
    a.base = scalar(v);
    return a;
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto range = dyn_cast<tt::MakeRangeOp>(def))
    return Affine{constI64(range.getStart(), loc), {constI64(1, loc)}};
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    Value s = scalar(splat.getSrc());
    if (!s || !s.getType().isIntOrIndex())
      return std::nullopt;
    return Affine{toI64(s, loc), zeros()};
  }
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<SplatElementsAttr>(cst.getValue());
    if (!dense || !dense.getElementType().isInteger())
      return std::nullopt;
    return Affine{constI64(dense.getSplatValue<APInt>().getSExtValue(), loc),
                  zeros()};
  }
  // Casts keep the index's value: the analysis assumes, as Triton's own
  // address arithmetic does, that indices do not wrap (an unsigned index,
  // zero-extended by tt.addptr, is a non-negative one).
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp>(def))
    return analyzeIndex(def->getOperand(0), loc);
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(def)) {
    auto inner = analyzeIndex(def->getOperand(0), loc);
    if (!inner)
      return std::nullopt;
    reshapeAffine(*inner, def, loc);
    return inner;
  }
  if (isa<arith::DivSIOp, arith::DivUIOp, arith::RemSIOp, arith::RemUIOp>(def))
    return analyzeDivRem(def, loc);
  if (isa<arith::AddIOp, arith::SubIOp>(def)) {
    auto lhs = analyzeIndex(def->getOperand(0), loc);
    auto rhs = lhs ? analyzeIndex(def->getOperand(1), loc) : std::nullopt;
    if (!rhs || !unifyDigits(*lhs, *rhs, type.getShape(), loc))
      return std::nullopt;
    auto combine = [&](Value x, Value y) -> Value {
      if (isa<arith::AddIOp>(def))
        return b.createOrFold<arith::AddIOp>(loc, x, y);
      return b.createOrFold<arith::SubIOp>(loc, x, y);
    };
    Affine out{combine(lhs->base, rhs->base), {}, lhs->parts};
    for (auto [l, r] : llvm::zip(lhs->strides, rhs->strides))
      out.strides.push_back(combine(l, r));
    return out;
  }
  if (isa<arith::MulIOp>(def)) {
    // One side must be uniform (all strides known to be zero).
    for (int side = 0; side < 2; ++side) {
      Value uniformV = def->getOperand(side);
      Operation *u = uniformV.getDefiningOp();
      if (!u || !(isa<tt::SplatOp>(u) ||
                  (isa<arith::ConstantOp>(u) &&
                   isa<SplatElementsAttr>(cast<arith::ConstantOp>(u).getValue()))))
        continue;
      auto factor = analyzeIndex(uniformV, loc);
      auto other = factor ? analyzeIndex(def->getOperand(1 - side), loc)
                          : std::nullopt;
      if (!other)
        return std::nullopt;
      Affine out{b.createOrFold<arith::MulIOp>(loc, other->base, factor->base),
                 {}, other->parts};
      for (Value s : other->strides)
        out.strides.push_back(b.createOrFold<arith::MulIOp>(loc, s, factor->base));
      return out;
    }
  }
  return std::nullopt;
}

/// Recovers a tensor of pointers as base address + per-dimension strides (in
/// elements).
std::optional<Affine> KernelLowering::analyzePtr(Value v, Location loc) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  // A pointer tensor carried by a loop as a scalar base.
  auto carried = carriedStrides.find(v);
  if (carried != carriedStrides.end() && scalar(v)) {
    Affine a = carried->second;
    a.base = scalar(v);
    return a;
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    Value p = scalar(splat.getSrc());
    if (!p)
      return std::nullopt;
    return Affine{p, SmallVector<Value>(rank, constI64(0, loc))};
  }
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(def)) {
    auto inner = analyzePtr(def->getOperand(0), loc);
    if (!inner)
      return std::nullopt;
    reshapeAffine(*inner, def, loc);
    return inner;
  }
  if (auto addptr = dyn_cast<tt::AddPtrOp>(def)) {
    auto base = analyzePtr(addptr.getPtr(), loc);
    auto offset = base ? analyzeIndex(addptr.getOffset(), loc) : std::nullopt;
    if (!offset || !unifyDigits(*base, *offset, type.getShape(), loc))
      return std::nullopt;
    int64_t elemBytes = mtia::elementBytes(
        cast<tt::PointerType>(type.getElementType()).getPointeeType());
    Value byteOffset =
        b.createOrFold<arith::MulIOp>(loc, offset->base, constI64(elemBytes, loc));
    Affine out{b.createOrFold<arith::AddIOp>(loc, base->base, byteOffset), {},
               base->parts};
    for (auto [s, o] : llvm::zip(base->strides, offset->strides))
      out.strides.push_back(b.createOrFold<arith::AddIOp>(loc, s, o));
    return out;
  }
  return std::nullopt;
}

/// Recovers a mask as a box: mask[i] = AND_d (begin_d <= i_d < end_d), each
/// bound clamped to [0, size_d]. Conjunctions intersect (begin = max, end =
/// min); a uniform condition keeps everything or nothing.
std::optional<MaskBox>
KernelLowering::analyzeMask(Value mask, ArrayRef<int64_t> shape, Location loc) {
  int64_t rank = shape.size();
  Operation *def = mask.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto andOp = dyn_cast<arith::AndIOp>(def)) {
    auto lhs = analyzeMask(andOp.getLhs(), shape, loc);
    auto rhs = lhs ? analyzeMask(andOp.getRhs(), shape, loc) : std::nullopt;
    if (!rhs)
      return std::nullopt;
    // Begins are clamped at 0 already: a begin of 0 (no lower bound) leaves
    // the other one as it is.
    auto isZero = [](Value v) {
      APInt value;
      return matchPattern(v, m_ConstantInt(&value)) && value.isZero();
    };
    MaskBox out;
    for (int64_t d = 0; d < rank; ++d) {
      Value lb = lhs->begin[d], rb = rhs->begin[d];
      out.begin.push_back(isZero(lb)   ? rb
                          : isZero(rb) ? lb
                                       : b.createOrFold<arith::MaxSIOp>(loc, lb, rb));
      out.end.push_back(
          b.createOrFold<arith::MinSIOp>(loc, lhs->end[d], rhs->end[d]));
    }
    return out;
  }
  if (auto bcast = dyn_cast<tt::BroadcastOp>(def)) {
    auto srcShape = bcast.getSrc().getType().getShape();
    auto inner = analyzeMask(bcast.getSrc(), srcShape, loc);
    if (!inner)
      return std::nullopt;
    // A broadcast dimension of size 1 is either all valid or all masked.
    for (int64_t d = 0; d < rank; ++d)
      if (srcShape[d] == 1 && shape[d] != 1) {
        Value any = b.createOrFold<arith::CmpIOp>(
            loc, arith::CmpIPredicate::sgt, inner->end[d], inner->begin[d]);
        inner->begin[d] = constI64(0, loc);
        inner->end[d] = b.createOrFold<arith::SelectOp>(
            loc, any, constI64(shape[d], loc), constI64(0, loc));
      }
    return inner;
  }
  if (auto expand = dyn_cast<tt::ExpandDimsOp>(def)) {
    auto srcShape = expand.getSrc().getType().getShape();
    auto inner = analyzeMask(expand.getSrc(), srcShape, loc);
    if (!inner)
      return std::nullopt;
    inner->begin.insert(inner->begin.begin() + expand.getAxis(), constI64(0, loc));
    inner->end.insert(inner->end.begin() + expand.getAxis(), constI64(1, loc));
    return inner;
  }
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    // A uniform mask: everything or nothing.
    Value c = scalar(splat.getSrc());
    if (!c)
      return std::nullopt;
    MaskBox out;
    for (int64_t d : shape) {
      out.begin.push_back(constI64(0, loc));
      out.end.push_back(b.createOrFold<arith::SelectOp>(loc, c, constI64(d, loc),
                                                        constI64(0, loc)));
    }
    return out;
  }
  if (auto cmp = dyn_cast<arith::CmpIOp>(def))
    return analyzeCompare(cmp, shape, loc);
  return std::nullopt;
}

/// The box of one comparison of an index `s + i_d` (unit stride along one
/// dimension d) with a uniform bound `b`, on either side:
///   i < b, i <= b   keep [0, b - s) and [0, b - s + 1) along d,
///   i >= b, i > b   keep [b - s, size) and [b - s + 1, size) along d;
/// mirrored forms (`b > i`, `b <= i`, ...) are the same. Unsigned upper
/// bounds must be non-negative constants (below); lower bounds are signed
/// only (an unsigned `i >= b` also holds for negative i). A comparison of
/// two uniform values keeps everything or nothing.
std::optional<MaskBox>
KernelLowering::analyzeCompare(arith::CmpIOp cmp, ArrayRef<int64_t> shape,
                               Location loc) {
  using P = arith::CmpIPredicate;
  int64_t rank = shape.size();
  auto lhs = analyzeIndex(cmp.getLhs(), loc);
  auto rhs = lhs ? analyzeIndex(cmp.getRhs(), loc) : std::nullopt;
  if (!rhs || !coarsenDigits(*lhs) || !coarsenDigits(*rhs))
    return std::nullopt;
  auto isConst = [](Value v, int64_t c) {
    APInt value;
    return matchPattern(v, m_ConstantInt(&value)) && value.getSExtValue() == c;
  };
  auto isUniform = [&](const Affine &a) {
    return llvm::all_of(a.strides, [&](Value s) { return isConst(s, 0); });
  };
  MaskBox out;
  for (int64_t d : shape) {
    out.begin.push_back(constI64(0, loc));
    out.end.push_back(constI64(d, loc));
  }
  P pred = cmp.getPredicate();
  if (isUniform(*lhs) && isUniform(*rhs)) {
    // All or nothing. The bases are sign-extended to i64, which keeps the
    // unsigned order of narrower integers too.
    Value holds = b.createOrFold<arith::CmpIOp>(loc, pred, lhs->base, rhs->base);
    for (int64_t d = 0; d < rank; ++d)
      out.end[d] = b.createOrFold<arith::SelectOp>(loc, holds, out.end[d],
                                                   constI64(0, loc));
    return out;
  }
  // The index on the left: `b OP i` is `i OP' b` with the mirrored OP'.
  if (isUniform(*lhs)) {
    std::swap(lhs, rhs);
    switch (pred) {
    case P::slt: pred = P::sgt; break;
    case P::sle: pred = P::sge; break;
    case P::sgt: pred = P::slt; break;
    case P::sge: pred = P::sle; break;
    case P::ult: pred = P::ugt; break;
    case P::ule: pred = P::uge; break;
    case P::ugt: pred = P::ult; break;
    case P::uge: pred = P::ule; break;
    default: break; // eq, ne
    }
  }
  if (!isUniform(*rhs))
    return std::nullopt;
  // The index must move along exactly one dimension with unit stride.
  int64_t dim = -1;
  for (int64_t d = 0; d < rank; ++d) {
    if (isConst(lhs->strides[d], 0))
      continue;
    if (dim >= 0 || !isConst(lhs->strides[d], 1))
      return std::nullopt;
    dim = d;
  }
  // i_d OP b - s.
  Value limit = b.createOrFold<arith::SubIOp>(loc, rhs->base, lhs->base);
  auto plusOne = [&](Value v) {
    return b.createOrFold<arith::AddIOp>(loc, v, constI64(1, loc));
  };
  auto clamp = [&](Value v) {
    Value low = b.createOrFold<arith::MaxSIOp>(loc, v, constI64(0, loc));
    return b.createOrFold<arith::MinSIOp>(loc, low, constI64(shape[dim], loc));
  };
  // An unsigned upper bound b that is a constant below 2^(W-1) keeps the
  // indices 0 <= i < b: a negative i is 2^W + i unsigned, past b. A bound
  // at or above 2^(W-1) also keeps the negative indices below b - 2^W (a
  // second range), and a run-time bound may be either, so those go to the
  // per-element path (gather / scatter), which compares as the SE does.
  if (pred == P::ult || pred == P::ule) {
    APInt bound;
    if (!matchPattern(rhs->base, m_ConstantInt(&bound)) || bound.isNegative())
      return std::nullopt;
    out.begin[dim] = clamp(b.createOrFold<arith::SubIOp>(loc, constI64(0, loc), lhs->base));
  }
  switch (pred) {
  case P::slt:
  case P::ult:
    out.end[dim] = clamp(limit);
    return out;
  case P::sle:
  case P::ule:
    out.end[dim] = clamp(plusOne(limit));
    return out;
  case P::sge:
    out.begin[dim] = clamp(limit);
    return out;
  case P::sgt:
    out.begin[dim] = clamp(plusOne(limit));
    return out;
  default: // eq, ne, unsigned lower bounds
    return std::nullopt;
  }
}

/// The strided box of a structured access: `ptr` as base + strides and
/// `mask` (if any) as the box [begin, valid) it keeps.
std::optional<StridedBox> KernelLowering::structuredBox(Value ptr, Value mask,
                                                        ArrayRef<int64_t> shape,
                                                        Location loc) {
  auto affine = analyzePtr(ptr, loc);
  if (!affine)
    return std::nullopt;
  Digits digits = digitsOf(*affine, shape);
  SmallVector<int64_t> boxShape = digitShape(digits);
  if (boxShape.size() > static_cast<size_t>(mtia::kBoxRank))
    return std::nullopt;
  StridedBox box{affine->base, affine->strides, {}, {}, boxShape};
  if (!mask) {
    for (int64_t n : boxShape)
      box.valid.push_back(constI64(n, loc));
    return box;
  }
  auto kept = analyzeMask(mask, shape, loc);
  if (!kept)
    return std::nullopt;
  // A dimension split into digits keeps a box only if its bounds are whole
  // multiples of its inner digits: [begin, end) bounds the outer digit.
  SmallVector<Value> begin;
  for (auto [d, parts] : llvm::enumerate(digits)) {
    int64_t inner = numElements(ArrayRef<int64_t>(parts).drop_front());
    Value lo = kept->begin[d], hi = kept->end[d];
    if (inner > 1) {
      if (knownDivisor(lo) % inner != 0 || knownDivisor(hi) % inner != 0)
        return std::nullopt;
      lo = b.createOrFold<arith::DivSIOp>(loc, lo, constI64(inner, loc));
      hi = b.createOrFold<arith::DivSIOp>(loc, hi, constI64(inner, loc));
    }
    begin.push_back(lo);
    box.valid.push_back(hi);
    for (int64_t q : ArrayRef<int64_t>(parts).drop_front()) {
      begin.push_back(constI64(0, loc));
      box.valid.push_back(constI64(q, loc));
    }
  }
  // A box that begins at 0 in every dimension (a mask of upper bounds only)
  // carries no begin.
  APInt value;
  if (llvm::any_of(begin, [&](Value v) {
        return !matchPattern(v, m_ConstantInt(&value)) || !value.isZero();
      }))
    box.begin = std::move(begin);
  return box;
}

/// The DMA engine walks a box in row-major order of its dimensions and
/// merges an access only with the one just before it. A box whose innermost
/// dimension strides through memory (Inductor's reduction over the rows of a
/// row-major matrix loads [columns, rows] blocks; a GPU author's K^T block)
/// makes one access per element, each a whole memory granule. Walked with its
/// unit-stride dimension innermost, the same box makes one access per run of
/// contiguous elements; the tile then holds the block in that order, and its
/// readers see it through a view with permuted strides (as after tt.trans).
/// Runs shorter than a granule save less than the strided views cost the
/// units that read them (a vector-core loop streams a strided view element
/// by element), so those boxes keep their order.
std::optional<SmallVector<int64_t>>
KernelLowering::moveInMemoryOrder(StridedBox &box, ArrayRef<int64_t> shape, Type elemType) {
  // docs/simulator.md, memory_access_bytes.
  constexpr int64_t kGranuleBytes = 32;
  const int64_t rank = shape.size();
  if (rank < 2 || box.shape != SmallVector<int64_t>(shape) || shape.back() == 1)
    return std::nullopt;
  auto constStride = [&](int64_t d) -> std::optional<int64_t> {
    APInt value;
    if (!matchPattern(box.strides[d], m_ConstantInt(&value)))
      return std::nullopt;
    return value.getSExtValue();
  };
  // An inner stride known only at run time (a row length passed in) is
  // walked as the outer one: no order is worse than element by element.
  auto inner = constStride(rank - 1);
  if (inner && (*inner == 1 || *inner == 0))
    return std::nullopt;
  int64_t unit = -1;
  for (int64_t d = rank - 2; d >= 0 && unit < 0; --d)
    if (shape[d] > 1 && constStride(d) == std::optional<int64_t>(1))
      unit = d;
  if (unit < 0 || shape[unit] * mtia::elementBytes(elemType) < kGranuleBytes)
    return std::nullopt;
  // The box's dimensions in their order, the unit-stride one moved last.
  SmallVector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d)
    if (d != unit)
      order.push_back(d);
  order.push_back(unit);
  auto permuted = [&](ArrayRef<Value> values) {
    SmallVector<Value> out;
    for (int64_t d : order)
      out.push_back(values[d]);
    return out;
  };
  box.strides = permuted(box.strides);
  box.valid = permuted(box.valid);
  if (!box.begin.empty())
    box.begin = permuted(box.begin);
  SmallVector<int64_t> boxShape;
  for (int64_t d : order)
    boxShape.push_back(shape[d]);
  box.shape = boxShape;
  return order;
}

/// Dense tiles of the per-element addresses of `ptr` and of `mask` (if any)
/// for a gather, scatter or atomic by address issued for `op`.
Value KernelLowering::pointerBase(Value ptr) {
  for (int depth = 0; depth < 64; ++depth) {
    Operation *def = ptr.getDefiningOp();
    if (!def)
      return {};
    if (auto splat = dyn_cast<tt::SplatOp>(def))
      return scalar(splat.getSrc());
    if (!isa<tt::AddPtrOp, tt::BroadcastOp, tt::ExpandDimsOp, tt::ReshapeOp, tt::TransOp>(def))
      return {};
    ptr = def->getOperand(0);
  }
  return {};
}

FailureOr<AddressTiles> KernelLowering::addressTiles(
    Operation *op, Value ptr, Value mask, ArrayRef<int64_t> shape, Location loc,
    SmallVectorImpl<std::pair<int64_t, int64_t>> &temps) {
  auto addrs = rematerialize(ptr, loc, temps);
  if (failed(addrs))
    return unsupported(op, "its pointers could not be computed");
  AddressTiles tiles;
  tiles.addrCb = addrs->isDense()
                     ? addrs->cb
                     : copyToNewTile(*addrs, b.getI64Type(), shape, loc, &temps);
  if (mask) {
    auto m = rematerialize(mask, loc, temps);
    if (failed(m))
      return unsupported(op, "its mask could not be computed");
    tiles.maskCb = m->isDense()
                       ? m->cb
                       : copyToNewTile(*m, b.getI1Type(), shape, loc, &temps);
  }
  return tiles;
}

/// The dimensions a tile does not broadcast (stride 0 makes a dimension 1).
static SmallVector<int64_t> ownShape(const Lowered &l) {
  SmallVector<int64_t> own(l.shape);
  for (auto [d, stride] : llvm::enumerate(l.strides))
    if (stride == 0)
      own[d] = 1;
  return own;
}

/// `row[:, None] * stride + col[None, :]`, the offsets of a gather of rows
/// (an embedding's, a paged cache's blocks), is an add of two broadcasts.
/// Widened, scaled and added to the base as written, it takes four commands
/// over the whole [rows, cols] tile of 64-bit addresses. Each broadcast
/// operand is only [rows, 1] or [1, cols] of its own: widened and scaled
/// there, the base added to the smaller one, the addresses are one
/// full-size add of the two (Triton's address arithmetic, as the structured
/// analysis, assumes that the 32-bit sum does not wrap).
FailureOr<std::optional<std::pair<Lowered, Lowered>>> KernelLowering::broadcastSumAddresses(
    Value base, arith::AddIOp sum, int64_t elemBytes, ArrayRef<int64_t> shape, Location loc,
    SmallVectorImpl<std::pair<int64_t, int64_t>> &temps) {
  auto broadcastOrUniform = [](Value v) {
    Operation *def = v.getDefiningOp();
    return isa_and_nonnull<tt::BroadcastOp, tt::SplatOp>(def) ||
           (isa_and_nonnull<arith::ConstantOp>(def) &&
            isa<SplatElementsAttr>(cast<arith::ConstantOp>(def).getValue()));
  };
  Value x = sum.getLhs(), y = sum.getRhs();
  if (!broadcastOrUniform(x) || !broadcastOrUniform(y) ||
      !(x.getDefiningOp<tt::BroadcastOp>() || y.getDefiningOp<tt::BroadcastOp>()))
    return std::optional<std::pair<Lowered, Lowered>>();
  auto scaled = [&](Value v) -> FailureOr<Lowered> {
    auto l = rematerialize(v, loc, temps);
    if (failed(l))
      return failure();
    return bytesAtOwnShape(*l, elemBytes, shape, loc, temps);
  };
  auto sx = scaled(x);
  auto sy = failed(sx) ? FailureOr<Lowered>(failure()) : scaled(y);
  if (failed(sx) || failed(sy))
    return failure();
  // The base goes into the operand of fewer elements.
  auto own = [&](const Lowered &l) { return l.isTile() ? numElements(ownShape(l)) : 1; };
  Lowered &small = own(*sx) <= own(*sy) ? *sx : *sy;
  if (!small.isTile())
    small = Lowered::splat(b.createOrFold<arith::AddIOp>(loc, base, small.scalar));
  else
    small = i64AtOwnShape("Add", small, base, /*immFirst=*/true, shape, loc, temps);
  return std::optional<std::pair<Lowered, Lowered>>(std::make_pair(*sx, *sy));
}

Lowered KernelLowering::i64AtOwnShape(StringRef opcode, const Lowered &l, Value imm,
                                      bool immFirst, ArrayRef<int64_t> shape, Location loc,
                                      SmallVectorImpl<std::pair<int64_t, int64_t>> &temps) {
  Type i64 = b.getI64Type();
  SmallVector<int64_t> own = ownShape(l);
  SmallVector<Value> imms;
  SmallVector<Attribute> srcs{
      mtia::ViewAttr::get(b.getContext(), l.cb, l.elemType, l.offset, l.strides)};
  if (imm) {
    imms.push_back(imm);
    srcs.insert(immFirst ? srcs.begin() : srcs.end(), mtia::ImmAttr::get(b.getContext()));
  }
  int64_t cb = nextCb++;
  mtia::SeOp::create(b, loc, imms, ValueRange{}, opcode, cb, i64, own, b.getArrayAttr(srcs));
  temps.push_back({cb, numElements(own) * 8});
  Lowered out = Lowered::tile(cb, i64, own);
  out.shape.assign(shape.begin(), shape.end());
  return out;
}

Lowered KernelLowering::bytesAtOwnShape(const Lowered &off, int64_t elemBytes,
                                        ArrayRef<int64_t> shape, Location loc,
                                        SmallVectorImpl<std::pair<int64_t, int64_t>> &temps) {
  Value bytes = constI64(elemBytes, loc);
  if (!off.isTile())
    return Lowered::splat(b.createOrFold<arith::MulIOp>(loc, toI64(off.scalar, loc), bytes));
  // Widened first: the SE computes in the type of its first CB operand.
  Lowered wide = off.elemType == b.getI64Type()
                     ? off
                     : i64AtOwnShape("Copy", off, Value(), false, shape, loc, temps);
  return i64AtOwnShape("Mul", wide, bytes, false, shape, loc, temps);
}

/// Computes an address-only value as a tile (or a splat) at the current
/// insertion point, for a gather or scatter. New tiles are added to `temps`.
FailureOr<Lowered> KernelLowering::rematerialize(
    Value v, Location loc,
    SmallVectorImpl<std::pair<int64_t, int64_t>> &temps) {
  auto it = tensors.find(v);
  if (it != tensors.end())
    return it->second;
  // A tensor a loop carries as scalars (LoopCarried.cpp), read by a gather.
  if (auto carried = carriedStrides.find(v);
      carried != carriedStrides.end() && scalar(v) && carried->second.parts.empty()) {
    Affine a = carried->second;
    a.base = scalar(v);
    return materializeAffine(a, cast<RankedTensorType>(v.getType()), loc, temps);
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return failure();
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape(type.getShape());
  Type elemType = tileElementType(type);
  auto fresh = [&](int64_t cb) {
    temps.push_back({cb, numElements(shape) * mtia::elementBytes(elemType)});
    return Lowered::tile(cb, elemType, shape);
  };
  // Intermediate tiles are read once, by the command that combines them:
  // pop them right after it, so a deep address expression holds few CBs.
  auto popSince = [&](size_t mark) {
    for (size_t i = mark; i < temps.size(); ++i)
      mtia::CbPopOp::create(b, loc, temps[i].first, temps[i].second);
    temps.truncate(mark);
  };
  if (auto range = dyn_cast<tt::MakeRangeOp>(def)) {
    int64_t cb = nextCb++;
    mtia::SeIotaOp::create(b, loc, cb, elemType, shape[0], range.getStart());
    return fresh(cb);
  }
  if (auto splat = dyn_cast<tt::SplatOp>(def)) {
    Value s = scalar(splat.getSrc());
    if (!s)
      return failure();
    return Lowered::splat(s);
  }
  if (auto cst = dyn_cast<arith::ConstantOp>(def)) {
    auto dense = dyn_cast<SplatElementsAttr>(cst.getValue());
    if (!dense)
      return failure();
    return Lowered::splat(arith::ConstantOp::create(b, 
        loc, cast<TypedAttr>(dense.getSplatValue<Attribute>())));
  }
  if (isa<tt::ExpandDimsOp, tt::BroadcastOp>(def)) {
    auto inner = rematerialize(def->getOperand(0), loc, temps);
    if (failed(inner) || !inner->isTile())
      return inner;
    Lowered out = *inner;
    out.shape = shape;
    if (auto expand = dyn_cast<tt::ExpandDimsOp>(def))
      out.strides.insert(out.strides.begin() + expand.getAxis(), 0);
    return out;
  }
  // Reinterpreting pointers (as atomics on float max/min do) or converting
  // them to and from i64 leaves the addresses unchanged.
  if (isa<tt::BitcastOp, tt::IntToPtrOp, tt::PtrToIntOp>(def) &&
      tileElementType(def->getOperand(0).getType()) == elemType &&
      elemType.isInteger(64))
    return rematerialize(def->getOperand(0), loc, temps);
  if (auto addptr = dyn_cast<tt::AddPtrOp>(def)) {
    size_t mark = temps.size();
    auto ptr = rematerialize(addptr.getPtr(), loc, temps);
    if (failed(ptr))
      return failure();
    int64_t elemBytes = mtia::elementBytes(
        cast<tt::PointerType>(type.getElementType()).getPointeeType());
    // Not where the sum was computed as a tile already (it is also read as
    // data): its operands' tiles may be popped by now, after their last
    // reader, that sum.
    if (auto sum = addptr.getOffset().getDefiningOp<arith::AddIOp>();
        sum && !ptr->isTile() && !tensors.count(sum.getResult())) {
      auto addrs = broadcastSumAddresses(ptr->scalar, sum, elemBytes, shape, loc, temps);
      if (failed(addrs))
        return failure();
      if (*addrs) {
        int64_t cb = nextCb++;
        SmallVector<Value> imms;
        Attribute lhs = sourceOf((*addrs)->first, imms), rhs = sourceOf((*addrs)->second, imms);
        mtia::SeOp::create(b, loc, imms, ValueRange{}, "Add", cb, b.getI64Type(), shape,
                           b.getArrayAttr({lhs, rhs}));
        popSince(mark);
        return fresh(cb);
      }
    }
    auto off = rematerialize(addptr.getOffset(), loc, temps);
    if (failed(off))
      return failure();
    // address = ptr + (i64) offset * elemBytes, the offsets scaled at their
    // own shape (a broadcast [1, cols] once, not per row).
    Lowered bytes = bytesAtOwnShape(*off, elemBytes, shape, loc, temps);
    SmallVector<Value> imms;
    Attribute ptrSrc = sourceOf(*ptr, imms);
    Attribute bytesSrc = sourceOf(bytes, imms);
    int64_t addr = nextCb++;
    mtia::SeOp::create(b, loc, imms, ValueRange{}, "Add", addr, b.getI64Type(), shape,
                       b.getArrayAttr({ptrSrc, bytesSrc}));
    popSince(mark);
    return fresh(addr);
  }
  StringRef opcode = seOpcodeFor(def);
  if (!opcode.empty()) {
    SmallVector<Value> imms;
    SmallVector<Attribute> srcs;
    size_t mark = temps.size();
    for (Value operand : def->getOperands()) {
      auto l = rematerialize(operand, loc, temps);
      if (failed(l))
        return failure();
      srcs.push_back(sourceOf(*l, imms));
    }
    int64_t cb = nextCb++;
    emitElementwise(loc, imms, opcode, cb, elemType, shape, srcs);
    popSince(mark);
    return fresh(cb);
  }
  return failure();
}


} // namespace mlir::triton_mtia::tt_to_mtia
