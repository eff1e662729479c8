//===- vec_loop_test.cpp - Fused elementwise loops on the vector core -----===//
//
// device.h `vecLoop` (the paper's 4.2.2): a chain of elementwise steps runs
// as one loop on the RISC-V vector core, its intermediates in registers.
// These tests show that the loop computes what the chain of `vec` commands
// it replaces computes, bit for bit (with each step rounded to its type),
// that it is timed per strip by the busier of its pipes (the local-memory
// port's loads and store, the ALU's passes), that a `vec` is timed by the
// same rule, that validBox applies to it, and that
// a malformed loop is a fault at issue.
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

constexpr int64_t kRows = 4, kCols = 64, kN = kRows * kCols;

/// Loads x [4, 64] (cb0), m [4] (cb1) and z [4, 64] (cb2).
void loadInputs(Ctx *c, const Arg *a) {
  dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
  dmaIn(c, 1, DType::F32, a[1].u, box1(kRows, kRows), immInt(DType::F32, 0));
  dmaIn(c, 2, DType::F32, a[2].u, box1(kN, kN), immInt(DType::F32, 0));
}

void storeAndPop(Ctx *c, const Arg *a, int32_t result) {
  dmaOut(c, result, DType::F32, a[3].u, box1(kN, kN));
  cbPop(c, 0, kN * 4);
  cbPop(c, 1, kRows * 4);
  cbPop(c, 2, kN * 4);
  cbPop(c, result, kN * 4);
}

/// out = f32(f16(x * 0.5 - m[:, None])) * exp(z), as one vec per step: the
/// reference chain, its intermediates in CBs 3 to 6.
void chainKernel(Ctx *c, const Arg *a) {
  const Shape s = shape2(kRows, kCols);
  loadInputs(c, a);
  vec(c, SeOp::Mul, 3, DType::F32, s, tile(0, DType::F32, s), immFloat(DType::F32, 0.5));
  vec(c, SeOp::Sub, 4, DType::F32, s, tile(3, DType::F32, s), view(1, DType::F32, 1, 0));
  vec(c, SeOp::Copy, 5, DType::F16, s, tile(4, DType::F32, s));
  vec(c, SeOp::Exp, 6, DType::F32, s, tile(2, DType::F32, s));
  vec(c, SeOp::Mul, 7, DType::F32, s, tile(5, DType::F16, s), tile(6, DType::F32, s));
  for (int32_t cb = 3; cb <= 6; ++cb)
    cbPop(c, cb, kN * (cb == 5 ? 2 : 4));
  storeAndPop(c, a, 7);
}

/// The same chain as one vecLoop.
template <bool restricted> void loopKernel(Ctx *c, const Arg *a) {
  const Shape s = shape2(kRows, kCols);
  loadInputs(c, a);
  const Operand inputs[] = {tile(0, DType::F32, s), immFloat(DType::F32, 0.5),
                            view(1, DType::F32, 1, 0), tile(2, DType::F32, s)};
  VecStep steps[5];
  steps[0] = {SeOp::Mul, DType::F32, 2, {0, 1, 0}};
  steps[1] = {SeOp::Sub, DType::F32, 2, {stepResult(0), 2, 0}};
  steps[2] = {SeOp::Copy, DType::F16, 1, {stepResult(1), 0, 0}};
  steps[3] = {SeOp::Exp, DType::F32, 1, {3, 0, 0}};
  steps[4] = {SeOp::Mul, DType::F32, 2, {stepResult(2), stepResult(3), 0}};
  if (restricted)
    validBox(c, shape2(3, 40));
  vecLoop(c, 7, s, inputs, 4, steps, 5);
  storeAndPop(c, a, 7);
}

/// A loop whose step `k` names `arg` as its only argument.
template <int8_t arg> void badReferenceKernel(Ctx *c, const Arg *a) {
  const Shape s = shape2(kRows, kCols);
  loadInputs(c, a);
  const Operand inputs[] = {tile(0, DType::F32, s)};
  VecStep steps[2];
  steps[0] = {SeOp::Exp, DType::F32, 1, {0, 0, 0}};
  steps[1] = {SeOp::Exp, DType::F32, 1, {arg, 0, 0}};
  vecLoop(c, 7, s, inputs, 1, steps, 2);
}

void wrongArityKernel(Ctx *c, const Arg *a) {
  const Shape s = shape2(kRows, kCols);
  loadInputs(c, a);
  const Operand inputs[] = {tile(0, DType::F32, s)};
  VecStep step{SeOp::Add, DType::F32, 1, {0, 0, 0}};
  vecLoop(c, 7, s, inputs, 1, &step, 1);
}

void tooManyStepsKernel(Ctx *c, const Arg *a) {
  const Shape s = shape2(kRows, kCols);
  loadInputs(c, a);
  const Operand inputs[] = {tile(0, DType::F32, s)};
  VecStep steps[kMaxLoopSteps + 1];
  for (auto &step : steps)
    step = {SeOp::Neg, DType::F32, 1, {0, 0, 0}};
  vecLoop(c, 7, s, inputs, 1, steps, kMaxLoopSteps + 1);
}

