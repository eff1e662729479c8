//===- circular_buffer.cpp - One CB in a PE's local memory ----------------===//

#include "mtia/sim/circular_buffer.h"

#include <algorithm>
#include <cstring>

namespace mtia::sim {

void CircularBuffer::configure(uint8_t *storage, int64_t capacity) {
  storage_ = storage;
  capacity_ = capacity;
  issueWrite = issueRead = 0;
  wptr_ = rptr_ = 0;
  early_.clear();
  readers_.clear();
  pops_.clear();
  dataWaiters = spaceWaiters = 0;
}

bool CircularBuffer::completeWrite(int64_t pos, int64_t len) {
  if (pos != wptr_) {
    early_.emplace_back(pos, pos + len);
    return false;
  }
  wptr_ = pos + len;
  // Absorb earlier-completed writes that are now contiguous.
  for (bool grew = true; grew && !early_.empty();) {
    grew = false;
    for (size_t i = 0; i < early_.size(); ++i) {
      if (early_[i].first == wptr_) {
        wptr_ = early_[i].second;
        early_[i] = early_.back();
        early_.pop_back();
        grew = true;
        break;
      }
    }
  }
  return true;
}

void CircularBuffer::completeReader(uint64_t seq) {
  for (Reader &r : readers_)
    if (r.seq == seq) {
      r.done = true;
      break;
    }
  while (!readers_.empty() && readers_.front().done)
    readers_.pop_front();
}

bool CircularBuffer::applyPops(Cycle now) {
  bool moved = false;
  while (!pops_.empty()) {
    const Pop &p = pops_.front();
    // A pop frees bytes only once they are written: a tile nobody reads
    // (a loop's last carried value) may be popped before its producer is
    // done, and freeing its space early would let a later tile's producer
    // write there first and be overwritten by it.
    if (p.at > now || (!readers_.empty() && readers_.front().seq < p.seq) ||
        rptr_ + p.bytes > wptr_)
      break;
    rptr_ += p.bytes;
    pops_.pop_front();
    moved = true;
  }
  return moved;
}

const uint8_t *CircularBuffer::readSpan(int64_t pos, int64_t len, uint8_t *scratch) const {
  int64_t at = pos % capacity_;
  if (at + len <= capacity_)
    return storage_ + at;
  int64_t first = capacity_ - at;
  std::memcpy(scratch, storage_ + at, first);
  std::memcpy(scratch + first, storage_, len - first);
  return scratch;
}

uint8_t *CircularBuffer::writeSpan(int64_t pos, int64_t len, uint8_t *scratch) {
  int64_t at = pos % capacity_;
  return at + len <= capacity_ ? storage_ + at : scratch;
}

void CircularBuffer::commitSpan(int64_t pos, int64_t len, const uint8_t *span) {
  int64_t at = pos % capacity_;
  if (span == storage_ + at)
    return;
  int64_t first = std::min(len, capacity_ - at);
  std::memcpy(storage_ + at, span, first);
  std::memcpy(storage_, span + first, len - first);
}

} // namespace mtia::sim
