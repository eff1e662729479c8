//===- fiber_test.cpp - Switching to and from kernel stacks ---------------===//

#include "mtia/sim/fiber.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>

using namespace mtia::sim;

namespace {

struct PingPong {
  Fiber fiber;
  int steps = 0;
  double acc = 0;
  uintptr_t stackAddress = 0;
};

// Yields after every step; keeps state in callee-saved registers and on its
// own stack across the switches.
void pingPong(void *p) {
  auto *s = static_cast<PingPong *>(p);
  volatile char onStack[256];
  std::memset(const_cast<char *>(onStack), 7, sizeof(onStack));
  s->stackAddress = reinterpret_cast<uintptr_t>(&onStack[0]);
  double local = 0.5;
  for (;;) {
    local = local * 2 + 1;
    s->acc += std::sqrt(local);
    ++s->steps;
    s->fiber.yield();
    EXPECT_EQ(onStack[100], 7);
  }
}

} // namespace

TEST(Fiber, ResumeAndYieldAlternate) {
  PingPong s;
  s.fiber.prepare(64 * 1024, &pingPong, &s);
  double expect = 0, local = 0.5;
  for (int i = 1; i <= 1000; ++i) {
    s.fiber.resume();
    local = local * 2 + 1;
    expect += std::sqrt(local);
    ASSERT_EQ(s.steps, i);
  }
  EXPECT_DOUBLE_EQ(s.acc, expect);
  // The fiber runs on its own stack, not the caller's.
  int here = 0;
  uintptr_t mine = reinterpret_cast<uintptr_t>(&here);
  EXPECT_GT(mine > s.stackAddress ? mine - s.stackAddress : s.stackAddress - mine, 64u * 1024);
}

TEST(Fiber, PrepareAbandonsTheOldRunAndRestarts) {
  PingPong s;
  s.fiber.prepare(64 * 1024, &pingPong, &s);
  s.fiber.resume();
  s.fiber.resume();
  EXPECT_EQ(s.steps, 2);
  s.steps = 0;
  s.acc = 0;
  s.fiber.prepare(128 * 1024, &pingPong, &s); // a new size remaps the stack
  s.fiber.resume();
  EXPECT_EQ(s.steps, 1);
  EXPECT_DOUBLE_EQ(s.acc, std::sqrt(2.0));
}

TEST(Fiber, NamesItsImplementation) {
  const std::string impl = Fiber::implementation();
#if defined(__x86_64__) && !defined(MTIA_SIM_UCONTEXT_FIBERS)
  EXPECT_EQ(impl, "x86-64");
#else
  EXPECT_EQ(impl, "ucontext");
#endif
}