class VecLoopTest : public ::testing::Test {
protected:
  void SetUp() override {
    for (int64_t i = 0; i < kN; ++i) {
      x[i] = std::sin(float(i)) * 7.0f;
      z[i] = float(i % 13) * 0.125f - 0.75f;
    }
    for (int64_t r = 0; r < kRows; ++r)
      m[r] = float(r) * 1.25f - 2.0f;
  }
  sim::LaunchSummary run(KernelEntry k, std::vector<float> &out) {
    KernelInfo info = kernelInfo("k", 4, {kN * 4, kRows * 4, kN * 4, kN * 4, kN * 4, kN * 4,
                                          kN * 4, kN * 4});
    return sim.launch(k, info, {1, 1, 1},
                      {ptrArg(x.data()), ptrArg(m.data()), ptrArg(z.data()), ptrArg(out.data())},
                      {regionOf(x), regionOf(m), regionOf(z), regionOf(out)});
  }
  std::string faultOf(KernelEntry k) {
    std::vector<float> out(kN);
    try {
      run(k, out);
    } catch (const sim::FaultError &e) {
      EXPECT_EQ(e.fault().kind, "invalid command");
      return e.fault().message;
    }
    return "";
  }
  static uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
  }
  static uint64_t stat(const sim::LaunchSummary &r, const char *name) {
    return r.stats.find(name)->value;
  }
  std::vector<float> x = std::vector<float>(kN), m = std::vector<float>(kRows),
                     z = std::vector<float>(kN);
  rt::Simulator sim{sim::smallPreset()};
};

TEST_F(VecLoopTest, ComputesTheChainItReplacesBitForBit) {
  std::vector<float> chain(kN), fused(kN);
  run(chainKernel, chain);
  run(loopKernel<false>, fused);
  for (int64_t i = 0; i < kN; ++i)
    ASSERT_EQ(bits(fused[i]), bits(chain[i])) << "element " << i;
  // The f16 step rounds: the result is not the all-f32 one everywhere.
  int rounded = 0;
  for (int64_t i = 0; i < kN; ++i)
    rounded += fused[i] != (x[i] * 0.5f - m[i / kCols]) * std::exp(z[i]);
  EXPECT_GT(rounded, 0);
}

TEST_F(VecLoopTest, TimeIsTheBusierPipePerStrip) {
  std::vector<float> chain(kN), fused(kN);
  sim::LaunchSummary one = run(loopKernel<false>, fused);
  sim::LaunchSummary five = run(chainKernel, chain);
  // 16 strips of 16 fp32 lanes. The loop: 5 ALU passes against 2 vector
  // loads (x, z; m is a scalar per row, 0.5 an immediate) and 1 store.
  EXPECT_EQ(stat(one, "units.vec.busy_cycles"), uint64_t(16 * 5));
  EXPECT_EQ(stat(one, "units.vec.commands"), uint64_t(1));
  // The chain: every vec its own loop, bound by the port: a load and a
  // store per strip, and for the last multiply two loads.
  EXPECT_EQ(stat(five, "units.vec.busy_cycles"), uint64_t(16 * (2 + 2 + 2 + 2 + 3)));
  EXPECT_EQ(stat(five, "units.vec.commands"), uint64_t(5));
}

TEST_F(VecLoopTest, ValidBoxRestrictsTheLoop) {
  std::vector<float> whole(kN), box(kN);
  sim::LaunchSummary full = run(loopKernel<false>, whole);
  sim::LaunchSummary r = run(loopKernel<true>, box);
  for (int64_t i = 0; i < kN; ++i) {
    if (i / kCols < 3 && i % kCols < 40)
      ASSERT_EQ(bits(box[i]), bits(whole[i])) << "element " << i;
    else
      ASSERT_EQ(bits(box[i]), 0xffffffffu) << "element " << i;
  }
  EXPECT_EQ(stat(r, "units.vec.amount"), uint64_t(3 * 40));
  // 120 elements: 8 strips of 16, not 16.
  EXPECT_EQ(stat(full, "units.vec.busy_cycles") - stat(r, "units.vec.busy_cycles"),
            uint64_t((16 - 8) * 5));
}

TEST_F(VecLoopTest, MalformedLoopsAreFaults) {
  EXPECT_NE(faultOf(badReferenceKernel<stepResult(1)>).find(
                "vecLoop step 1: argument 0 names step 1, not an earlier step"),
            std::string::npos);
  EXPECT_NE(faultOf(badReferenceKernel<1>).find("vecLoop step 1: argument 0 names input 1 of 1"),
            std::string::npos);
  EXPECT_NE(faultOf(wrongArityKernel).find("vecLoop step 0: takes 2 arguments, not 1"),
            std::string::npos);
  EXPECT_NE(faultOf(tooManyStepsKernel).find("vecLoop takes 1 to 8 inputs and 1 to 16 steps"),
            std::string::npos);
}

} // namespace
