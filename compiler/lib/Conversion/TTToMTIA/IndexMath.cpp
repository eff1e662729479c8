//===- IndexMath.cpp - `//` and `%` by constants in index expressions ---===//
//
// Inductor flattens an N-D tensor's index into one range and recovers the
// coordinates with integer division and remainder by constants:
//
//   x0 = xindex % 16;  x1 = (xindex // 16) % 8;  x2 = xindex // 128
//   tl.load(in_ptr0 + (x1 + 8 * x0 + 128 * x2), xmask)
//
// The address is then f(x) = s1 * floor(x / d) + s2 * (x mod d) (paper
// section 5.1), which is not affine in x, but it is affine in the *digits*
// of x: over a block of 1024 indices that starts at a multiple of 128,
// x = 128 * j0 + 16 * j1 + j2 with j0 < 8, j1 < 8, j2 < 16, and x2 = j0,
// x1 = j1, x0 = j2. The block is then one 3-D DMA of shape [8, 8, 16] with
// strides (128, 1, 8): the same bytes, in the same order, as the dense
// 1-D tile.
//
// So the structured-access analysis works over digits: an Affine may split a
// tile dimension into several (its `parts`), `//` and `%` split a digit
// where their divisor falls inside it, and sums of two expressions first
// refine both to the digits of either. Digits must nest (every radix point
// of one divides the next), which is what the index math of a tensor's
// shape gives; anything else stays a gather.
//
// The lowering emits no division: divisions of the block's scalar base are
// exact (its known divisor is checked) and everything else is a stride.
//
//===----------------------------------------------------------------------===//

#include "KernelLowering.h"

#include "mlir/IR/Matchers.h"

#include <numeric>

using namespace mlir;
using namespace mlir::triton_mtia;

namespace mlir::triton_mtia::tt_to_mtia {

//===----------------------------------------------------------------------===//
// Facts about lowered scalars
//===----------------------------------------------------------------------===//

/// Divisors are capped here: a value that is 0 in every run is divisible by
/// anything, and large products only matter up to a tile's size.
static constexpr int64_t kDivisorCap = int64_t(1) << 40;

static int64_t divisorOf(Value v, int depth) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value))) {
    int64_t c = value.getSExtValue();
    return c == 0 ? kDivisorCap : std::min(std::abs(c), kDivisorCap);
  }
  if (depth > 32)
    return 1;
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getBody().front())
      return 1;
    auto attr = func.getArgAttrOfType<IntegerAttr>(arg.getArgNumber(),
                                                   "tt.divisibility");
    return attr && attr.getInt() > 0 ? attr.getInt() : 1;
  }
  Operation *def = v.getDefiningOp();
  if (!def)
    return 1;
  auto of = [&](unsigned i) { return divisorOf(def->getOperand(i), depth + 1); };
  if (isa<arith::MulIOp>(def)) {
    int64_t x = of(0), y = of(1);
    return x > kDivisorCap / y ? kDivisorCap : x * y;
  }
  if (isa<arith::AddIOp, arith::SubIOp, arith::MaxSIOp, arith::MinSIOp>(def))
    return std::gcd(of(0), of(1));
  if (isa<arith::SelectOp>(def))
    return std::gcd(of(1), of(2));
  if (isa<arith::ExtSIOp, arith::ExtUIOp, arith::TruncIOp, arith::IndexCastOp>(def))
    return of(0);
  if (isa<arith::DivSIOp, arith::DivUIOp>(def) &&
      matchPattern(def->getOperand(1), m_ConstantInt(&value)) &&
      value.isStrictlyPositive() && of(0) % value.getSExtValue() == 0)
    return of(0) / value.getSExtValue(); // an exact division
  if (isa<arith::RemSIOp, arith::RemUIOp>(def) &&
      matchPattern(def->getOperand(1), m_ConstantInt(&value)) &&
      value.isStrictlyPositive())
    return std::gcd(of(0), value.getSExtValue());
  return 1;
}

int64_t knownDivisor(Value v) { return divisorOf(v, 0); }

static bool nonNegative(Value v, int depth) {
  APInt value;
  if (matchPattern(v, m_ConstantInt(&value)))
    return !value.isNegative();
  Operation *def = v.getDefiningOp();
  if (!def || depth > 32)
    return false;
  auto of = [&](unsigned i) { return nonNegative(def->getOperand(i), depth + 1); };
  if (isa<mtia::ProgramIdOp, mtia::PeIdOp, mtia::PeGridSizeOp, arith::ExtUIOp>(def))
    return true;
  if (isa<arith::AddIOp, arith::MulIOp, arith::DivSIOp, arith::RemSIOp,
          arith::MinSIOp>(def))
    return of(0) && of(1);
  if (isa<arith::MaxSIOp>(def))
    return of(0) || of(1);
  if (isa<arith::SelectOp>(def))
    return of(1) && of(2);
  if (isa<arith::ExtSIOp, arith::IndexCastOp>(def))
    return of(0);
  return false;
}

