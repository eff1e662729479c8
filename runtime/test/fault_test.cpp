//===- fault_test.cpp - Faults stop a launch, never the process -----------===//

#include "test_util.h"

#include <gtest/gtest.h>

using namespace mtia;
using namespace mtia::test;

namespace {

class FaultTest : public ::testing::Test {
protected:
  /// Runs `launch`, expecting a fault of `kind`; returns it.
  template <class F> sim::Fault expectFault(const std::string &kind, F &&launch) {
    try {
      launch();
    } catch (const sim::FaultError &e) {
      EXPECT_EQ(e.fault().kind, kind) << e.what();
      // The message names every field.
      EXPECT_NE(std::string(e.what()).find(kind), std::string::npos);
      return e.fault();
    }
    ADD_FAILURE() << "no fault of kind " << kind;
    return {};
  }

  /// A correct launch on the same simulator must still work.
  void expectHealthy() {
    const int64_t n = 3000, block = 1024;
    std::vector<float> x(n, 1.5f), y(n, 2.0f), out(n);
    KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
    sim.launch(vectorAddKernel, info, {3, 1, 1},
               {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n), intArg(block)},
               {regionOf(x), regionOf(y), regionOf(out)});
    for (float v : out)
      ASSERT_EQ(v, 3.5f);
  }

  rt::Simulator sim{sim::smallPreset()};
};

TEST_F(FaultTest, OutOfBoundsDma) {
  const int64_t n = 64 * 1024, block = 1024;
  std::vector<float> x(n), y(n), out(n / 2); // out is too short for the grid
  KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
  sim::Fault f = expectFault(sim::fault_kind::kOutOfBoundsDma, [&] {
    sim.launch(vectorAddKernel, info, {n / block, 1, 1},
               {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n), intArg(block)},
               {regionOf(x), regionOf(y), regionOf(out)});
  });
  EXPECT_GE(f.pe, 0);
  EXPECT_EQ(f.unit, "dma_out");
  EXPECT_EQ(f.cb, 2);
  EXPECT_NE(f.command.find("dmaOut"), std::string::npos);
  expectHealthy();
}

TEST_F(FaultTest, LocalMemoryOverflow) {
  std::vector<float> x(16);
  KernelInfo info = kernelInfo("too_big", 5, {200 * 1024, 200 * 1024});
  sim::Fault f = expectFault(sim::fault_kind::kLocalMemoryOverflow, [&] {
    sim.launch(vectorAddKernel, info, {1, 1, 1},
               {ptrArg(x.data()), ptrArg(x.data()), ptrArg(x.data()), intArg(16), intArg(16)},
               {regionOf(x)});
  });
  EXPECT_NE(f.message.find("too_big"), std::string::npos);
  EXPECT_NE(f.message.find("cb1 204800"), std::string::npos);
  expectHealthy();
}

void popUnpushedKernel(Ctx *c, const Arg *) { cbPop(c, 0, 4); }

TEST_F(FaultTest, PopOfUnpushedBytes) {
  KernelInfo info = kernelInfo("pop_unpushed", 0, {64});
  sim::Fault f = expectFault(sim::fault_kind::kCbMisuse,
                             [&] { sim.launch(popUnpushedKernel, info, {8, 1, 1}, {}, {}); });
  EXPECT_EQ(f.unit, "riscv");
  EXPECT_EQ(f.cb, 0);
  EXPECT_NE(f.command.find("cbPop"), std::string::npos);
  expectHealthy();
}

void tileTooLargeKernel(Ctx *c, const Arg *) { seIota(c, 0, DType::I32, 32, 0); }

TEST_F(FaultTest, TileLargerThanItsCb) {
  KernelInfo info = kernelInfo("too_large_tile", 0, {64});
  expectFault(sim::fault_kind::kCbMisuse,
              [&] { sim.launch(tileTooLargeKernel, info, {1, 1, 1}, {}, {}); });
  expectHealthy();
}

/// Reads cb1, which nothing ever writes.
void starvedReaderKernel(Ctx *c, const Arg *) {
  const Shape s = shape1(16);
  se(c, SeOp::Copy, 0, DType::F32, s, tile(1, DType::F32, s));
}

TEST_F(FaultTest, DeadlockNamesTheParkedCommand) {
  KernelInfo info = kernelInfo("starved", 0, {64, 64});
  sim::Fault f = expectFault(sim::fault_kind::kDeadlock,
                             [&] { sim.launch(starvedReaderKernel, info, {1, 1, 1}, {}, {}); });
  EXPECT_EQ(f.pe, 0);
  EXPECT_EQ(f.unit, "se");
  EXPECT_EQ(f.cb, 1);
  EXPECT_NE(f.command.find("se.Copy"), std::string::npos);
  EXPECT_NE(f.message.find("wptr 0"), std::string::npos);
  expectHealthy();
}

/// The core waits for a value that is never produced.
void starvedCoreKernel(Ctx *c, const Arg *) {
  const Shape s = shape1(4);
  se(c, SeOp::Copy, 0, DType::I32, s, tile(1, DType::I32, s));
  readInt(c, 0, DType::I32, 0);
}

TEST_F(FaultTest, DeadlockOfABlockedCore) {
  KernelInfo info = kernelInfo("starved_core", 0, {64, 64});
  sim::Fault f = expectFault(sim::fault_kind::kDeadlock,
                             [&] { sim.launch(starvedCoreKernel, info, {4, 1, 1}, {}, {}); });
  EXPECT_NE(f.message.find("riscv: blocked reading cb0"), std::string::npos) << f.message;
  expectHealthy();
}

TEST_F(FaultTest, InvalidCommand) {
  auto kernel = [](Ctx *c, const Arg *) {
    const Shape s = shape1(4);
    se(c, SeOp::Exp, 0, DType::I32, s, immInt(DType::I32, 1)); // Exp has no integer form
  };
  KernelInfo info = kernelInfo("bad_op", 0, {64});
  expectFault(sim::fault_kind::kInvalidCommand, [&] { sim.launch(kernel, info, {1, 1, 1}, {}, {}); });
  expectHealthy();
}

TEST_F(FaultTest, ArgumentCountAndAbiAreChecked) {
  KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
  expectFault(sim::fault_kind::kInvalidLaunch,
              [&] { sim.launch(vectorAddKernel, info, {1, 1, 1}, {intArg(1)}, {}); });
  info.abiVersion = kDeviceAbiVersion + 1;
  expectFault(sim::fault_kind::kKernelLoad,
              [&] { sim.launch(vectorAddKernel, info, {1, 1, 1}, {}, {}); });
  expectFault(sim::fault_kind::kKernelLoad, [&] {
    sim.launch("/nonexistent/kernel.so", "k", {1, 1, 1}, {}, {});
  });
  expectHealthy();
}

TEST(KernelLibrary, LoadsAKernelSharedObject) {
  rt::Simulator sim(sim::smallPreset());
  const int64_t n = 1000;
  std::vector<float> x(n), y(n), out(n);
  for (int64_t i = 0; i < n; ++i) {
    x[size_t(i)] = float(i);
    y[size_t(i)] = -0.5f;
  }
  for (int repeat = 0; repeat < 2; ++repeat) // the second launch reuses the handle
    sim.launch(MTIA_TEST_KERNEL_SO, "vector_add", {4, 1, 1},
               {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n)},
               {regionOf(x), regionOf(y), regionOf(out)});
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(out[size_t(i)], float(i) - 0.5f);
  EXPECT_THROW(sim.launch(MTIA_TEST_KERNEL_SO, "missing", {1, 1, 1}, {}, {}), sim::FaultError);
}

} // namespace
