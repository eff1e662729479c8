//===- dpe.h - Functional semantics of the DPE ------------------*- C++ -*-===//
//
// The dot-product engine computes one GEMM tile per command:
//   out[m, n] = acc[m, n] + sum_k a[m, k] * b[k, n]
// Contract (what generated code relies on):
//  - inputs F16, BF16, F32, F8E4M3 or F8E5M2 (the two fp8 kinds may mix)
//    accumulate in F32; I8 inputs accumulate in I32 (wrapping);
//  - products are formed from the exact input values and added in F32 in
//    sequential k order, starting from acc (an F32/I32 CB view, or an
//    immediate converted to the accumulator type);
//  - F32 inputs are multiplied in full F32 (no TF32 truncation).
// Timing lives in the PE (see docs/simulator.md); this file is only math.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_DPE_H
#define MTIA_SIM_DPE_H

#include "mtia/sim/simd_engine.h"

#include <string>

namespace mtia::sim {

/// Why a DPE command with these types cannot run, or "" when it can.
std::string checkDpe(DType accType, const Operand &a, const Operand &b, const Operand &acc);

/// MACs per cycle class of the inputs: 16-bit floats, 8-bit types, F32.
enum class DpeRate : uint8_t { Fp16, Int8, Fp32 };
DpeRate dpeRate(DType input);

/// Computes the [m, n] tile into `dst` (dense, accType).
void runDpe(DType accType, int64_t m, int64_t n, int64_t k, const SeInput &a,
            const SeInput &b, const SeInput &acc, uint8_t *dst, SeScratch &scratch);

} // namespace mtia::sim

#endif // MTIA_SIM_DPE_H
