//===- fiber.cpp - The stack a kernel runs on, and switching to it --------===//

#include "mtia/sim/fiber.h"

#include <cstdint>
#include <new>
#include <sys/mman.h>

#if MTIA_SIM_ASM_FIBERS
// mtia_fiber_switch(void **save, void *load): pushes the callee-saved state
// on the current stack, stores the stack pointer in *save, switches to the
// stack `load` and pops the state saved there. The frame, from low to high
// addresses: MXCSR (4 bytes) and x87 control word (2, padded to 8), r15,
// r14, r13, r12, rbx, rbp, return address.
//
// A fresh fiber's stack holds the same frame with r12 = entry, r13 = arg
// and the return address mtia_fiber_start, which calls entry(arg) on a
// 16-byte aligned stack as the ABI requires.
asm(R"(
  .text
  .p2align 4
  .globl mtia_fiber_switch
  .hidden mtia_fiber_switch
  .type mtia_fiber_switch,@function
mtia_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size mtia_fiber_switch, .-mtia_fiber_switch

  .p2align 4
  .globl mtia_fiber_start
  .hidden mtia_fiber_start
  .type mtia_fiber_start,@function
mtia_fiber_start:
  movq %r13, %rdi
  callq *%r12
  ud2
  .size mtia_fiber_start, .-mtia_fiber_start
)");

extern "C" void mtia_fiber_switch(void **save, void *load);
extern "C" void mtia_fiber_start();
#endif

namespace mtia::sim {

namespace {
constexpr size_t kGuardBytes = 4096;
} // namespace

#if !MTIA_SIM_ASM_FIBERS
void Fiber::trampoline(unsigned lo, unsigned hi) {
  auto *f = reinterpret_cast<Fiber *>(uintptr_t(lo) | (uintptr_t(hi) << 32));
  f->entry_(f->arg_);
}
#endif

Fiber::~Fiber() {
  if (stack_)
    munmap(stack_, stackBytes_ + kGuardBytes);
}

const char *Fiber::implementation() { return MTIA_SIM_ASM_FIBERS ? "x86-64" : "ucontext"; }

void Fiber::prepare(size_t stackBytes, Entry entry, void *arg) {
  stackBytes = (stackBytes + 15) & ~size_t(15);
  if (stackBytes_ != stackBytes) {
    if (stack_)
      munmap(stack_, stackBytes_ + kGuardBytes);
    stack_ = nullptr;
    stackBytes_ = 0;
    // Mapped, not allocated: pages the kernel never touches cost nothing.
    void *m = mmap(nullptr, stackBytes + kGuardBytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
      throw std::bad_alloc();
    mprotect(m, kGuardBytes, PROT_NONE);
    stack_ = m;
    stackBytes_ = stackBytes;
  }
  char *base = static_cast<char *>(stack_) + kGuardBytes;
#if MTIA_SIM_ASM_FIBERS
  // The frame mtia_fiber_switch pops; after its `ret` the stack pointer is
  // `top`, 16-byte aligned, so the call in mtia_fiber_start is aligned.
  uintptr_t top = (reinterpret_cast<uintptr_t>(base) + stackBytes_ - 16) & ~uintptr_t(15);
  auto *frame = reinterpret_cast<uint64_t *>(top) - 8;
  uint32_t mxcsr;
  uint16_t fpucw;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpucw));
  frame[0] = uint64_t(mxcsr) | (uint64_t(fpucw) << 32);
  frame[1] = 0;                                      // r15
  frame[2] = 0;                                      // r14
  frame[3] = reinterpret_cast<uint64_t>(arg);        // r13
  frame[4] = reinterpret_cast<uint64_t>(entry);      // r12
  frame[5] = 0;                                      // rbx
  frame[6] = 0;                                      // rbp
  frame[7] = reinterpret_cast<uint64_t>(&mtia_fiber_start);
  sp_ = frame;
#else
  getcontext(&context_);
  context_.uc_stack.ss_sp = base;
  context_.uc_stack.ss_size = stackBytes_;
  context_.uc_link = nullptr;
  entry_ = entry;
  arg_ = arg;
  uintptr_t s = reinterpret_cast<uintptr_t>(this);
  makecontext(&context_, reinterpret_cast<void (*)()>(&trampoline), 2,
              unsigned(s & 0xffffffffu), unsigned(s >> 32));
#endif
}

void Fiber::resume() {
#if MTIA_SIM_ASM_FIBERS
  mtia_fiber_switch(&callerSp_, sp_);
#else
  swapcontext(&caller_, &context_);
#endif
}

void Fiber::yield() {
#if MTIA_SIM_ASM_FIBERS
  mtia_fiber_switch(&sp_, callerSp_);
#else
  swapcontext(&context_, &caller_);
#endif
}

} // namespace mtia::sim
