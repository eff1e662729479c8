//===- local_memory.cpp - The bandwidth of a PE's local memory ------------===//

#include "mtia/sim/local_memory.h"

#include <algorithm>
#include <cmath>

namespace mtia::sim {

void LocalMemoryBandwidth::reset(double bytesPerCycle) {
  windowBytes_ = bytesPerCycle > 0 ? bytesPerCycle * double(kWindow) : 0;
  base_ = 0;
  used_.clear();
}

Cycle LocalMemoryBandwidth::reserve(Cycle start, Cycle end, uint64_t bytes) {
  if (bytes == 0 || windowBytes_ <= 0 || end <= start)
    return end;
  // Windows before the current one can take nothing more.
  const Cycle first = start / kWindow;
  if (first > base_) {
    const Cycle drop = std::min<Cycle>(first - base_, Cycle(used_.size()));
    used_.erase(used_.begin(), used_.begin() + std::ptrdiff_t(drop));
    base_ = first;
  }
  const double rate = double(bytes) / double(end - start);
  double left = double(bytes);
  double now = double(start);
  bool hindered = false;
  for (Cycle w = first;; ++w) {
    const size_t i = size_t(w - base_);
    if (i == used_.size())
      used_.push_back(0.0);
    const double span = double((w + 1) * kWindow) - now;
    const double want = rate * span;
    const double room = windowBytes_ - used_[i];
    double take = want;
    if (room < want) {
      take = room > 0 ? room : 0;
      hindered = true;
    }
    if (left <= take) {
      used_[i] += left;
      if (!hindered)
        return end; // its own rate all along
      // The last byte moves at now + left / (this window's rate); a hair of
      // slack keeps rounding from adding a cycle.
      const Cycle done = Cycle(std::ceil(now + left * span / take - 1e-6));
      return std::max(end, done);
    }
    used_[i] += take;
    left -= take;
    now = double((w + 1) * kWindow);
  }
}

} // namespace mtia::sim
