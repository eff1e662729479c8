//===- dpe.cpp - Functional semantics of the DPE --------------------------===//

#include "mtia/sim/dpe.h"

#include "mtia/sim/elements.h"

#include <cstring>

namespace mtia::sim {

namespace {
bool isDpeFloat(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F8E4M3 ||
         t == DType::F8E5M2;
}
} // namespace

std::string checkDpe(DType accType, const Operand &a, const Operand &b, const Operand &acc) {
  if (a.kind != Operand::Kind::Cb || b.kind != Operand::Kind::Cb)
    return "dpe inputs a and b must be CB views";
  if (acc.kind != Operand::Kind::Cb && acc.kind != Operand::Kind::Imm)
    return "dpe acc has an invalid kind";
  if (!isValidDType(acc.dtype))
    return "dpe acc has an invalid dtype";
  const bool fa = isDpeFloat(a.dtype), fb = isDpeFloat(b.dtype);
  const bool fp8a = dtypeSize(a.dtype) == 1 && fa, fp8b = dtypeSize(b.dtype) == 1 && fb;
  if (fa && fb && (a.dtype == b.dtype || (fp8a && fp8b))) {
    if (accType != DType::F32)
      return std::string("dpe on ") + dtypeName(a.dtype) + " accumulates in f32, not " +
             dtypeName(accType);
  } else if (a.dtype == DType::I8 && b.dtype == DType::I8) {
    if (accType != DType::I32)
      return std::string("dpe on i8 accumulates in i32, not ") + dtypeName(accType);
  } else {
    return std::string("dpe does not multiply ") + dtypeName(a.dtype) + " by " +
           dtypeName(b.dtype);
  }
  if (acc.kind == Operand::Kind::Cb && acc.dtype != accType)
    return std::string("dpe acc view must be ") + dtypeName(accType);
  return "";
}

DpeRate dpeRate(DType input) {
  if (input == DType::F32)
    return DpeRate::Fp32;
  return dtypeSize(input) == 1 ? DpeRate::Int8 : DpeRate::Fp16;
}

void runDpe(DType accType, int64_t m, int64_t n, int64_t k, const SeInput &a,
            const SeInput &b, const SeInput &acc, uint8_t *dst, SeScratch &scratch) {
  // Loop order i, kk, j: each output row accumulates over k in order while
  // the innermost loop runs over contiguous rows of b (vectorizes).
  if (accType == DType::F32) {
    float *x = scratch.get<float>(0, m * k), *y = scratch.get<float>(1, k * n);
    float *c = scratch.get<float>(2, m * n);
    materializeF32(a, shape2(m, k), x);
    materializeF32(b, shape2(k, n), y);
    materializeF32(acc, shape2(m, n), c);
    for (int64_t i = 0; i < m; ++i) {
      float *row = c + i * n;
      for (int64_t kk = 0; kk < k; ++kk) {
        const float s = x[i * k + kk];
        const float *brow = y + kk * n;
        for (int64_t j = 0; j < n; ++j)
          row[j] += s * brow[j];
      }
    }
    std::memcpy(dst, c, size_t(m * n) * 4);
    return;
  }
  int32_t *x = scratch.get<int32_t>(0, m * k), *y = scratch.get<int32_t>(1, k * n);
  int32_t *c = scratch.get<int32_t>(2, m * n);
  materializeI32(a, shape2(m, k), x);
  materializeI32(b, shape2(k, n), y);
  materializeI32(acc, shape2(m, n), c);
  for (int64_t i = 0; i < m; ++i) {
    uint32_t *row = reinterpret_cast<uint32_t *>(c + i * n);
    for (int64_t kk = 0; kk < k; ++kk) {
      const uint32_t s = uint32_t(x[i * k + kk]);
      const int32_t *brow = y + kk * n;
      for (int64_t j = 0; j < n; ++j)
        row[j] += s * uint32_t(brow[j]);
    }
  }
  std::memcpy(dst, c, size_t(m * n) * 4);
}

} // namespace mtia::sim
