//===- device_memory_test.cpp - The deterministic device memory allocator -===//

#include "mtia/runtime/device_memory.h"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

using mtia::rt::DeviceMemory;

namespace {

constexpr uint64_t kGiB = uint64_t(1) << 30;

TEST(DeviceMemoryTest, BaseIsAlignedAndBlocksAreRoundedAndWritable) {
  DeviceMemory mem(2 * kGiB);
  EXPECT_EQ(mem.base() % DeviceMemory::kBaseAlignment, 0u);
  EXPECT_GE(mem.capacity(), kGiB);
  void *a = mem.allocate(1);
  void *b = mem.allocate(700);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(mem.offsetOf(a), 0u);
  EXPECT_EQ(mem.offsetOf(b), DeviceMemory::kBlockAlignment);
  std::memset(b, 0x5a, 700);
  EXPECT_EQ(static_cast<unsigned char *>(b)[699], 0x5a);
  EXPECT_TRUE(mem.contains(a));
  int host = 0;
  EXPECT_FALSE(mem.contains(&host));
  EXPECT_EQ(mem.stats().allocatedBytes, 3 * DeviceMemory::kBlockAlignment);
  EXPECT_EQ(mem.allocate(0), nullptr);
}

// The property the device promises: the same sequence of allocations and
// frees gives the same offsets, in any instance (any process).
TEST(DeviceMemoryTest, SameSequenceSameOffsets) {
  auto run = [](DeviceMemory &mem) {
    std::vector<uint64_t> offsets;
    std::vector<void *> blocks;
    for (int i = 0; i < 40; ++i)
      blocks.push_back(mem.allocate(uint64_t(1000 + 997 * i)));
    for (int i = 0; i < 40; i += 3)
      mem.release(blocks[size_t(i)]);
    for (int i = 0; i < 20; ++i)
      offsets.push_back(mem.offsetOf(mem.allocate(uint64_t(500 + 1500 * i))));
    return offsets;
  };
  DeviceMemory one(kGiB), two(kGiB);
  EXPECT_EQ(run(one), run(two));
}

TEST(DeviceMemoryTest, FirstFitReusesAndMergesFreedBlocks) {
  DeviceMemory mem(kGiB);
  const uint64_t blk = DeviceMemory::kBlockAlignment;
  void *a = mem.allocate(blk), *b = mem.allocate(blk), *c = mem.allocate(blk);
  mem.allocate(blk); // keeps the tail apart
  mem.release(a);
  mem.release(c);
  mem.release(b); // merges a, b and c into one free block of three
  void *big = mem.allocate(3 * blk);
  EXPECT_EQ(big, a);
  void *next = mem.allocate(blk);
  EXPECT_EQ(mem.offsetOf(next), 4 * blk);
  DeviceMemory::Stats s = mem.stats();
  EXPECT_EQ(s.liveBlocks, 3u);
  EXPECT_EQ(s.peakBytes, 5 * blk);
  mem.resetPeak();
  EXPECT_EQ(mem.stats().peakBytes, 5 * blk);
  mem.release(big);
  mem.resetPeak();
  EXPECT_EQ(mem.stats().peakBytes, 2 * blk);
}

TEST(DeviceMemoryTest, FullAndBadFrees) {
  DeviceMemory mem(kGiB);
  EXPECT_EQ(mem.allocate(mem.capacity() + 1), nullptr);
  void *all = mem.allocate(mem.capacity());
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(mem.allocate(1), nullptr);
  int host = 0;
  EXPECT_THROW(mem.release(&host), std::invalid_argument);
  mem.release(all); // large: its pages go back to the host
  EXPECT_THROW(mem.release(all), std::invalid_argument);
  EXPECT_EQ(mem.stats().allocatedBytes, 0u);
  EXPECT_NE(mem.allocate(64), nullptr);
}


// findBlock answers which live block an address lies in (a pointer a C++
// structure hands a kernel is checked with it): any byte of a block, not
// past its end, not a freed block, not outside the range.
TEST(DeviceMemoryTest, FindBlockByAnAddressInside) {
  DeviceMemory mem(2 * kGiB);
  auto *a = static_cast<char *>(mem.allocate(100));
  auto *b = static_cast<char *>(mem.allocate(3 * DeviceMemory::kBlockAlignment));
  uintptr_t start = 0;
  uint64_t bytes = 0;
  ASSERT_TRUE(mem.findBlock(b + 5, start, bytes));
  EXPECT_EQ(start, reinterpret_cast<uintptr_t>(b));
  EXPECT_EQ(bytes, 3 * DeviceMemory::kBlockAlignment);
  ASSERT_TRUE(mem.findBlock(a, start, bytes));
  EXPECT_EQ(start, reinterpret_cast<uintptr_t>(a));
  EXPECT_FALSE(mem.findBlock(b + 3 * DeviceMemory::kBlockAlignment, start, bytes));
  int host = 0;
  EXPECT_FALSE(mem.findBlock(&host, start, bytes));
  mem.release(a);
  EXPECT_FALSE(mem.findBlock(a, start, bytes));
  EXPECT_TRUE(mem.findBlock(b, start, bytes));
}

} // namespace
