//===- quantize_test.cpp - SE quantization: Quantize, Dequantize, U forms -===//

#include "test_util.h"

#include "mtia/sim/elements.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace mtia;
using namespace mtia::test;

namespace {

void load(Ctx *c, int32_t cb, DType t, uint64_t addr, int64_t n) {
  dmaIn(c, cb, t, addr, box1(n, n), immInt(t, 0));
}
void store(Ctx *c, int32_t cb, DType t, uint64_t addr, int64_t n) {
  dmaOut(c, cb, t, addr, box1(n, n));
  cbPop(c, cb, n * dtypeSize(t));
}

/// One ternary elementwise command on the SE, or on the vector core.
template <bool Vec>
void issue(Ctx *c, SeOp op, int32_t dst, DType t, const Shape &s, const Operand &a,
           const Operand &b, const Operand &z) {
  if (Vec)
    vec(c, op, dst, t, s, a, b, z);
  else
    se(c, op, dst, t, s, a, b, z);
}

/// Runs `kernel` on one program of a one-PE chip with args (in, out, arg).
sim::LaunchSummary run1(rt::Simulator &sim, KernelEntry kernel, const void *in, size_t inBytes,
                        void *out, size_t outBytes, std::initializer_list<int64_t> cbs,
                        int64_t arg = 0) {
  KernelInfo info = kernelInfo("k", 3, cbs);
  return sim.launch(kernel, info, {1, 1, 1}, {ptrArg(in), ptrArg(out), intArg(arg)},
                    {{reinterpret_cast<uint64_t>(in), inBytes},
                     {reinterpret_cast<uint64_t>(out), outBytes}});
}

constexpr int kN = 12;
const float kNaN = std::numeric_limits<float>::quiet_NaN();
/// Ties (round half to even), both saturations, NaN, ordinary values.
const std::vector<float> kX = {0.5f, 1.5f,  2.5f, -0.5f, -1.5f, -2.5f,
                               1e9f, -1e9f, kNaN, 0.49f, 3.7f,  -3.7f};

/// Quantizes kX (in[0..12) as F32) five ways; out bytes:
///   [0, 12)   I8,  scale 1,    zp 0
///   [12, 24)  I8,  scale 1,    zp 10
///   [24, 36)  U8,  scale 0.5,  zp 128 (QuantizeU)
///   [36, 60)  I16, scale 1000, zp -3
///   [60, 72)  I8 from an F16 copy of x, scale 1, zp 0
template <bool Vec> void quantizeKernel(Ctx *c, const Arg *a) {
  const Shape s = shape1(kN);
  load(c, 0, DType::F32, a[0].u, kN);
  const Operand x = tile(0, DType::F32, s);
  issue<Vec>(c, SeOp::Quantize, 1, DType::I8, s, x, immFloat(DType::F32, 1),
             immInt(DType::I32, 0));
  store(c, 1, DType::I8, a[1].u, kN);
  issue<Vec>(c, SeOp::Quantize, 1, DType::I8, s, x, immFloat(DType::F32, 1),
             immInt(DType::I32, 10));
  store(c, 1, DType::I8, a[1].u + 12, kN);
  issue<Vec>(c, SeOp::QuantizeU, 1, DType::I8, s, x, immFloat(DType::F32, 0.5),
             immInt(DType::I32, 128));
  store(c, 1, DType::I8, a[1].u + 24, kN);
  issue<Vec>(c, SeOp::Quantize, 2, DType::I16, s, x, immFloat(DType::F32, 1000),
             immInt(DType::I32, -3));
  store(c, 2, DType::I16, a[1].u + 36, kN);
  se(c, SeOp::Copy, 3, DType::F16, s, x);
  issue<Vec>(c, SeOp::Quantize, 1, DType::I8, s, tile(3, DType::F16, s),
             immFloat(DType::F32, 1), immInt(DType::I32, 0));
  cbPop(c, 3, kN * 2);
  store(c, 1, DType::I8, a[1].u + 60, kN);
  cbPop(c, 0, kN * 4);
}

template <bool Vec> void expectQuantized() {
  SCOPED_TRACE(Vec ? "vec" : "se");
  rt::Simulator sim(rowOfPes(1));
  std::vector<uint8_t> out(72);
  run1(sim, quantizeKernel<Vec>, kX.data(), kX.size() * 4, out.data(), out.size(),
       {64, 64, 64, 64});
  std::vector<int8_t> i8(24);
  std::memcpy(i8.data(), out.data(), 24);
  // rint(0.5) = 0, rint(1.5) = rint(2.5) = 2; +-1e9 saturate; NaN -> zp.
  EXPECT_EQ(std::vector<int8_t>(i8.begin(), i8.begin() + 12),
            (std::vector<int8_t>{0, 2, 2, 0, -2, -2, 127, -128, 0, 0, 4, -4}));
  EXPECT_EQ(std::vector<int8_t>(i8.begin() + 12, i8.end()),
            (std::vector<int8_t>{10, 12, 12, 10, 8, 8, 127, -128, 10, 10, 14, 6}));
  // x * 0.5 = 0.25, 0.75, 1.25, ...: rint 0, 1, 1, -0, -1, -1; + 128; the
  // ends saturate to 255 and 0.
  EXPECT_EQ(std::vector<uint8_t>(out.begin() + 24, out.begin() + 36),
            (std::vector<uint8_t>{128, 129, 129, 128, 127, 127, 255, 0, 128, 128, 130, 126}));
  std::vector<int16_t> i16(kN);
  std::memcpy(i16.data(), out.data() + 36, 24);
  EXPECT_EQ(i16, (std::vector<int16_t>{497, 1497, 2497, -503, -1503, -2503, 32767, -32768, -3,
                                       487, 3697, -3703}));
  // F16 widens exactly (1e9 is inf in F16: still saturates; 3.7 -> 3.699).
  std::vector<int8_t> h(kN);
  std::memcpy(h.data(), out.data() + 60, kN);
  EXPECT_EQ(h, (std::vector<int8_t>{0, 2, 2, 0, -2, -2, 127, -128, 0, 0, 4, -4}));
}

TEST(Quantize, RoundsHalfToEvenSaturatesAndMapsNanToTheZeroPoint) { expectQuantized<false>(); }

TEST(Quantize, TheVectorCoreComputesTheSame) { expectQuantized<true>(); }

/// Per-channel parameters from CBs: x [2, 4] F32, a scale per column (F32,
/// strides {0, 1}) and a zero point per row (I8, strides {1, 0}): the
/// computation is F32 although the last CB operand is an integer.
TEST(Quantize, PerChannelScaleAndZeroPointFromCbs) {
  struct In {
    float x[8] = {1, 2, 3, 4, -1, -2, -3, -4};
    float scale[4] = {1, 0.5f, 0.25f, 2};
    int8_t zp[2] = {0, -100};
  };
  static In in;
  static std::vector<int8_t> out(8);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape2(2, 4);
    load(c, 0, DType::F32, a[0].u, 8);
    load(c, 1, DType::F32, a[0].u + offsetof(In, scale), 4);
    load(c, 2, DType::I8, a[0].u + offsetof(In, zp), 2);
    se(c, SeOp::Quantize, 3, DType::I8, s, tile(0, DType::F32, s), view(1, DType::F32, 0, 1),
       view(2, DType::I8, 1, 0));
    cbPop(c, 0, 32);
    cbPop(c, 1, 16);
    cbPop(c, 2, 2);
    store(c, 3, DType::I8, a[1].u, 8);
  };
  rt::Simulator sim(rowOfPes(1));
  run1(sim, kernel, &in, sizeof in, out.data(), out.size(), {64, 64, 64, 64});
  // Row 0: rint(1), rint(1), rint(0.75), rint(8); row 1 the negatives - 100.
  EXPECT_EQ(out, (std::vector<int8_t>{1, 1, 1, 8, -101, -101, -101, -108}));
}

