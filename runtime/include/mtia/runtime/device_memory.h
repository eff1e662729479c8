//===- device_memory.h - The simulated chip's device memory ------*- C++ -*-===//
//
// The memory that `torch.device("mtia")` tensors live in. The simulated chip
// reads and writes host memory, so device memory is host memory too; what
// makes it *device* memory is where it lies: one range of host virtual
// memory reserved up front, aligned to 1 GiB, and carved by a deterministic
// allocator. Two consequences a user sees:
//
//  * a tensor's address within the range (its LPDDR address) depends only
//    on the sequence of allocations and frees before it, never on what the
//    host allocator did, so the same program gives the same LPDDR channels,
//    SRAM pages and therefore the same simulated cycles in every process;
//  * copies between host and device, and the host fallback for eager
//    operators, stay plain memcpy.
//
// The range is reserved with MAP_NORESERVE: host memory is committed only
// for pages a tensor touches, and large blocks are handed back to the host
// when freed.
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_RUNTIME_DEVICE_MEMORY_H
#define MTIA_RUNTIME_DEVICE_MEMORY_H

#include <cstdint>
#include <map>
#include <mutex>
#include <unordered_map>

namespace mtia::rt {

class DeviceMemory {
public:
  /// Every block starts on, and is rounded up to, this many bytes (as CUDA's
  /// caching allocator rounds to 512).
  static constexpr uint64_t kBlockAlignment = 512;
  /// The range's base address is a multiple of this, so the address bits
  /// the memory system looks at (interleave, pages) are those of the
  /// offset into the range.
  static constexpr uint64_t kBaseAlignment = uint64_t(1) << 30;
  /// Freed blocks at least this large give their pages back to the host.
  static constexpr uint64_t kReturnToHostBytes = uint64_t(1) << 20;

  struct Stats {
    uint64_t capacityBytes = 0;
    /// Bytes in live blocks (after rounding), now and at the peak since
    /// construction or the last resetPeak().
    uint64_t allocatedBytes = 0;
    uint64_t peakBytes = 0;
    uint64_t liveBlocks = 0;
    uint64_t allocations = 0;
    uint64_t frees = 0;
  };

  /// Reserves `capacityBytes` of address space (rounded up to whole
  /// blocks). When the host refuses that much, halves it down to 1 GiB;
  /// throws std::runtime_error if even that fails.
  explicit DeviceMemory(uint64_t capacityBytes);
  ~DeviceMemory();
  DeviceMemory(const DeviceMemory &) = delete;
  DeviceMemory &operator=(const DeviceMemory &) = delete;

  /// A block of at least `bytes` (> 0), the lowest-addressed free one that
  /// fits; nullptr when none does. Thread-safe.
  void *allocate(uint64_t bytes);
  /// Frees a block returned by allocate(); throws std::invalid_argument for
  /// any other pointer (a double free included).
  void release(void *ptr);
  /// The live block holding `ptr`: its start (a host address) and bytes;
  /// false when `ptr` lies in no live block. Thread-safe.
  bool findBlock(const void *ptr, uintptr_t &start, uint64_t &bytes) const;

  bool contains(const void *ptr) const {
    auto p = reinterpret_cast<uintptr_t>(ptr);
    return p >= base_ && p < base_ + capacity_;
  }
  /// The LPDDR address of `ptr`: its offset into the range.
  uint64_t offsetOf(const void *ptr) const {
    return uint64_t(reinterpret_cast<uintptr_t>(ptr) - base_);
  }
  uintptr_t base() const { return base_; }
  uint64_t capacity() const { return capacity_; }

  Stats stats() const;
  void resetPeak();

private:
  uintptr_t mapping_ = 0; // what mmap returned (unaligned)
  uint64_t mappingBytes_ = 0;
  uintptr_t base_ = 0;
  uint64_t capacity_ = 0;
  mutable std::mutex mutex_;
  /// Free blocks by offset -> bytes; adjacent ones are always merged.
  std::map<uint64_t, uint64_t> free_;
  /// Live blocks by offset -> bytes (ordered: findBlock finds a block by
  /// an address inside it).
  std::map<uint64_t, uint64_t> live_;
  Stats stats_;
};

} // namespace mtia::rt

#endif // MTIA_RUNTIME_DEVICE_MEMORY_H
