//===- chip.h - The simulated chip and one launch on it ---------*- C++ -*-===//
//
// The chip owns the PE grid, the shared memory system, the event queue, the
// trace and the statistics. `run` executes one launch:
//  - time starts at cycle 0 with every unit idle and every CB empty; the
//    cores start at launch_overhead_cycles (job launch);
//  - programs are numbered pid = x + gx * (y + gy * z); with n programs and
//    P PEs, PE k runs the contiguous block [k*B, (k+1)*B) with B = ceil(n/P),
//    in order, so ceil(n/B) PEs are used;
//  - the launch ends when no event is left; its length is the last cycle at
//    which anything happened (a command completed or a core finished);
//  - if anything is then still waiting, the launch is a deadlock;
//  - a launch without progress for watchdog_cycles (a spin), or past
//    max_launch_cycles, is a hang; the host's InterruptCheck may stop it;
//  - any fault stops the launch and is thrown as FaultError; the chip stays
//    usable for the next launch.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_CHIP_H
#define MTIA_SIM_CHIP_H

#include "mtia/device.h"
#include "mtia/sim/command.h"
#include "mtia/sim/config.h"
#include "mtia/sim/event_queue.h"
#include "mtia/sim/fault.h"
#include "mtia/sim/memory_system.h"
#include "mtia/sim/program_map.h"
#include "mtia/sim/simd_engine.h"
#include "mtia/sim/stats.h"
#include "mtia/sim/trace.h"
#include "mtia/sim/zeroed_memory.h"

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mtia::sim {

class Pe;

struct LaunchSpec {
  KernelEntry entry = nullptr;
  const KernelInfo *info = nullptr;
  std::array<int64_t, 3> grid = {1, 1, 1};
  std::vector<Arg> args;
  std::vector<Region> regions;
  std::string tracePath; ///< empty: no trace
  PidMapping mapping = PidMapping::Linear;
};

/// Busy cycles per unit kind, summed over PEs, in this order: the core,
/// then the units in UnitKind order.
constexpr const char *kUnitReportNames[] = {"riscv", "dma_in", "dma_out", "se", "dpe", "mlu",
                                             "vec", "re"};
constexpr int kNumReportUnits = int(sizeof(kUnitReportNames) / sizeof(kUnitReportNames[0]));
static_assert(kNumReportUnits == 1 + kNumUnits, "one report name per unit and the core");

/// Where device prints go: one call per printTile, every line ending in \n.
using PrintSink = std::function<void(const std::string &)>;
/// Whether the host wants the launch in flight stopped (Ctrl-C). Called from
/// the simulating thread, a few times a second of host time.
using InterruptCheck = std::function<bool()>;

struct LaunchSummary {
  Cycle cycles = 0;
  double seconds = 0;
  std::array<uint64_t, kNumReportUnits> busy{}; ///< indexed like kUnitReportNames
  int32_t pesUsed = 0;
  int64_t programs = 0;
  StatNode stats;
  std::string tracePath;
};

class Chip {
public:
  /// Builds the chip; throws std::invalid_argument for a bad config.
  explicit Chip(const Config &cfg);
  ~Chip();
  Chip(const Chip &) = delete;
  Chip &operator=(const Chip &) = delete;

  const Config &config() const { return cfg_; }

  /// Runs one launch to completion. Throws FaultError (after writing the
  /// trace, if one was asked for).
  LaunchSummary run(const LaunchSpec &spec);

  // Services the PEs use.
  EventQueue &events() { return events_; }
  Pe &pe(int32_t id) { return *pes_[size_t(id)]; }
  MemorySystem &memory() { return *memory_; }
  TraceRecorder &trace() { return trace_; }
  SeScratch &seScratch() { return seScratch_; }
  /// Replaces where printTile output goes (default: stdout).
  void setPrintSink(PrintSink sink) { printSink_ = std::move(sink); }
  void print(const std::string &text) const;
  /// Byte buffer `slot` (0..kScratchSlots-1), as large as local memory.
  uint8_t *scratch(int slot) { return scratch_[slot].data(); }
  /// The slot a command's operand `i` (0..kMaxLoopInputs-1) is gathered
  /// into when its bytes wrap around the CB: 0..2, then past the others.
  static constexpr int operandSlot(int i) { return i < 3 ? i : kFirstExtraOperandSlot + i - 3; }
  /// The vector register tile of step `k` of a vecLoop, `bytes` long
  /// (grow-only; a fused intermediate never lives in local memory, so it
  /// may be larger than one).
  uint8_t *loopRegister(int k, size_t bytes) {
    std::vector<uint8_t> &r = loopRegisters_[k];
    if (r.size() < bytes)
      r.resize(bytes);
    return r.data();
  }
  /// Records a fault raised on a fiber; the event loop stops after the
  /// current event.
  void recordFault(const Fault &f) { pendingFault_ = f; }
  /// Latest cycle anything happened at.
  void noteActivity(Cycle t) { lastActivity_ = std::max(lastActivity_, t); }

  // The watchdog. Progress is a store, an atomic that changed memory or a
  // finished program; a launch without any for watchdog_cycles, or running
  // past max_launch_cycles, is a hang fault. Simulated time advances while a
  // kernel spins, so the empty-queue deadlock check alone never fires.
  void noteProgress(Cycle t) { lastProgress_ = std::max(lastProgress_, t); }
  /// Checks the limits at cycle `t` (the event clock, or the clock of the
  /// core on PE `pe` as it runs scalar code, which may never yield) and now
  /// and then asks the InterruptCheck. Throws FaultError (hang, interrupted).
  void watch(Cycle t, int32_t pe = -1) {
    if ((t > lastProgress_ && t - lastProgress_ > idleLimit_) || t > launchLimit_ ||
        (++watchCalls_ & kWatchPollMask) == 0)
      watchSlow(t, pe);
  }
  void setInterruptCheck(InterruptCheck check) { interruptCheck_ = std::move(check); }

private:
  void validate(const LaunchSpec &spec) const;
  [[noreturn]] void throwDeadlock() const;
  void watchSlow(Cycle t, int32_t pe);
  [[noreturn]] void throwHang(Cycle t, int32_t pe, const std::string &why) const;
  LaunchSummary summarize(const LaunchSpec &spec, int32_t pesUsed, int64_t programs);

  Config cfg_;
  StatGroup stats_{"chip"};
  EventQueue events_;
  std::unique_ptr<MemorySystem> memory_;
  TraceRecorder trace_;
  SeScratch seScratch_;
  static constexpr int kFirstExtraOperandSlot = 6;
  static constexpr int kScratchSlots = kFirstExtraOperandSlot + kMaxLoopInputs - 3;
  ZeroedMemory scratch_[kScratchSlots];
  std::vector<uint8_t> loopRegisters_[kMaxLoopSteps];
  PrintSink printSink_;
  std::vector<std::unique_ptr<Pe>> pes_;
  std::optional<Fault> pendingFault_;
  Cycle lastActivity_ = 0;
  Cycle lastProgress_ = 0, idleLimit_ = 0, launchLimit_ = 0;
  static constexpr uint64_t kWatchPollMask = (1u << 14) - 1;
  uint64_t watchCalls_ = 0;
  InterruptCheck interruptCheck_;
  std::chrono::steady_clock::time_point lastInterruptPoll_;

  // Launch-level counters; the totals over PEs are filled in by summarize.
  uint64_t cycles_ = 0, programs_ = 0, pesUsed_ = 0, eventsFired_ = 0;
  uint64_t unitBusy_[kNumUnits] = {}, unitCommands_[kNumUnits] = {},
           unitParked_[kNumUnits] = {}, unitMemoryStall_[kNumUnits] = {},
           unitAmount_[kNumUnits] = {}, unitLocalStall_[kNumUnits] = {},
           unitLocalBytes_[kNumUnits] = {}, unitByAddress_[kNumUnits] = {},
           unitFences_[kNumUnits] = {};
  uint64_t coreBusy_ = 0, coreIssue_ = 0, coreScalar_ = 0, coreRead_ = 0,
           coreBlockedQueue_ = 0, coreBlockedRead_ = 0, coreBlockedBarrier_ = 0,
           coreCommands_ = 0, coreCore1Busy_ = 0, coreCore1Commands_ = 0;
};

} // namespace mtia::sim

#endif // MTIA_SIM_CHIP_H
