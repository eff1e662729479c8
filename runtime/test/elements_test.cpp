//===- elements_test.cpp - Element conversions ----------------------------===//

#include "mtia/sim/elements.h"
#include "mtia/sim/simd_engine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mtia;
using namespace mtia::sim;

TEST(Elements, HalfFromFloatRoundsToNearestEven) {
  EXPECT_EQ(halfFromFloat(1.0f), 0x3c00);
  EXPECT_EQ(halfFromFloat(-2.0f), 0xc000);
  EXPECT_EQ(halfFromFloat(0.1f), 0x2e66);
  EXPECT_EQ(halfFromFloat(65504.0f), 0x7bff);
  EXPECT_EQ(halfFromFloat(65519.0f), 0x7bff);
  EXPECT_EQ(halfFromFloat(65520.0f), 0x7c00); // halfway to the next: even = inf
  EXPECT_EQ(halfFromFloat(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(halfFromFloat(0x1p-24f), 0x0001);   // smallest subnormal
  EXPECT_EQ(halfFromFloat(0x1p-25f), 0x0000);   // halfway to 0: even = 0
  EXPECT_EQ(halfFromFloat(0x1.8p-25f), 0x0001); // above halfway
  EXPECT_EQ(halfFromFloat(0x3p-25f), 0x0002);   // 1.5 ulp: even = 2
  EXPECT_EQ(halfFromFloat(-0.0f), 0x8000);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
  EXPECT_EQ(halfFromFloat(1.0f + 0x1p-11f), 0x3c00);
  EXPECT_EQ(halfFromFloat(1.0f + 0x3p-11f), 0x3c02);
  EXPECT_TRUE(std::isnan(floatFromHalf(halfFromFloat(std::nanf("")))));
}

TEST(Elements, HalfRoundTripsEveryValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7c00) == 0x7c00 && (h & 0x3ff))
      continue; // NaN payloads are not preserved
    EXPECT_EQ(halfFromFloat(floatFromHalf(uint16_t(h))), h) << std::hex << h;
  }
}

TEST(Elements, DoubleToHalfRoundsOnce) {
  // Just above the halfway point between 1 and 1 + 2^-10 by less than a float
  // ulp: rounding to float first would land on the tie and go down.
  const double d = 1.0 + 0x1p-11 + 0x1p-40;
  EXPECT_EQ(halfFromDouble(d), 0x3c01);
  EXPECT_EQ(halfFromFloat(float(d)), 0x3c00);
}

TEST(Elements, Bf16RoundsToNearestEven) {
  EXPECT_EQ(bf16FromFloat(1.0f), 0x3f80);
  EXPECT_EQ(bf16FromFloat(1.0f + 0x1p-8f), 0x3f80); // tie: even
  EXPECT_EQ(bf16FromFloat(1.0f + 0x3p-8f), 0x3f82);
  EXPECT_EQ(floatFromBf16(0x4049), 3.140625f);
  EXPECT_TRUE(std::isnan(floatFromBf16(bf16FromFloat(std::nanf("")))));
}

