//===- expert_attention.cpp - Hand-written fused attention ----------------===//
//
// The expert C++ baseline of fused attention (the paper's 7.1.2), written by
// hand against device.h and launched by python/triton_mtia/kernels/expert.py:
//
//  - expert_attention: O = softmax(Q K^T * scale) V for fp16 Q, K, V, O
//    [heads, L, D] (L a multiple of 64), FlashAttention's online softmax
//    over blocks of 64 keys, non-causal or causal.
//
// What makes it expert work rather than a transcription of the Triton
// kernel (python/triton_mtia/samples/attention.py):
//  * the next block's Q K^T is issued to the DPE before this block's softmax
//    runs on the SE, so the two units overlap (two score tiles in flight);
//    K and V are loaded two blocks ahead;
//  * K moves in whole rows and the DPE reads it as its B operand through a
//    transposed view (strides 1 and D): no transpose command, and no
//    element-wise DMA;
//  * the softmax takes five passes over the 64x64 scores: the row maximum,
//    one fused multiply-add of the scale and the new maximum, exp2, the row
//    sum and the conversion of P to fp16; the causal mask is a select on
//    the diagonal block only, its lower triangle made once per program;
//  * the output is divided by the row sums and converted to fp16 in one
//    command;
//  * where there are more causal query blocks than PEs, a program takes two,
//    block i and block blocks - 1 - i, so that every program does the same
//    work (the Triton kernel gets that balance from the zigzag PID mapping);
//  * the fabric's commands are issued by core 0, the DPE's and the SE's by
//    core 1.
//
// The scalar code between the commands is charged with scalarCycles() by the
// cost table of the compiler's mtia-scalar-cost pass, counted by hand, as in
// expert_gemm.cpp.
//
//===----------------------------------------------------------------------===//

#include "mtia/device.h"

using namespace mtia;

namespace {

constexpr int64_t kBlock = 64;

// CBs: the query block, K^T and V blocks, scores, P (f32 and f16), the
// accumulator and its rescaled copy (the output at the end), and the
// [64] statistics: a row reduction, the running maxima (two, by parity),
// -max, alpha, the running sums; the causal mask of the diagonal block.
constexpr int32_t kQ = 0, kK = 1, kV = 2, kS = 3, kP = 4, kP16 = 5, kAcc = 6, kScaled = 7, kRow = 8,
                  kMax0 = 9, kMax1 = 10, kNegMax = 11, kAlpha = 12, kSum = 13, kDiag = 14;

void fabric(Ctx *c) { onCore(c, 0); }
void engines(Ctx *c) { onCore(c, 1); }

/// One query block `qb` of head `h`.
void queryBlock(Ctx *c, uint64_t q, uint64_t k, uint64_t v, uint64_t o, int64_t h, int64_t qb, int64_t L,
                int64_t D, double scale, bool causal) {
  const int64_t B = kBlock, head = h * L * D;
  const int64_t kvBlocks = causal ? qb + 1 : L / B;
  const Shape scores = shape2(B, B), rows = shape1(B), out = shape2(B, D);
  scalarCycles(c, 24); // addresses, the block count
  fabric(c);
  dmaIn(c, kQ, DType::F16, q + uint64_t(head + qb * B * D) * 2, rowsBox(B, D, D), immFloat(DType::F16, 0));
  auto load = [&](int64_t j) {
    scalarCycles(c, 12); // two addresses
    dmaIn(c, kK, DType::F16, k + uint64_t(head + j * B * D) * 2, rowsBox(B, D, D), immFloat(DType::F16, 0));
    dmaIn(c, kV, DType::F16, v + uint64_t(head + j * B * D) * 2, rowsBox(B, D, D), immFloat(DType::F16, 0));
  };
  auto qk = [&]() {
    dpe(c, kS, DType::F32, B, B, D, tile(kQ, DType::F16, shape2(B, D)), view(kK, DType::F16, 1, D),
        immFloat(DType::F32, 0));
    cbPop(c, kK, D * B * 2);
  };
  load(0);
  if (kvBlocks > 1)
    load(1);
  engines(c);
  qk();
  for (int64_t j = 0; j < kvBlocks; ++j) {
    scalarCycles(c, 16); // loop control, the parity, branches
    const int32_t oldMax = j % 2 ? kMax0 : kMax1, newMax = j % 2 ? kMax1 : kMax0;
    engines(c);
    if (causal && j == qb) { // the diagonal block, the last: no next q k^T is in kS
      replaceFront(c, kS);
      se(c, SeOp::Select, kS, DType::F32, scores, view(kDiag, DType::I1, B, 1), view(kS, DType::F32, B, 1),
         immFloat(DType::F32, -__builtin_inf()));
    }
    // m_new = max(m_old, rowmax(S) * scale); -m_new.
    seReduce(c, ReduceOp::Max, kRow, DType::F32, scores, /*axis=*/1, view(kS, DType::F32, B, 1));
    se(c, SeOp::Mul, newMax, DType::F32, rows, view(kRow, DType::F32, 1), immFloat(DType::F32, scale));
    cbPop(c, kRow, B * 4);
    if (j > 0) {
      replaceFront(c, newMax);
      se(c, SeOp::Max, newMax, DType::F32, rows, view(newMax, DType::F32, 1), view(oldMax, DType::F32, 1));
    }
    se(c, SeOp::Neg, kNegMax, DType::F32, rows, view(newMax, DType::F32, 1));
    // P = exp2(S * scale - m_new), while the DPE computes the next scores.
    se(c, SeOp::Fma, kP, DType::F32, scores, view(kS, DType::F32, B, 1), immFloat(DType::F32, scale),
       view(kNegMax, DType::F32, 1, 0));
    cbPop(c, kS, B * B * 4);
    if (j + 1 < kvBlocks)
      qk();
    replaceFront(c, kP);
    se(c, SeOp::Exp2, kP, DType::F32, scores, view(kP, DType::F32, B, 1));
    seReduce(c, ReduceOp::Sum, kRow, DType::F32, scores, /*axis=*/1, view(kP, DType::F32, B, 1));
    se(c, SeOp::Copy, kP16, DType::F16, scores, view(kP, DType::F32, B, 1));
    cbPop(c, kP, B * B * 4);
    if (j == 0) {
      se(c, SeOp::Copy, kSum, DType::F32, rows, view(kRow, DType::F32, 1));
      dpe(c, kAcc, DType::F32, B, D, B, tile(kP16, DType::F16, scores), tile(kV, DType::F16, out),
          immFloat(DType::F32, 0));
    } else {
      // alpha = exp2(m_old - m_new); l = l * alpha + rowsum(P);
      // acc = acc * alpha + P V.
      se(c, SeOp::Add, kAlpha, DType::F32, rows, view(oldMax, DType::F32, 1), view(kNegMax, DType::F32, 1));
      cbPop(c, oldMax, B * 4);
      replaceFront(c, kAlpha);
      se(c, SeOp::Exp2, kAlpha, DType::F32, rows, view(kAlpha, DType::F32, 1));
      replaceFront(c, kSum);
      se(c, SeOp::Fma, kSum, DType::F32, rows, view(kSum, DType::F32, 1), view(kAlpha, DType::F32, 1),
         view(kRow, DType::F32, 1));
      se(c, SeOp::Mul, kScaled, DType::F32, out, view(kAcc, DType::F32, D, 1), view(kAlpha, DType::F32, 1, 0));
      cbPop(c, kAcc, B * D * 4);
      cbPop(c, kAlpha, B * 4);
      dpe(c, kAcc, DType::F32, B, D, B, tile(kP16, DType::F16, scores), tile(kV, DType::F16, out),
          tile(kScaled, DType::F32, out));
      cbPop(c, kScaled, B * D * 4);
    }
    cbPop(c, kRow, B * 4);
    cbPop(c, kNegMax, B * 4);
    cbPop(c, kP16, B * B * 2);
    cbPop(c, kV, B * D * 2);
    fabric(c);
    if (j + 2 < kvBlocks)
      load(j + 2);
  }
  // O = acc / l in fp16, into kScaled.
  engines(c);
  se(c, SeOp::Div, kScaled, DType::F16, out, view(kAcc, DType::F32, D, 1), view(kSum, DType::F32, 1, 0));
  cbPop(c, kAcc, B * D * 4);
  cbPop(c, kSum, B * 4);
  cbPop(c, kvBlocks % 2 ? kMax0 : kMax1, B * 4);
  cbPop(c, kQ, B * D * 2);
  fabric(c);
  scalarCycles(c, 8);
  dmaOut(c, kScaled, DType::F16, o + uint64_t(head + qb * B * D) * 2, rowsBox(B, D, D));
  cbPop(c, kScaled, B * D * 2);
}

} // namespace

