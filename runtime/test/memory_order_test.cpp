//===- memory_order_test.cpp - Fences between the fabric units -----------===//
//
// The two DMA units take their queues independently, so a program's load can
// read memory before its earlier store has written it. These tests show the
// hazard is real (stale data with the sanitizer off), that the sanitizer
// names both commands and their source lines, that a fence orders the pair,
// and what mayAlias answers.
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include <gtest/gtest.h>

#include <vector>

using namespace mtia;
using namespace mtia::test;

namespace {

constexpr int64_t kN = 256;

/// out = x * 2; res = out + 1, reading `out` back from memory (the smallest
/// form of a program that reads its own writes). With `fenced`, a
/// loads-after-stores fence sits between the store and the load.
template <bool fenced> void readOwnWrite(Ctx *c, const Arg *a) {
  const Shape s = shape1(kN);
  c->line = 10;
  dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
  c->line = 11;
  se(c, SeOp::Mul, 1, DType::F32, s, tile(0, DType::F32, s), immFloat(DType::F32, 2.0));
  cbPop(c, 0, kN * 4);
  dmaOut(c, 1, DType::F32, a[1].u, box1(kN, kN));
  cbPop(c, 1, kN * 4);
  if (fenced)
    fence(c, Fence::LoadsAfterStores);
  c->line = 12;
  dmaIn(c, 2, DType::F32, a[1].u, box1(kN, kN), immInt(DType::F32, 0));
  c->line = 13;
  se(c, SeOp::Add, 0, DType::F32, s, tile(2, DType::F32, s), immFloat(DType::F32, 1.0));
  cbPop(c, 2, kN * 4);
  dmaOut(c, 0, DType::F32, a[2].u, box1(kN, kN));
  cbPop(c, 0, kN * 4);
}

/// buf is loaded into `out` while a constant tile overwrites buf: the store
/// needs nothing from the load, so only a stores-after-loads fence keeps it
/// from overwriting bytes the load has not read yet (write after read).
template <bool fenced> void writeAfterRead(Ctx *c, const Arg *a) {
  const Shape s = shape1(kN);
  c->line = 20;
  dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
  c->line = 21;
  se(c, SeOp::Copy, 1, DType::F32, s, immFloat(DType::F32, -1.0));
  if (fenced)
    fence(c, Fence::StoresAfterLoads);
  dmaOut(c, 1, DType::F32, a[0].u, box1(kN, kN));
  cbPop(c, 1, kN * 4);
  c->line = 22;
  dmaOut(c, 0, DType::F32, a[1].u, box1(kN, kN));
  cbPop(c, 0, kN * 4);
}

/// The small chip with the sanitizer off.
sim::Config unchecked() {
  sim::Config cfg = sim::smallPreset();
  cfg.check_memory_order = 0;
  return cfg;
}

class MemoryOrderTest : public ::testing::Test {
protected:
  sim::LaunchSummary run(rt::Simulator &on, KernelEntry k, std::vector<float> &x,
                         std::vector<float> &out, std::vector<float> &res) {
    KernelInfo info = kernelInfo("k", 3, {4096, 4096, 4096});
    return on.launch(k, info, {1, 1, 1}, {ptrArg(x.data()), ptrArg(out.data()), ptrArg(res.data())},
                     {regionOf(x), regionOf(out), regionOf(res)});
  }
  sim::LaunchSummary run(KernelEntry k, std::vector<float> &x, std::vector<float> &out,
                         std::vector<float> &res) {
    return run(sim, k, x, out, res);
  }
  rt::Simulator sim{sim::smallPreset()};
};

TEST_F(MemoryOrderTest, UnorderedLoadSeesStaleMemory) {
  // The hazard the compiler's fences exist for: with the sanitizer off, the
  // load reads `out` before the store wrote it.
  rt::Simulator racy(unchecked());
  std::vector<float> x(kN, 3.0f), out(kN, 100.0f), res(kN);
  run(racy, readOwnWrite<false>, x, out, res);
  EXPECT_EQ(out[0], 6.0f);
  EXPECT_EQ(res[0], 101.0f); // stale: the old 100, not 6
}

TEST_F(MemoryOrderTest, SanitizerNamesBothCommandsAndLines) {
  std::vector<float> x(kN, 3.0f), out(kN, 100.0f), res(kN);
  try {
    run(readOwnWrite<false>, x, out, res);
    FAIL() << "no memory-order fault";
  } catch (const sim::FaultError &e) {
    const sim::Fault &f = e.fault();
    EXPECT_EQ(f.kind, sim::fault_kind::kMemoryOrder);
    EXPECT_EQ(f.unit, "dma_in");
    EXPECT_EQ(f.line, 12);
    EXPECT_NE(f.command.find("dmaIn cb2"), std::string::npos) << f.command;
    EXPECT_NE(f.message.find("dmaOut cb1"), std::string::npos) << f.message;
    EXPECT_NE(f.message.find("(line 11)"), std::string::npos) << f.message;
    EXPECT_NE(f.message.find("has not finished writing"), std::string::npos) << f.message;
  }
}

TEST_F(MemoryOrderTest, FenceOrdersALoadAfterAStore) {
  std::vector<float> x(kN, 3.0f), out(kN, 100.0f), res(kN);
  sim::LaunchSummary fenced = run(readOwnWrite<true>, x, out, res);
  for (float v : res)
    ASSERT_EQ(v, 7.0f);
  EXPECT_EQ(fenced.stats.find("units.dma_in.fences")->value, 1u);
  // The fence costs the wait for the store: the unordered launch (sanitizer
  // off) finishes earlier, with the wrong answer.
  rt::Simulator racy(unchecked());
  EXPECT_GT(fenced.cycles, run(racy, readOwnWrite<false>, x, out, res).cycles);
}

TEST_F(MemoryOrderTest, WriteAfterReadIsCaughtAndFenced) {
  {
    std::vector<float> buf(kN, 5.0f), out(kN), unused(kN);
    try {
      run(writeAfterRead<false>, buf, out, unused);
      FAIL() << "no memory-order fault";
    } catch (const sim::FaultError &e) {
      EXPECT_EQ(e.fault().kind, sim::fault_kind::kMemoryOrder);
      EXPECT_EQ(e.fault().unit, "dma_out");
      EXPECT_EQ(e.fault().line, 21);
      EXPECT_NE(e.fault().message.find("has not finished reading"), std::string::npos);
    }
  }
  std::vector<float> buf(kN, 5.0f), out(kN), unused(kN);
  run(writeAfterRead<true>, buf, out, unused);
  EXPECT_EQ(out[0], 5.0f);
  EXPECT_EQ(buf[0], -1.0f);
}

TEST_F(MemoryOrderTest, AFenceWithNothingInFlightIsFree) {
  // A fence issued when the other unit has nothing in flight queues nothing.
  static std::vector<float> x(kN, 1.0f);
  auto k = [](Ctx *c, const Arg *a) {
    fence(c, Fence::Both);
    dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
    cbPop(c, 0, kN * 4);
  };
  KernelInfo info = kernelInfo("k", 1, {4096});
  sim::LaunchSummary s = sim.launch(k, info, {1, 1, 1}, {ptrArg(x.data())}, {regionOf(x)});
  EXPECT_EQ(s.stats.find("units.dma_in.fences")->value, 0u);
  EXPECT_EQ(s.stats.find("units.dma_out.fences")->value, 0u);
}

TEST_F(MemoryOrderTest, MayAliasAnswersByAllocation) {
  static std::vector<float> a(64), b(64);
  static int32_t answers[4];
  auto k = [](Ctx *c, const Arg *arg) {
    answers[0] = mayAlias(c, arg[0].u, arg[1].u);      // two allocations
    answers[1] = mayAlias(c, arg[0].u, arg[0].u + 128); // one allocation
    answers[2] = mayAlias(c, arg[0].u, 64);             // outside every one
    answers[3] = mayAlias(c, arg[1].u + 4, arg[1].u);
  };
  KernelInfo info = kernelInfo("k", 2, {64});
  sim.launch(k, info, {1, 1, 1}, {ptrArg(a.data()), ptrArg(b.data())}, {regionOf(a), regionOf(b)});
  EXPECT_EQ(answers[0], 0);
  EXPECT_EQ(answers[1], 1);
  EXPECT_EQ(answers[2], 1);
  EXPECT_EQ(answers[3], 1);
}

TEST_F(MemoryOrderTest, OtherProgramsAreNotOrdered) {
  // Two programs on one PE write and read the same bytes: Triton orders
  // nothing between programs, so the sanitizer stays quiet.
  static std::vector<float> x(kN, 1.0f);
  auto k = [](Ctx *c, const Arg *a) {
    const Shape s = shape1(kN);
    dmaIn(c, 0, DType::F32, a[0].u, box1(kN, kN), immInt(DType::F32, 0));
    se(c, SeOp::Add, 1, DType::F32, s, tile(0, DType::F32, s), immFloat(DType::F32, 1.0));
    cbPop(c, 0, kN * 4);
    dmaOut(c, 1, DType::F32, a[0].u, box1(kN, kN));
    cbPop(c, 1, kN * 4);
  };
  sim::Config cfg = sim::smallPreset();
  cfg.pe_rows = cfg.pe_cols = 1;
  rt::Simulator one(cfg);
  KernelInfo info = kernelInfo("k", 1, {4096, 4096});
  EXPECT_NO_THROW(one.launch(k, info, {4, 1, 1}, {ptrArg(x.data())}, {regionOf(x)}));
}

} // namespace
