//===- trace.h - Chrome/Perfetto trace of a launch --------------*- C++ -*-===//
//
// Records one complete ("X") event per command, per program and per core
// stall while a traced launch runs, then writes Chrome trace JSON
// (traceEvents; pid = PE, tid = unit, ts/dur in microseconds of simulated
// time). Records are compact; names are formatted only when written. Past
// `trace_max_events` records are dropped and counted, and the file says so.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_TRACE_H
#define MTIA_SIM_TRACE_H

#include "mtia/sim/command.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mtia::sim {

class TraceRecorder {
public:
  /// Clears the records; records nothing unless `enabled`.
  void begin(bool enabled, uint64_t maxEvents);
  bool enabled() const { return enabled_; }

  void command(int32_t pe, UnitKind unit, Cycle start, Cycle end, const CommandLabel &l);
  void program(int32_t pe, Cycle start, Cycle end, int64_t pid);
  /// A stall of RISC-V core `core` (0, 1): on a full queue of `unit`, or
  /// (unit < 0) reading `cb`.
  void stall(int32_t pe, Cycle start, Cycle end, int32_t unit, int32_t cb, int32_t core = 0);
  /// A stretch during which core 1 issued for the kernel (device.h onCore);
  /// on its own track, as core 0's work shows as programs and stalls.
  void core1(int32_t pe, Cycle start, Cycle end);

  uint64_t recorded() const { return records_.size(); }
  uint64_t dropped() const { return dropped_; }

  /// Writes the JSON file. Throws std::runtime_error when it cannot.
  void write(const std::string &path, double clockGhz, int32_t cols) const;

private:
  enum class Kind : uint8_t { Command, Program, Stall, Core1 };
  struct Record {
    Kind kind;
    int32_t pe;
    int32_t tid;
    Cycle start, end;
    CommandLabel label; ///< Command; Program: amount = pid; Stall: cb/op
  };
  void add(const Record &r);

  bool enabled_ = false;
  uint64_t max_ = 0;
  uint64_t dropped_ = 0;
  std::vector<Record> records_;
};

} // namespace mtia::sim

#endif // MTIA_SIM_TRACE_H
