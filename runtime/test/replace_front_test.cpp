//===- replace_front_test.cpp - A result that takes its source's place ----===//
//
// device.h `replaceFront`: the next command pops the front tile of the CB it
// writes as it reads it, so `acc = acc + x` in a loop needs room for one
// accumulator tile, not two. These tests show that it does (and that the
// same program without it deadlocks), that a reader issued earlier still
// sees the old tile, that a command may read the replaced tile through any
// view, and that misuse is a fault that says what went wrong.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <gtest/gtest.h>

#include <vector>

using namespace mtia;
using namespace mtia::test;

namespace {

constexpr int64_t kN = 256;
constexpr int64_t kBytes = kN * 4;
constexpr int kSteps = 8;

/// out = kSteps * x, accumulated in cb0, which has room for one tile. With
/// `replace`, each Add replaces the accumulator; without, it appends the new
/// one behind the old and pops the old after, which needs two tiles.
template <bool replace> void accumulate(Ctx *c, const Arg *a) {
  const Shape s = shape1(kN);
  dmaIn(c, 1, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
  se(c, SeOp::Copy, 0, DType::F32, s, immFloat(DType::F32, 0.0));
  for (int i = 0; i < kSteps; ++i) {
    if (replace)
      replaceFront(c, 0);
    se(c, SeOp::Add, 0, DType::F32, s, tile(0, DType::F32, s), tile(1, DType::F32, s));
    if (!replace)
      cbPop(c, 0, kBytes);
  }
  cbPop(c, 1, kBytes);
  dmaOut(c, 0, DType::F32, a[1].u, box1(kN, kN));
  cbPop(c, 0, kBytes);
}

/// A store of the accumulator issued before the command that replaces it
/// must see the old tile: out0 = x, out1 = x + 1.
void storeThenReplace(Ctx *c, const Arg *a) {
  const Shape s = shape1(kN);
  dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
  dmaOut(c, 0, DType::F32, a[1].u, box1(kN, kN));
  replaceFront(c, 0);
  se(c, SeOp::Add, 0, DType::F32, s, tile(0, DType::F32, s), immFloat(DType::F32, 1.0));
  dmaOut(c, 0, DType::F32, a[2].u, box1(kN, kN));
  cbPop(c, 0, kBytes);
}

/// acc = transpose(acc) + 1 over a 16x16 tile: the command reads the tile
/// it replaces in another order than it writes it.
void transposeInPlace(Ctx *c, const Arg *a) {
  const Shape s = shape2(16, 16);
  dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
  replaceFront(c, 0);
  se(c, SeOp::Add, 0, DType::F32, s, view(0, DType::F32, 1, 16), immFloat(DType::F32, 1.0));
  dmaOut(c, 0, DType::F32, a[1].u, box1(kN, kN));
  cbPop(c, 0, kBytes);
}

/// replaceFront(cb0), then a command that writes cb1.
void replaceOtherCb(Ctx *c, const Arg *a) {
  const Shape s = shape1(kN);
  dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
  replaceFront(c, 0);
  se(c, SeOp::Copy, 1, DType::F32, s, tile(0, DType::F32, s));
}

/// replaceFront of a CB that holds nothing.
void replaceEmptyCb(Ctx *c, const Arg *) {
  replaceFront(c, 0);
  se(c, SeOp::Copy, 0, DType::F32, shape1(kN), immFloat(DType::F32, 0.0));
}

class ReplaceFrontTest : public ::testing::Test {
protected:
  sim::LaunchSummary run(KernelEntry k, std::vector<float> &x, std::vector<float> &out,
                         std::vector<float> &out2) {
    // Every CB has room for exactly one tile.
    KernelInfo info = kernelInfo("k", 3, {kBytes, kBytes, kBytes});
    return sim.launch(k, info, {1, 1, 1},
                      {ptrArg(x.data()), ptrArg(out.data()), ptrArg(out2.data())},
                      {regionOf(x), regionOf(out), regionOf(out2)});
  }
  std::string faultOf(KernelEntry k, std::string &kind) {
    std::vector<float> x(kN, 1.0f), out(kN), out2(kN);
    try {
      run(k, x, out, out2);
    } catch (const sim::FaultError &e) {
      kind = e.fault().kind;
      return e.fault().message;
    }
    return "";
  }
  rt::Simulator sim{sim::smallPreset()};
};

TEST_F(ReplaceFrontTest, AccumulatorNeedsRoomForOneTile) {
  std::vector<float> x(kN), out(kN), unused(kN);
  for (int64_t i = 0; i < kN; ++i)
    x[i] = float(i) - 100.0f;
  sim::LaunchSummary s = run(accumulate<true>, x, out, unused);
  for (int64_t i = 0; i < kN; ++i)
    ASSERT_EQ(out[i], kSteps * x[i]) << "element " << i;
  // One Copy and kSteps Adds, each one command.
  EXPECT_EQ(s.stats.find("units.se.commands")->value, uint64_t(kSteps + 1));
}

TEST_F(ReplaceFrontTest, WithoutItTheSameRoomDeadlocks) {
  std::string kind;
  std::string message = faultOf(accumulate<false>, kind);
  EXPECT_EQ(kind, sim::fault_kind::kDeadlock) << message;
}

TEST_F(ReplaceFrontTest, AnEarlierReaderSeesTheOldTile) {
  std::vector<float> x(kN), out(kN), out2(kN);
  for (int64_t i = 0; i < kN; ++i)
    x[i] = float(3 * i);
  run(storeThenReplace, x, out, out2);
  for (int64_t i = 0; i < kN; ++i) {
    ASSERT_EQ(out[i], x[i]) << "element " << i;
    ASSERT_EQ(out2[i], x[i] + 1.0f) << "element " << i;
  }
}

TEST_F(ReplaceFrontTest, ReadsTheReplacedTileThroughAnyView) {
  std::vector<float> x(kN), out(kN), unused(kN);
  for (int64_t i = 0; i < kN; ++i)
    x[i] = float(i);
  run(transposeInPlace, x, out, unused);
  for (int64_t r = 0; r < 16; ++r)
    for (int64_t col = 0; col < 16; ++col)
      ASSERT_EQ(out[r * 16 + col], x[col * 16 + r] + 1.0f) << r << ", " << col;
}

TEST_F(ReplaceFrontTest, MisuseIsAFaultThatSaysWhy) {
  std::string kind;
  std::string message = faultOf(replaceOtherCb, kind);
  EXPECT_EQ(kind, sim::fault_kind::kInvalidCommand);
  EXPECT_NE(message.find("replaceFront(cb0) must be followed by the command that writes cb0"),
            std::string::npos)
      << message;
  message = faultOf(replaceEmptyCb, kind);
  EXPECT_EQ(kind, sim::fault_kind::kCbMisuse);
  EXPECT_NE(message.find("holds only 0 pushed and unpopped bytes"), std::string::npos) << message;
}

} // namespace
