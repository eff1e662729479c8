//===- launch_test.cpp - Functional results of hand-written kernels -------===//

#include "test_util.h"

#include "mtia/sim/elements.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

using namespace mtia;
using namespace mtia::test;

namespace {

class LaunchTest : public ::testing::Test {
protected:
  rt::Simulator sim{sim::smallPreset()};
};

TEST_F(LaunchTest, VectorAddWithAMaskedTail) {
  const int64_t n = 10000, block = 1024;
  std::vector<float> x(n), y(n), out(n, -1.0f);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = float(i) * 0.5f;
    y[i] = 3.0f - float(i);
  }
  KernelInfo info = kernelInfo("vector_add", 5, {2 * 4096, 2 * 4096, 2 * 4096});
  const int64_t programs = (n + block - 1) / block;
  sim::LaunchSummary r =
      sim.launch(vectorAddKernel, info, {programs, 1, 1},
                 {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n), intArg(block)},
                 {regionOf(x), regionOf(y), regionOf(out)});
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], x[i] + y[i]) << i;
  EXPECT_EQ(r.programs, programs);
  EXPECT_EQ(r.pesUsed, 4); // 10 programs on 4 PEs: blocks of 3
  EXPECT_GT(r.cycles, 0u);
  EXPECT_EQ(r.stats.find("units.se.commands")->value, uint64_t(programs));
  // The SRAM cache takes the writes (write-back), in whole 32-byte
  // granules: each program's stretch of an unaligned vector may begin and
  // end inside one.
  EXPECT_EQ(r.stats.find("memory.lpddr.bytes_written")->value, 0u);
  // (The SRAM's bytes written include the page fills of the reads.)
  const uint64_t written = r.stats.find("memory.sram.bytes_written")->value -
                           r.stats.find("memory.lpddr.bytes_read")->value;
  EXPECT_GE(written, uint64_t(n * 4));
  EXPECT_LE(written, uint64_t(n * 4 + programs * 2 * 32));
}

TEST_F(LaunchTest, TilesWrapAroundTheEndOfACb) {
  // 1.5 tiles per CB: every other tile wraps.
  const int64_t n = 4096, block = 256;
  std::vector<float> x(n), y(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = float(i);
    y[i] = float(2 * i);
  }
  KernelInfo info = kernelInfo("vector_add", 5, {1536, 1536, 1536});
  sim.launch(vectorAddKernel, info, {n / block, 1, 1},
             {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n), intArg(block)},
             {regionOf(x), regionOf(y), regionOf(out)});
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[i], float(3 * i)) << i;
}

/// Loads a box of the input with a pad value and stores the whole tile.
/// Args: in, out, rows, cols (tile), valid rows, valid cols, row stride,
/// element offset of the box.
void paddedCopyKernel(Ctx *c, const Arg *a) {
  Box in;
  in.rank = 2;
  in.shape[0] = a[2].i;
  in.shape[1] = a[3].i;
  in.valid[0] = a[4].i;
  in.valid[1] = a[5].i;
  in.stride[0] = a[6].i;
  in.stride[1] = 1;
  dmaIn(c, 0, DType::I32, a[0].u + uint64_t(a[7].i) * 4, in, immInt(DType::I32, -7));
  Box out = in;
  out.valid[0] = in.shape[0];
  out.valid[1] = in.shape[1];
  out.stride[0] = in.shape[1];
  dmaOut(c, 0, DType::I32, a[1].u, out);
  cbPop(c, 0, in.shape[0] * in.shape[1] * 4);
}

TEST_F(LaunchTest, MaskedAndStrided2DBoxIn) {
  // An 8x10 matrix; the 4x4 tile at (2, 3) of which 3x2 elements are valid.
  std::vector<int32_t> m(80), out(16, 0);
  for (int i = 0; i < 80; ++i)
    m[size_t(i)] = i;
  KernelInfo info = kernelInfo("padded_copy", 8, {64});
  sim.launch(paddedCopyKernel, info, {1, 1, 1},
             {ptrArg(m.data()), ptrArg(out.data()), intArg(4), intArg(4), intArg(3), intArg(2),
              intArg(10), intArg(2 * 10 + 3)},
             {regionOf(m), regionOf(out)});
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      int32_t want = r < 3 && c < 2 ? (2 + r) * 10 + 3 + c : -7;
      EXPECT_EQ(out[size_t(r * 4 + c)], want) << r << "," << c;
    }
}

