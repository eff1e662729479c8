//===- device_memory.cpp - The simulated chip's device memory -------------===//

#include "mtia/runtime/device_memory.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace mtia::rt {

namespace {
uint64_t roundUp(uint64_t n, uint64_t to) { return (n + to - 1) / to * to; }
} // namespace

DeviceMemory::DeviceMemory(uint64_t capacityBytes) {
  const uint64_t minimum = kBaseAlignment;
  uint64_t want = std::max(roundUp(capacityBytes, kBlockAlignment), minimum);
  for (; want >= minimum; want /= 2) {
    // Room to align the base up to kBaseAlignment.
    uint64_t bytes = want + kBaseAlignment;
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
      continue;
    mapping_ = reinterpret_cast<uintptr_t>(p);
    mappingBytes_ = bytes;
    base_ = roundUp(mapping_, kBaseAlignment);
    capacity_ = want / kBlockAlignment * kBlockAlignment;
    break;
  }
  if (!mapping_)
    throw std::runtime_error("mtia device memory: the host refused to reserve " +
                             std::to_string(minimum) + " bytes of address space");
  free_.emplace(0, capacity_);
  stats_.capacityBytes = capacity_;
}

DeviceMemory::~DeviceMemory() {
  if (mapping_)
    munmap(reinterpret_cast<void *>(mapping_), mappingBytes_);
}

void *DeviceMemory::allocate(uint64_t bytes) {
  if (bytes == 0)
    return nullptr;
  const uint64_t need = roundUp(bytes, kBlockAlignment);
  std::lock_guard<std::mutex> lock(mutex_);
  // First fit in address order: deterministic, and it keeps the low end
  // of the range dense.
  for (auto it = free_.begin(); it != free_.end(); ++it) {
    if (it->second < need)
      continue;
    const uint64_t offset = it->first, size = it->second;
    free_.erase(it);
    if (size > need)
      free_.emplace(offset + need, size - need);
    live_.emplace(offset, need);
    stats_.allocatedBytes += need;
    stats_.peakBytes = std::max(stats_.peakBytes, stats_.allocatedBytes);
    ++stats_.liveBlocks;
    ++stats_.allocations;
    return reinterpret_cast<void *>(base_ + offset);
  }
  return nullptr;
}

bool DeviceMemory::findBlock(const void *ptr, uintptr_t &start, uint64_t &bytes) const {
  if (!contains(ptr))
    return false;
  const uint64_t offset = offsetOf(ptr);
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = live_.upper_bound(offset); // the first block after ptr
  if (it == live_.begin())
    return false;
  --it;
  if (offset - it->first >= it->second)
    return false;
  start = base_ + it->first;
  bytes = it->second;
  return true;
}

void DeviceMemory::release(void *ptr) {
  if (!ptr)
    return;
  std::lock_guard<std::mutex> lock(mutex_);
  auto live = contains(ptr) ? live_.find(offsetOf(ptr)) : live_.end();
  if (live == live_.end())
    throw std::invalid_argument("mtia device memory: freeing " +
                                std::to_string(reinterpret_cast<uintptr_t>(ptr)) +
                                ", which is not a live block");
  uint64_t offset = live->first, size = live->second;
  live_.erase(live);
  stats_.allocatedBytes -= size;
  --stats_.liveBlocks;
  ++stats_.frees;
  if (size >= kReturnToHostBytes) {
    // Whole host pages inside the block go back to the host; they read as
    // zeros when touched again.
    const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
    uint64_t lo = roundUp(base_ + offset, page), hi = (base_ + offset + size) / page * page;
    if (hi > lo)
      madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_DONTNEED);
  }
  // Merge with the free neighbours.
  auto next = free_.lower_bound(offset);
  if (next != free_.end() && next->first == offset + size) {
    size += next->second;
    next = free_.erase(next);
  }
  if (next != free_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + prev->second == offset) {
      prev->second += size;
      return;
    }
  }
  free_.emplace(offset, size);
}

DeviceMemory::Stats DeviceMemory::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return stats_;
}

void DeviceMemory::resetPeak() {
  std::lock_guard<std::mutex> lock(mutex_);
  stats_.peakBytes = stats_.allocatedBytes;
}

} // namespace mtia::rt