TEST(Elements, FloatToIntTruncatesAndSaturates) {
  EXPECT_EQ(convertValue<int32_t>(-2.7f), -2);
  EXPECT_EQ(convertValue<int32_t>(2.7), 2);
  EXPECT_EQ(convertValue<int8_t>(300.0f), 127);
  EXPECT_EQ(convertValue<int8_t>(-300.0f), -128);
  EXPECT_EQ(convertValue<int64_t>(1e30), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(convertValue<int32_t>(std::nan("")), 0);
  EXPECT_TRUE(convertValue<bool>(0.5f));
  EXPECT_FALSE(convertValue<bool>(int64_t(0)));
}

TEST(Elements, ImmediatesTakeTheirOwnTypeFirst) {
  // 0.1 as an F16 immediate is 0.0999755859375 once widened to F32.
  uint8_t out[4];
  encodeImmediate(immFloat(DType::F16, 0.1), DType::F32, out);
  float f;
  std::memcpy(&f, out, 4);
  EXPECT_EQ(f, floatFromHalf(0x2e66));
  encodeImmediate(immInt(DType::I8, 300), DType::I32, out);
  int32_t i;
  std::memcpy(&i, out, 4);
  EXPECT_EQ(i, 44); // 300 wraps to 44 in i8
}

TEST(Elements, E4m3fnRoundsToNearestEvenAndHasNoInfinity) {
  EXPECT_EQ(e4m3FromFloat(1.0f), 0x38);
  EXPECT_EQ(e4m3FromFloat(-2.0f), 0xc0);
  EXPECT_EQ(e4m3FromFloat(448.0f), 0x7e);  // the largest finite value
  EXPECT_EQ(e4m3FromFloat(464.0f), 0x7e);  // halfway to 480: even = 448
  EXPECT_EQ(e4m3FromFloat(470.0f), 0x7f);  // rounds past 448: NaN
  EXPECT_EQ(e4m3FromFloat(std::numeric_limits<float>::infinity()), 0x7f);
  EXPECT_EQ(e4m3FromFloat(-std::numeric_limits<float>::infinity()), 0xff);
  EXPECT_EQ(e4m3FromFloat(std::nanf("")), 0x7f);
  EXPECT_EQ(e4m3FromFloat(0x1p-9f), 0x01);   // smallest subnormal
  EXPECT_EQ(e4m3FromFloat(0x1p-10f), 0x00);  // halfway to 0: even = 0
  EXPECT_EQ(e4m3FromFloat(0x3p-10f), 0x02);  // 1.5 ulp: even = 2
  EXPECT_EQ(e4m3FromFloat(1.0f + 0x1p-4f), 0x38); // tie: even
  EXPECT_EQ(e4m3FromFloat(1.0f + 0x3p-4f), 0x3a);
  EXPECT_TRUE(std::isnan(floatFromE4m3(0x7f)));
  EXPECT_TRUE(std::isnan(floatFromE4m3(0xff)));
  EXPECT_EQ(floatFromE4m3(0x7e), 448.0f);
  EXPECT_EQ(floatFromE4m3(0x01), 0x1p-9f);
  for (uint32_t c = 0; c < 256; ++c)
    if ((c & 0x7f) != 0x7f)
      EXPECT_EQ(e4m3FromFloat(floatFromE4m3(uint8_t(c))), c) << c;
}

TEST(Elements, E5m2IsIeeeLike) {
  EXPECT_EQ(e5m2FromFloat(1.0f), 0x3c);
  EXPECT_EQ(e5m2FromFloat(57344.0f), 0x7b); // the largest finite value
  EXPECT_EQ(e5m2FromFloat(61440.0f), 0x7c); // halfway to the next: inf
  EXPECT_EQ(e5m2FromFloat(std::numeric_limits<float>::infinity()), 0x7c);
  EXPECT_EQ(e5m2FromFloat(-1e9f), 0xfc);
  EXPECT_EQ(e5m2FromFloat(0x1p-16f), 0x01);
  EXPECT_TRUE(std::isnan(floatFromE5m2(e5m2FromFloat(std::nanf("")))));
  EXPECT_TRUE(std::isinf(floatFromE5m2(0x7c)));
  for (uint32_t c = 0; c < 256; ++c)
    if ((c & 0x7c) != 0x7c || !(c & 3))
      EXPECT_EQ(e5m2FromFloat(floatFromE5m2(uint8_t(c))), c) << c;
}

TEST(Elements, Fp8FromDoubleRoundsOnce) {
  // 1 + 2^-4 + 2^-40 is just above the tie between 1 and 1.125: rounds up,
  // which rounding through float first would lose.
  uint8_t b;
  storeElement<DType::F8E4M3>(&b, 1.0 + 0x1p-4 + 0x1p-40);
  EXPECT_EQ(b, 0x39);
  convertElement(reinterpret_cast<const uint8_t *>("\x00\x00\xe0\x43"), DType::F32, &b,
                 DType::F8E5M2); // 448.0f
  EXPECT_EQ(floatFromE5m2(b), 448.0f);
}

// The SE reduces as a tree (first half combined with second, level by
// level), as SIMD hardware does: 1e8 + 1 - 1e8 + 1 in fp32 is 2 (the pairs
// cancel first), where summing in order loses the first 1 to 1e8's ulp.
TEST(Elements, SeSumIsATree) {
  const float values[4] = {1e8f, 1.0f, -1e8f, 1.0f};
  Operand view;
  view.kind = Operand::Kind::Cb;
  view.dtype = DType::F32;
  view.stride[0] = 1;
  SeInput in;
  in.operand = &view;
  in.data = reinterpret_cast<const uint8_t *>(values);
  Shape shape;
  shape.rank = 1;
  shape.dim[0] = 4;
  float sum = 0;
  SeScratch scratch;
  runReduce(ReduceOp::Sum, DType::F32, shape, 0, in, reinterpret_cast<uint8_t *>(&sum), scratch);
  EXPECT_EQ(sum, 2.0f);
}
