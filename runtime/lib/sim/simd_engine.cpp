//===- simd_engine.cpp - Functional semantics of the SIMD Engine ----------===//
//
// Each opcode is one scalar function per value type, found through the
// `with*` selectors below. The element loops and the validity checks both go
// through those selectors, so what is accepted at issue is exactly what can
// be computed.
//
//===----------------------------------------------------------------------===//

#include "mtia/sim/simd_engine.h"

#include "mtia/sim/elements.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace mtia::sim {

namespace {

constexpr int kArity[] = {
#define MTIA_SE_OP(Name, Arity) Arity,
#include "mtia/se_ops.def"
};
constexpr const char *kSeNames[] = {
#define MTIA_SE_OP(Name, Arity) #Name,
#include "mtia/se_ops.def"
};
constexpr const char *kReduceNames[] = {
#define MTIA_SE_REDUCE(Name) #Name,
#include "mtia/se_reduce_ops.def"
};
constexpr size_t kNumSeOps = sizeof(kArity) / sizeof(kArity[0]);
constexpr size_t kNumReduceOps = sizeof(kReduceNames) / sizeof(kReduceNames[0]);

template <class V> constexpr bool kIsInt = std::is_integral_v<V> && !std::is_same_v<V, bool>;


/// Wrapping two's-complement arithmetic in the width of V.
template <class V> V wrap(uint64_t x) {
  return static_cast<V>(static_cast<std::make_unsigned_t<V>>(x));
}

/// The high half of the full product of x and y, as signed or unsigned
/// integers of V's width.
template <class V, bool Signed> V mulHi(V x, V y) {
  using U = std::make_unsigned_t<V>;
  constexpr int kBits = sizeof(V) * 8;
  if constexpr (sizeof(V) == 8) {
    if constexpr (Signed)
      return V((__int128(x) * __int128(y)) >> 64);
    else
      return V((unsigned __int128)U(x) * U(y) >> 64);
  } else if constexpr (Signed) {
    return V((int64_t(x) * int64_t(y)) >> kBits);
  } else {
    return V((uint64_t(U(x)) * uint64_t(U(y))) >> kBits);
  }
}

/// The inverse of erf: an initial guess from the closed form with a = 0.147
/// (|error| < 2e-3), then Newton steps on erf(x) - y, each of which about
/// doubles the correct digits. Exact at 0, +-inf at +-1, NaN outside.
double erfinv(double y) {
  if (std::isnan(y) || std::fabs(y) > 1)
    return std::numeric_limits<double>::quiet_NaN();
  if (std::fabs(y) == 1)
    return std::copysign(std::numeric_limits<double>::infinity(), y);
  if (y == 0)
    return y;
  const double a = 0.147, pi = 3.14159265358979323846;
  const double l = std::log1p(-y * y); // ln(1 - y^2), accurate near y = 0
  const double t = 2 / (pi * a) + l / 2;
  double x = std::copysign(std::sqrt(std::sqrt(t * t - l / a) - t), y);
  for (int i = 0; i < 4; ++i) {
    // r = erf(x) - y; near |y| = 1 written with erfc, which keeps the
    // digits that 1 - erfc would lose.
    const double r = std::fabs(y) > 0.5 ? std::copysign(1 - std::fabs(y), y) - std::copysign(std::erfc(std::fabs(x)), y)
                                        : std::erf(x) - y;
    const double slope = 2 / std::sqrt(pi) * std::exp(-x * x);
    if (slope == 0)
      break;
    x -= r / slope;
  }
  return x;
}

/// exp(x^2) erfc(x). For x > 26, exp(x^2) overflows while the product is
/// about 1 / (x sqrt(pi)): the continued fraction of erfc there converges in
/// a few terms. Below, the direct product, with x^2 split into its rounded
/// value h and the rounding error l = fma(x, x, -h): exp(h) alone would be
/// off by up to a relative h * 2^-53 (5e-14 near x = 24); exp(h) * (1 + l)
/// is not.
double erfcx(double x) {
  if (std::isnan(x))
    return x;
  // Below -26.7, exp(x^2) > DBL_MAX and erfc(x) > 1 (and at -inf,
  // fma(x, x, -h) would be NaN).
  if (x < -26.7)
    return std::numeric_limits<double>::infinity();
  if (x < 26) {
    const double h = x * x, l = std::fma(x, x, -h);
    return std::exp(h) * (1 + l) * std::erfc(x);
  }
  // erfcx(x) = 1/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...))))).
  double f = x;
  for (int k = 40; k >= 1; --k)
    f = x + (k / 2.0) / f;
  return 1 / (std::sqrt(3.14159265358979323846) * f);
}

/// f(x) of an odd function f from f(|x|) (J1 changes sign on its own, so
/// not copysign); -0 at -0.
double odd(double atAbs, double x) { return std::signbit(x) ? -atAbs : atAbs; }

/// Modified Bessel functions of the first kind at |x|. I0 and I1 overflow
/// double past 713.99 (about e^x / sqrt(2 pi x)); libstdc++ would iterate a
/// continued fraction about x times there and throws (at 1e8, at inf).
double besselIAbs(int order, double x) {
  const double ax = std::fabs(x);
  if (ax > 720)
    return std::numeric_limits<double>::infinity();
  return std::cyl_bessel_i(double(order), ax);
}

/// Bessel functions of the first kind at |x|; 0 at infinity (libstdc++'s
/// asymptotic form gives NaN there, libm's j0/j1 give 0).
double besselJAbs(int order, double x) {
  const double ax = std::fabs(x);
  return std::isinf(ax) ? 0.0 : std::cyl_bessel_j(double(order), ax);
}

/// Bessel functions of the second kind: NaN below 0, -inf at 0, 0 at inf.
double besselY(int order, double x) {
  if (std::isnan(x) || x < 0)
    return std::numeric_limits<double>::quiet_NaN();
  if (x == 0)
    return -std::numeric_limits<double>::infinity();
  if (std::isinf(x))
    return 0.0;
  return std::cyl_neumann(double(order), x);
}

/// Calls f(fn), fn the scalar function of unary `op` on V; false if `op` has
/// no meaning on V.
template <class V, class F> bool withUnary(SeOp op, F &&f) {
  if constexpr (std::is_same_v<V, bool>) {
    switch (op) {
    case SeOp::Copy: f([](V x) { return x; }); return true;
    case SeOp::Not: f([](V x) { return !x; }); return true;
    default: return false;
    }
  } else if constexpr (std::is_floating_point_v<V>) {
    switch (op) {
    case SeOp::Copy: f([](V x) { return x; }); return true;
    case SeOp::Neg: f([](V x) { return -x; }); return true;
    case SeOp::Abs: f([](V x) { return std::fabs(x); }); return true;
    case SeOp::Exp: f([](V x) { return std::exp(x); }); return true;
    case SeOp::Exp2: f([](V x) { return std::exp2(x); }); return true;
    case SeOp::Log: f([](V x) { return std::log(x); }); return true;
    case SeOp::Log2: f([](V x) { return std::log2(x); }); return true;
    case SeOp::Sqrt: f([](V x) { return std::sqrt(x); }); return true;
    case SeOp::Rsqrt: f([](V x) { return V(1) / std::sqrt(x); }); return true;
    case SeOp::Sin: f([](V x) { return std::sin(x); }); return true;
    case SeOp::Cos: f([](V x) { return std::cos(x); }); return true;
    case SeOp::Tanh: f([](V x) { return std::tanh(x); }); return true;
    case SeOp::Erf: f([](V x) { return std::erf(x); }); return true;
    case SeOp::Floor: f([](V x) { return std::floor(x); }); return true;
    case SeOp::Ceil: f([](V x) { return std::ceil(x); }); return true;
    // The host runs in the default rounding mode: nearbyint rounds to even.
    case SeOp::Rint: f([](V x) { return std::nearbyint(x); }); return true;
    case SeOp::Trunc: f([](V x) { return std::trunc(x); }); return true;
    case SeOp::Log1p: f([](V x) { return std::log1p(x); }); return true;
    case SeOp::Expm1: f([](V x) { return std::expm1(x); }); return true;
    case SeOp::Log10: f([](V x) { return std::log10(x); }); return true;
    case SeOp::Exp10: f([](V x) { return std::pow(V(10), x); }); return true;
    case SeOp::Tan: f([](V x) { return std::tan(x); }); return true;
    case SeOp::Atan: f([](V x) { return std::atan(x); }); return true;
    case SeOp::Asin: f([](V x) { return std::asin(x); }); return true;
    case SeOp::Acos: f([](V x) { return std::acos(x); }); return true;
    case SeOp::Sinh: f([](V x) { return std::sinh(x); }); return true;
    case SeOp::Cosh: f([](V x) { return std::cosh(x); }); return true;
    case SeOp::Asinh: f([](V x) { return std::asinh(x); }); return true;
    case SeOp::Acosh: f([](V x) { return std::acosh(x); }); return true;
    case SeOp::Atanh: f([](V x) { return std::atanh(x); }); return true;
    case SeOp::Erfc: f([](V x) { return std::erfc(x); }); return true;
    case SeOp::Cbrt: f([](V x) { return std::cbrt(x); }); return true;
    case SeOp::Lgamma: f([](V x) { return std::lgamma(x); }); return true;
    case SeOp::Tgamma: f([](V x) { return std::tgamma(x); }); return true;
    case SeOp::Logb: f([](V x) { return std::logb(x); }); return true;
    case SeOp::Erfinv: f([](V x) { return V(erfinv(double(x))); }); return true;
    case SeOp::Erfcx: f([](V x) { return V(erfcx(double(x))); }); return true;
    // libstdc++'s C++17 special functions take x >= 0; the rest by parity
    // (i0, j0 even; i1, j1 odd), and y0, y1 are NaN below 0.
    case SeOp::BesselI0: f([](V x) { return V(besselIAbs(0, double(x))); }); return true;
    case SeOp::BesselI1: f([](V x) { return V(odd(besselIAbs(1, double(x)), double(x))); }); return true;
    case SeOp::BesselJ0: f([](V x) { return V(besselJAbs(0, double(x))); }); return true;
    case SeOp::BesselJ1: f([](V x) { return V(odd(besselJAbs(1, double(x)), double(x))); }); return true;
    case SeOp::BesselY0: f([](V x) { return V(besselY(0, double(x))); }); return true;
    case SeOp::BesselY1: f([](V x) { return V(besselY(1, double(x))); }); return true;
    default: return false;
    }
  } else {
    switch (op) {
    case SeOp::Copy: f([](V x) { return x; }); return true;
    case SeOp::Neg: f([](V x) { return wrap<V>(0 - uint64_t(x)); }); return true;
    case SeOp::Abs: f([](V x) { return x < 0 ? wrap<V>(0 - uint64_t(x)) : x; }); return true;
    case SeOp::Not: f([](V x) { return V(~x); }); return true;
    default: return false;
    }
  }
}

/// As withUnary, for binary opcodes whose result has the operands' type.
template <class V, class F> bool withBinary(SeOp op, F &&f) {
  if constexpr (std::is_same_v<V, bool>) {
    switch (op) {
    case SeOp::And: f([](V x, V y) { return x && y; }); return true;
    case SeOp::Or: f([](V x, V y) { return x || y; }); return true;
    case SeOp::Xor: f([](V x, V y) { return x != y; }); return true;
    default: return false;
    }
  } else if constexpr (std::is_floating_point_v<V>) {
    switch (op) {
    case SeOp::Add: f([](V x, V y) { return x + y; }); return true;
    case SeOp::Sub: f([](V x, V y) { return x - y; }); return true;
    case SeOp::Mul: f([](V x, V y) { return x * y; }); return true;
    case SeOp::Div: f([](V x, V y) { return x / y; }); return true;
    case SeOp::Rem: f([](V x, V y) { return std::fmod(x, y); }); return true;
    case SeOp::Max: f([](V x, V y) { return maxNumOf(x, y); }); return true;
    case SeOp::Min: f([](V x, V y) { return minNumOf(x, y); }); return true;
    case SeOp::Maximum: f([](V x, V y) { return maximumOf(x, y); }); return true;
    case SeOp::Minimum: f([](V x, V y) { return minimumOf(x, y); }); return true;
    case SeOp::Pow: f([](V x, V y) { return std::pow(x, y); }); return true;
    case SeOp::Atan2: f([](V x, V y) { return std::atan2(x, y); }); return true;
    case SeOp::Remainder: f([](V x, V y) { return std::remainder(x, y); }); return true;
    case SeOp::Nextafter: f([](V x, V y) { return std::nextafter(x, y); }); return true;
    default: return false;
    }
  } else {
    using U = std::make_unsigned_t<V>;
    switch (op) {
    case SeOp::Add: f([](V x, V y) { return wrap<V>(uint64_t(x) + uint64_t(y)); }); return true;
    case SeOp::Sub: f([](V x, V y) { return wrap<V>(uint64_t(x) - uint64_t(y)); }); return true;
    case SeOp::Mul: f([](V x, V y) { return wrap<V>(uint64_t(x) * uint64_t(y)); }); return true;
    // The integer semantics of device.h, shared with scalar code.
    case SeOp::Div: f([](V x, V y) { return divSigned(x, y); }); return true;
    case SeOp::DivU: f([](V x, V y) { return divUnsigned(x, y); }); return true;
    case SeOp::Rem: f([](V x, V y) { return remSigned(x, y); }); return true;
    case SeOp::RemU: f([](V x, V y) { return remUnsigned(x, y); }); return true;
    case SeOp::Max:
    case SeOp::Maximum: f([](V x, V y) { return std::max(x, y); }); return true;
    case SeOp::Min:
    case SeOp::Minimum: f([](V x, V y) { return std::min(x, y); }); return true;
    case SeOp::MaxU: f([](V x, V y) { return U(x) > U(y) ? x : y; }); return true;
    case SeOp::MinU: f([](V x, V y) { return U(x) < U(y) ? x : y; }); return true;
    case SeOp::MulHiU: f([](V x, V y) { return mulHi<V, false>(x, y); }); return true;
    case SeOp::MulHiS: f([](V x, V y) { return mulHi<V, true>(x, y); }); return true;
    case SeOp::And: f([](V x, V y) { return V(x & y); }); return true;
    case SeOp::Or: f([](V x, V y) { return V(x | y); }); return true;
    case SeOp::Xor: f([](V x, V y) { return V(x ^ y); }); return true;
    case SeOp::Shl: f([](V x, V y) { return shiftLeft(x, y); }); return true;
    case SeOp::ShrS: f([](V x, V y) { return shiftRightSigned(x, y); }); return true;
    case SeOp::ShrU: f([](V x, V y) { return shiftRightUnsigned(x, y); }); return true;
    default: return false;
    }
  }
}

/// As withUnary, for comparisons (result bool).
template <class V, class F> bool withCompare(SeOp op, F &&f) {
  switch (op) {
  case SeOp::CmpEq: f([](V x, V y) { return x == y; }); return true;
  case SeOp::CmpNe: f([](V x, V y) { return x != y; }); return true;
  default: break;
  }
  if constexpr (std::is_same_v<V, bool>) {
    // i1 as LLVM orders it: unsigned 0 < 1, signed -1 (true) < 0 (false).
    // Inductor's NaN-aware argmax/cummax combines compare two isnan masks.
    switch (op) {
    case SeOp::CmpULt: f([](V x, V y) { return x < y; }); return true;
    case SeOp::CmpULe: f([](V x, V y) { return x <= y; }); return true;
    case SeOp::CmpUGt: f([](V x, V y) { return x > y; }); return true;
    case SeOp::CmpUGe: f([](V x, V y) { return x >= y; }); return true;
    case SeOp::CmpLt: f([](V x, V y) { return x > y; }); return true;
    case SeOp::CmpLe: f([](V x, V y) { return x >= y; }); return true;
    case SeOp::CmpGt: f([](V x, V y) { return x < y; }); return true;
    case SeOp::CmpGe: f([](V x, V y) { return x <= y; }); return true;
    default: return false;
    }
  } else {
    switch (op) {
    case SeOp::CmpLt: f([](V x, V y) { return x < y; }); return true;
    case SeOp::CmpLe: f([](V x, V y) { return x <= y; }); return true;
    case SeOp::CmpGt: f([](V x, V y) { return x > y; }); return true;
    case SeOp::CmpGe: f([](V x, V y) { return x >= y; }); return true;
    default: break;
    }
    if constexpr (kIsInt<V>) {
      using U = std::make_unsigned_t<V>;
      switch (op) {
      case SeOp::CmpULt: f([](V x, V y) { return U(x) < U(y); }); return true;
      case SeOp::CmpULe: f([](V x, V y) { return U(x) <= U(y); }); return true;
      case SeOp::CmpUGt: f([](V x, V y) { return U(x) > U(y); }); return true;
      case SeOp::CmpUGe: f([](V x, V y) { return U(x) >= U(y); }); return true;
      default: break;
      }
    }
    return false;
  }
}

/// As withUnary, for Fma (Select is type-generic and handled apart).
template <class V, class F> bool withTernary(SeOp op, F &&f) {
  if (op != SeOp::Fma)
    return false;
  if constexpr (std::is_floating_point_v<V>) {
    f([](V x, V y, V z) { return std::fma(x, y, z); });
    return true;
  } else if constexpr (kIsInt<V>) {
    f([](V x, V y, V z) { return wrap<V>(uint64_t(x) * uint64_t(y) + uint64_t(z)); });
    return true;
  }
  return false;
}

SeOp reduceAsBinary(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum: return SeOp::Add;
  case ReduceOp::Prod: return SeOp::Mul;
  case ReduceOp::Max: return SeOp::Max;
  case ReduceOp::Min: return SeOp::Min;
  case ReduceOp::MaxU: return SeOp::MaxU;
  case ReduceOp::MinU: return SeOp::MinU;
  case ReduceOp::Maximum: return SeOp::Maximum;
  case ReduceOp::Minimum: return SeOp::Minimum;
  case ReduceOp::And: return SeOp::And;
  case ReduceOp::Or: return SeOp::Or;
  case ReduceOp::Xor: return SeOp::Xor;
  }
  return SeOp::Copy; // not binary: rejected by the caller
}

