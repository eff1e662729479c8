//===- local_memory_test.cpp - Units share the local-memory bandwidth -----===//

#include "test_util.h"

#include "mtia/sim/local_memory.h"

#include <gtest/gtest.h>

using namespace mtia;
using namespace mtia::test;

namespace {

TEST(LocalMemory, CommandsUnderTheBandwidthKeepTheirOwnTime) {
  sim::LocalMemoryBandwidth ls;
  ls.reset(740);
  // 384 B/cycle (an SE add of fp32) and 128 B/cycle (an MLU copy) together
  // stay under 740.
  EXPECT_EQ(ls.reserve(100, 356, 384 * 256), 356u);
  EXPECT_EQ(ls.reserve(100, 612, 128 * 512), 612u);
}

TEST(LocalMemory, TheLaterCommandGetsWhatIsLeft) {
  sim::LocalMemoryBandwidth ls;
  ls.reset(400);
  // The first command takes 384 of 400 B/cycle for 256 cycles; the second,
  // wanting 128 B/cycle, moves 16 B/cycle meanwhile and the rest at its own
  // rate afterwards: 16 * 256 = 4096 B by cycle 256, 61440 more at 128 B/cycle
  // take 480 cycles.
  EXPECT_EQ(ls.reserve(0, 256, 384 * 256), 256u);
  EXPECT_EQ(ls.reserve(0, 512, 128 * 512), 736u);
  // Nothing is left before 256; a third command that starts there waits.
  EXPECT_GT(ls.reserve(64, 128, 128 * 64), 128u);
}

TEST(LocalMemory, ZeroBandwidthMeansUnlimited) {
  sim::LocalMemoryBandwidth ls;
  ls.reset(0);
  EXPECT_EQ(ls.reserve(0, 10, 1 << 30), 10u);
}

constexpr int64_t kElems = 8192; // 32 KiB of fp32 per tile

/// Fills cb0 and cb1, waits, then runs an SE add (cb0 + cb1 -> cb2, 384
/// B/cycle of local memory) and, if a[0].i, an MLU copy (cb0 -> cb3, 128
/// B/cycle) at the same time.
void addBesideCopyKernel(Ctx *c, const Arg *a) {
  const Shape s = shape1(kElems);
  seIota(c, 0, DType::F32, kElems, 0);
  seIota(c, 1, DType::F32, kElems, 1);
  barrier(c);
  se(c, SeOp::Add, 2, DType::F32, s, tile(0, DType::F32, s), tile(1, DType::F32, s));
  if (a[0].i)
    mluCopy(c, 3, DType::F32, s, tile(0, DType::F32, s));
  barrier(c);
}

struct UnitTimes {
  uint64_t cycles, seStall, mluStall, mluBusy, localBytes;
};

UnitTimes runAddBesideCopy(double lsBytesPerCycle, bool withCopy) {
  sim::Config cfg = rowOfPes(1);
  cfg.local_memory_bytes_per_cycle = lsBytesPerCycle;
  rt::Simulator sim(cfg);
  const int64_t tileBytes = kElems * 4;
  KernelInfo info = kernelInfo("add_beside_copy", 1, {tileBytes, tileBytes, tileBytes, tileBytes});
  sim::LaunchSummary r =
      sim.launch(addBesideCopyKernel, info, {1, 1, 1}, {intArg(withCopy)}, {});
  auto get = [&](const char *path) { return r.stats.find(path)->value; };
  return {r.cycles, get("units.se.local_stall_cycles"), get("units.mlu.local_stall_cycles"),
          get("units.mlu.busy_cycles"), get("units.se.local_bytes") + get("units.mlu.local_bytes")};
}

TEST(LocalMemory, UnitsThatTogetherExceedTheBandwidthStretch) {
  // 400 B/cycle: the add alone fits, add and copy together do not.
  const UnitTimes alone = runAddBesideCopy(400, false);
  const UnitTimes both = runAddBesideCopy(400, true);
  const UnitTimes unlimited = runAddBesideCopy(0, true);
  EXPECT_EQ(alone.seStall, 0u);
  EXPECT_EQ(both.seStall, 0u); // the add started first and keeps its rate
  EXPECT_GT(both.mluStall, 0u);
  EXPECT_EQ(unlimited.mluStall, 0u);
  EXPECT_EQ(unlimited.mluBusy, 512u); // 32 KiB at 64 B/cycle
  EXPECT_GT(both.mluBusy, unlimited.mluBusy);
  EXPECT_GT(both.cycles, unlimited.cycles);
  // Iotas 2 x 32 KiB, add 96 KiB, copy 64 KiB.
  EXPECT_EQ(both.localBytes, uint64_t(2 * 32 + 96 + 64) * 1024);
  // The copy starts 8 cycles (one issue) after the add: for the add's
  // remaining 248 cycles it gets the 16 B/cycle the add leaves, then its own
  // 128 B/cycle: 248 + (65536 - 16 * 248) / 128 = 729 cycles, within the
  // calendar's window granularity.
  const uint64_t window = sim::LocalMemoryBandwidth::kWindow;
  EXPECT_GE(both.mluBusy, 729u - window);
  EXPECT_LE(both.mluBusy, 729u + window);
}

TEST(LocalMemory, TheMtia2iBandwidthFeedsAnAddBesideACopy) {
  // 740 B/cycle holds both at their own rates.
  const UnitTimes both = runAddBesideCopy(740, true);
  EXPECT_EQ(both.seStall + both.mluStall, 0u);
}

} // namespace