/// Quantize x with scale 1/step, zp 5 (I8), then dequantize with step, zp 5,
/// to F32: the round trip is within step / 2 except where it saturated.
template <bool Vec> void roundTripKernel(Ctx *c, const Arg *a) {
  const Shape s = shape1(8);
  load(c, 0, DType::F32, a[0].u, 8);
  issue<Vec>(c, SeOp::Quantize, 1, DType::I8, s, tile(0, DType::F32, s),
             immFloat(DType::F32, 10), immInt(DType::I32, 5));
  cbPop(c, 0, 32);
  issue<Vec>(c, SeOp::Dequantize, 2, DType::F32, s, tile(1, DType::I8, s),
             immFloat(DType::F32, 0.1), immInt(DType::I32, 5));
  store(c, 1, DType::I8, a[1].u, 8);
  store(c, 2, DType::F32, a[1].u + 8, 8);
}

template <bool Vec> void expectRoundTrip() {
  SCOPED_TRACE(Vec ? "vec" : "se");
  static const std::vector<float> x = {-1.0f, -0.25f, 0.0f, 0.3f, 1.23f, 12.7f, 12.8f, -12.9f};
  std::vector<uint8_t> out(8 + 32);
  rt::Simulator sim(rowOfPes(1));
  run1(sim, roundTripKernel<Vec>, x.data(), x.size() * 4, out.data(), out.size(), {64, 64, 64});
  int8_t q[8];
  float d[8];
  std::memcpy(q, out.data(), 8);
  std::memcpy(d, out.data() + 8, 32);
  // -2.5 rounds to -2; 12.7 * 10 + 5 = 132 and 12.8 saturate at 127.
  EXPECT_EQ(std::vector<int8_t>(q, q + 8), (std::vector<int8_t>{-5, 3, 5, 8, 17, 127, 127, -124}));
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(d[i], (float(q[i]) - 5.0f) * 0.1f) << i;
    if (i < 5)
      EXPECT_LE(std::fabs(d[i] - x[size_t(i)]), 0.05f + 1e-6f) << i;
  }
  EXPECT_FLOAT_EQ(d[5], 12.2f); // saturated
}

