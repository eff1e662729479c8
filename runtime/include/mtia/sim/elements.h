//===- elements.h - Element types: storage, conversion, rounding -*- C++ -*-===//
//
// The one place that says how an element of each device.h DType is stored and
// how values convert between types:
//  - every DType has a value type the SE computes in: I1 -> bool,
//    I8..I64 -> intN_t, F16/BF16/F32/F8E4M3/F8E5M2 -> float, F64 -> double;
//  - F16, BF16 and the fp8 types round to nearest even, from float and from
//    double alike (double goes through float rounded to odd, which makes the
//    second rounding exact);
//  - F8E5M2 is IEEE-like (bias 15, infinities, NaN 0x7e); F8E4M3 is e4m3fn
//    (bias 7, max 448, no infinities, NaN 0x7f): a value that rounds past
//    448, infinity included, becomes NaN (as torch's float8_e4m3fn does);
//  - float -> integer truncates toward zero like C, saturating at the
//    integer's range, NaN -> 0; anything -> I1 is `!= 0`;
//  - integer -> integer wraps (two's complement).
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_ELEMENTS_H
#define MTIA_SIM_ELEMENTS_H

#include "mtia/device.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

namespace mtia::sim {

using mtia::bitsOf; // device.h
using mtia::floatOf;

/// float -> IEEE binary16, round to nearest even.
inline uint16_t halfFromFloat(float f) {
  uint32_t x = bitsOf(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x > 0x7f800000u) // NaN stays a (quiet) NaN
    return sign | 0x7e00u;
  if (x >= 0x47800000u) // >= 2^16, infinity included: overflows to infinity
    return sign | 0x7c00u;
  if (x >= 0x38800000u) { // >= 2^-14: a normal half
    uint32_t r = x - (112u << 23); // rebias the exponent from 127 to 15
    r += 0xfffu + ((r >> 13) & 1u); // round the 13 dropped bits to even
    return sign | static_cast<uint16_t>(r >> 13); // a carry may give inf
  }
  // Subnormal or zero: |f| * 2^24 < 1024 is exact, and adding 2^23 (where
  // the float spacing is 1) rounds it to an integer, to even.
  float scaled = floatOf(x) * 0x1p24f;
  return sign | static_cast<uint16_t>(bitsOf(scaled + 0x1p23f) - bitsOf(0x1p23f));
}

inline float floatFromHalf(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0) {
    float v = static_cast<float>(m) * 0x1p-24f;
    return sign ? -v : v;
  }
  if (e == 31)
    return floatOf(sign | 0x7f800000u | (m << 13));
  return floatOf(sign | ((e + 112u) << 23) | (m << 13));
}

using mtia::bf16FromFloat; // device.h: kernels' scalar code rounds the same way

inline float floatFromBf16(uint16_t b) { return floatOf(static_cast<uint32_t>(b) << 16); }

using mtia::floatRoundedToOdd;

// device.h: the fp8 codecs, shared with kernels' scalar code.
using mtia::e4m3FromFloat;
using mtia::e5m2FromFloat;
using mtia::floatFromE4m3;
using mtia::floatFromE5m2;

inline uint16_t halfFromDouble(double d) { return halfFromFloat(floatRoundedToOdd(d)); }
using mtia::bf16FromDouble;

template <DType D> struct DTypeTraits;
template <> struct DTypeTraits<DType::I1> { using Value = bool; };
template <> struct DTypeTraits<DType::I8> { using Value = int8_t; };
template <> struct DTypeTraits<DType::I16> { using Value = int16_t; };
template <> struct DTypeTraits<DType::I32> { using Value = int32_t; };
template <> struct DTypeTraits<DType::I64> { using Value = int64_t; };
template <> struct DTypeTraits<DType::F16> { using Value = float; };
template <> struct DTypeTraits<DType::BF16> { using Value = float; };
template <> struct DTypeTraits<DType::F32> { using Value = float; };
template <> struct DTypeTraits<DType::F64> { using Value = double; };
template <> struct DTypeTraits<DType::F8E4M3> { using Value = float; };
template <> struct DTypeTraits<DType::F8E5M2> { using Value = float; };

/// Types stored narrower than the float they compute in.
constexpr bool isNarrowFloat(DType d) {
  return d == DType::F16 || d == DType::BF16 || d == DType::F8E4M3 || d == DType::F8E5M2;
}
template <DType D> using ValueOf = typename DTypeTraits<D>::Value;

