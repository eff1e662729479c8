//===- commands_test.cpp - The ABI 2 commands: results, timing, faults ----===//

#include "test_util.h"

#include "mtia/sim/elements.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace mtia;
using namespace mtia::test;

namespace {

class CommandsTest : public ::testing::Test {
protected:
  rt::Simulator sim{sim::smallPreset()};

  /// Runs `kernel` on one program with args (in, out) and CB capacities.
  sim::LaunchSummary run1(KernelEntry kernel, const void *in, size_t inBytes, void *out,
                          size_t outBytes, std::initializer_list<int64_t> cbs) {
    KernelInfo info = kernelInfo("k", 2, cbs);
    return sim.launch(kernel, info, {1, 1, 1}, {ptrArg(in), ptrArg(out)},
                      {{reinterpret_cast<uint64_t>(in), inBytes},
                       {reinterpret_cast<uint64_t>(out), outBytes}});
  }
};

/// A dense in -> out copy of n elements of `t` through cb0 (load) and cb1.
void load(Ctx *c, int32_t cb, DType t, uint64_t addr, int64_t n) {
  dmaIn(c, cb, t, addr, box1(n, n), immInt(t, 0));
}
void store(Ctx *c, int32_t cb, DType t, uint64_t addr, int64_t n) {
  dmaOut(c, cb, t, addr, box1(n, n));
  cbPop(c, cb, n * dtypeSize(t));
}

//===----------------------------------------------------------------------===//
// SE opcodes and fp8
//===----------------------------------------------------------------------===//

TEST_F(CommandsTest, UnsignedAndBitLevelOpcodes) {
  static std::vector<int32_t> in = {-1, 7, -8, 0x40490fdb};
  static std::vector<float> outF(4);
  static std::vector<int32_t> outI(16);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(4);
    load(c, 0, DType::I32, a[0].u, 4);
    const Operand x = tile(0, DType::I32, s);
    se(c, SeOp::CopyU, 1, DType::F32, s, x);                         // uitofp
    store(c, 1, DType::F32, a[1].u, 4);
    se(c, SeOp::MulHiU, 2, DType::I32, s, x, immInt(DType::I32, 3)); // 0x2, 0, 0x2, 0
    store(c, 2, DType::I32, a[1].u + 16, 4);
    se(c, SeOp::MulHiS, 2, DType::I32, s, x, immInt(DType::I32, -3));
    store(c, 2, DType::I32, a[1].u + 32, 4);
    se(c, SeOp::Bitcast, 1, DType::F32, s, x);
    se(c, SeOp::CopyToU, 2, DType::I32, s, tile(1, DType::F32, s)); // fptoui
    cbPop(c, 1, 16);
    store(c, 2, DType::I32, a[1].u + 48, 4);
    cbPop(c, 0, 16);
  };
  KernelInfo info = kernelInfo("k", 2, {64, 64, 64});
  std::vector<uint8_t> out(64 + 48);
  sim.launch(kernel, info, {1, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
             {regionOf(in), regionOf(out)});
  float f[4];
  int32_t i[12];
  std::memcpy(f, out.data(), 16);
  std::memcpy(i, out.data() + 16, 48);
  EXPECT_EQ(f[0], 4294967296.0f);
  EXPECT_EQ(f[1], 7.0f);
  EXPECT_EQ(i[0], 2); // (2^32 - 1) * 3 >> 32
  EXPECT_EQ(i[1], 0);
  EXPECT_EQ(i[4], 0);  // -1 * -3 = 3: high half 0
  EXPECT_EQ(i[5], -1); // 7 * -3 = -21: high half all ones
  // Bitcast of 0x40490fdb is pi; CopyToU gives 3. -1's bits are a NaN: 0.
  EXPECT_EQ(i[11], 3);
  EXPECT_EQ(i[8], 0);
}

TEST_F(CommandsTest, BoolComparesOrderLikeLlvmI1) {
  // x = {0, 0, 1, 1}, y = {0, 1, 0, 1} as i1; unsigned false < true, signed
  // true (-1) < false (0).
  static std::vector<uint8_t> in = {0, 0, 1, 1, 0, 1, 0, 1};
  static std::vector<uint8_t> out(16);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(4);
    load(c, 0, DType::I1, a[0].u, 4);
    load(c, 1, DType::I1, a[0].u + 4, 4);
    const Operand x = tile(0, DType::I1, s), y = tile(1, DType::I1, s);
    const SeOp ops[] = {SeOp::CmpUGt, SeOp::CmpULe, SeOp::CmpGt, SeOp::CmpLe};
    for (int k = 0; k < 4; ++k) {
      se(c, ops[k], 2, DType::I1, s, x, y);
      store(c, 2, DType::I1, a[1].u + 4 * k, 4);
    }
    cbPop(c, 0, 4);
    cbPop(c, 1, 4);
  };
  run1(kernel, in.data(), in.size(), out.data(), out.size(), {64, 64, 64});
  EXPECT_EQ(out, (std::vector<uint8_t>{0, 0, 1, 0,   // x >u y
                                       1, 1, 0, 1,   // x <=u y
                                       0, 1, 0, 0,   // x >s y
                                       1, 0, 1, 1})); // x <=s y
}

TEST_F(CommandsTest, RintTruncAndFp8Arithmetic) {
  static std::vector<float> in = {2.5f, -2.5f, 3.5f, -0.7f};
  static std::vector<float> out(12);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(4);
    load(c, 0, DType::F32, a[0].u, 4);
    se(c, SeOp::Rint, 1, DType::F32, s, tile(0, DType::F32, s));
    store(c, 1, DType::F32, a[1].u, 4);
    se(c, SeOp::Trunc, 1, DType::F32, s, tile(0, DType::F32, s));
    store(c, 1, DType::F32, a[1].u + 16, 4);
    // To e4m3 and back: 2.5, -2.5, 3.5, -0.6875 are all representable
    // except -0.7, which rounds to -0.6875.
    se(c, SeOp::Copy, 2, DType::F8E4M3, s, tile(0, DType::F32, s));
    se(c, SeOp::Mul, 3, DType::F8E4M3, s, tile(2, DType::F8E4M3, s),
       immFloat(DType::F8E4M3, 2.0));
    se(c, SeOp::Copy, 1, DType::F32, s, tile(3, DType::F8E4M3, s));
    store(c, 1, DType::F32, a[1].u + 32, 4);
    cbPop(c, 0, 16);
    cbPop(c, 2, 4);
    cbPop(c, 3, 4);
  };
  run1(kernel, in.data(), 16, out.data(), 48, {64, 64, 16, 16});
  EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 4),
            (std::vector<float>{2.0f, -2.0f, 4.0f, -1.0f}));
  EXPECT_EQ(std::vector<float>(out.begin() + 4, out.begin() + 8),
            (std::vector<float>{2.0f, -2.0f, 3.0f, -0.0f}));
  EXPECT_EQ(std::vector<float>(out.begin() + 8, out.end()),
            (std::vector<float>{5.0f, -5.0f, 7.0f, -1.375f}));
}