/// Shape and strides padded to rank 4 (leading dimensions of 1).
struct Iter4 {
  int64_t dim[4];
  int64_t stride[4];
  Iter4(const Shape &s, const int64_t *stride4) {
    int pad = kMaxRank - s.rank;
    for (int i = 0; i < kMaxRank; ++i) {
      dim[i] = i < pad ? 1 : s.dim[i - pad];
      stride[i] = i < pad ? 0 : stride4[i - pad];
    }
  }
};

/// The operand as values of computation type C, dense over `shape`, each
/// value rounded to C.
template <DType C> void materialize(const SeInput &in, const Shape &shape, ValueOf<C> *out) {
  using V = ValueOf<C>;
  const Operand &o = *in.operand;
  const int64_t n = shape.numElements();
  if (o.kind == Operand::Kind::Imm) {
    uint8_t bytes[8];
    encodeImmediate(o, C, bytes);
    std::fill(out, out + n, loadElement<C>(bytes));
    return;
  }
  Iter4 it(shape, o.stride);
  dispatchDType(o.dtype, [&](auto d) {
    constexpr DType D = decltype(d)::value;
    constexpr int64_t es = dtypeSize(D);
    const bool round = C != D;
    V *w = out;
    for (int64_t i0 = 0; i0 < it.dim[0]; ++i0)
      for (int64_t i1 = 0; i1 < it.dim[1]; ++i1)
        for (int64_t i2 = 0; i2 < it.dim[2]; ++i2) {
          int64_t idx = o.offset - in.first + i0 * it.stride[0] + i1 * it.stride[1] +
                        i2 * it.stride[2];
          const uint8_t *p = in.data + idx * es;
          const int64_t step = it.stride[3] * es;
          for (int64_t i3 = 0; i3 < it.dim[3]; ++i3, p += step)
            *w++ = convertValue<V>(loadElement<D>(p));
        }
    if (round)
      for (int64_t i = 0; i < n; ++i)
        out[i] = roundTo<C>(out[i]);
  });
}

