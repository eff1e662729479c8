//===- local_memory.h - The bandwidth of a PE's local memory ----*- C++ -*-===//
//
// Every unit of a PE reads its operands from and writes its results to the
// same local memory (the CBs), whose bandwidth (about 740 B/cycle, read and
// write together) is less than what all units could draw at once: the DPE,
// an SE at full rate, both DMA directions and the MLU together exceed it.
// This class shares that bandwidth between the commands that run at the
// same time, so that such a PE slows down instead of getting every unit's
// peak for free.
//
// Model: a fluid calendar. Time is cut into windows of kWindow (64) cycles, each
// holding `bytes_per_cycle * kWindow` bytes. A command that starts at `start`
// and, unhindered, would move its `bytes` evenly until `end` (its own
// occupancy: lanes, MACs, the fabric) asks for rate r = bytes / (end -
// start). In each window from `start` on it takes min(r, what is left of the
// window) until its bytes are placed; the cycle its last byte moves is when
// its unit is free again. Commands are served in the order they start (the
// event order), so an earlier command keeps its rate and a later one gets
// what is left: a unit that starts while the port is saturated stretches,
// one that starts on an idle port does not. Only windows at or after the
// current cycle are kept, so the cost is a few windows per command.
//
// Contract: calls come in nondecreasing `start` (simulated time); `end` >
// `start`.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_LOCAL_MEMORY_H
#define MTIA_SIM_LOCAL_MEMORY_H

#include "mtia/sim/event_queue.h"

#include <cstdint>
#include <deque>

namespace mtia::sim {

class LocalMemoryBandwidth {
public:
  /// Cycles per calendar window: long enough that a command spans few of
  /// them, short next to a typical command (hundreds of cycles).
  static constexpr Cycle kWindow = 64;

  /// Forgets every reservation; `bytesPerCycle` <= 0 turns the model off.
  void reset(double bytesPerCycle);

  /// Places `bytes` moved by a command running from `start` until, at its
  /// own rate, `end`. Returns the cycle its last byte moves (>= end).
  Cycle reserve(Cycle start, Cycle end, uint64_t bytes);

private:
  double windowBytes_ = 0; ///< capacity of one window; 0: unlimited
  Cycle base_ = 0;         ///< window index of used_.front()
  std::deque<double> used_; ///< bytes placed in each window from base_ on
};

} // namespace mtia::sim

#endif // MTIA_SIM_LOCAL_MEMORY_H