bool knownNonNegative(Value v) { return nonNegative(v, 0); }

//===----------------------------------------------------------------------===//
// Digits
//===----------------------------------------------------------------------===//

Digits digitsOf(const Affine &a, ArrayRef<int64_t> shape) {
  if (!a.parts.empty())
    return a.parts;
  Digits digits;
  for (int64_t n : shape)
    digits.push_back({n});
  return digits;
}

int64_t firstDigit(const Digits &digits, int64_t dim) {
  int64_t k = 0;
  for (int64_t d = 0; d < dim; ++d)
    k += digits[d].size();
  return k;
}

SmallVector<int64_t> digitShape(const Digits &digits) {
  SmallVector<int64_t> shape;
  for (const auto &parts : digits)
    shape.append(parts.begin(), parts.end());
  return shape;
}

/// The radix points of one dimension's digits: 1, q_m, q_m * q_{m-1}, ...
/// up to (and without) the dimension's size.
static SmallVector<int64_t> radixPoints(ArrayRef<int64_t> parts) {
  SmallVector<int64_t> points;
  int64_t p = 1;
  for (int64_t k = parts.size() - 1; k >= 0; --k) {
    points.push_back(p);
    p *= parts[k];
  }
  return points;
}

/// Rewrites `a` over `to`, whose digits split `a`'s further: a digit of
/// stride s whose range [p, p * q) holds a finer digit starting at radix
/// point r gives that digit the stride s * r / p.
void KernelLowering::refineDigits(Affine &a, const Digits &to, Location loc) {
  assert(!a.parts.empty() && "refine needs the current digits");
  SmallVector<Value> strides;
  int64_t oldFirst = 0;
  for (auto [from, into] : llvm::zip(a.parts, to)) {
    SmallVector<Value> dimStrides(into.size());
    int64_t oldDigit = from.size() - 1;
    int64_t oldPoint = 1; // radix point where the current old digit starts
    int64_t newPoint = 1;
    for (int64_t k = into.size() - 1; k >= 0; --k) {
      while (oldDigit > 0 && newPoint >= oldPoint * from[oldDigit]) {
        oldPoint *= from[oldDigit];
        --oldDigit;
      }
      Value s = a.strides[oldFirst + oldDigit];
      dimStrides[k] = newPoint == oldPoint
                          ? s
                          : b.createOrFold<arith::MulIOp>(
                                loc, s, constI64(newPoint / oldPoint, loc));
      newPoint *= into[k];
    }
    strides.append(dimStrides);
    oldFirst += from.size();
  }
  a.strides = std::move(strides);
  a.parts = to;
}

/// Refines `x` and `y` (over a tile of `shape`) to common digits: per
/// dimension the union of both radix points, which must nest. False when
/// they do not (x % 3 beside x % 4).
bool KernelLowering::unifyDigits(Affine &x, Affine &y, ArrayRef<int64_t> shape,
                                 Location loc) {
  if (x.parts.empty() && y.parts.empty())
    return true;
  Digits dx = digitsOf(x, shape), dy = digitsOf(y, shape);
  if (dx == dy)
    return true;
  Digits common;
  for (auto [d, n] : llvm::enumerate(shape)) {
    SmallVector<int64_t> points = radixPoints(dx[d]);
    llvm::append_range(points, radixPoints(dy[d]));
    llvm::sort(points);
    points.erase(llvm::unique(points), points.end());
    points.push_back(n);
    SmallVector<int64_t, 2> parts;
    for (size_t k = points.size() - 1; k > 0; --k) {
      if (points[k] % points[k - 1] != 0)
        return false;
      parts.push_back(points[k] / points[k - 1]);
    }
    if (parts.empty())
      parts.push_back(n); // a dimension of size 1
    common.push_back(parts);
  }
  x.parts = std::move(dx);
  y.parts = std::move(dy);
  refineDigits(x, common, loc);
  refineDigits(y, common, loc);
  return true;
}

/// Merges each dimension's digits back into one where they only spell out
/// the dimension's index (digit strides s * radix point), so that a mask's
/// comparison sees `s * i_d` again. False when some dimension's digits are
/// not of that form.
bool coarsenDigits(Affine &a) {
  if (a.parts.empty())
    return true;
  SmallVector<Value> strides;
  int64_t k = 0;
  for (const auto &parts : a.parts) {
    int64_t n = parts.size();
    // Digit j must move by (the innermost stride) * (its radix point).
    int64_t point = 1;
    APInt inner, value;
    for (int64_t j = n - 1; j >= 0 && n > 1; --j) {
      if (!matchPattern(a.strides[k + j], m_ConstantInt(&value)) ||
          !matchPattern(a.strides[k + n - 1], m_ConstantInt(&inner)) ||
          value.getSExtValue() != inner.getSExtValue() * point)
        return false;
      point *= parts[j];
    }
    strides.push_back(a.strides[k + n - 1]);
    k += n;
  }
  a.strides = std::move(strides);
  a.parts.clear();
  return true;
}

