//===- fault.h - Faults a launch can stop with -----------------*- C++ -*-===//
//
// A fault stops the launch and is reported to the caller; it never takes the
// host process down. Each fault names what the model knows of its origin: the
// PE, the unit, the CB and the command (any may be absent: -1 / empty).
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_FAULT_H
#define MTIA_SIM_FAULT_H

#include <cstdint>
#include <stdexcept>
#include <string>

namespace mtia::sim {

/// The fault kinds, spelled as they reach Python.
namespace fault_kind {
inline constexpr const char *kOutOfBoundsDma = "out-of-bounds DMA";
inline constexpr const char *kLocalMemoryOverflow = "local-memory overflow";
inline constexpr const char *kCbMisuse = "CB misuse";
inline constexpr const char *kDeadlock = "deadlock";
inline constexpr const char *kInvalidCommand = "invalid command";
inline constexpr const char *kInvalidLaunch = "invalid launch";
inline constexpr const char *kKernelLoad = "kernel load";
/// A device assert (assertTile) found a false element.
inline constexpr const char *kAssert = "assert";
/// The memory-order sanitizer (config check_memory_order) found a fabric
/// command touching bytes an earlier one of its program is still moving.
inline constexpr const char *kMemoryOrder = "memory-order hazard";
/// The watchdog (config watchdog_cycles, max_launch_cycles) stopped a launch
/// that makes no progress or runs too long: a spin on a flag nobody sets.
inline constexpr const char *kHang = "hang";
/// The host asked the launch to stop (Ctrl-C in Python).
inline constexpr const char *kInterrupted = "interrupted";
} // namespace fault_kind

struct Fault {
  Fault() = default;
  Fault(std::string kind, int32_t pe, std::string unit, int32_t cb, std::string command,
        std::string message)
      : kind(std::move(kind)), pe(pe), unit(std::move(unit)), cb(cb),
        command(std::move(command)), message(std::move(message)) {}

  std::string kind;
  int32_t pe = -1;
  std::string unit;
  int32_t cb = -1;
  std::string command;
  std::string message;
  /// Device asserts: the source location the kernel passed (line -1: none).
  std::string file;
  int32_t line = -1;

  /// One line naming the kind, the message and every known origin field.
  std::string describe() const;
};

/// Carries a Fault out of the simulator to its caller.
class FaultError : public std::runtime_error {
public:
  explicit FaultError(Fault f) : std::runtime_error(f.describe()), f_(std::move(f)) {}
  const Fault &fault() const { return f_; }

private:
  Fault f_;
};

} // namespace mtia::sim

#endif // MTIA_SIM_FAULT_H