TEST(Dequantize, RoundTripsAQuantizedTile) { expectRoundTrip<false>(); }

TEST(Dequantize, TheVectorCoreComputesTheSame) { expectRoundTrip<true>(); }

TEST(Dequantize, TheUFormReadsTheIntegerAsUnsigned) {
  static const std::vector<int8_t> in = {0, 127, -128, -1};
  static std::vector<uint8_t> out(8 + 8);
  auto kernel = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(4);
    load(c, 0, DType::I8, a[0].u, 4);
    const Operand q = tile(0, DType::I8, s);
    se(c, SeOp::DequantizeU, 1, DType::F16, s, q, immFloat(DType::F32, 0.5),
       immInt(DType::I32, 128));
    store(c, 1, DType::F16, a[1].u, 4);
    se(c, SeOp::Dequantize, 1, DType::F16, s, q, immFloat(DType::F32, 0.5),
       immInt(DType::I32, 0));
    store(c, 1, DType::F16, a[1].u + 8, 4);
    cbPop(c, 0, 4);
  };
  rt::Simulator sim(rowOfPes(1));
  run1(sim, kernel, in.data(), in.size(), out.data(), out.size(), {16, 16});
  float f[8];
  for (int i = 0; i < 8; ++i) {
    uint16_t h;
    std::memcpy(&h, out.data() + 2 * i, 2);
    f[i] = sim::floatFromHalf(h);
  }
  // 0, 127, 128, 255 - 128, halved; then 0, 127, -128, -1 halved.
  EXPECT_EQ(std::vector<float>(f, f + 4), (std::vector<float>{-64.0f, -0.5f, 0.0f, 63.5f}));
  EXPECT_EQ(std::vector<float>(f + 4, f + 8), (std::vector<float>{0.0f, 63.5f, -64.0f, -0.5f}));
}

/// Type rules: Quantize takes a float x to an integer of 8 to 64 bits,
/// Dequantize an integer q to a float. Anything else is an invalid command
/// at issue, on the SE and on the vector core alike. a[2] picks the case.
void badTypes(Ctx *c, const Arg *a) {
  const Shape s = shape1(4);
  load(c, 0, DType::F32, a[0].u, 4);
  load(c, 1, DType::I32, a[0].u, 4);
  const Operand f = tile(0, DType::F32, s), i = tile(1, DType::I32, s);
  const Operand scale = immFloat(DType::F32, 1), zp = immInt(DType::I32, 0);
  switch (a[2].i) {
  case 0: se(c, SeOp::Quantize, 2, DType::F32, s, f, scale, zp); break; // float out
  case 1: se(c, SeOp::QuantizeU, 2, DType::F16, s, f, scale, zp); break;
  case 2: se(c, SeOp::Quantize, 2, DType::I1, s, f, scale, zp); break; // I1 out
  case 3: se(c, SeOp::Quantize, 2, DType::I8, s, i, scale, zp); break; // integer x
  case 4: se(c, SeOp::Dequantize, 2, DType::I32, s, i, scale, zp); break; // integer out
  case 5: se(c, SeOp::DequantizeU, 2, DType::F32, s, f, scale, zp); break; // float q
  default: vec(c, SeOp::Quantize, 2, DType::F32, s, f, scale, zp); break;
  }
}