TEST_F(LaunchTest, FullyMaskedBoxMovesNothing) {
  std::vector<int32_t> m(4, 5), out(16, 0);
  KernelInfo info = kernelInfo("padded_copy", 8, {64});
  sim::LaunchSummary r =
      sim.launch(paddedCopyKernel, info, {1, 1, 1},
                 {ptrArg(m.data()), ptrArg(out.data()), intArg(4), intArg(4), intArg(0), intArg(4),
                  intArg(4), intArg(0)},
                 {regionOf(m), regionOf(out)});
  for (int32_t v : out)
    EXPECT_EQ(v, -7);
  EXPECT_EQ(r.stats.find("memory.lpddr.bytes_read")->value, 0u);
}

/// out[4x8] = x[4x8] * row[8] (broadcast over rows) + 2, then - x via Fma.
/// Args: x, row, out, out2.
void broadcastKernel(Ctx *c, const Arg *a) {
  const Shape s = shape2(4, 8);
  Box b;
  b.rank = 2;
  b.shape[0] = b.valid[0] = 4;
  b.shape[1] = b.valid[1] = 8;
  b.stride[0] = 8;
  b.stride[1] = 1;
  dmaIn(c, 0, DType::F32, a[0].u, b, immFloat(DType::F32, 0));
  dmaIn(c, 1, DType::F32, a[1].u, box1(8, 8), immFloat(DType::F32, 0));
  se(c, SeOp::Mul, 2, DType::F32, s, tile(0, DType::F32, s), view(1, DType::F32, 0, 1));
  se(c, SeOp::Add, 3, DType::F32, s, tile(2, DType::F32, s), immFloat(DType::F32, 2.0));
  // Fma with the immediate first: a * b + c with a = -1.
  se(c, SeOp::Fma, 4, DType::F32, s, immFloat(DType::F32, -1.0), tile(0, DType::F32, s),
     tile(3, DType::F32, s));
  cbPop(c, 0, 128);
  cbPop(c, 1, 32);
  cbPop(c, 2, 128);
  dmaOut(c, 3, DType::F32, a[2].u, b);
  dmaOut(c, 4, DType::F32, a[3].u, b);
  cbPop(c, 3, 128);
  cbPop(c, 4, 128);
}

TEST_F(LaunchTest, SeBinaryWithBroadcastViewAndImmediate) {
  std::vector<float> x(32), row(8), out(32), out2(32);
  for (int i = 0; i < 32; ++i)
    x[size_t(i)] = float(i) - 10.0f;
  for (int j = 0; j < 8; ++j)
    row[size_t(j)] = float(j) * 0.25f;
  KernelInfo info = kernelInfo("broadcast", 4, {128, 32, 128, 128, 128});
  sim.launch(broadcastKernel, info, {1, 1, 1},
             {ptrArg(x.data()), ptrArg(row.data()), ptrArg(out.data()), ptrArg(out2.data())},
             {regionOf(x), regionOf(row), regionOf(out), regionOf(out2)});
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 8; ++j) {
      float want = x[size_t(i * 8 + j)] * row[size_t(j)] + 2.0f;
      EXPECT_EQ(out[size_t(i * 8 + j)], want);
      EXPECT_EQ(out2[size_t(i * 8 + j)], want - x[size_t(i * 8 + j)]);
    }
}

/// Reduces a [3, 5] tile along axis 0 and 1 with `op` in dtype `t`.
/// Args: in, out0 (5 elements), out1 (3 elements), op, dtype.
void reduceKernel(Ctx *c, const Arg *a) {
  const DType t = DType(a[4].i);
  const int64_t es = dtypeSize(t);
  const Shape s = shape2(3, 5);
  Box b;
  b.rank = 2;
  b.shape[0] = b.valid[0] = 3;
  b.shape[1] = b.valid[1] = 5;
  b.stride[0] = 5;
  b.stride[1] = 1;
  dmaIn(c, 0, t, a[0].u, b, immInt(t, 0));
  seReduce(c, ReduceOp(a[3].i), 1, t, s, 0, tile(0, t, s));
  seReduce(c, ReduceOp(a[3].i), 2, t, s, 1, tile(0, t, s));
  cbPop(c, 0, 15 * es);
  dmaOut(c, 1, t, a[1].u, box1(5, 5));
  dmaOut(c, 2, t, a[2].u, box1(3, 3));
  cbPop(c, 1, 5 * es);
  cbPop(c, 2, 3 * es);
}

