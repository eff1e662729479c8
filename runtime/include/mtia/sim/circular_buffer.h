//===- circular_buffer.h - One CB in a PE's local memory --------*- C++ -*-===//
//
// A circular buffer is a FIFO of bytes over `capacity` bytes of local memory.
// Positions are monotonic byte counters; position p lives at byte
// p % capacity of the buffer, so a tile may wrap around its end.
//
// Two views of the same buffer exist, because the core runs ahead of the
// units it feeds:
//  - the issue side (program order, owned by the core): `issueWrite` is where
//    the next produced tile goes, `issueRead` is the front as of program
//    order (cbPop advances it);
//  - the execution side (simulated time): `wptr` covers the contiguous
//    prefix of completed writes, `rptr` the applied pops.
// Contract:
//  - a producer of [pos, pos+len) may start when pos+len <= rptr + capacity;
//  - a reader of [pos, pos+len) may start when pos+len <= wptr;
//  - a pop applies (rptr += bytes) once its issue time has come, every
//    reading command issued before it has completed and the bytes it frees
//    are written (rptr + bytes <= wptr); pops apply in order.
// Waiters are bit masks of the PE's agents (units, core); the CB only records
// them, the PE wakes them when a pointer moves.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_CIRCULAR_BUFFER_H
#define MTIA_SIM_CIRCULAR_BUFFER_H

#include "mtia/sim/event_queue.h"

#include <cstdint>
#include <deque>
#include <vector>

namespace mtia::sim {

class CircularBuffer {
public:
  /// Places the buffer on `capacity` bytes at `storage` and empties it.
  void configure(uint8_t *storage, int64_t capacity);

  int64_t capacity() const { return capacity_; }

  // Issue side, owned by the core.
  int64_t issueWrite = 0;
  int64_t issueRead = 0;

  // Execution side.
  int64_t wptr() const { return wptr_; }
  int64_t rptr() const { return rptr_; }
  bool hasSpace(int64_t pos, int64_t len) const { return pos + len <= rptr_ + capacity_; }
  bool isPublished(int64_t pos, int64_t len) const { return pos + len <= wptr_; }

  /// Marks [pos, pos+len) written. Returns true when wptr advanced.
  bool completeWrite(int64_t pos, int64_t len);

  /// Registers a reading command, in issue order.
  void addReader(uint64_t seq) { readers_.push_back({seq, false}); }
  /// Marks a reading command done.
  void completeReader(uint64_t seq);
  /// Registers a pop of `bytes`, issued as command `seq` at cycle `at`.
  void addPop(uint64_t seq, int64_t bytes, Cycle at) { pops_.push_back({seq, bytes, at}); }
  /// Applies every pop that may apply at `now`. Returns true when rptr moved.
  bool applyPops(Cycle now);

  bool hasPendingPops() const { return !pops_.empty(); }
  /// The oldest pending pop's bytes and the oldest reader it waits for.
  int64_t frontPopBytes() const { return pops_.empty() ? 0 : pops_.front().bytes; }
  uint64_t oldestReader() const { return readers_.empty() ? 0 : readers_.front().seq; }
  /// Whether a reading command issued before command `seq` is still pending.
  bool hasReaderBefore(uint64_t seq) const {
    return !readers_.empty() && readers_.front().seq < seq;
  }

  /// [pos, pos+len) as one contiguous range: a pointer into the buffer when it
  /// does not wrap, else a copy in `scratch` (at least len bytes).
  const uint8_t *readSpan(int64_t pos, int64_t len, uint8_t *scratch) const;
  /// Where to build [pos, pos+len): into the buffer when it does not wrap,
  /// else into `scratch`; pass the result to `commitSpan` once written.
  uint8_t *writeSpan(int64_t pos, int64_t len, uint8_t *scratch);
  void commitSpan(int64_t pos, int64_t len, const uint8_t *span);

  /// Agents (bit i = agent i of the PE) parked until wptr / rptr moves.
  uint32_t dataWaiters = 0;
  uint32_t spaceWaiters = 0;

private:
  struct Reader {
    uint64_t seq;
    bool done;
  };
  struct Pop {
    uint64_t seq;
    int64_t bytes;
    Cycle at;
  };

  uint8_t *storage_ = nullptr;
  int64_t capacity_ = 0;
  int64_t wptr_ = 0;
  int64_t rptr_ = 0;
  /// Completed writes that are not contiguous with wptr yet.
  std::vector<std::pair<int64_t, int64_t>> early_;
  std::deque<Reader> readers_;
  std::deque<Pop> pops_;
};

} // namespace mtia::sim

#endif // MTIA_SIM_CIRCULAR_BUFFER_H