//===----------------------------------------------------------------------===//
// DPE and MLU
//===----------------------------------------------------------------------===//

TEST_F(CommandsTest, DpeMultipliesF16WithATransposedBAndAnAccumulator) {
  const int64_t m = 4, n = 5, k = 3;
  static std::vector<uint16_t> in(m * k + n * k);
  static std::vector<float> out(m * n + m * n);
  for (int64_t i = 0; i < m * k; ++i)
    in[size_t(i)] = sim::halfFromFloat(float(i % 7) - 2.0f);
  for (int64_t i = 0; i < n * k; ++i) // b stored transposed: bt[n][k]
    in[size_t(m * k + i)] = sim::halfFromFloat(0.5f * float(i % 5));
  auto kernel = [](Ctx *c, const Arg *a) {
    const int64_t m = 4, n = 5, k = 3;
    load(c, 0, DType::F16, a[0].u, m * k);
    load(c, 1, DType::F16, a[0].u + m * k * 2, n * k);
    // acc = 1 everywhere via an immediate, then a second DPE accumulates on
    // the first result.
    dpe(c, 2, DType::F32, m, n, k, view(0, DType::F16, k, 1), view(1, DType::F16, 1, k),
        immFloat(DType::F32, 1.0));
    dpe(c, 3, DType::F32, m, n, k, view(0, DType::F16, k, 1), view(1, DType::F16, 1, k),
        tile(2, DType::F32, shape2(m, n)));
    cbPop(c, 0, m * k * 2);
    cbPop(c, 1, n * k * 2);
    store(c, 2, DType::F32, a[1].u, m * n);
    store(c, 3, DType::F32, a[1].u + m * n * 4, m * n);
  };
  sim::LaunchSummary r =
      run1(kernel, in.data(), in.size() * 2, out.data(), out.size() * 4, {64, 64, 128, 128});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float want = 1.0f;
      for (int64_t kk = 0; kk < k; ++kk)
        want += sim::floatFromHalf(in[size_t(i * k + kk)]) *
                sim::floatFromHalf(in[size_t(m * k + j * k + kk)]);
      EXPECT_EQ(out[size_t(i * n + j)], want) << i << "," << j;
      EXPECT_EQ(out[size_t(m * n + i * n + j)], 2 * want - 1) << i << "," << j;
    }
  EXPECT_EQ(r.stats.find("units.dpe.commands")->value, 2u);
}

TEST_F(CommandsTest, DpeOnInt8AccumulatesInInt32AndWraps) {
  static std::vector<int8_t> in(2 * 64);
  static std::vector<int32_t> out(1);
  std::fill(in.begin(), in.end(), int8_t(-128));
  auto kernel = [](Ctx *c, const Arg *a) {
    load(c, 0, DType::I8, a[0].u, 128);
    // [1 x 64] x [64 x 1]: 64 * 16384 = 2^20, plus INT32_MAX wraps.
    dpe(c, 1, DType::I32, 1, 1, 64, view(0, DType::I8, 64, 1), view(0, DType::I8, 1, 0),
        immInt(DType::I32, INT32_MAX));
    cbPop(c, 0, 128);
    store(c, 1, DType::I32, a[1].u, 1);
  };
  run1(kernel, in.data(), in.size(), out.data(), 4, {128, 64});
  EXPECT_EQ(out[0], int32_t(uint32_t(INT32_MAX) + (1u << 20)));
}

TEST_F(CommandsTest, DpeTimeIsFillPlusMacsOverRate) {
  // One 64x64x64 FP16 GEMM tile: 262144 MAC at 1024 per cycle = 256 cycles;
  // a stream of them keeps the DPE busy back to back.
  static std::vector<uint16_t> in(64 * 64);
  static std::vector<float> out(64 * 64);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape2(64, 64);
    load(c, 0, DType::F16, a[0].u, 64 * 64);
    for (int i = 0; i < 100; ++i) {
      dpe(c, 1, DType::F32, 64, 64, 64, tile(0, DType::F16, s), tile(0, DType::F16, s),
          immFloat(DType::F32, 0));
      cbPop(c, 1, 64 * 64 * 4);
    }
    cbPop(c, 0, 64 * 64 * 2);
  };
  sim::Config cfg = rowOfPes(1);
  cfg.timing_only = 1;
  rt::Simulator timing(cfg);
  KernelInfo info = kernelInfo("k", 2, {8192, 2 * 16384});
  sim::LaunchSummary r = timing.launch(kernel, info, {1, 1, 1},
                                       {ptrArg(in.data()), ptrArg(out.data())},
                                       {regionOf(in), regionOf(out)});
  EXPECT_EQ(r.stats.find("units.dpe.busy_cycles")->value, 100u * 256u);
  const uint64_t dpeSpan = r.cycles - cfg.launch_overhead_cycles;
  EXPECT_GE(dpeSpan, 100u * 256u);
  EXPECT_LE(dpeSpan, 100u * 256u + 1000u); // DMA in, fill, issue of the first
}

