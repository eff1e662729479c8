//===- elements.cpp - Element type names and immediates -------------------===//

#include "mtia/sim/elements.h"

namespace mtia::sim {

const char *dtypeName(DType t) {
  switch (t) {
  case DType::I1: return "i1";
  case DType::I8: return "i8";
  case DType::I16: return "i16";
  case DType::I32: return "i32";
  case DType::I64: return "i64";
  case DType::F16: return "f16";
  case DType::BF16: return "bf16";
  case DType::F32: return "f32";
  case DType::F64: return "f64";
  case DType::F8E4M3: return "f8e4m3";
  case DType::F8E5M2: return "f8e5m2";
  }
  return "?";
}

void convertElement(const uint8_t *src, DType from, uint8_t *dst, DType to) {
  dispatchDType(from, [&](auto f) {
    auto v = loadElement<decltype(f)::value>(src);
    dispatchDType(to, [&](auto t) { storeElement<decltype(t)::value>(dst, v); });
  });
}

void encodeImmediate(const Operand &imm, DType t, uint8_t *out) {
  uint8_t own[8];
  dispatchDType(imm.dtype, [&](auto d) {
    if (dtypeIsFloat(imm.dtype))
      storeElement<decltype(d)::value>(own, imm.f);
    else
      storeElement<decltype(d)::value>(own, imm.i);
  });
  convertElement(own, imm.dtype, out, t);
}

} // namespace mtia::sim