/// Calls f(fn) for reduction `op`'s combining function on V; false if none.
template <class V, class F> bool withCombine(ReduceOp op, F &&f) {
  return withBinary<V>(reduceAsBinary(op), std::forward<F>(f));
}

/// Calls f(byteOffset) for each element of a CB operand's view over
/// `shape`, in row-major order of the shape.
template <class F> void forEachView(const SeInput &in, const Shape &shape, int64_t es, F &&f) {
  Iter4 it(shape, in.operand->stride);
  for (int64_t i0 = 0; i0 < it.dim[0]; ++i0)
    for (int64_t i1 = 0; i1 < it.dim[1]; ++i1)
      for (int64_t i2 = 0; i2 < it.dim[2]; ++i2) {
        int64_t idx = in.operand->offset - in.first + i0 * it.stride[0] +
                      i1 * it.stride[1] + i2 * it.stride[2];
        for (int64_t i3 = 0; i3 < it.dim[3]; ++i3, idx += it.stride[3])
          f(idx * es);
      }
}

/// Writes `n` values to `dst` as dtype `t`.
template <class V> void storeAll(const V *values, int64_t n, DType t, uint8_t *dst) {
  dispatchDType(t, [&](auto d) {
    constexpr DType D = decltype(d)::value;
    constexpr int64_t es = dtypeSize(D);
    for (int64_t i = 0; i < n; ++i)
      storeElement<D>(dst + i * es, values[i]);
  });
}