TEST_F(CommandsTest, MluTransposes) {
  static std::vector<int16_t> in(6);
  static std::vector<int16_t> out(6);
  for (int i = 0; i < 6; ++i)
    in[size_t(i)] = int16_t(i);
  auto kernel = [](Ctx *c, const Arg *a) {
    load(c, 0, DType::I16, a[0].u, 6); // [2, 3]
    mluCopy(c, 1, DType::I16, shape2(3, 2), view(0, DType::I16, 1, 3));
    cbPop(c, 0, 12);
    store(c, 1, DType::I16, a[1].u, 6);
  };
  sim::LaunchSummary r = run1(kernel, in.data(), 12, out.data(), 12, {64, 64});
  EXPECT_EQ(out, (std::vector<int16_t>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(r.stats.find("units.mlu.commands")->value, 1u);
}

//===----------------------------------------------------------------------===//
// Scan, histogram, gather
//===----------------------------------------------------------------------===//

TEST_F(CommandsTest, ScanForwardAndReverse) {
  static std::vector<int32_t> in = {1, 2, 3, 4, 5, 6};
  static std::vector<int32_t> out(12);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape2(2, 3);
    load(c, 0, DType::I32, a[0].u, 6);
    seScan(c, ReduceOp::Sum, 1, DType::I32, s, 1, false, tile(0, DType::I32, s));
    store(c, 1, DType::I32, a[1].u, 6);
    seScan(c, ReduceOp::Max, 1, DType::I32, s, 0, true, tile(0, DType::I32, s));
    store(c, 1, DType::I32, a[1].u + 24, 6);
    cbPop(c, 0, 24);
  };
  run1(kernel, in.data(), 24, out.data(), 48, {64, 64});
  EXPECT_EQ(std::vector<int32_t>(out.begin(), out.begin() + 6),
            (std::vector<int32_t>{1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(std::vector<int32_t>(out.begin() + 6, out.end()),
            (std::vector<int32_t>{4, 5, 6, 4, 5, 6}));
}

TEST_F(CommandsTest, HistogramCountsInRangeUnmaskedValues) {
  static std::vector<int32_t> in = {0, 1, 1, 3, 7, -1, 2, 1};
  static std::vector<int32_t> out(4);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(8);
    load(c, 0, DType::I32, a[0].u, 8);
    // mask: element index < 7 (the last 1 is masked off)
    seIota(c, 2, DType::I32, 8, 0);
    se(c, SeOp::CmpLt, 3, DType::I1, s, tile(2, DType::I32, s), immInt(DType::I32, 7));
    seHistogram(c, 1, 4, s, tile(0, DType::I32, s), 3);
    cbPop(c, 0, 32);
    cbPop(c, 2, 32);
    cbPop(c, 3, 8);
    store(c, 1, DType::I32, a[1].u, 4);
  };
  run1(kernel, in.data(), 32, out.data(), 16, {64, 64, 64, 64});
  EXPECT_EQ(out, (std::vector<int32_t>{1, 2, 1, 1}));
}

TEST_F(CommandsTest, GatherAlongAnAxis) {
  static std::vector<float> in = {10, 11, 12, 20, 21, 22};  // src [2, 3]
  static std::vector<int32_t> idx = {2, 0, 1, 1};            // index [2, 2]
  static std::vector<float> out(4);
  auto kernel = [](Ctx *c, const Arg *a) {
    load(c, 0, DType::F32, a[0].u, 6);
    load(c, 1, DType::I32, a[0].u + 24, 4);
    seGather(c, 2, DType::F32, shape2(2, 2), 1, tile(0, DType::F32, shape2(2, 3)),
             shape2(2, 3), tile(1, DType::I32, shape2(2, 2)));
    cbPop(c, 0, 24);
    cbPop(c, 1, 16);
    store(c, 2, DType::F32, a[1].u, 4);
  };
  std::vector<uint8_t> both(40);
  std::memcpy(both.data(), in.data(), 24);
  std::memcpy(both.data() + 24, idx.data(), 16);
  run1(kernel, both.data(), 40, out.data(), 16, {64, 64, 64});
  EXPECT_EQ(out, (std::vector<float>{12, 10, 21, 21}));
}

TEST_F(CommandsTest, GatherIndexOutOfRangeFaults) {
  static std::vector<int32_t> in = {0, 1, 2, 5};
  static std::vector<int32_t> out(4);
  auto kernel = [](Ctx *c, const Arg *a) {
    load(c, 0, DType::I32, a[0].u, 4);
    seGather(c, 1, DType::I32, shape1(4), 0, tile(0, DType::I32, shape1(4)), shape1(4),
             tile(0, DType::I32, shape1(4)));
  };
  try {
    run1(kernel, in.data(), 16, out.data(), 16, {64, 64});
    FAIL() << "expected a fault";
  } catch (const sim::FaultError &e) {
    EXPECT_EQ(e.fault().kind, "invalid command");
    EXPECT_EQ(e.fault().unit, "se");
    EXPECT_NE(e.fault().message.find("index 5"), std::string::npos) << e.what();
  }
}

//===----------------------------------------------------------------------===//
// Atomics
//===----------------------------------------------------------------------===//

/// Every program adds 1 to counter a[0] atomically and records the old value
/// at a[1][pid].
void atomicAddKernel(Ctx *c, const Arg *a) {
  const Shape one = shape1(1);
  seIota(c, 0, DType::I64, 1, a[0].i);
  atomicRmw(c, 1, RmwOp::Add, DType::I32, one, 0, immInt(DType::I32, 1));
  cbPop(c, 0, 8);
  store(c, 1, DType::I32, a[1].u + uint64_t(programId(c, 0)) * 4, 1);
}

TEST_F(CommandsTest, AtomicAddAcrossPesSeesEveryUpdate) {
  const int64_t programs = 64;
  std::vector<int32_t> counter(1, 0), olds(programs, -1);
  KernelInfo info = kernelInfo("k", 2, {64, 64});
  sim.launch(atomicAddKernel, info, {programs, 1, 1},
             {ptrArg(counter.data()), ptrArg(olds.data())}, {regionOf(counter), regionOf(olds)});
  EXPECT_EQ(counter[0], programs);
  std::sort(olds.begin(), olds.end());
  for (int64_t i = 0; i < programs; ++i)
    EXPECT_EQ(olds[size_t(i)], i);
}

/// A spin lock around a non-atomic read-modify-write of a[1]: CAS 0 -> 1 on
/// a[0] until it succeeds, load, add 1, store, release with an exchange.
void lockedIncrementKernel(Ctx *c, const Arg *a) {
  const Shape one = shape1(1);
  seIota(c, 0, DType::I64, 1, a[0].i);
  for (;;) {
    atomicCas(c, 1, DType::I32, one, 0, immInt(DType::I32, 0), immInt(DType::I32, 1));
    const int64_t old = readInt(c, 1, DType::I32);
    cbPop(c, 1, 4);
    if (old == 0)
      break;
  }
  load(c, 2, DType::I32, a[1].u, 1);
  se(c, SeOp::Add, 3, DType::I32, one, tile(2, DType::I32, one), immInt(DType::I32, 1));
  cbPop(c, 2, 4);
  store(c, 3, DType::I32, a[1].u, 1);
  atomicRmw(c, -1, RmwOp::Xchg, DType::I32, one, 0, immInt(DType::I32, 0));
  cbPop(c, 0, 8);
}

TEST_F(CommandsTest, SpinLockSerializesReadModifyWrites) {
  const int64_t programs = 32;
  std::vector<int32_t> lock(1, 0), value(1, 0);
  KernelInfo info = kernelInfo("k", 2, {64, 64, 64, 64});
  sim::LaunchSummary r = sim.launch(lockedIncrementKernel, info, {programs, 1, 1},
                                    {ptrArg(lock.data()), ptrArg(value.data())},
                                    {regionOf(lock), regionOf(value)});
  EXPECT_EQ(value[0], programs);
  EXPECT_EQ(lock[0], 0);
  // Contention: some CAS attempts failed and were retried.
  EXPECT_GT(r.stats.find("units.dma_out.commands")->value, uint64_t(3 * programs));
}

TEST_F(CommandsTest, AtomicOutsideEveryAllocationFaults) {
  std::vector<int32_t> counter(1, 0), olds(1);
  KernelInfo info = kernelInfo("k", 2, {64, 64});
  try {
    sim.launch(atomicAddKernel, info, {1, 1, 1}, {intArg(64), ptrArg(olds.data())},
               {regionOf(counter), regionOf(olds)});
    FAIL() << "expected a fault";
  } catch (const sim::FaultError &e) {
    EXPECT_EQ(e.fault().kind, "out-of-bounds DMA");
    EXPECT_EQ(e.fault().unit, "dma_out");
    EXPECT_NE(e.fault().command.find("atomicRmw"), std::string::npos);
  }
}

TEST_F(CommandsTest, AtomicFloatAddAndCasCompareBits) {
  std::vector<float> x = {1.5f, 2.0f};
  std::vector<float> olds(2);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape two = shape1(2);
    seIota(c, 0, DType::I64, 2, 0);
    se(c, SeOp::Mul, 1, DType::I64, two, tile(0, DType::I64, two), immInt(DType::I64, 4));
    se(c, SeOp::Add, 2, DType::I64, two, tile(1, DType::I64, two), immInt(DType::I64, a[0].i));
    cbPop(c, 0, 16);
    cbPop(c, 1, 16);
    atomicRmw(c, -1, RmwOp::FAdd, DType::F32, two, 2, immFloat(DType::F32, 0.25));
    // x is now {1.75, 2.25}: only the second matches cmp 2.25.
    atomicCas(c, 3, DType::F32, two, 2, immFloat(DType::F32, 2.25), immFloat(DType::F32, -1));
    cbPop(c, 2, 16);
    store(c, 3, DType::F32, a[1].u, 2);
  };
  KernelInfo info = kernelInfo("k", 2, {64, 64, 64, 64});
  sim.launch(kernel, info, {1, 1, 1}, {ptrArg(x.data()), ptrArg(olds.data())},
             {regionOf(x), regionOf(olds)});
  EXPECT_EQ(x, (std::vector<float>{1.75f, -1.0f}));
  EXPECT_EQ(olds, (std::vector<float>{1.75f, 2.25f}));
}

//===----------------------------------------------------------------------===//
// print, assert, barrier
//===----------------------------------------------------------------------===//

TEST_F(CommandsTest, PrintTileFormatsOneLinePerElement) {
  std::string printed;
  sim.setPrintSink([&](const std::string &s) { printed += s; });
  auto kernel = [](Ctx *c, const Arg *) {
    seIota(c, 0, DType::I32, 12, -2);
    printTile(c, " x: ", 0, DType::I32, shape2(1, 12));
    se(c, SeOp::Copy, 1, DType::F16, shape1(2), tile(0, DType::I32, shape1(2)));
    printTile(c, " h: ", 1, DType::F16, shape1(2));
    printTile(c, " u: ", 0, DType::I32, shape1(1), false, false);
    printTile(c, " b: ", 0, DType::I32, shape1(1), true);
  };
  KernelInfo info = kernelInfo("k", 0, {64, 64});
  sim.launch(kernel, info, {1, 1, 1}, {}, {});
  EXPECT_NE(printed.find("pid (0, 0, 0) idx (0,  0) x: -2\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pid (0, 0, 0) idx (0, 11) x: 9\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pid (0, 0, 0) idx (1) h: -1.000000\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pid (0, 0, 0) idx (0) u: 4294967294\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("pid (0, 0, 0) idx (0) b: 0xfffffffe\n"), std::string::npos) << printed;
}

TEST_F(CommandsTest, AssertTileFaultCarriesMessageFileAndLine) {
  auto kernel = [](Ctx *c, const Arg *) {
    const Shape s = shape1(4);
    seIota(c, 0, DType::I32, 4, 0);
    se(c, SeOp::CmpLt, 1, DType::I1, s, tile(0, DType::I32, s), immInt(DType::I32, 2));
    assertTile(c, 1, s, "x < 2", "kernel.py", 7);
  };
  KernelInfo info = kernelInfo("k", 0, {64, 64});
  try {
    sim.launch(kernel, info, {1, 1, 1}, {}, {});
    FAIL() << "expected an assert";
  } catch (const sim::FaultError &e) {
    EXPECT_EQ(e.fault().kind, "assert");
    EXPECT_EQ(e.fault().message, "x < 2");
    EXPECT_EQ(e.fault().file, "kernel.py");
    EXPECT_EQ(e.fault().line, 7);
    EXPECT_NE(e.fault().command.find("idx (2)"), std::string::npos) << e.fault().command;
  }
}

TEST_F(CommandsTest, BarrierWaitsForEveryIssuedCommand) {
  static std::vector<float> in(4096);
  auto kernel = [](Ctx *c, const Arg *a) {
    load(c, 0, DType::F32, a[0].u, 4096);
    barrier(c);
    scalarCycles(c, 1);
    cbPop(c, 0, 4096 * 4);
  };
  KernelInfo info = kernelInfo("k", 1, {4096 * 4});
  sim::LaunchSummary r =
      sim.launch(kernel, info, {1, 1, 1}, {ptrArg(in.data())}, {regionOf(in)});
  // The core waited for the whole DMA (latency + 16 KiB over the fabric).
  EXPECT_GE(r.stats.find("units.riscv.blocked_barrier_cycles")->value, 256u);
}

TEST(VectorCore, RunsTheLongTailMathTheSeRejects) {
  static std::vector<float> in(256), out(256);
  for (int i = 0; i < 256; ++i)
    in[size_t(i)] = float(i) / 256.0f;
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(256);
    load(c, 0, DType::F32, a[0].u, 256);
    vec(c, SeOp::Log1p, 1, DType::F32, s, tile(0, DType::F32, s));
    cbPop(c, 0, 1024);
    store(c, 1, DType::F32, a[1].u, 256);
  };
  rt::Simulator sim(rowOfPes(1));
  KernelInfo info = kernelInfo("k", 2, {1024, 1024});
  sim.launch(kernel, info, {1, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
             {regionOf(in), regionOf(out)});
  for (int i = 0; i < 256; ++i)
    ASSERT_EQ(out[size_t(i)], std::log1p(in[size_t(i)]));

  // The same opcode on the SE is an invalid command: it has no lookup table.
  auto onSe = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(256);
    load(c, 0, DType::F32, a[0].u, 256);
    se(c, SeOp::Log1p, 1, DType::F32, s, tile(0, DType::F32, s));
  };
  try {
    sim.launch(onSe, info, {1, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
               {regionOf(in), regionOf(out)});
    ADD_FAILURE() << "Log1p on the SE did not fault";
  } catch (const sim::FaultError &e) {
    EXPECT_EQ(e.fault().kind, sim::fault_kind::kInvalidCommand);
    EXPECT_NE(std::string(e.what()).find("vector core"), std::string::npos) << e.what();
  }
}

} // namespace

namespace {

//===----------------------------------------------------------------------===//
// Second core and vector unit
//===----------------------------------------------------------------------===//

/// A command-issue-bound small GEMM: 64 steps of a [16 x 32] x [32 x 16]
/// DPE tile (8 cycles) and its F16 epilogue on the SE (8 cycles), with two
/// pops: 4 commands, 32 issue cycles per step on one core. With `Dual`,
/// core 1 issues the DPE and its pop, core 0 the epilogue and its pop.
template <bool Dual> void issueBoundKernel(Ctx *c, const Arg *a) {
  const Shape out = shape2(16, 16);
  load(c, 0, DType::F16, a[0].u, 16 * 32);
  load(c, 1, DType::F16, a[0].u, 32 * 16);
  for (int i = 0; i < 64; ++i) {
    onCore(c, Dual ? 1 : 0);
    dpe(c, 2, DType::F32, 16, 16, 32, tile(0, DType::F16, shape2(16, 32)),
        tile(1, DType::F16, shape2(32, 16)), immFloat(DType::F32, 0));
    onCore(c, 0);
    se(c, SeOp::Copy, 3, DType::F16, out, tile(2, DType::F32, out));
    onCore(c, Dual ? 1 : 0);
    cbPop(c, 2, 16 * 16 * 4);
    onCore(c, 0);
    cbPop(c, 3, 16 * 16 * 2);
  }
  cbPop(c, 0, 16 * 32 * 2);
  cbPop(c, 1, 32 * 16 * 2);
}

TEST(DualIssue, SecondCoreSpeedsUpAnIssueBoundKernel) {
  static std::vector<uint16_t> in(32 * 32);
  sim::Config cfg = rowOfPes(1);
  cfg.keep_sram_warm = 1;
  auto cycles = [&](KernelEntry k) {
    rt::Simulator sim(cfg);
    KernelInfo info = kernelInfo("k", 1, {2048, 2048, 16384, 8192});
    sim.launch(k, info, {1, 1, 1}, {ptrArg(in.data())}, {regionOf(in)}); // warm SRAM
    return sim.launch(k, info, {1, 1, 1}, {ptrArg(in.data())}, {regionOf(in)});
  };
  sim::LaunchSummary one = cycles(issueBoundKernel<false>), two = cycles(issueBoundKernel<true>);
  EXPECT_EQ(two.stats.find("units.riscv.core1_commands")->value, 64u);
  EXPECT_EQ(one.stats.find("units.riscv.core1_commands")->value, 0u);
  // 32 issue cycles per step on one core, 16 on each of two (after the
  // launch overhead both pay).
  const double launch = double(cfg.launch_overhead_cycles);
  EXPECT_GT((double(one.cycles) - launch) / (double(two.cycles) - launch), 1.8)
      << one.cycles << " vs " << two.cycles;
}

TEST(DualIssue, CoreOneHasItsOwnTraceTrack) {
  static std::vector<uint16_t> in(32 * 32);
  rt::Simulator sim(rowOfPes(1));
  KernelInfo info = kernelInfo("k", 1, {2048, 2048, 16384, 8192});
  const std::string path = ::testing::TempDir() + "mtia_core1_trace.json";
  sim.launch(issueBoundKernel<true>, info, {1, 1, 1}, {ptrArg(in.data())}, {regionOf(in)},
             path);
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  const std::string s = text.str();
  std::remove(path.c_str());
  EXPECT_NE(s.find("\"riscv core 1\""), std::string::npos);
  // One stretch per switch to core 1: two per step, 64 steps.
  size_t spans = 0;
  for (size_t at = s.find("issue on core 1"); at != std::string::npos;
       at = s.find("issue on core 1", at + 1))
    ++spans;
  EXPECT_EQ(spans, 128u);
}

TEST(VectorCore, SpecialFunctions) {
  // x, then the expected erfinv, erfcx, i0, i1, j0, j1, y0, y1 (double
  // references from their definitions: erf(erfinv(y)) = y, the series of
  // erfc's continued fraction, and tabulated Bessel values).
  static std::vector<double> in = {0.5, -0.5, 0.999999, -5.0};
  static std::vector<double> out(8 * 4);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(4);
    load(c, 0, DType::F64, a[0].u, 4);
    const SeOp ops[] = {SeOp::Erfinv,   SeOp::Erfcx,    SeOp::BesselI0, SeOp::BesselI1,
                        SeOp::BesselJ0, SeOp::BesselJ1, SeOp::BesselY0, SeOp::BesselY1};
    for (int k = 0; k < 8; ++k) {
      vec(c, ops[k], 1, DType::F64, s, tile(0, DType::F64, s));
      store(c, 1, DType::F64, a[1].u + 32 * k, 4);
    }
    cbPop(c, 0, 32);
  };
  rt::Simulator sim(rowOfPes(1));
  KernelInfo info = kernelInfo("k", 2, {64, 64});
  sim.launch(kernel, info, {1, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
             {regionOf(in), regionOf(out)});
  auto at = [&](int k, int i) { return out[size_t(4 * k + i)]; };
  EXPECT_NEAR(std::erf(at(0, 0)), 0.5, 1e-15);
  EXPECT_EQ(at(0, 1), -at(0, 0));
  EXPECT_NEAR(std::erf(at(0, 2)), 0.999999, 1e-15);
  EXPECT_TRUE(std::isnan(at(0, 3))); // outside [-1, 1]
  EXPECT_NEAR(at(1, 0), std::exp(0.25) * std::erfc(0.5), 1e-15);
  EXPECT_NEAR(at(5, 3), 0.32757913759146523, 1e-14); // J1(-5) = -J1(5), and J1(5) < 0
  EXPECT_NEAR(at(2, 0), 1.0634833707413236, 1e-14);   // I0(0.5)
  EXPECT_EQ(at(2, 1), at(2, 0));                       // even
  EXPECT_NEAR(at(3, 1), -0.25789430539089631, 1e-14);  // I1(-0.5): odd
  EXPECT_NEAR(at(4, 0), 0.93846980724081290, 1e-14);   // J0(0.5)
  EXPECT_NEAR(at(5, 1), -0.24226845767487388, 1e-14);  // J1(-0.5)
  EXPECT_NEAR(at(6, 0), -0.44451873350670656, 1e-14);  // Y0(0.5)
  EXPECT_TRUE(std::isnan(at(7, 1)));                   // Y1 below 0
}

TEST(VectorCore, SpecialFunctionsAtTheEdges) {
  // Where libstdc++'s special functions throw or give NaN (I0, I1 past 1e8
  // and at inf; J and Y at inf), and erfcx near the end of its direct form.
  const double inf = std::numeric_limits<double>::infinity();
  static std::vector<double> in = {1e9, -inf, inf, 23.8};
  static std::vector<double> out(6 * 4);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(4);
    load(c, 0, DType::F64, a[0].u, 4);
    const SeOp ops[] = {SeOp::BesselI0, SeOp::BesselI1, SeOp::BesselJ0,
                        SeOp::BesselJ1, SeOp::BesselY0, SeOp::Erfcx};
    for (int k = 0; k < 6; ++k) {
      vec(c, ops[k], 1, DType::F64, s, tile(0, DType::F64, s));
      store(c, 1, DType::F64, a[1].u + 32 * k, 4);
    }
    cbPop(c, 0, 32);
  };
  rt::Simulator sim(rowOfPes(1));
  KernelInfo info = kernelInfo("k", 2, {64, 64});
  sim.launch(kernel, info, {1, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
             {regionOf(in), regionOf(out)});
  auto at = [&](int k, int i) { return out[size_t(4 * k + i)]; };
  EXPECT_EQ(at(0, 0), inf);
  EXPECT_EQ(at(0, 1), inf);  // I0 even
  EXPECT_EQ(at(1, 1), -inf); // I1 odd
  EXPECT_EQ(at(2, 2), 0.0);  // J0(inf)
  EXPECT_EQ(at(3, 1), 0.0);  // J1(-inf)
  EXPECT_EQ(at(4, 2), 0.0);  // Y0(inf)
  EXPECT_TRUE(std::isnan(at(4, 1)));
  EXPECT_EQ(at(5, 1), inf); // erfcx(-inf)
  EXPECT_EQ(at(5, 2), 0.0); // erfcx(inf)
  // erfcx(23.8) = 0.02368457491671022939 (mpmath); exp(23.8 * 23.8)
  // with the square rounded is off by 2e-14.
  EXPECT_NEAR(at(5, 3) / 0.02368457491671022939, 1, 3e-16);
}

TEST(VectorCore, SpecialFunctionsCostSeveralPasses) {
  // 1024 fp32 elements, 16 a strip: 64 strips, each the busier of a load
  // and a store on the port and the passes on the ALU (Erfc one, Erfcx
  // two, BesselJ0 three: vecOpPasses).
  static std::vector<float> in(1024, 0.5f), out(1024);
  auto busy = [](SeOp op) {
    static SeOp theOp;
    theOp = op;
    auto kernel = [](Ctx *c, const Arg *a) {
      const Shape s = shape1(1024);
      load(c, 0, DType::F32, a[0].u, 1024);
      vec(c, theOp, 1, DType::F32, s, tile(0, DType::F32, s));
      cbPop(c, 0, 4096);
      store(c, 1, DType::F32, a[1].u, 1024);
    };
    rt::Simulator sim(rowOfPes(1));
    KernelInfo info = kernelInfo("k", 2, {4096, 4096});
    sim::LaunchSummary r = sim.launch(kernel, info, {1, 1, 1},
                                      {ptrArg(in.data()), ptrArg(out.data())},
                                      {regionOf(in), regionOf(out)});
    return r.stats.find("units.vec.busy_cycles")->value;
  };
  EXPECT_EQ(busy(SeOp::Erfc), 64u * 2);
  EXPECT_EQ(busy(SeOp::Erfcx), 64u * 2);
  EXPECT_EQ(busy(SeOp::BesselJ0), 64u * 3);
}

TEST(VectorCore, ComputesLikeTheSeAtItsOwnRate) {
  static std::vector<float> in(1024), out(1024);
  for (int i = 0; i < 1024; ++i)
    in[size_t(i)] = float(i);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(1024);
    load(c, 0, DType::F32, a[0].u, 1024);
    vec(c, SeOp::Fma, 1, DType::F32, s, tile(0, DType::F32, s), immFloat(DType::F32, 2),
        immFloat(DType::F32, 1));
    cbPop(c, 0, 4096);
    store(c, 1, DType::F32, a[1].u, 1024);
  };
  rt::Simulator sim(rowOfPes(1));
  KernelInfo info = kernelInfo("k", 2, {4096, 4096});
  sim::LaunchSummary r = sim.launch(kernel, info, {1, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
                                    {regionOf(in), regionOf(out)});
  for (int i = 0; i < 1024; ++i)
    ASSERT_EQ(out[size_t(i)], 2.0f * float(i) + 1.0f);
  // 1024 fp32 elements, 16 a strip: a load and a store on the port per
  // strip (the fma's immediates are scalar operands).
  EXPECT_EQ(r.stats.find("units.vec.busy_cycles")->value, 64u * 2);
  EXPECT_EQ(r.stats.find("units.se.commands")->value, 0u);
}

} // namespace

namespace {

//===----------------------------------------------------------------------===//
// Reduction engine
//===----------------------------------------------------------------------===//

constexpr int64_t kReRows = 4, kReLen = 256;

/// A column of kReRows PEs sums their partial rows down the column: the top
/// PE sends its row south, each middle PE adds what arrives from the north
/// to its own row and forwards the sum, the bottom PE adds and stores.
void columnSum(Ctx *c, const Arg *a) {
  const int64_t pid = programId(c, 0);
  const Shape s = shape1(kReLen);
  load(c, 0, DType::F32, a[0].u + uint64_t(pid * kReLen * 4), kReLen);
  if (pid == 0) {
    reSend(c, ReDir::South, DType::F32, s, tile(0, DType::F32, s));
    cbPop(c, 0, kReLen * 4);
    return;
  }
  reRecv(c, ReduceOp::Sum, 1, DType::F32, s, tile(0, DType::F32, s), ReDir::North);
  cbPop(c, 0, kReLen * 4);
  if (pid + 1 < kReRows) {
    reSend(c, ReDir::South, DType::F32, s, tile(1, DType::F32, s));
    cbPop(c, 1, kReLen * 4);
  } else {
    store(c, 1, DType::F32, a[1].u, kReLen);
  }
}

sim::Config columnOfPes() {
  sim::Config cfg = sim::mtia2iPreset();
  cfg.pe_rows = kReRows;
  cfg.pe_cols = 1;
  return cfg;
}

TEST(ReductionEngine, AColumnReducesPartialSumsToTheLastPe) {
  static std::vector<float> in(kReRows * kReLen), out(kReLen);
  for (int64_t r = 0; r < kReRows; ++r)
    for (int64_t i = 0; i < kReLen; ++i)
      in[size_t(r * kReLen + i)] = float(r * 1000 + i);
  const sim::Config cfg = columnOfPes();
  rt::Simulator sim(cfg);
  KernelInfo info = kernelInfo("column_sum", 2, {kReLen * 4, kReLen * 4});
  sim::LaunchSummary r = sim.launch(columnSum, info, {kReRows, 1, 1},
                                    {ptrArg(in.data()), ptrArg(out.data())},
                                    {regionOf(in), regionOf(out)});
  for (int64_t i = 0; i < kReLen; ++i)
    ASSERT_EQ(out[size_t(i)], float(6000 + 4 * i)) << i;
  // Three sends and three receives, each 1 KiB at re_bytes_per_cycle.
  const uint64_t perCommand = uint64_t(kReLen * 4 / cfg.re_bytes_per_cycle);
  EXPECT_EQ(r.stats.find("units.re.commands")->value, 6u);
  EXPECT_EQ(r.stats.find("units.re.busy_cycles")->value, 6 * perCommand);
  EXPECT_EQ(r.stats.find("pe.0.re.commands")->value, 1u);
  // The hops are in series: the chain is at least three (send, hop).
  EXPECT_GE(r.cycles, uint64_t(cfg.launch_overhead_cycles) +
                          3 * (perCommand + uint64_t(cfg.re_hop_cycles)));

  // Timing-only gives the same cycles; a longer hop makes the chain longer.
  sim::Config timing = cfg;
  timing.timing_only = 1;
  EXPECT_EQ(rt::Simulator(timing)
                .launch(columnSum, info, {kReRows, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
                        {regionOf(in), regionOf(out)})
                .cycles,
            r.cycles);
  sim::Config slow = timing;
  slow.re_hop_cycles += 100;
  EXPECT_EQ(rt::Simulator(slow)
                .launch(columnSum, info, {kReRows, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
                        {regionOf(in), regionOf(out)})
                .cycles,
            r.cycles + 300);
}

TEST(ReductionEngine, FaultsNameTheDirectionAndTheWaitingPe) {
  static std::vector<float> in(kReRows * kReLen), out(kReLen);
  KernelInfo info = kernelInfo("k", 2, {kReLen * 4, kReLen * 4});
  rt::Simulator sim(columnOfPes());
  // Sending off the grid's edge is refused at issue.
  auto offEdge = [](Ctx *c, const Arg *) {
    const Shape s = shape1(4);
    seIota(c, 0, DType::F32, 4, 0);
    reSend(c, ReDir::East, DType::F32, s, tile(0, DType::F32, s));
  };
  try {
    sim.launch(offEdge, info, {1, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
               {regionOf(in), regionOf(out)});
    FAIL() << "expected a fault";
  } catch (const sim::FaultError &e) {
    EXPECT_EQ(e.fault().kind, std::string("invalid command"));
    EXPECT_NE(e.fault().message.find("no east neighbour"), std::string::npos) << e.fault().message;
  }
  // A receive nobody sends to is a deadlock that says what it waits for.
  auto lonely = [](Ctx *c, const Arg *) {
    const Shape s = shape1(4);
    if (programId(c, 0) == 1)
      reRecv(c, ReduceOp::Sum, 1, DType::F32, s, immFloat(DType::F32, 0), ReDir::North);
  };
  try {
    sim.launch(lonely, info, {2, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
               {regionOf(in), regionOf(out)});
    FAIL() << "expected a deadlock";
  } catch (const sim::FaultError &e) {
    EXPECT_EQ(e.fault().kind, std::string("deadlock"));
    EXPECT_NE(e.fault().message.find("waits for a tile from the north neighbour (PE 0)"),
              std::string::npos)
        << e.fault().message;
  }
}

} // namespace

namespace {

//===----------------------------------------------------------------------===//
// NoC broadcast
//===----------------------------------------------------------------------===//

constexpr int64_t kBcRows = 3, kBcCols = 4, kBcLen = 256;

sim::Config gridOfPes() {
  sim::Config cfg = sim::mtia2iPreset();
  cfg.pe_rows = kBcRows;
  cfg.pe_cols = kBcCols;
  return cfg;
}

/// PE (r, c) of a 3x4 grid, one program each: the PE in column `src` of
/// every row broadcasts its row of `in` along the PE row; every other PE
/// receives it, and each stores what it holds (its own row or the one it
/// received) to `out`.
template <int32_t Axis>
void broadcastLine(Ctx *c, const Arg *a) {
  const int64_t pid = programId(c, 0);
  const int64_t along = Axis == 1 ? pid % kBcCols : pid / kBcCols;
  const Shape s = shape1(kBcLen);
  if (along == 1) { // the source of its line
    load(c, 0, DType::F32, a[0].u + uint64_t(pid * kBcLen * 4), kBcLen);
    nocBroadcast(c, Axis, DType::F32, s, tile(0, DType::F32, s));
  } else {
    nocRecv(c, Axis, 0, DType::F32, s);
  }
  store(c, 0, DType::F32, a[1].u + uint64_t(pid * kBcLen * 4), kBcLen);
}

TEST(NocBroadcast, EveryPeOfTheLineGetsTheSourcesTile) {
  static std::vector<float> in(kBcRows * kBcCols * kBcLen), out(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(i);
  const sim::Config cfg = gridOfPes();
  KernelInfo info = kernelInfo("broadcast", 2, {kBcLen * 4});
  for (int axis : {0, 1}) {
    std::fill(out.begin(), out.end(), -1.0f);
    rt::Simulator sim(cfg);
    sim::LaunchSummary r =
        sim.launch(axis == 1 ? broadcastLine<1> : broadcastLine<0>, info,
                   {kBcRows * kBcCols, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
                   {regionOf(in), regionOf(out)}, "", sim::PidMapping::User);
    for (int64_t pe = 0; pe < kBcRows * kBcCols; ++pe) {
      const int64_t src = axis == 1 ? (pe / kBcCols) * kBcCols + 1 : kBcCols + pe % kBcCols;
      for (int64_t i = 0; i < kBcLen; ++i)
        ASSERT_EQ(out[size_t(pe * kBcLen + i)], in[size_t(src * kBcLen + i)])
            << "axis " << axis << " pe " << pe << " element " << i;
    }
    // The broadcast bytes never cross the memories' crossbars: only the
    // sources' loads and everyone's stores do.
    const int64_t sources = axis == 1 ? kBcRows : kBcCols;
    uint64_t crossed = 0;
    for (int i = 0; const sim::StatNode *x = r.stats.find("memory.noc.crossbar" + std::to_string(i) + ".bytes"); ++i)
      crossed += x->value;
    // (Within a KiB: DMAs of unaligned vectors cross a few partial lines
    // more; the receivers' tiles would add a KiB each.)
    EXPECT_GE(crossed, uint64_t((sources + kBcRows * kBcCols) * kBcLen * 4));
    EXPECT_LT(crossed, uint64_t((sources + kBcRows * kBcCols + 1) * kBcLen * 4));
    EXPECT_EQ(r.stats.find("units.dma_out.commands")->value,
              uint64_t(sources + kBcRows * kBcCols));
  }
}

TEST(NocBroadcast, AFartherPeGetsTheTileLater) {
  // Along a row of 4 from column 1, without DMAs (whose latency the hop
  // cycles change too): columns 0 and 2 are one hop away, column 3 two, so
  // a hop 100 cycles longer delays the last arrival by 200.
  KernelInfo info = kernelInfo("broadcast", 0, {kBcLen * 4});
  auto fromColumnOne = [](Ctx *c, const Arg *) {
    const Shape s = shape1(kBcLen);
    if (programId(c, 0) % kBcCols == 1) {
      seIota(c, 0, DType::F32, kBcLen, 0);
      nocBroadcast(c, 1, DType::F32, s, tile(0, DType::F32, s));
    } else {
      nocRecv(c, 1, 0, DType::F32, s);
    }
    cbPop(c, 0, kBcLen * 4);
  };
  auto cycles = [&](int64_t hop) {
    sim::Config cfg = gridOfPes();
    cfg.noc_hop_cycles = hop;
    return rt::Simulator(cfg)
        .launch(fromColumnOne, info, {kBcRows * kBcCols, 1, 1}, {}, {}, "", sim::PidMapping::User)
        .cycles;
  };
  EXPECT_EQ(cycles(102), cycles(2) + 2 * 100);
}

TEST(NocBroadcast, AReceiveNobodyBroadcastsToIsADeadlockThatSaysSo) {
  static std::vector<float> in(16), out(16);
  KernelInfo info = kernelInfo("k", 2, {64});
  rt::Simulator sim(gridOfPes());
  auto lonely = [](Ctx *c, const Arg *) {
    if (programId(c, 0) == 5)
      nocRecv(c, 1, 0, DType::F32, shape1(4));
  };
  try {
    sim.launch(lonely, info, {kBcRows * kBcCols, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
               {regionOf(in), regionOf(out)}, "", sim::PidMapping::User);
    FAIL() << "expected a deadlock";
  } catch (const sim::FaultError &e) {
    EXPECT_EQ(e.fault().kind, std::string("deadlock"));
    EXPECT_NE(e.fault().message.find("waits for a tile broadcast along its PE row"),
              std::string::npos)
        << e.fault().message;
  }
}

} // namespace

namespace {

TEST(NetworkReceive, ATileOfAnotherSizeIsAnInvalidCommandThatSaysBoth) {
  static std::vector<float> in(16), out(16);
  KernelInfo info = kernelInfo("k", 2, {64, 64});
  auto fault = [&](KernelEntry kernel) -> std::string {
    try {
      rt::Simulator(gridOfPes())
          .launch(kernel, info, {kBcRows * kBcCols, 1, 1}, {ptrArg(in.data()), ptrArg(out.data())},
                  {regionOf(in), regionOf(out)}, "", sim::PidMapping::User);
    } catch (const sim::FaultError &e) {
      EXPECT_EQ(e.fault().kind, std::string("invalid command"));
      return e.fault().message;
    }
    ADD_FAILURE() << "expected a fault";
    return "";
  };
  // PE 0 sends 4 floats south; PE 4, below it, expects 8.
  std::string re = fault([](Ctx *c, const Arg *) {
    const int64_t pid = programId(c, 0);
    if (pid == 0) {
      seIota(c, 0, DType::F32, 4, 0);
      reSend(c, ReDir::South, DType::F32, shape1(4), tile(0, DType::F32, shape1(4)));
    } else if (pid == kBcCols) {
      reRecv(c, ReduceOp::Sum, 1, DType::F32, shape1(8), immFloat(DType::F32, 0), ReDir::North);
    }
  });
  EXPECT_NE(re.find("reRecv of 32 bytes from the north neighbour, which sent 16"), std::string::npos) << re;
  // PE 0 broadcasts 4 floats along its row; PE 1 expects 8.
  std::string noc = fault([](Ctx *c, const Arg *) {
    const int64_t pid = programId(c, 0);
    if (pid == 0) {
      seIota(c, 0, DType::F32, 4, 0);
      nocBroadcast(c, 1, DType::F32, shape1(4), tile(0, DType::F32, shape1(4)));
    } else if (pid == 1) {
      nocRecv(c, 1, 1, DType::F32, shape1(8));
    }
  });
  EXPECT_NE(noc.find("nocRecv of 32 bytes along the PE row, which was broadcast 16"), std::string::npos)
      << noc;
}

} // namespace