template <class T>
void checkReduce(rt::Simulator &sim, ReduceOp op, DType t, const std::vector<T> &in,
                 const std::vector<T> &want0, const std::vector<T> &want1) {
  std::vector<T> out0(5), out1(3);
  KernelInfo info = kernelInfo("reduce", 5, {15 * 8, 5 * 8, 3 * 8});
  sim.launch(reduceKernel, info, {1, 1, 1},
             {ptrArg(in.data()), ptrArg(out0.data()), ptrArg(out1.data()), intArg(int64_t(op)),
              intArg(int64_t(t))},
             {regionOf(in), regionOf(out0), regionOf(out1)});
  EXPECT_EQ(out0, want0);
  EXPECT_EQ(out1, want1);
}

TEST_F(LaunchTest, ReduceSumAndMaxAlongEachAxis) {
  std::vector<float> f(15);
  std::vector<int32_t> i(15);
  for (int k = 0; k < 15; ++k) {
    f[size_t(k)] = float((k * 7) % 11) - 5.0f;
    i[size_t(k)] = (k * 7) % 11 - 5;
  }
  auto ref = [](const auto &v, bool sum, int axis) {
    using T = typename std::decay_t<decltype(v)>::value_type;
    std::vector<T> r(axis == 0 ? 5 : 3);
    for (size_t o = 0; o < r.size(); ++o) {
      T acc = axis == 0 ? v[o] : v[o * 5];
      for (int k = 1; k < (axis == 0 ? 3 : 5); ++k) {
        T x = axis == 0 ? v[size_t(k) * 5 + o] : v[o * 5 + size_t(k)];
        acc = sum ? T(acc + x) : std::max(acc, x);
      }
      r[o] = acc;
    }
    return r;
  };
  checkReduce(sim, ReduceOp::Sum, DType::F32, f, ref(f, true, 0), ref(f, true, 1));
  checkReduce(sim, ReduceOp::Max, DType::F32, f, ref(f, false, 0), ref(f, false, 1));
  checkReduce(sim, ReduceOp::Sum, DType::I32, i, ref(i, true, 0), ref(i, true, 1));
  checkReduce(sim, ReduceOp::Max, DType::I32, i, ref(i, false, 0), ref(i, false, 1));
}

/// max over the first `n` of 8 elements, the rest padded with -inf.
/// Args: in, out, n.
void maskedMaxKernel(Ctx *c, const Arg *a) {
  const double inf = std::numeric_limits<double>::infinity();
  dmaIn(c, 0, DType::F32, a[0].u, box1(8, a[2].i), immFloat(DType::F32, -inf));
  seReduce(c, ReduceOp::Max, 1, DType::F32, shape1(8), 0, tile(0, DType::F32, shape1(8)));
  dmaOut(c, 1, DType::F32, a[1].u, Box());
  cbPop(c, 0, 32);
  cbPop(c, 1, 4);
}

TEST_F(LaunchTest, InfinitePadFeedsAMaskedMax) {
  std::vector<float> in = {-5, -3, -9, -4, 100}, out(1);
  KernelInfo info = kernelInfo("masked_max", 3, {32, 4});
  sim.launch(maskedMaxKernel, info, {1, 1, 1},
             {ptrArg(in.data()), ptrArg(out.data()), intArg(4)}, {regionOf(in), regionOf(out)});
  EXPECT_EQ(out[0], -3.0f); // 100 is masked off; the pad never wins
}

/// Gathers x[idx[i]] through an address tile built from iota and the SE,
/// then scatters it to out[n - 1 - i]; the last two elements are masked off.
/// Args: x, out, n. The core also reads element 1 of the iota tile.
void gatherScatterKernel(Ctx *c, const Arg *a) {
  const int64_t n = a[2].i;
  const Shape s = shape1(n);
  seIota(c, 0, DType::I64, n, 0);
  // Reading a value the SE produced blocks the core until it is published.
  int64_t one = readInt(c, 0, DType::I64, 1);
  // addresses of x[2 * i] and of out[n - 1 - i]
  se(c, SeOp::Mul, 1, DType::I64, s, tile(0, DType::I64, s), immInt(DType::I64, 8 * one));
  se(c, SeOp::Add, 1, DType::I64, s, tile(1, DType::I64, s), immInt(DType::I64, int64_t(a[0].u)));
  cbPop(c, 1, n * 8);
  se(c, SeOp::Mul, 2, DType::I64, s, tile(0, DType::I64, s), immInt(DType::I64, -4));
  se(c, SeOp::Add, 2, DType::I64, s, tile(2, DType::I64, s),
     immInt(DType::I64, int64_t(a[1].u) + (n - 1) * 4));
  cbPop(c, 2, n * 8);
  se(c, SeOp::CmpLt, 3, DType::I1, s, tile(0, DType::I64, s), immInt(DType::I64, n - 2));
  cbPop(c, 0, n * 8);
  gatherIn(c, 4, DType::F32, s, 1, 3, immFloat(DType::F32, 99.0));
  scatterOut(c, 4, DType::F32, s, 2, -1);
  cbPop(c, 1, n * 8);
  cbPop(c, 2, n * 8);
  cbPop(c, 3, n);
  cbPop(c, 4, n * 4);
}