bool isQuantize(SeOp op) { return op == SeOp::Quantize || op == SeOp::QuantizeU; }
bool isDequantize(SeOp op) { return op == SeOp::Dequantize || op == SeOp::DequantizeU; }

/// The integral value `v` saturated into the signed (or, with `isUnsigned`,
/// the unsigned) range of a `bits`-wide integer, as the bits of that integer
/// (two's complement for signed); NaN gives 0.
uint64_t saturateToBits(double v, int bits, bool isUnsigned) {
  if (std::isnan(v))
    return 0;
  if (isUnsigned) {
    if (!(v > 0))
      return 0;
    if (v >= std::ldexp(1.0, bits))
      return bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    return uint64_t(v);
  }
  const double limit = std::ldexp(1.0, bits - 1);
  const int64_t hi = bits == 64 ? std::numeric_limits<int64_t>::max()
                                : (int64_t(1) << (bits - 1)) - 1;
  if (v >= limit)
    return uint64_t(hi);
  if (v < -limit)
    return uint64_t(-hi - 1);
  return uint64_t(int64_t(v));
}

/// Quantize / QuantizeU: out = sat(rint(x * scale) + zp), in F32 (x, scale
/// and zp are first converted to F32); a NaN product gives zp, a NaN sum 0.
/// A fractional zero point makes the sum fractional: it is rounded to
/// nearest even again before the saturation.
void runQuantize(SeOp op, DType out, const Shape &shape, const SeInput *in, uint8_t *dst,
                 SeScratch &scratch) {
  const int64_t count = shape.numElements();
  float *x = scratch.get<float>(0, count), *scale = scratch.get<float>(1, count),
        *zp = scratch.get<float>(2, count);
  materialize<DType::F32>(in[0], shape, x);
  materialize<DType::F32>(in[1], shape, scale);
  materialize<DType::F32>(in[2], shape, zp);
  const int es = dtypeSize(out), bits = es * 8;
  const bool isUnsigned = op == SeOp::QuantizeU;
  for (int64_t i = 0; i < count; ++i) {
    float p = x[i] * scale[i];
    if (std::isnan(p))
      p = 0.0f;
    // The host runs in the default rounding mode: nearbyint rounds to even.
    const float q = std::nearbyint(std::nearbyint(p) + zp[i]);
    const uint64_t v = saturateToBits(double(q), bits, isUnsigned);
    std::memcpy(dst + i * es, &v, size_t(es)); // little-endian: the low bytes
  }
}

