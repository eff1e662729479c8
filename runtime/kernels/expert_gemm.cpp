//===- expert_gemm.cpp - Hand-written kernels against the device API ------===//
//
// The "expert C++" baseline: kernels written by hand against device.h, the
// same commands the compiler emits. The calibration suite
// (python -m triton_mtia.bench.calibrate) compiles this file at run time like
// a generated kernel; the runtime's unit tests link it directly.
//
//  - expert_gemm: C[M, N] (f32) = A[M, K] (f16) x B[K, N] (f16), both
//    row-major; with `int8`, C (i32) = A (i8) x B (i8), the DPE's int8
//    mode with 32-bit accumulation. One program per BM x BN block of C; K
//    in steps of BK with double-buffered DMA (two tiles per CB: the DMA of
//    step s+2 waits only for the DPE of step s); the accumulator is a CB the DPE reads and
//    rewrites each step. With `dual`, core 1 issues the DPE and the pops
//    while core 0 issues the DMAs. With `packed`, B is stored pre-packed
//    as inference weights are: panel j (columns [j*BN, (j+1)*BN), zero
//    padded) is a contiguous row-major [K, BN] array at B + j*K*BN*2, so a
//    B tile is one contiguous run (whole memory pages, no page shared
//    between programs) instead of BK rows of BN*2 bytes.
//  - dpe_stream: `count` DPE commands of 64 x 64 x 64 on tiles loaded once
//    (the DPE's peak).
//  - read_stream: each program reads `bytes` from its slice `repeat` times
//    in 64 KiB DMAs (memory bandwidth).
//
// The scalar code between the commands is charged with scalarCycles() by
// the cost table of the compiler's mtia-scalar-cost pass
// (compiler/lib/Dialect/MTIA/Transforms/ScalarCost.cpp: 1 per ALU op, 3 per
// multiply, 20 per divide, 2 per loop iteration), counted by hand, so that
// expert and compiled kernels pay by the same rules.
//
//===----------------------------------------------------------------------===//

#include "mtia/device.h"

using namespace mtia;

namespace {

int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/// A [rows, cols] tile of a row-major matrix with `ld` elements per row;
/// only the part inside [validRows, validCols] moves, the rest is zero.
Box tileBox(int64_t rows, int64_t cols, int64_t ld, int64_t validRows, int64_t validCols) {
  Box b;
  b.rank = 2;
  b.shape[0] = rows;
  b.shape[1] = cols;
  b.stride[0] = ld;
  b.stride[1] = 1;
  b.valid[0] = validRows < 0 ? 0 : min64(rows, validRows);
  b.valid[1] = validCols < 0 ? 0 : min64(cols, validCols);
  return b;
}

constexpr int32_t kCbA = 0, kCbB = 1, kCbAcc = 2;

} // namespace