TEST(Quantize, WrongTypesAreInvalidCommands) {
  static const std::vector<float> in(4, 1.0f);
  static std::vector<float> out(4);
  for (int k = 0; k <= 6; ++k) {
    SCOPED_TRACE(k);
    rt::Simulator sim(rowOfPes(1));
    try {
      run1(sim, badTypes, in.data(), 16, out.data(), 16, {16, 16, 16}, k);
      ADD_FAILURE() << "no fault";
    } catch (const sim::FaultError &e) {
      EXPECT_EQ(e.fault().kind, sim::fault_kind::kInvalidCommand) << e.what();
      EXPECT_NE(std::string(e.what()).find("uantize"), std::string::npos) << e.what();
    }
  }
}

/// n F32 elements through one elementwise command: Add, Quantize to I8 or
/// Dequantize from I8 (a[2] = 0, 1, 2), on the SE or the vector core.
template <bool Vec> void shapeKernel(Ctx *c, const Arg *a) {
  constexpr int64_t n = 4096;
  const Shape s = shape1(n);
  const Operand one = immFloat(DType::F32, 1), zero = immInt(DType::I32, 0);
  switch (a[2].i) {
  case 0:
    load(c, 0, DType::F32, a[0].u, n);
    if (Vec)
      vec(c, SeOp::Add, 1, DType::F32, s, tile(0, DType::F32, s), one);
    else
      se(c, SeOp::Add, 1, DType::F32, s, tile(0, DType::F32, s), one);
    cbPop(c, 0, n * 4);
    cbPop(c, 1, n * 4);
    break;
  case 1:
    load(c, 0, DType::F32, a[0].u, n);
    issue<Vec>(c, SeOp::Quantize, 1, DType::I8, s, tile(0, DType::F32, s), one, zero);
    cbPop(c, 0, n * 4);
    cbPop(c, 1, n);
    break;
  default:
    load(c, 0, DType::I8, a[0].u, n);
    issue<Vec>(c, SeOp::Dequantize, 1, DType::F32, s, tile(0, DType::I8, s), one, zero);
    cbPop(c, 0, n);
    cbPop(c, 1, n * 4);
    break;
  }
}

template <bool Vec> void expectTimedLikeAdd() {
  SCOPED_TRACE(Vec ? "vec" : "se");
  static std::vector<float> in(4096, 1.0f);
  static std::vector<float> out(1);
  const char *busy = Vec ? "units.vec.busy_cycles" : "units.se.busy_cycles";
  sim::LaunchSummary r[3];
  for (int k = 0; k < 3; ++k) {
    rt::Simulator sim(rowOfPes(1));
    r[k] = run1(sim, shapeKernel<Vec>, in.data(), in.size() * 4, out.data(), 4,
                {4096 * 4, 4096 * 4}, k);
  }
  const uint64_t add = r[0].stats.find(busy)->value;
  // Lanes follow the widest element: F32 in both, so 32 lanes on the SE.
  if (!Vec)
    EXPECT_EQ(add, 4096u / 32);
  EXPECT_EQ(r[1].stats.find(busy)->value, add);
  EXPECT_EQ(r[2].stats.find(busy)->value, add);
  // Same input DMA, same SE time: the same launch.
  EXPECT_EQ(r[1].cycles, r[0].cycles);
}

TEST(Quantize, TakesTheCyclesOfAnAddOfTheSameShape) { expectTimedLikeAdd<false>(); }

TEST(Quantize, OnTheVectorCoreTakesTheCyclesOfAnAdd) { expectTimedLikeAdd<true>(); }

} // namespace