/// Dequantize / DequantizeU: out = (float(q) - zp) * scale in F32, q read
/// as signed (or unsigned) integers of its dtype; converted to `out`.
void runDequantize(SeOp op, DType out, const Shape &shape, const SeInput *in, uint8_t *dst,
                   SeScratch &scratch) {
  const int64_t count = shape.numElements();
  float *q = scratch.get<float>(0, count), *scale = scratch.get<float>(1, count),
        *zp = scratch.get<float>(2, count);
  dispatchDType(in[0].operand->dtype, [&](auto d) {
    constexpr DType D = decltype(d)::value;
    using V = ValueOf<D>;
    if constexpr (kIsInt<V>) {
      V *raw = scratch.get<V>(3, count);
      materialize<D>(in[0], shape, raw);
      using U = std::make_unsigned_t<V>;
      for (int64_t i = 0; i < count; ++i)
        q[i] = op == SeOp::DequantizeU ? float(U(raw[i])) : float(raw[i]);
    }
  });
  materialize<DType::F32>(in[1], shape, scale);
  materialize<DType::F32>(in[2], shape, zp);
  for (int64_t i = 0; i < count; ++i) {
    const float centered = q[i] - zp[i];
    q[i] = centered * scale[i];
  }
  storeAll(q, count, out, dst);
}

} // namespace

const char *seOpName(SeOp op) {
  return size_t(op) < kNumSeOps ? kSeNames[size_t(op)] : "?";
}
const char *reduceOpName(ReduceOp op) {
  return size_t(op) < kNumReduceOps ? kReduceNames[size_t(op)] : "?";
}
bool seOpIsVectorOnly(SeOp op) {
  switch (op) {
#define MTIA_SE_OP(Name, Arity)
#define MTIA_VEC_OP(Name, Arity) case SeOp::Name:
#include "mtia/se_ops.def"
    return true;
  default:
    return false;
  }
}

int seOpArity(SeOp op) { return size_t(op) < kNumSeOps ? kArity[size_t(op)] : 0; }

int vecOpPasses(SeOp op) {
  // The model charges an elementary function (Log1p, Erfc, Atan, ...) one
  // pass, as if the vector core had it as one instruction. The special
  // functions are charged what an fp32 vector routine for them would cost
  // in such functions (not what the double reference above computes):
  switch (op) {
  // a rational approximation around one log (erfinv), one exp times an
  // erfc-like rational (erfcx), one exp times a Chebyshev series (I0, I1).
  case SeOp::Erfinv:
  case SeOp::Erfcx:
  case SeOp::BesselI0:
  case SeOp::BesselI1:
    return 2;
  // rational forms in 1/x^2 scaled by a sqrt, with a sin and a cos of the
  // phase (and a log for Y near 0): three.
  case SeOp::BesselJ0:
  case SeOp::BesselJ1:
  case SeOp::BesselY0:
  case SeOp::BesselY1:
    return 3;
  default:
    return 1;
  }
}

int64_t vecStripCycles(const Shape &shape, const Operand *inputs, int numInputs,
                       const VecStep *steps, int numSteps) {
  // Two pipes, chained: the port to local memory moves one vector register
  // (VLEN bits) a cycle, for the loads and the store, and the ALU takes one
  // pass a cycle. A view broadcast along the innermost dimension that has
  // more than one element holds one value per row: a scalar operand
  // (vfadd.vf), loaded once per row by the scalar core, not a vector load.
  int inner = shape.rank - 1;
  while (inner > 0 && shape.dim[inner] == 1)
    --inner;
  int64_t loads = 0;
  for (int i = 0; i < numInputs; ++i)
    loads += inputs[i].kind == Operand::Kind::Cb && (inner < 0 || inputs[i].stride[inner] != 0);
  int64_t alu = 0;
  for (int k = 0; k < numSteps; ++k)
    alu += vecOpPasses(steps[k].op);
  return std::max(loads + 1, alu); // the loads and the store share the port
}