/// Value conversion with the semantics stated at the top of this file.
template <class To, class From> inline To convertValue(From v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != From(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return floatToInt<To>(v);
  } else {
    return static_cast<To>(v);
  }
}

/// Reads one element of type D from (possibly unaligned) local memory.
template <DType D> inline ValueOf<D> loadElement(const uint8_t *p) {
  if constexpr (D == DType::F16 || D == DType::BF16) {
    uint16_t bits;
    std::memcpy(&bits, p, 2);
    return D == DType::F16 ? floatFromHalf(bits) : floatFromBf16(bits);
  } else if constexpr (D == DType::F8E4M3) {
    return floatFromE4m3(*p);
  } else if constexpr (D == DType::F8E5M2) {
    return floatFromE5m2(*p);
  } else if constexpr (D == DType::I1) {
    return *p != 0;
  } else {
    ValueOf<D> v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
}

/// Converts `v` to type D and writes it. F16/BF16 round once, from whatever
/// precision `v` has.
template <DType D, class V> inline void storeElement(uint8_t *p, V v) {
  if constexpr (D == DType::F16 || D == DType::BF16) {
    uint16_t bits;
    if constexpr (std::is_same_v<V, float>)
      bits = D == DType::F16 ? halfFromFloat(v) : bf16FromFloat(v);
    else
      bits = D == DType::F16 ? halfFromDouble(convertValue<double>(v))
                             : bf16FromDouble(convertValue<double>(v));
    std::memcpy(p, &bits, 2);
  } else if constexpr (D == DType::F8E4M3 || D == DType::F8E5M2) {
    float f;
    if constexpr (std::is_same_v<V, float>)
      f = v;
    else
      f = floatRoundedToOdd(convertValue<double>(v));
    *p = D == DType::F8E4M3 ? e4m3FromFloat(f) : e5m2FromFloat(f);
  } else if constexpr (D == DType::I1) {
    *p = convertValue<bool>(v) ? 1 : 0;
  } else {
    ValueOf<D> x = convertValue<ValueOf<D>>(v);
    std::memcpy(p, &x, sizeof x);
  }
}

/// Rounds a value computed in float to the precision of D (a no-op unless D
/// is a narrow float).
template <DType D> inline ValueOf<D> roundTo(ValueOf<D> v) {
  if constexpr (isNarrowFloat(D)) {
    uint8_t bytes[2];
    storeElement<D>(bytes, v);
    return loadElement<D>(bytes);
  } else {
    return v;
  }
}

/// Calls `f(std::integral_constant<DType, t>{})`: turns a run-time dtype into
/// a template argument once per command, outside any element loop.
template <class F> inline decltype(auto) dispatchDType(DType t, F &&f) {
  switch (t) {
  case DType::I1: return f(std::integral_constant<DType, DType::I1>{});
  case DType::I8: return f(std::integral_constant<DType, DType::I8>{});
  case DType::I16: return f(std::integral_constant<DType, DType::I16>{});
  case DType::I32: return f(std::integral_constant<DType, DType::I32>{});
  case DType::I64: return f(std::integral_constant<DType, DType::I64>{});
  case DType::F16: return f(std::integral_constant<DType, DType::F16>{});
  case DType::BF16: return f(std::integral_constant<DType, DType::BF16>{});
  case DType::F32: return f(std::integral_constant<DType, DType::F32>{});
  case DType::F8E4M3: return f(std::integral_constant<DType, DType::F8E4M3>{});
  case DType::F8E5M2: return f(std::integral_constant<DType, DType::F8E5M2>{});
  case DType::F64: break;
  }
  return f(std::integral_constant<DType, DType::F64>{});
}

/// True when `t` is one of the enumerators (kernels pass raw bytes).
inline bool isValidDType(DType t) { return static_cast<uint8_t>(t) <= static_cast<uint8_t>(DType::F8E5M2); }

const char *dtypeName(DType t);

/// Converts one element of type `from` at `src` to type `to` at `dst`.
void convertElement(const uint8_t *src, DType from, uint8_t *dst, DType to);

/// Writes the immediate `imm` converted to `t` into `out` (dtypeSize(t)
/// bytes). The immediate first takes its own dtype (imm.f for float types,
/// imm.i otherwise), then converts like any element.
void encodeImmediate(const Operand &imm, DType t, uint8_t *out);

} // namespace mtia::sim

#endif // MTIA_SIM_ELEMENTS_H
