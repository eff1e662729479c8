//===- event_queue.cpp - Discrete-event engine ----------------------------===//

#include "mtia/sim/event_queue.h"

#include <algorithm>
#include <cassert>

namespace mtia::sim {

void EventQueue::schedule(Cycle time, EventTarget *target, uint32_t tag) {
  assert(time >= now_ && "event scheduled in the past");
  heap_.push_back(Event{time, nextSeq_++, target, tag});
  std::push_heap(heap_.begin(), heap_.end(), later);
}

bool EventQueue::step() {
  if (heap_.empty())
    return false;
  std::pop_heap(heap_.begin(), heap_.end(), later);
  Event e = heap_.back();
  heap_.pop_back();
  now_ = e.time;
  ++fired_;
  e.target->onEvent(e.tag);
  return true;
}

void EventQueue::reset() {
  heap_.clear();
  nextSeq_ = 0;
  fired_ = 0;
  now_ = 0;
}

} // namespace mtia::sim
