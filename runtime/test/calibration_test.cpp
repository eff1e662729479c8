//===- calibration_test.cpp - The expert kernels reach the published figures ===//
//
// The deterministic half of `python -m triton_mtia.bench.calibrate`: the same
// kernels (runtime/kernels/expert_gemm.cpp, linked in) and shapes, in
// timing-only mode where the shapes are large; the host-speed figure stays in
// the benchmark.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include "mtia/sim/elements.h"

#include <gtest/gtest.h>

#include <cstdio>

using namespace mtia;
using namespace mtia::test;

extern "C" {
void expert_gemm(Ctx *, const Arg *);
extern const KernelInfo expert_gemm_info;
void dpe_stream(Ctx *, const Arg *);
extern const KernelInfo dpe_stream_info;
}

namespace {

/// A fake allocation of `bytes` at a fixed address (timing-only launches
/// never touch memory).
sim::Region fake(uint64_t addr, uint64_t bytes, bool sram) { return {addr, bytes, sram}; }

sim::LaunchSummary gemm(rt::Simulator &sim, int64_t M, int64_t N, int64_t K, int64_t bm,
                        int64_t bn, int64_t bk, bool dual, bool aInSram, bool bInSram,
                        bool cInSram, bool packed = false) {
  const uint64_t a = 1ull << 40, b = a + (1ull << 36), c = b + (1ull << 36);
  const int64_t blocks = (M + bm - 1) / bm * ((N + bn - 1) / bn);
  return sim.launch(expert_gemm, expert_gemm_info, {blocks, 1, 1},
                    {intArg(int64_t(a)), intArg(int64_t(b)), intArg(int64_t(c)), intArg(M),
                     intArg(N), intArg(K), intArg(bm), intArg(bn), intArg(bk), intArg(dual),
                     intArg(packed), intArg(0)},
                    {fake(a, uint64_t(M * K * 2), aInSram), fake(b, uint64_t(K * ((N + bn - 1) / bn * bn) * 2), bInSram),
                     fake(c, uint64_t(M * N * 4), cInSram)});
}

sim::Config timingOnly() {
  sim::Config cfg = sim::mtia2iPreset();
  cfg.timing_only = 1;
  return cfg;
}

/// A functional expert GEMM of the row-major A [M, K] and B [K, N] into C
/// [M, N] (64x64x32 blocks, both cores), each element checked against the
/// reference `value(i, j)`.
constexpr int64_t kExactM = 200, kExactN = 136, kExactK = 100; // partial blocks in every dimension
template <class In, class Out, class Reference>
void checkExactGemm(const std::vector<In> &A, const std::vector<In> &B, bool int8, Reference value) {
  std::vector<Out> C(size_t(kExactM * kExactN));
  rt::Simulator sim(sim::smallPreset());
  const int64_t bm = 64, bn = 64, bk = 32;
  sim.launch(expert_gemm, expert_gemm_info, {(kExactM + bm - 1) / bm * ((kExactN + bn - 1) / bn), 1, 1},
             {ptrArg(A.data()), ptrArg(B.data()), ptrArg(C.data()), intArg(kExactM), intArg(kExactN),
              intArg(kExactK), intArg(bm), intArg(bn), intArg(bk), intArg(1), intArg(0), intArg(int8)},
             {regionOf(A), regionOf(B), regionOf(C)});
  for (int64_t i = 0; i < kExactM; ++i)
    for (int64_t j = 0; j < kExactN; ++j)
      ASSERT_EQ(C[size_t(i * kExactN + j)], value(i, j)) << i << "," << j;
}

TEST(Calibration, ExpertGemmIsFunctionallyExact) {
  std::vector<uint16_t> A(size_t(kExactM * kExactK)), B(size_t(kExactK * kExactN));
  for (size_t i = 0; i < A.size(); ++i)
    A[i] = sim::halfFromFloat(float(int(i % 13) - 6) * 0.25f);
  for (size_t i = 0; i < B.size(); ++i)
    B[i] = sim::halfFromFloat(float(int(i % 7) - 3) * 0.5f);
  checkExactGemm<uint16_t, float>(A, B, false, [&](int64_t i, int64_t j) {
    float want = 0;
    for (int64_t k = 0; k < kExactK; ++k)
      want += sim::floatFromHalf(A[size_t(i * kExactK + k)]) * sim::floatFromHalf(B[size_t(k * kExactN + j)]);
    return want;
  });
}

TEST(Calibration, ExpertInt8GemmIsExact) {
  std::vector<int8_t> A(size_t(kExactM * kExactK)), B(size_t(kExactK * kExactN));
  for (size_t i = 0; i < A.size(); ++i)
    A[i] = int8_t(int(i * 37 % 256) - 128);
  for (size_t i = 0; i < B.size(); ++i)
    B[i] = int8_t(int(i * 91 % 255) - 127);
  checkExactGemm<int8_t, int32_t>(A, B, true, [&](int64_t i, int64_t j) {
    int32_t want = 0;
    for (int64_t k = 0; k < kExactK; ++k)
      want += int32_t(A[size_t(i * kExactK + k)]) * int32_t(B[size_t(k * kExactN + j)]);
    return want;
  });
}

TEST(Calibration, DpeStreamReachesPeak) {
  rt::Simulator sim(timingOnly());
  const int64_t count = 1000;
  sim::LaunchSummary r = sim.launch(dpe_stream, dpe_stream_info, {64, 1, 1},
                                    {intArg(1 << 30), intArg(count)}, {fake(1 << 30, 1 << 16, true)});
  const double frac = double(count * 64 * 64 * 64) / (double(r.cycles) * 1024.0);
  std::printf("dpe stream: %llu cycles, %.4f of peak\n", (unsigned long long)r.cycles, frac);
  EXPECT_GE(frac, 0.98);
}

TEST(Calibration, ExpertGemm2048FromSramReachesNinetyPercentOfPeak) {
  rt::Simulator sim(timingOnly());
  sim::LaunchSummary r = gemm(sim, 2048, 2048, 2048, 256, 128, 64, false, true, true, true);
  const double frac = 2048.0 * 2048 * 2048 / (double(r.cycles) * 1024.0 * 64);
  std::printf("expert gemm 2048^3: %llu cycles, %.4f of peak\n", (unsigned long long)r.cycles,
              frac);
  EXPECT_GE(frac, 0.90);
}

TEST(Calibration, ExpertGemmStreamingWeightsReachesNinetyPercentOfLpddr) {
  rt::Simulator sim(timingOnly());
  sim::LaunchSummary r = gemm(sim, 512, 26592, 2048, 512, 64, 32, false, true, false, true, true);
  const double bytes = double(r.stats.find("memory.lpddr.bytes_read")->value +
                              r.stats.find("memory.lpddr.bytes_written")->value);
  const double frac = bytes / double(r.cycles) / sim.config().lpddrBytesPerCycle();
  std::printf("expert gemm 512x2048x26592: %llu cycles, %.0f LPDDR bytes, %.4f of bandwidth\n",
              (unsigned long long)r.cycles, bytes, frac);
  EXPECT_GE(bytes, 2048.0 * 26592 * 2); // the weights, once
  EXPECT_GE(frac, 0.90);
}

TEST(Calibration, SmallIssueBoundGemmGainsFromTheSecondCore) {
  sim::Config cfg = timingOnly();
  auto cycles = [&](bool dual) {
    rt::Simulator sim(cfg);
    return gemm(sim, 64, 64, 4096, 16, 16, 32, dual, true, true, true).cycles;
  };
  const uint64_t one = cycles(false), two = cycles(true);
  std::printf("small gemm: %llu cycles on one core, %llu on two\n", (unsigned long long)one,
              (unsigned long long)two);
  EXPECT_GT(double(one) / double(two), 1.05);
}

} // namespace