extern "C" {

/// Args: q, k, v, o, heads, L, D, scale (sm_scale * log2(e)), causal,
/// paired. Programs: heads x L / 64, one query block each, or with `paired`
/// (causal, more blocks than PEs) heads x ceil(L / 128), two each.
void expert_attention(Ctx *c, const Arg *a) {
  const uint64_t q = a[0].u, k = a[1].u, v = a[2].u, o = a[3].u;
  const int64_t L = a[5].i, D = a[6].i;
  const double scale = a[7].f;
  const bool causal = a[8].i != 0, paired = causal && a[9].i != 0;
  const int64_t blocks = L / kBlock, perHead = paired ? (blocks + 1) / 2 : blocks;
  const int64_t pid = programId(c, 0), h = pid / perHead, i = pid % perHead;
  scalarCycles(c, 74); // 10 argument loads, two divides, a remainder
  if (causal) { // the lower triangle of the diagonal block, once per program
    engines(c);
    seIota(c, kRow, DType::I32, kBlock, 0);
    se(c, SeOp::CmpGe, kDiag, DType::I1, shape2(kBlock, kBlock), view(kRow, DType::I32, 1, 0),
       view(kRow, DType::I32, 0, 1));
    cbPop(c, kRow, kBlock * 4);
  }
  queryBlock(c, q, k, v, o, h, i, L, D, scale, causal);
  if (paired && blocks - 1 - i != i)
    queryBlock(c, q, k, v, o, h, blocks - 1 - i, L, D, scale, true);
  if (causal) {
    engines(c);
    cbPop(c, kDiag, kBlock * kBlock);
  }
}

/// Capacities for D <= 128: Q 16 KiB; K^T, V two blocks each; two score
/// tiles; P in f32 and f16; the accumulator and its rescaled copy two
/// each; the [64] statistics two each (340 KiB of 384).
constexpr int64_t kMaxD = 128, kRows = kBlock * 4;
extern const KernelInfo expert_attention_info = {
    kDeviceAbiVersion,
    "expert_attention",
    10,
    15,
    {kBlock * kMaxD * 2, 2 * kMaxD * kBlock * 2, 2 * kBlock * kMaxD * 2, 2 * kBlock * kBlock * 4,
     kBlock * kBlock * 4, 2 * kBlock * kBlock * 2, 2 * kBlock * kMaxD * 4, 2 * kBlock * kMaxD * 4, 2 * kRows,
     2 * kRows, 2 * kRows, 2 * kRows, 2 * kRows, 2 * kRows, kBlock * kBlock}};

} // extern "C"
