//===- valid_box_test.cpp - Commands on the valid part of a tile ----------===//
//
// device.h `validBox` (effective shapes): the next se, vec or seReduce works
// on the box [0, valid) of its shape and takes time for those elements only.
// These tests show that the box's elements are exact, that the rest of an
// elementwise result is visibly unspecified (all-ones bytes), that a
// reduction reads the lanes outside the box as its fill (so it equals the
// reduction of the whole tile holding that value there, bit for bit), that
// the SE's time follows the box, and that misuse is a fault.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

using namespace mtia;
using namespace mtia::test;

namespace {

constexpr int64_t kN = 256;
constexpr int64_t kValid = 100;
constexpr int64_t kRows = 4, kCols = 64;

/// out = exp(x) over x[0, valid) of a 256-element tile (valid < 0: all).
template <int64_t valid> void expKernel(Ctx *c, const Arg *a) {
  const Shape s = shape1(kN);
  dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
  if (valid >= 0)
    validBox(c, shape1(valid));
  se(c, SeOp::Exp, 1, DType::F32, s, tile(0, DType::F32, s));
  dmaOut(c, 1, DType::F32, a[1].u, box1(kN, kN));
  cbPop(c, 0, kN * 4);
  cbPop(c, 1, kN * 4);
}

/// Row sums of a [4, 64] tile over the box of 3 rows by 40 columns, the
/// lanes outside it read as 0.5; or (valid = false) of the whole tile.
template <bool valid> void rowSumKernel(Ctx *c, const Arg *a) {
  const Shape s = shape2(kRows, kCols);
  dmaIn(c, 0, DType::F32, a[0].u, box1(kRows * kCols, kRows * kCols), immInt(DType::F32, 0));
  if (valid)
    validBox(c, shape2(3, 40), immFloat(DType::F32, 0.5));
  seReduce(c, ReduceOp::Sum, 1, DType::F32, s, /*axis=*/1, tile(0, DType::F32, s));
  dmaOut(c, 1, DType::F32, a[1].u, box1(kRows, kRows));
  cbPop(c, 0, kRows * kCols * 4);
  cbPop(c, 1, kRows * 4);
}

void validBoxThenDma(Ctx *c, const Arg *a) {
  dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
  validBox(c, shape1(10));
  dmaOut(c, 0, DType::F32, a[1].u, box1(kN, kN));
}

void validBoxAtTheEnd(Ctx *c, const Arg *) { validBox(c, shape1(10)); }

void validBoxTwice(Ctx *c, const Arg *) {
  validBox(c, shape1(10));
  validBox(c, shape1(20));
}

void validBoxOfAnotherRank(Ctx *c, const Arg *a) {
  dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
  validBox(c, shape2(1, 10));
  se(c, SeOp::Exp, 1, DType::F32, shape1(kN), tile(0, DType::F32, shape1(kN)));
}

class ValidBoxTest : public ::testing::Test {
protected:
  sim::LaunchSummary run(KernelEntry k, std::vector<float> &x, std::vector<float> &out) {
    KernelInfo info = kernelInfo("k", 2, {kN * 4, kN * 4});
    return sim.launch(k, info, {1, 1, 1}, {ptrArg(x.data()), ptrArg(out.data())},
                      {regionOf(x), regionOf(out)});
  }
  std::string faultOf(KernelEntry k, std::string &kind) {
    std::vector<float> x(kN, 1.0f), out(kN);
    try {
      run(k, x, out);
    } catch (const sim::FaultError &e) {
      kind = e.fault().kind;
      return e.fault().message;
    }
    return "";
  }
  static uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  rt::Simulator sim{sim::smallPreset()};
};

TEST_F(ValidBoxTest, ElementwiseComputesTheBoxAndLeavesTheRestVisiblyUnspecified) {
  std::vector<float> x(kN), box(kN), whole(kN);
  for (int64_t i = 0; i < kN; ++i)
    x[i] = float(i % 17) * 0.25f - 2.0f;
  sim::LaunchSummary r = run(expKernel<kValid>, x, box);
  sim::LaunchSummary full = run(expKernel<-1>, x, whole);
  for (int64_t i = 0; i < kValid; ++i)
    ASSERT_EQ(bits(box[i]), bits(whole[i])) << "element " << i;
  for (int64_t i = kValid; i < kN; ++i)
    ASSERT_EQ(bits(box[i]), 0xffffffffu) << "element " << i;
  // The SE works on 100 elements, not 256: 4 passes of 32 lanes, not 8.
  EXPECT_EQ(r.stats.find("units.se.amount")->value, uint64_t(kValid));
  EXPECT_EQ(full.stats.find("units.se.busy_cycles")->value -
                r.stats.find("units.se.busy_cycles")->value,
            uint64_t(8 - 4));
}

TEST_F(ValidBoxTest, ReductionReadsTheLanesOutsideTheBoxAsItsFill) {
  std::vector<float> x(kN), box(kN), filled(kN), whole(kN);
  for (int64_t i = 0; i < kN; ++i)
    x[i] = std::sin(float(i)) * 1000.0f;
  run(rowSumKernel<true>, x, box);
  // The same sums over the whole tile with 0.5 outside the box, bit for bit.
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t k = 0; k < kCols; ++k)
      filled[r * kCols + k] = r < 3 && k < 40 ? x[r * kCols + k] : 0.5f;
  run(rowSumKernel<false>, filled, whole);
  for (int64_t r = 0; r < 3; ++r)
    EXPECT_EQ(bits(box[r]), bits(whole[r])) << "row " << r;
  // Row 3 lies outside the box: unspecified.
  EXPECT_EQ(bits(box[3]), 0xffffffffu);
}

TEST_F(ValidBoxTest, MisuseIsAFault) {
  std::string kind;
  std::string message = faultOf(validBoxThenDma, kind);
  EXPECT_EQ(kind, sim::fault_kind::kInvalidCommand);
  EXPECT_NE(message.find("validBox must be followed by an se, vec, vecLoop or seReduce"), std::string::npos)
      << message;
  message = faultOf(validBoxAtTheEnd, kind);
  EXPECT_EQ(kind, sim::fault_kind::kInvalidCommand);
  EXPECT_NE(message.find("validBox at the end of a program"), std::string::npos) << message;
  message = faultOf(validBoxTwice, kind);
  EXPECT_EQ(kind, sim::fault_kind::kInvalidCommand);
  EXPECT_NE(message.find("validBox followed by another validBox"), std::string::npos) << message;
  message = faultOf(validBoxOfAnotherRank, kind);
  EXPECT_EQ(kind, sim::fault_kind::kInvalidCommand);
  EXPECT_NE(message.find("after a validBox of rank 2"), std::string::npos) << message;
}

} // namespace