//===----------------------------------------------------------------------===//
// x // d and x % d
//===----------------------------------------------------------------------===//

/// `x // d` or `x % d` (signed or unsigned) for a constant d > 0 and an
/// index x = base + sum_k s_k * j_k that is never negative (so C's
/// truncating division is floor division). Each digit is either *high*, a
/// multiple of d (it moves x // d by s_k / d and leaves x % d alone), or
/// *low*, below d; a digit that straddles d is split at it first. The low
/// digits and the base's remainder must stay below d together, so they are
/// exactly x % d and never carry into x // d. The base is a constant or a
/// non-negative multiple of g where d divides g (blocks of whole rows) or g
/// divides d (blocks inside one row: x // d is then uniform over the block).
std::optional<Affine> KernelLowering::analyzeDivRem(Operation *def,
                                                    Location loc) {
  if (!indexMath)
    return std::nullopt;
  bool isRem = isa<arith::RemSIOp, arith::RemUIOp>(def);
  auto shape = cast<RankedTensorType>(def->getResult(0).getType()).getShape();
  auto x = analyzeIndex(def->getOperand(0), loc);
  auto divisor = x ? analyzeIndex(def->getOperand(1), loc) : std::nullopt;
  if (!divisor)
    return std::nullopt;
  APInt value;
  if (!llvm::all_of(divisor->strides,
                    [&](Value s) { return matchPattern(s, m_Zero()); }) ||
      !matchPattern(divisor->base, m_ConstantInt(&value)) ||
      !value.isStrictlyPositive())
    return std::nullopt;
  int64_t d = value.getSExtValue();

  // The base's remainder: known for a constant; at most d - g for a
  // non-negative multiple of g that divides d (a block inside one row of
  // length d), 0 for a multiple of d.
  int64_t baseLowMax = 0;
  if (matchPattern(x->base, m_ConstantInt(&value))) {
    if (value.isNegative())
      return std::nullopt;
    baseLowMax = value.getSExtValue() % d;
  } else {
    int64_t g = knownDivisor(x->base);
    if (!knownNonNegative(x->base) || (g % d != 0 && d % g != 0))
      return std::nullopt;
    baseLowMax = g % d == 0 ? 0 : d - g;
  }

  // Constant, non-negative strides; split the digits that straddle d.
  Digits digits = digitsOf(*x, shape);
  SmallVector<int64_t> strides;
  for (Value s : x->strides) {
    if (!matchPattern(s, m_ConstantInt(&value)) || value.isNegative())
      return std::nullopt;
    strides.push_back(value.getSExtValue());
  }
  Digits split;
  int64_t k = 0;
  bool didSplit = false;
  for (const auto &parts : digits) {
    SmallVector<int64_t, 2> into;
    for (int64_t q : parts) {
      int64_t s = strides[k++];
      if (s != 0 && q > 1 && s < d && d % s == 0 && q > d / s) {
        if (q % (d / s) != 0)
          return std::nullopt; // d falls inside the digit's range
        into.push_back(q / (d / s));
        into.push_back(d / s);
        didSplit = true;
      } else {
        into.push_back(q);
      }
    }
    split.push_back(into);
  }
  if (didSplit) {
    x->parts = std::move(digits);
    refineDigits(*x, split, loc);
    strides.clear();
    for (Value s : x->strides) {
      matchPattern(s, m_ConstantInt(&value));
      strides.push_back(value.getSExtValue());
    }
  } else {
    x->parts = std::move(digits);
  }

  SmallVector<int64_t> sizes = digitShape(x->parts);
  int64_t lowMax = baseLowMax;
  Affine out{nullptr, {}, x->parts};
  for (auto [s, q] : llvm::zip(strides, sizes)) {
    if (q == 1)
      s = 0; // a digit that never moves
    bool high = s % d == 0;
    if (!high) {
      if (s > d)
        return std::nullopt;
      lowMax += s * (q - 1);
    }
    int64_t stride = isRem ? (high ? 0 : s) : (high ? s / d : 0);
    out.strides.push_back(constI64(stride, loc));
  }
  if (lowMax >= d)
    return std::nullopt; // the low digits carry into x // d
  // The base's part: folded for a constant, else one scalar division on the
  // core (the base is non-negative, so C's division is floor division).
  Value divisorV = constI64(d, loc);
  if (isRem)
    out.base = knownDivisor(x->base) % d == 0
                   ? constI64(0, loc)
                   : b.createOrFold<arith::RemSIOp>(loc, x->base, divisorV);
  else
    out.base = b.createOrFold<arith::DivSIOp>(loc, x->base, divisorV);
  return out;
}

} // namespace mlir::triton_mtia::tt_to_mtia
