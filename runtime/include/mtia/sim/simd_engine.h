//===- simd_engine.h - Functional semantics of the SIMD Engine --*- C++ -*-===//
//
// What each SE command computes, independent of timing. Inputs are views of
// local memory already gathered into contiguous spans by the caller; outputs
// are dense tiles.
//
// Semantics (the contract generated code relies on):
//  - Every operand is converted to the computation type: the dtype of the
//    first CB operand (of operand 0 when all are immediates). The result is
//    converted to the output dtype. Copy converts input to output directly.
//  - F16/BF16 compute in float and round to their type after each operation.
//  - Integers are signed unless the opcode says U and wrap on overflow.
//    Division by zero gives all ones (DivU) / -1 (Div) and Rem by zero gives
//    the dividend, like RISC-V; INT_MIN / -1 = INT_MIN. Shifts by the width
//    or more give 0 (Shl, ShrU) or the sign (ShrS).
//  - Max/Min are maxnum/minnum for floats; Maximum/Minimum propagate NaN and
//    order -0 < +0. Float comparisons are ordered except CmpNe (unordered).
//  - Comparisons produce I1; Select's condition is I1 (nonzero = true), its
//    branches are converted to the output type.
//  - Reductions and scans convert the source to the output dtype, then
//    accumulate in that type in sequential order along the axis
//    (deterministic).
//  - CopyU reads integer inputs as unsigned; CopyToU truncates floats into
//    the unsigned range of the output's width (saturating, NaN -> 0);
//    Bitcast copies bits between types of one size. Rint rounds to nearest
//    even, Trunc toward zero; MulHiU/MulHiS give the high half of the full
//    product.
//  - fp8 types compute in float and round to their type after each
//    operation, like F16/BF16.
//  - Quantize(x, scale, zp) = sat(rint(x * scale) + zp) and
//    Dequantize(q, scale, zp) = (q - zp) * scale compute in F32 whatever
//    the operands' dtypes (x a float, q an integer of 8 to 64 bits; scale
//    and zp converted to F32). rint rounds half to even; sat clamps into the
//    output integer's signed range (QuantizeU: [0, 2^bits - 1]); a NaN
//    product gives zp. DequantizeU reads q as unsigned.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_SIMD_ENGINE_H
#define MTIA_SIM_SIMD_ENGINE_H

#include "mtia/device.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mtia::sim {

/// One operand as the SE sees it: an immediate, or a span of local memory
/// holding elements [first, first + span) of the operand's element indexing
/// (element i is at data + (i - first) * dtypeSize).
struct SeInput {
  const Operand *operand = nullptr;
  const uint8_t *data = nullptr;
  int64_t first = 0;
};

/// Grow-only work arrays, reused across commands so the hot path does not
/// allocate.
class SeScratch {
public:
  /// Array `slot` (0..3) with room for `n` values of T.
  template <class T> T *get(int slot, int64_t n) {
    std::vector<uint64_t> &v = slots_[slot];
    size_t words = (size_t(n) * sizeof(T) + 7) / 8;
    if (v.size() < words)
      v.resize(words);
    return reinterpret_cast<T *>(v.data());
  }

private:
  std::vector<uint64_t> slots_[4];
};

const char *seOpName(SeOp op);
const char *reduceOpName(ReduceOp op);
/// Whether `op` runs only on the RISC-V vector core (se_ops.def).
bool seOpIsVectorOnly(SeOp op);
/// Operand count of `op` per se_ops.def (0 if `op` is not an opcode).
int seOpArity(SeOp op);
/// Passes the vector core makes over a tile for `op`, each charged like one
/// elementwise opcode (VLEN bytes per cycle): 1 for most, more for the
/// special functions that cost several elementary functions.
int vecOpPasses(SeOp op);

/// Cycles the vector core takes per strip of VLEN bits of a loop over
/// `shape` (device.h vecLoop; a `vec` is the loop of one step): the busier
/// of its two pipes, the port to local memory (a load per input view that
/// steps along the innermost dimension, and one store) and the ALU (the
/// steps' passes).
int64_t vecStripCycles(const Shape &shape, const Operand *inputs, int numInputs,
                       const VecStep *steps, int numSteps);