DType seComputeType(SeOp op, DType out, const Operand *ops, int n) {
  if (op == SeOp::Select)
    return out;
  if (isQuantize(op) || isDequantize(op))
    return DType::F32;
  for (int i = 0; i < n; ++i)
    if (ops[i].kind == Operand::Kind::Cb)
      return ops[i].dtype;
  return ops[0].dtype;
}

std::string checkElementwise(SeOp op, DType out, const Operand *ops, int n) {
  int arity = seOpArity(op);
  if (arity == 0)
    return "unknown SE opcode " + std::to_string(int(op));
  if (n != arity)
    return std::string("SE ") + seOpName(op) + " takes " + std::to_string(arity) +
           " operands, got " + std::to_string(n);
  if (!isValidDType(out))
    return "invalid output dtype";
  for (int i = 0; i < n; ++i)
    if (!isValidDType(ops[i].dtype) ||
        (ops[i].kind != Operand::Kind::Cb && ops[i].kind != Operand::Kind::Imm))
      return "operand " + std::to_string(i) + " has an invalid dtype or kind";
  DType ct = seComputeType(op, out, ops, n);
  // The conversions that say how to read bits are type-generic but not
  // defined on every pair of types.
  switch (op) {
  case SeOp::CopyU:
    return dtypeIsFloat(ct) ? std::string("SE CopyU reads integers, got ") + dtypeName(ct) : "";
  case SeOp::CopyToU:
    return dtypeIsFloat(ct) && !dtypeIsFloat(out)
               ? ""
               : std::string("SE CopyToU converts a float to an integer, got ") +
                     dtypeName(ct) + " to " + dtypeName(out);
  case SeOp::Quantize:
  case SeOp::QuantizeU: {
    const DType x = ops[0].dtype;
    return dtypeIsFloat(x) && !dtypeIsFloat(out) && out != DType::I1
               ? ""
               : std::string("SE ") + seOpName(op) +
                     " converts a float to an integer of 8 to 64 bits, got " + dtypeName(x) +
                     " to " + dtypeName(out);
  }
  case SeOp::Dequantize:
  case SeOp::DequantizeU: {
    const DType q = ops[0].dtype;
    return !dtypeIsFloat(q) && q != DType::I1 && dtypeIsFloat(out)
               ? ""
               : std::string("SE ") + seOpName(op) +
                     " converts an integer of 8 to 64 bits to a float, got " + dtypeName(q) +
                     " to " + dtypeName(out);
  }
  case SeOp::Bitcast:
    return dtypeSize(ct) == dtypeSize(out)
               ? ""
               : std::string("SE Bitcast needs equal sizes, got ") + dtypeName(ct) + " to " +
                     dtypeName(out);
  default: break;
  }
  auto noop = [](auto) {};
  bool ok = dispatchDType(ct, [&](auto c) {
    using V = ValueOf<decltype(c)::value>;
    switch (arity) {
    case 1: return withUnary<V>(op, noop);
    case 2: return withBinary<V>(op, noop) || withCompare<V>(op, noop);
    default: return op == SeOp::Select || withTernary<V>(op, noop);
    }
  });
  return ok ? "" : std::string("SE ") + seOpName(op) + " is not defined on " + dtypeName(ct);
}

std::string checkReduce(ReduceOp op, DType out) {
  if (size_t(op) >= kNumReduceOps)
    return "unknown reduction " + std::to_string(int(op));
  if (!isValidDType(out))
    return "invalid output dtype";
  bool ok = dispatchDType(out, [&](auto c) {
    return withBinary<ValueOf<decltype(c)::value>>(reduceAsBinary(op), [](auto) {});
  });
  return ok ? "" : std::string("reduction ") + reduceOpName(op) + " is not defined on " +
                       dtypeName(out);
}

void runElementwise(SeOp op, DType out, const Shape &shape, const SeInput *in, int n,
                    uint8_t *dst, SeScratch &scratch) {
  const int64_t count = shape.numElements();
  if (op == SeOp::Select) {
    bool *cond = scratch.get<bool>(3, count);
    materialize<DType::I1>(in[0], shape, cond);
    dispatchDType(out, [&](auto o) {
      constexpr DType O = decltype(o)::value;
      using V = ValueOf<O>;
      V *a = scratch.get<V>(0, count), *b = scratch.get<V>(1, count);
      materialize<O>(in[1], shape, a);
      materialize<O>(in[2], shape, b);
      for (int64_t i = 0; i < count; ++i)
        a[i] = cond[i] ? a[i] : b[i];
      storeAll(a, count, out, dst);
    });
    return;
  }
  if (op == SeOp::Bitcast) {
    copyBits(in[0], shape, dst);
    return;
  }
  const Operand ops[3] = {*in[0].operand, n > 1 ? *in[1].operand : Operand(),
                          n > 2 ? *in[2].operand : Operand()};
  if (op == SeOp::CopyU || op == SeOp::CopyToU) {
    convertUnsigned(out, shape, in[0], dst, scratch);
    return;
  }
  if (isQuantize(op)) {
    runQuantize(op, out, shape, in, dst, scratch);
    return;
  }
  if (isDequantize(op)) {
    runDequantize(op, out, shape, in, dst, scratch);
    return;
  }
  dispatchDType(seComputeType(op, out, ops, n), [&](auto c) {
    constexpr DType C = decltype(c)::value;
    using V = ValueOf<C>;
    V *x[3] = {};
    for (int i = 0; i < n; ++i) {
      x[i] = scratch.get<V>(i, count);
      materialize<C>(in[i], shape, x[i]);
    }
    V *r = scratch.get<V>(3, count);
    const V *a = x[0], *b = x[1], *z = x[2];
    bool done = false;
    if (n == 1)
      done = withUnary<V>(op, [&](auto fn) {
        for (int64_t i = 0; i < count; ++i)
          r[i] = fn(a[i]);
      });
    else if (n == 2)
      done = withBinary<V>(op, [&](auto fn) {
        for (int64_t i = 0; i < count; ++i)
          r[i] = fn(a[i], b[i]);
      });
    else
      done = withTernary<V>(op, [&](auto fn) {
        for (int64_t i = 0; i < count; ++i)
          r[i] = fn(a[i], b[i], z[i]);
      });
    if (done) {
      if constexpr (isNarrowFloat(C))
        if (out != C)
          for (int64_t i = 0; i < count; ++i)
            r[i] = roundTo<C>(r[i]);
      storeAll(r, count, out, dst);
      return;
    }
    // Comparisons: the bool results reuse the first operand's array.
    bool *flags = reinterpret_cast<bool *>(r);
    withCompare<V>(op, [&](auto fn) {
      for (int64_t i = 0; i < count; ++i)
        flags[i] = fn(a[i], b[i]);
    });
    storeAll(flags, count, out, dst);
  });
}