TEST_F(LaunchTest, IotaGatherScatterAndReadInt) {
  const int64_t n = 16;
  std::vector<float> x(2 * n), out(n, 0);
  for (int64_t i = 0; i < 2 * n; ++i)
    x[size_t(i)] = float(i) + 0.5f;
  KernelInfo info = kernelInfo("gather_scatter", 3, {n * 8, 2 * n * 8, 2 * n * 8, n, n * 4});
  sim::LaunchSummary r = sim.launch(gatherScatterKernel, info, {1, 1, 1},
                                    {ptrArg(x.data()), ptrArg(out.data()), intArg(n)},
                                    {regionOf(x), regionOf(out)});
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(out[size_t(n - 1 - i)], i < n - 2 ? x[size_t(2 * i)] : 99.0f) << i;
  EXPECT_GT(r.stats.find("units.riscv.blocked_read_cycles")->value, 0u);
  // Accesses by address are counted apart from the unit's DMAs.
  EXPECT_EQ(r.stats.find("units.dma_in.by_address")->value, 1u);
  EXPECT_EQ(r.stats.find("units.dma_out.by_address")->value, 1u);
  EXPECT_EQ(r.stats.find("pe.0.dma_in.by_address")->value, 1u);
}

/// Converts an F32 tile to F16 and BF16 and back; args: in, out16, outbf, n.
void convertKernel(Ctx *c, const Arg *a) {
  const int64_t n = a[3].i;
  const Shape s = shape1(n);
  dmaIn(c, 0, DType::F32, a[0].u, box1(n, n), immFloat(DType::F32, 0));
  se(c, SeOp::Copy, 1, DType::F16, s, tile(0, DType::F32, s));
  se(c, SeOp::Copy, 2, DType::BF16, s, tile(0, DType::F32, s));
  cbPop(c, 0, n * 4);
  dmaOut(c, 1, DType::F16, a[1].u, box1(n, n));
  dmaOut(c, 2, DType::BF16, a[2].u, box1(n, n));
  cbPop(c, 1, n * 2);
  cbPop(c, 2, n * 2);
}

TEST_F(LaunchTest, CopyConvertsWithRoundToNearestEven) {
  std::vector<float> in = {1.0f, 0.1f, 65520.0f, -3.5f, 1.0f + 0x1p-11f, 0x1p-25f, 1e-8f, 2.0f};
  const int64_t n = int64_t(in.size());
  std::vector<uint16_t> h(in.size()), b(in.size());
  KernelInfo info = kernelInfo("convert", 4, {n * 4, n * 2, n * 2});
  sim.launch(convertKernel, info, {1, 1, 1},
             {ptrArg(in.data()), ptrArg(h.data()), ptrArg(b.data()), intArg(n)},
             {regionOf(in), regionOf(h), regionOf(b)});
  for (size_t i = 0; i < in.size(); ++i) {
    EXPECT_EQ(h[i], sim::halfFromFloat(in[i])) << i;
    EXPECT_EQ(b[i], sim::bf16FromFloat(in[i])) << i;
  }
}

TEST_F(LaunchTest, TraceIsChromeJson) {
  const int64_t n = 2048, block = 1024;
  std::vector<float> x(n, 1), y(n, 2), out(n);
  KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
  const std::string path = ::testing::TempDir() + "mtia_trace_test.json";
  sim::LaunchSummary r =
      sim.launch(vectorAddKernel, info, {2, 1, 1},
                 {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n), intArg(block)},
                 {regionOf(x), regionOf(y), regionOf(out)}, path);
  EXPECT_EQ(r.tracePath, path);
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  const std::string s = text.str();
  EXPECT_NE(s.find("\"traceEvents\""), std::string::npos);
  EXPECT_NE(s.find("dmaIn cb0 4096B"), std::string::npos);
  EXPECT_NE(s.find("se.Add cb2 1024el"), std::string::npos);
  EXPECT_NE(s.find("program 1"), std::string::npos);
  std::remove(path.c_str());
}

} // namespace