/// The type an elementwise command computes in (see the file comment).
DType seComputeType(SeOp op, DType out, const Operand *ops, int n);

/// Why `op` cannot run with these types, or "" when it can.
std::string checkElementwise(SeOp op, DType out, const Operand *ops, int n);
std::string checkReduce(ReduceOp op, DType out);

/// Elementwise `op` over `shape`; writes the dense result tile to `dst`.
void runElementwise(SeOp op, DType out, const Shape &shape, const SeInput *in,
                    int n, uint8_t *dst, SeScratch &scratch);
/// Reduction of `src` (viewed in `inShape`) along `axis` into `dst`. With
/// `valid` (device.h validBox), the elements outside the box [0, valid)
/// read as the immediate `fill`.
void runReduce(ReduceOp op, DType out, const Shape &inShape, int axis,
               const SeInput &src, uint8_t *dst, SeScratch &scratch,
               const Shape *valid = nullptr, const Operand *fill = nullptr);
/// Calls f(i) for each row-major index i of `shape` outside the box
/// [0, valid) (valid has the rank of `shape`).
template <class F> void forEachOutside(const Shape &shape, const Shape &valid, F &&f) {
  const int64_t n = shape.numElements();
  int64_t idx[kMaxRank] = {0, 0, 0, 0};
  for (int64_t i = 0; i < n; ++i) {
    bool inside = true;
    for (int d = 0; d < shape.rank; ++d)
      inside = inside && idx[d] < valid.dim[d];
    if (!inside)
      f(i);
    for (int d = shape.rank - 1; d >= 0; --d) {
      if (++idx[d] < shape.dim[d])
        break;
      idx[d] = 0;
    }
  }
}
/// Writes all-ones bytes (a NaN, or -1) over the elements of the dense
/// tile `dst` of `shape` outside the box [0, valid): what validBox leaves
/// unspecified, made visible.
void poisonOutside(const Shape &shape, const Shape &valid, int64_t elementBytes, uint8_t *dst);
/// Inclusive scan of `src` (viewed in `shape`) along `axis`, from the end
/// when `reverse`; accumulates in `out` like runReduce.
void runScan(ReduceOp op, DType out, const Shape &shape, int axis, bool reverse,
             const SeInput &src, uint8_t *dst, SeScratch &scratch);
/// I32 counts of the integer values of `src` in [0, numBins); elements whose
/// `mask` byte is 0 (mask may be null) are not counted.
void runHistogram(int64_t numBins, const Shape &inShape, const SeInput &src,
                  const uint8_t *mask, uint8_t *dst, SeScratch &scratch);
/// out[i] = src[i with i[axis] replaced by index[i]]. Returns false (and the
/// offending index) when an index lies outside [0, srcShape.dim[axis]).
bool runGather(DType out, const Shape &outShape, int axis, const SeInput &src,
               const Shape &srcShape, const SeInput &index, uint8_t *dst, SeScratch &scratch,
               int64_t &badIndex);
/// The bits of the operand's elements over `shape`, dense (Bitcast and the
/// MLU's copies; no conversion).
void copyBits(const SeInput &in, const Shape &shape, uint8_t *dst);
/// CopyU (integers read as unsigned) and CopyToU (floats to unsigned bits).
void convertUnsigned(DType out, const Shape &shape, const SeInput &in, uint8_t *dst,
                     SeScratch &scratch);
/// The operand as dense F32 / I32 values over `shape` (the DPE's inputs).
void materializeF32(const SeInput &in, const Shape &shape, float *out);
void materializeI32(const SeInput &in, const Shape &shape, int32_t *out);

/// Writes start, start+1, ... (length elements of `t`) to `dst`.
void runIota(DType t, int64_t length, int64_t start, uint8_t *dst);

/// Smallest and largest element index a CB operand reads over `shape`.
void operandExtent(const Operand &o, const Shape &shape, int64_t &lo, int64_t &hi);

} // namespace mtia::sim

#endif // MTIA_SIM_SIMD_ENGINE_H
