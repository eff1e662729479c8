//===- watchdog_test.cpp - Launches that never finish are stopped ---------===//
//
// Simulated time advances while a kernel spins, so a spin on a flag nobody
// sets never empties the event queue and the deadlock check never fires; a
// loop of scalar code never even yields to the event loop. The watchdog
// (config watchdog_cycles, max_launch_cycles) stops both as a `hang` fault
// naming the PE and the source line, and the host can stop a launch
// (`interrupted`). Progress is a store, an atomic that changed memory or a
// finished program: a spin lock that does eventually get the lock is not
// stopped.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <gtest/gtest.h>

#include <functional>

using namespace mtia;
using namespace mtia::test;

namespace {

/// `while (atomic_add(flag, 0) == 0) {}`: the add of 0 changes nothing.
void flagSpinKernel(Ctx *c, const Arg *a) {
  const Shape one = shape1(1);
  c->line = 7;
  seIota(c, 0, DType::I64, 1, a[0].i);
  for (;;) {
    atomicRmw(c, 1, RmwOp::Add, DType::I32, one, 0, immInt(DType::I32, 0));
    const int64_t flag = readInt(c, 1, DType::I32);
    cbPop(c, 1, 4);
    if (flag != 0)
      break;
  }
  cbPop(c, 0, 8);
}

/// A loop of scalar code only: no command, so the core never blocks.
void scalarSpinKernel(Ctx *c, const Arg *a) {
  volatile int64_t i = a[0].i;
  while (i < 10) {
    c->line = 12;
    scalarCycles(c, 3);
    i = (i * 7 + 3) % 5;
  }
}

/// Stores one element per iteration, `a[1]` iterations: progress all along.
void busyStoreKernel(Ctx *c, const Arg *a) {
  for (int64_t k = 0; k < a[1].i; ++k) {
    seIota(c, 0, DType::I32, 1, k);
    dmaOut(c, 0, DType::I32, a[0].u, box1(1, 1));
    cbPop(c, 0, 4);
    scalarCycles(c, 200);
  }
}

class WatchdogTest : public ::testing::Test {
protected:
  sim::Fault expectFault(const char *kind, const std::function<void()> &launch) {
    try {
      launch();
    } catch (const sim::FaultError &e) {
      EXPECT_EQ(e.fault().kind, kind) << e.what();
      return e.fault();
    }
    ADD_FAILURE() << "no fault of kind " << kind;
    return {};
  }

  static sim::Config withWatchdog(int64_t idle, int64_t total = 0) {
    sim::Config cfg = sim::smallPreset();
    cfg.watchdog_cycles = idle;
    cfg.max_launch_cycles = total;
    return cfg;
  }
};

TEST_F(WatchdogTest, SpinOnAFlagNobodySetsIsAHang) {
  rt::Simulator sim(withWatchdog(200000));
  std::vector<int32_t> flag(1, 0);
  KernelInfo info = kernelInfo("flag_spin", 1, {64, 64});
  sim::Fault f = expectFault(sim::fault_kind::kHang, [&] {
    sim.launch(flagSpinKernel, info, {2, 1, 1}, {ptrArg(flag.data())}, {regionOf(flag)});
  });
  EXPECT_GE(f.pe, 0);
  EXPECT_EQ(f.unit, "riscv");
  EXPECT_EQ(f.line, 7);
  EXPECT_NE(f.message.find("no progress for"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("watchdog_cycles = 200000"), std::string::npos) << f.message;
  EXPECT_NE(f.message.find("PE 1 core at line 7"), std::string::npos) << f.message;
  // The chip stays usable: with the flag set the same kernel finishes.
  flag[0] = 1;
  sim.launch(flagSpinKernel, info, {2, 1, 1}, {ptrArg(flag.data())}, {regionOf(flag)});
}

TEST_F(WatchdogTest, ScalarLoopThatNeverYieldsIsAHang) {
  rt::Simulator sim(withWatchdog(100000));
  KernelInfo info = kernelInfo("scalar_spin", 1, {});
  sim::Fault f = expectFault(sim::fault_kind::kHang,
                             [&] { sim.launch(scalarSpinKernel, info, {1, 1, 1}, {intArg(0)}, {}); });
  EXPECT_EQ(f.pe, 0);
  EXPECT_EQ(f.line, 12);
  EXPECT_NE(f.message.find("PE 0 core at line 12: running"), std::string::npos) << f.message;
}

TEST_F(WatchdogTest, StoresAreProgress) {
  // 500 iterations of ~200 cycles each: far longer than the idle limit in
  // all, never without a store for that long.
  rt::Simulator sim(withWatchdog(20000));
  std::vector<int32_t> out(1, -1);
  KernelInfo info = kernelInfo("busy", 2, {64});
  sim::LaunchSummary s = sim.launch(busyStoreKernel, info, {1, 1, 1},
                                    {ptrArg(out.data()), intArg(500)}, {regionOf(out)});
  EXPECT_GT(s.cycles, 5u * 20000u);
  EXPECT_EQ(out[0], 499);
}

TEST_F(WatchdogTest, LaunchLongerThanTheLimitIsAHang) {
  rt::Simulator sim(withWatchdog(0, 30000));
  std::vector<int32_t> out(1, -1);
  KernelInfo info = kernelInfo("busy", 2, {64});
  sim::Fault f = expectFault(sim::fault_kind::kHang, [&] {
    sim.launch(busyStoreKernel, info, {1, 1, 1}, {ptrArg(out.data()), intArg(500)},
               {regionOf(out)});
  });
  EXPECT_NE(f.message.find("max_launch_cycles = 30000"), std::string::npos) << f.message;
  // Off: the same launch runs to the end.
  rt::Simulator unlimited(withWatchdog(0, 0));
  unlimited.launch(busyStoreKernel, info, {1, 1, 1}, {ptrArg(out.data()), intArg(500)},
                   {regionOf(out)});
  EXPECT_EQ(out[0], 499);
}

TEST_F(WatchdogTest, TheHostCanStopALaunch) {
  rt::Simulator sim(withWatchdog(0));
  int asked = 0;
  sim.setInterruptCheck([&] { return ++asked >= 2; });
  KernelInfo info = kernelInfo("scalar_spin", 1, {});
  sim::Fault f = expectFault(sim::fault_kind::kInterrupted,
                             [&] { sim.launch(scalarSpinKernel, info, {1, 1, 1}, {intArg(0)}, {}); });
  EXPECT_EQ(asked, 2);
  EXPECT_NE(f.message.find("the host stopped the launch"), std::string::npos);
  // Not asked again once the host says no.
  sim.setInterruptCheck([] { return false; });
  std::vector<int32_t> out(1, -1);
  KernelInfo busy = kernelInfo("busy", 2, {64});
  sim.launch(busyStoreKernel, busy, {1, 1, 1}, {ptrArg(out.data()), intArg(3)}, {regionOf(out)});
  EXPECT_EQ(out[0], 2);
}

} // namespace
