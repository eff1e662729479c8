//===- event_queue.h - Discrete-event engine --------------------*- C++ -*-===//
//
// Contract: events fire in order of (time, sequence number); the sequence
// number is the order in which they were scheduled, so two events at the same
// cycle fire in scheduling order and a run is deterministic. Time never goes
// backwards: scheduling an event before `now()` is a programming error.
// Components schedule one event per command (start, completion), never one
// per cycle.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_EVENT_QUEUE_H
#define MTIA_SIM_EVENT_QUEUE_H

#include <cstdint>
#include <limits>
#include <vector>

namespace mtia::sim {

/// Simulated time in core clock cycles.
using Cycle = uint64_t;
constexpr Cycle kNever = std::numeric_limits<Cycle>::max();

/// Anything that can receive an event. `tag` distinguishes event kinds of
/// one receiver, so no closure is allocated per event.
class EventTarget {
public:
  virtual void onEvent(uint32_t tag) = 0;

protected:
  ~EventTarget() = default;
};

class EventQueue {
public:
  /// Schedules `target->onEvent(tag)` at cycle `time` (>= now()).
  void schedule(Cycle time, EventTarget *target, uint32_t tag);

  /// Fires the earliest event; returns false when none is left.
  bool step();

  Cycle now() const { return now_; }
  uint64_t eventsFired() const { return fired_; }

  /// Drops every pending event and rewinds time to 0.
  void reset();

private:
  struct Event {
    Cycle time;
    uint64_t seq;
    EventTarget *target;
    uint32_t tag;
  };
  /// Min-heap order on (time, seq).
  static bool later(const Event &a, const Event &b) {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }

  std::vector<Event> heap_;
  uint64_t nextSeq_ = 0;
  uint64_t fired_ = 0;
  Cycle now_ = 0;
};

} // namespace mtia::sim

#endif // MTIA_SIM_EVENT_QUEUE_H
