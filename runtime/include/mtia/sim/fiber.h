//===- fiber.h - The stack a kernel runs on, and switching to it -*- C++ -*-===//
//
// A kernel's native code runs on a fiber: its own stack, entered by resume()
// from the event loop and left by yield() from inside a device call. The
// simulator switches fibers on every suspension of a core (a full queue, a
// read of unpublished data, a barrier), several times per command in an
// issue-bound kernel, so the switch is on the hot path.
//
// Two implementations, chosen at compile time:
//  - x86-64 (the default there): a hand-written switch that saves only what
//    the System V ABI makes callee-saved (rbx, rbp, r12-r15, the stack
//    pointer, MXCSR and the x87 control word). swapcontext would also save
//    and restore the signal mask, a system call per switch, and the fibers
//    never change it.
//  - ucontext (everywhere else, or with -DMTIA_SIM_UCONTEXT_FIBERS): the
//    portable fallback.
// Both keep the lowest page of the stack inaccessible, so a kernel that
// overflows its stack faults instead of corrupting a neighbour.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_FIBER_H
#define MTIA_SIM_FIBER_H

#include <cstddef>

#if defined(__x86_64__) && defined(__ELF__) && !defined(MTIA_SIM_UCONTEXT_FIBERS)
#define MTIA_SIM_ASM_FIBERS 1
#else
#define MTIA_SIM_ASM_FIBERS 0
#include <ucontext.h>
#endif

namespace mtia::sim {

class Fiber {
public:
  using Entry = void (*)(void *);

  Fiber() = default;
  ~Fiber();
  Fiber(const Fiber &) = delete;
  Fiber &operator=(const Fiber &) = delete;

  /// Makes the next resume() start `entry(arg)` from the top of a stack of
  /// `stackBytes` (kept across calls of the same size). Whatever the fiber
  /// was doing is abandoned. `entry` must never return: it ends by yield().
  /// Throws std::bad_alloc when the stack cannot be mapped.
  void prepare(size_t stackBytes, Entry entry, void *arg);
  /// From the event loop: runs the fiber until it yields.
  void resume();
  /// From the fiber: returns to the resume() that entered it.
  void yield();

  /// Which implementation this build uses ("x86-64" or "ucontext").
  static const char *implementation();

private:
  void *stack_ = nullptr; ///< mapping, guard page first
  size_t stackBytes_ = 0; ///< usable bytes above the guard page
#if MTIA_SIM_ASM_FIBERS
  void *sp_ = nullptr;       ///< the fiber's saved stack pointer
  void *callerSp_ = nullptr; ///< the event loop's, while the fiber runs
#else
  ucontext_t context_{};
  ucontext_t caller_{};
  Entry entry_ = nullptr;
  void *arg_ = nullptr;
  /// makecontext passes int arguments only: `this` travels in two halves.
  static void trampoline(unsigned lo, unsigned hi);
#endif
};

} // namespace mtia::sim

#endif // MTIA_SIM_FIBER_H
