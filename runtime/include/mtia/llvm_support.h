//===- llvm_support.h - device.h's scalar semantics with C linkage -*- C++ -*-===//
//
// Kernels built from LLVM IR (triton-mtia-compile --emit-llvm) issue their
// commands through the DeviceOps table directly, but their scalar code needs
// the integer, float-to-integer, min/max and fp8 semantics that device.h
// defines as C++ templates. This file gives each instance the IR calls a C
// name, `mtia_<function>_<type>`, defined by those templates, so that the
// semantics keep one definition. The Python face compiles it once per
// compiler and flags (backend/object_cache.py support_object) and links the
// object into every LLVM IR kernel, which also gets device.h's bf16
// rounding helpers from it.
//
// The C signatures take and return 32- and 64-bit integers, float and
// double only: the compiler widens narrower values itself (sign-extended
// for the signed functions, zero-extended for the unsigned ones and for fp8
// codes), so no call depends on how the C ABI extends narrow arguments.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_LLVM_SUPPORT_H
#define MTIA_LLVM_SUPPORT_H

#include "mtia/device.h"

#define MTIA_SUPPORT extern "C" __attribute__((visibility("hidden")))

// Integer division, remainder and shifts (device.h "Integer semantics"),
// on the signed storage type of each width, as the C++ path computes them.
#define MTIA_INTEGER_OPS(Bits, T, Wide)                                                       \
  MTIA_SUPPORT Wide mtia_divSigned_i##Bits(Wide x, Wide y) { return mtia::divSigned<T>(T(x), T(y)); } \
  MTIA_SUPPORT Wide mtia_remSigned_i##Bits(Wide x, Wide y) { return mtia::remSigned<T>(T(x), T(y)); } \
  MTIA_SUPPORT Wide mtia_divUnsigned_i##Bits(Wide x, Wide y) {                             \
    return mtia::divUnsigned<T>(T(x), T(y));                                                \
  }                                                                                         \
  MTIA_SUPPORT Wide mtia_remUnsigned_i##Bits(Wide x, Wide y) {                             \
    return mtia::remUnsigned<T>(T(x), T(y));                                                \
  }                                                                                         \
  MTIA_SUPPORT Wide mtia_shiftLeft_i##Bits(Wide x, Wide y) { return mtia::shiftLeft<T>(T(x), T(y)); } \
  MTIA_SUPPORT Wide mtia_shiftRightSigned_i##Bits(Wide x, Wide y) {                        \
    return mtia::shiftRightSigned<T>(T(x), T(y));                                           \
  }                                                                                         \
  MTIA_SUPPORT Wide mtia_shiftRightUnsigned_i##Bits(Wide x, Wide y) {                      \
    return mtia::shiftRightUnsigned<T>(T(x), T(y));                                         \
  }
MTIA_INTEGER_OPS(8, int8_t, int32_t)
MTIA_INTEGER_OPS(16, int16_t, int32_t)
MTIA_INTEGER_OPS(32, int32_t, int32_t)
MTIA_INTEGER_OPS(64, int64_t, int64_t)
#undef MTIA_INTEGER_OPS

// Float -> integer, truncating and saturating (floatToInt). Every float type
// converts to double exactly, so one function per result type serves all;
// the result is the integer's bits, sign- or zero-extended to 64.
#define MTIA_FLOAT_TO_INT(Name, To)                                                         \
  MTIA_SUPPORT int64_t mtia_floatToInt_##Name(double v) {                                   \
    return static_cast<int64_t>(mtia::floatToInt<To>(v));                                   \
  }
MTIA_FLOAT_TO_INT(i8, int8_t)
MTIA_FLOAT_TO_INT(i16, int16_t)
MTIA_FLOAT_TO_INT(i32, int32_t)
MTIA_FLOAT_TO_INT(i64, int64_t)
MTIA_FLOAT_TO_INT(u8, uint8_t)
MTIA_FLOAT_TO_INT(u16, uint16_t)
MTIA_FLOAT_TO_INT(u32, uint32_t)
MTIA_FLOAT_TO_INT(u64, uint64_t)
#undef MTIA_FLOAT_TO_INT

// IEEE maximumNumber / minimumNumber / maximum / minimum with -0 < +0. The
// C++ path computes 16-bit floats in float, as the compiler does here.
#define MTIA_MIN_MAX(Name, V)                                                               \
  MTIA_SUPPORT V mtia_maxNumOf_##Name(V x, V y) { return mtia::maxNumOf(x, y); }            \
  MTIA_SUPPORT V mtia_minNumOf_##Name(V x, V y) { return mtia::minNumOf(x, y); }            \
  MTIA_SUPPORT V mtia_maximumOf_##Name(V x, V y) { return mtia::maximumOf(x, y); }          \
  MTIA_SUPPORT V mtia_minimumOf_##Name(V x, V y) { return mtia::minimumOf(x, y); }
MTIA_MIN_MAX(f32, float)
MTIA_MIN_MAX(f64, double)
#undef MTIA_MIN_MAX

// fp8 scalars are held as the float they denote (as in the C++ path):
// rounding to an fp8 value, and fp8 codes to and from floats.
MTIA_SUPPORT float mtia_roundToE4m3(double d) { return mtia::roundToE4m3(d); }
MTIA_SUPPORT float mtia_roundToE5m2(double d) { return mtia::roundToE5m2(d); }
MTIA_SUPPORT int32_t mtia_e4m3FromFloat(float f) { return mtia::e4m3FromFloat(f); }
MTIA_SUPPORT int32_t mtia_e5m2FromFloat(float f) { return mtia::e5m2FromFloat(f); }
MTIA_SUPPORT float mtia_floatFromE4m3(int32_t code) { return mtia::floatFromE4m3(uint8_t(code)); }
MTIA_SUPPORT float mtia_floatFromE5m2(int32_t code) { return mtia::floatFromE5m2(uint8_t(code)); }

#undef MTIA_SUPPORT

#endif // MTIA_LLVM_SUPPORT_H