void runReduce(ReduceOp op, DType out, const Shape &inShape, int axis, const SeInput &src,
               uint8_t *dst, SeScratch &scratch, const Shape *valid, const Operand *fill) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d)
    outer *= inShape.dim[d];
  for (int d = axis + 1; d < inShape.rank; ++d)
    inner *= inShape.dim[d];
  const int64_t len = inShape.dim[axis];
  dispatchDType(out, [&](auto o) {
    constexpr DType O = decltype(o)::value;
    using V = ValueOf<O>;
    V *x = scratch.get<V>(0, inShape.numElements());
    V *r = scratch.get<V>(1, outer * inner);
    materialize<O>(src, inShape, x);
    if (valid) {
      // Lanes outside the box read as `fill`: the same combine order as
      // the whole tile, so the result is the whole tile's.
      SeInput f;
      f.operand = fill;
      V fv;
      materialize<O>(f, Shape{}, &fv);
      forEachOutside(inShape, *valid, [&](int64_t i) { x[i] = fv; });
    }
    // A tree, as SIMD hardware reduces across lanes and as the compiler's
    // own reductions of combine regions run: each level combines the first
    // half of the remaining values with the second. A float sum of n values
    // then errs by O(log n) roundings, not O(n): summed in order, 2048 fp32
    // lanes of an Inductor reduction drifted by a hundred ulps from the CPU's.
    V *tree = scratch.get<V>(2, len);
    withCombine<V>(op, [&](auto fn) {
      for (int64_t ou = 0; ou < outer; ++ou)
        for (int64_t in = 0; in < inner; ++in) {
          const V *col = x + ou * len * inner + in;
          for (int64_t k = 0; k < len; ++k)
            tree[k] = col[k * inner];
          for (int64_t n = len; n > 1;) {
            const int64_t half = (n + 1) / 2;
            for (int64_t k = 0; k + half < n; ++k)
              tree[k] = roundTo<O>(fn(tree[k], tree[k + half]));
            n = half;
          }
          r[ou * inner + in] = tree[0];
        }
    });
    storeAll(r, outer * inner, out, dst);
  });
}

void poisonOutside(const Shape &shape, const Shape &valid, int64_t elementBytes, uint8_t *dst) {
  forEachOutside(shape, valid, [&](int64_t i) {
    std::memset(dst + i * elementBytes, 0xff, size_t(elementBytes));
  });
}

void copyBits(const SeInput &in, const Shape &shape, uint8_t *dst) {
  const Operand &o = *in.operand;
  const int64_t es = dtypeSize(o.dtype), n = shape.numElements();
  if (o.kind == Operand::Kind::Imm) {
    uint8_t bytes[8];
    encodeImmediate(o, o.dtype, bytes);
    for (int64_t i = 0; i < n; ++i)
      std::memcpy(dst + i * es, bytes, size_t(es));
    return;
  }
  if (shape.rank >= 1 && o.stride[shape.rank - 1] == 1) {
    // Contiguous rows: one copy per row.
    Shape rows = shape;
    const int64_t row = shape.dim[shape.rank - 1];
    rows.dim[shape.rank - 1] = 1;
    uint8_t *w = dst;
    forEachView(in, rows, es, [&](int64_t at) {
      std::memcpy(w, in.data + at, size_t(row * es));
      w += row * es;
    });
    return;
  }
  uint8_t *w = dst;
  forEachView(in, shape, es, [&](int64_t at) {
    std::memcpy(w, in.data + at, size_t(es));
    w += es;
  });
}