extern "C" {

/// Args: A, B, C, M, N, K, BM, BN, BK, dual, packed, int8.
void expert_gemm(Ctx *c, const Arg *a) {
  const uint64_t A = a[0].u, B = a[1].u, C = a[2].u;
  const int64_t M = a[3].i, N = a[4].i, K = a[5].i;
  const int64_t BM = a[6].i, BN = a[7].i, BK = a[8].i;
  const bool dual = a[9].i != 0;
  const bool packed = a[10].i != 0;
  const bool int8 = a[11].i != 0;
  const DType in = int8 ? DType::I8 : DType::F16, acc = int8 ? DType::I32 : DType::F32;
  const int64_t size = int8 ? 1 : 2; // bytes of an element of A and B
  const Operand zero = int8 ? immInt(DType::I8, 0) : immFloat(DType::F16, 0);
  const int64_t blocksN = cdiv(N, BN);
  const int64_t pid = programId(c, 0);
  const int64_t m0 = pid / blocksN * BM, n0 = pid % blocksN * BN;
  const int64_t steps = cdiv(K, BK);
  const Shape aShape = shape2(BM, BK), bShape = shape2(BK, BN), cShape = shape2(BM, BN);
  // 12 argument loads, three divides and a remainder (cdiv x2, pid / and %),
  // four multiplies, a few adds, the dtype selects.
  scalarCycles(c, 104);

  auto load = [&](int64_t s) {
    // k0, two addresses (packed: a divide more), two boxes of clamps.
    scalarCycles(c, packed ? 56 : 32);
    const int64_t k0 = s * BK;
    dmaIn(c, kCbA, in, A + uint64_t(m0 * K + k0) * size, tileBox(BM, BK, K, M - m0, K - k0), zero);
    if (packed)
      dmaIn(c, kCbB, in, B + uint64_t((n0 / BN * K + k0) * BN) * size, tileBox(BK, BN, BN, K - k0, BN), zero);
    else
      dmaIn(c, kCbB, in, B + uint64_t(k0 * N + n0) * size, tileBox(BK, BN, N, K - k0, N - n0), zero);
  };
  load(0);
  if (steps > 1)
    load(1);
  for (int64_t s = 0; s < steps; ++s) {
    // Loop control, four branches, the accumulator select, three pop sizes.
    scalarCycles(c, 21);
    if (dual)
      onCore(c, 1);
    const Operand partial = s > 0 ? tile(kCbAcc, acc, cShape) : int8 ? immInt(acc, 0) : immFloat(acc, 0);
    dpe(c, kCbAcc, acc, BM, BN, BK, tile(kCbA, in, aShape), tile(kCbB, in, bShape), partial);
    cbPop(c, kCbA, BM * BK * size);
    cbPop(c, kCbB, BK * BN * size);
    if (s > 0)
      cbPop(c, kCbAcc, BM * BN * 4);
    if (dual)
      onCore(c, 0);
    if (s + 2 < steps)
      load(s + 2);
  }
  scalarCycles(c, 18); // C's address, its box, the pop size
  dmaOut(c, kCbAcc, acc, C + uint64_t(m0 * N + n0) * 4, tileBox(BM, BN, N, M - m0, N - n0));
  cbPop(c, kCbAcc, BM * BN * 4);
}

/// Capacities fit both calibration shapes: A 2 x 256x64 / 512x32 f16,
/// B 2 x 64x128 f16, acc 2 x 256x128 / 512x64 f32 (352 KiB of 384).
extern const KernelInfo expert_gemm_info = {
    kDeviceAbiVersion, "expert_gemm", 12, 3, {2 * 256 * 64 * 2, 2 * 64 * 128 * 2, 2 * 256 * 128 * 4}};

/// Args: src (>= 2 x 64x64 f16), count.
void dpe_stream(Ctx *c, const Arg *a) {
  const Shape s = shape2(64, 64);
  const Box box = tileBox(64, 64, 64, 64, 64);
  dmaIn(c, kCbA, DType::F16, a[0].u, box, immFloat(DType::F16, 0));
  dmaIn(c, kCbB, DType::F16, a[0].u + 64 * 64 * 2, box, immFloat(DType::F16, 0));
  for (int64_t i = 0; i < a[1].i; ++i) {
    scalarCycles(c, 2); // loop control
    dpe(c, kCbAcc, DType::F32, 64, 64, 64, tile(kCbA, DType::F16, s), tile(kCbB, DType::F16, s),
        immFloat(DType::F32, 0));
    cbPop(c, kCbAcc, 64 * 64 * 4);
  }
  cbPop(c, kCbA, 64 * 64 * 2);
  cbPop(c, kCbB, 64 * 64 * 2);
}
extern const KernelInfo dpe_stream_info = {
    kDeviceAbiVersion, "dpe_stream", 2, 3, {64 * 64 * 2, 64 * 64 * 2, 4 * 64 * 64 * 4}};

/// Args: base, bytes per program (a multiple of 64 KiB), repeat.
void read_stream(Ctx *c, const Arg *a) {
  constexpr int64_t kChunk = 64 * 1024;
  const int64_t bytes = a[1].i;
  const uint64_t base = a[0].u + uint64_t(programId(c, 0)) * uint64_t(bytes);
  Box box;
  box.rank = 1;
  box.shape[0] = box.valid[0] = kChunk;
  box.stride[0] = 1;
  for (int64_t r = 0; r < a[2].i; ++r)
    for (int64_t off = 0; off < bytes; off += kChunk) {
      scalarCycles(c, 4); // loop control, the address
      dmaIn(c, 0, DType::I8, base + uint64_t(off), box, immInt(DType::I8, 0));
      cbPop(c, 0, kChunk);
    }
}
extern const KernelInfo read_stream_info = {kDeviceAbiVersion, "read_stream", 3, 1, {4 * 64 * 1024}};

} // extern "C"