void convertUnsigned(DType out, const Shape &shape, const SeInput &in, uint8_t *dst,
                     SeScratch &scratch) {
  const int64_t count = shape.numElements();
  const DType from = in.operand->dtype;
  dispatchDType(from, [&](auto f) {
    constexpr DType F = decltype(f)::value;
    using V = ValueOf<F>;
    V *x = scratch.get<V>(0, count);
    materialize<F>(in, shape, x);
    if constexpr (kIsInt<V>) {
      // CopyU: the integer's bits read as unsigned, then converted.
      using U = std::make_unsigned_t<V>;
      U *u = scratch.get<U>(1, count);
      for (int64_t i = 0; i < count; ++i)
        u[i] = U(x[i]);
      storeAll(u, count, out, dst);
    } else if constexpr (std::is_floating_point_v<V>) {
      // CopyToU: truncate toward zero into the unsigned range of the output's
      // width (saturating, NaN -> 0), then store those bits.
      const int bits = dtypeSize(out) * 8;
      const double limit = std::ldexp(1.0, bits);
      uint64_t *u = scratch.get<uint64_t>(1, count);
      for (int64_t i = 0; i < count; ++i) {
        const double v = double(x[i]);
        u[i] = !(v > 0) ? 0
               : v >= limit ? (bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1)
                            : uint64_t(v);
      }
      dispatchDType(out, [&](auto o) {
        constexpr DType O = decltype(o)::value;
        for (int64_t i = 0; i < count; ++i) {
          if constexpr (O == DType::I1)
            dst[i] = u[i] != 0;
          else
            std::memcpy(dst + i * dtypeSize(O), &u[i], size_t(dtypeSize(O)));
        }
      });
    } else { // I1 read as unsigned is itself
      storeAll(x, count, out, dst);
    }
  });
}

void runScan(ReduceOp op, DType out, const Shape &shape, int axis, bool reverse,
             const SeInput &src, uint8_t *dst, SeScratch &scratch) {
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d)
    outer *= shape.dim[d];
  for (int d = axis + 1; d < shape.rank; ++d)
    inner *= shape.dim[d];
  const int64_t len = shape.dim[axis];
  dispatchDType(out, [&](auto o) {
    constexpr DType O = decltype(o)::value;
    using V = ValueOf<O>;
    V *x = scratch.get<V>(0, shape.numElements());
    materialize<O>(src, shape, x);
    withCombine<V>(op, [&](auto fn) {
      for (int64_t ou = 0; ou < outer; ++ou)
        for (int64_t in = 0; in < inner; ++in) {
          V *col = x + ou * len * inner + in;
          const int64_t first = reverse ? len - 1 : 0, step = reverse ? -1 : 1;
          V acc = col[first * inner];
          for (int64_t k = 1; k < len; ++k) {
            V &e = col[(first + k * step) * inner];
            acc = roundTo<O>(fn(acc, e));
            e = acc;
          }
        }
    });
    storeAll(x, shape.numElements(), out, dst);
  });
}

void runHistogram(int64_t numBins, const Shape &inShape, const SeInput &src,
                  const uint8_t *mask, uint8_t *dst, SeScratch &scratch) {
  const int64_t n = inShape.numElements();
  int64_t *x = scratch.get<int64_t>(0, n);
  materialize<DType::I64>(src, inShape, x);
  std::vector<int32_t> counts(size_t(numBins), 0);
  for (int64_t i = 0; i < n; ++i)
    if ((!mask || mask[i]) && x[i] >= 0 && x[i] < numBins)
      ++counts[size_t(x[i])];
  std::memcpy(dst, counts.data(), counts.size() * 4);
}

bool runGather(DType out, const Shape &outShape, int axis, const SeInput &src,
               const Shape &srcShape, const SeInput &index, uint8_t *dst, SeScratch &scratch,
               int64_t &badIndex) {
  const int64_t n = outShape.numElements();
  int64_t *idx = scratch.get<int64_t>(0, n);
  materialize<DType::I64>(index, outShape, idx);
  for (int64_t i = 0; i < n; ++i)
    if (idx[i] < 0 || idx[i] >= srcShape.dim[axis]) {
      badIndex = idx[i];
      return false;
    }
  // Element i of the output reads the source at its own multi-index with
  // the axis coordinate replaced: subtract the axis part, add the index's.
  const Operand &o = *src.operand;
  const int64_t es = dtypeSize(o.dtype), axisStride = o.stride[axis];
  int64_t *at = scratch.get<int64_t>(1, n);
  int64_t w = 0;
  forEachView(src, outShape, 1, [&](int64_t off) { at[w++] = off; });
  Iter4 it(outShape, o.stride);
  const int pad = kMaxRank - outShape.rank;
  int64_t coord[4] = {0, 0, 0, 0};
  for (int64_t i = 0; i < n; ++i) {
    at[i] += (idx[i] - coord[axis + pad]) * axisStride;
    for (int d = 3; d >= 0; --d) {
      if (++coord[d] < it.dim[d])
        break;
      coord[d] = 0;
    }
  }
  dispatchDType(o.dtype, [&](auto s) {
    constexpr DType S = decltype(s)::value;
    dispatchDType(out, [&](auto d) {
      constexpr DType D = decltype(d)::value;
      for (int64_t i = 0; i < n; ++i)
        storeElement<D>(dst + i * dtypeSize(D), loadElement<S>(src.data + at[i] * es));
    });
  });
  return true;
}

void materializeF32(const SeInput &in, const Shape &shape, float *out) {
  materialize<DType::F32>(in, shape, out);
}
void materializeI32(const SeInput &in, const Shape &shape, int32_t *out) {
  materialize<DType::I32>(in, shape, out);
}

void runIota(DType t, int64_t length, int64_t start, uint8_t *dst) {
  dispatchDType(t, [&](auto d) {
    constexpr DType D = decltype(d)::value;
    for (int64_t i = 0; i < length; ++i)
      storeElement<D>(dst + i * dtypeSize(D), start + i);
  });
}

void operandExtent(const Operand &o, const Shape &shape, int64_t &lo, int64_t &hi) {
  lo = hi = o.offset;
  for (int d = 0; d < shape.rank; ++d) {
    int64_t span = (shape.dim[d] - 1) * o.stride[d];
    (span < 0 ? lo : hi) += span;
  }
}

} // namespace mtia::sim
