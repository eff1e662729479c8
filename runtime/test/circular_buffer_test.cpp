//===- circular_buffer_test.cpp - The CB protocol's pointers --------------===//

#include "mtia/sim/circular_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

using namespace mtia::sim;

namespace {

TEST(CircularBuffer, PopsWaitForTheirReaders) {
  std::vector<uint8_t> storage(1024);
  CircularBuffer cb;
  cb.configure(storage.data(), 1024);
  ASSERT_TRUE(cb.completeWrite(0, 256));
  cb.addReader(/*seq=*/1);
  cb.addPop(/*seq=*/2, 256, /*at=*/0);
  EXPECT_FALSE(cb.applyPops(10)); // reader 1 is still running
  cb.completeReader(1);
  EXPECT_TRUE(cb.applyPops(10));
  EXPECT_EQ(cb.rptr(), 256);
}

// A tile nobody reads (a loop's last carried value) is popped right after
// its producer was issued. The pop must wait for the producer: freeing its
// bytes first would let the next tile's producer write into them and the
// late producer then overwrite that tile (seen as NaN rows in a pipelined
// attention, test_matmul.py::test_attention_with_prefetched_next_block).
TEST(CircularBuffer, PopsWaitForTheBytesTheyFreeToBeWritten) {
  std::vector<uint8_t> storage(512);
  CircularBuffer cb;
  cb.configure(storage.data(), 512);
  cb.addPop(/*seq=*/2, 256, /*at=*/0); // the producer of [0, 256) is in flight
  EXPECT_FALSE(cb.applyPops(10));
  EXPECT_EQ(cb.rptr(), 0);
  // The next tile, [256, 768), has no space until that pop applies.
  EXPECT_FALSE(cb.hasSpace(256, 512));
  ASSERT_TRUE(cb.completeWrite(0, 256));
  EXPECT_TRUE(cb.applyPops(10));
  EXPECT_EQ(cb.rptr(), 256);
  EXPECT_TRUE(cb.hasSpace(256, 512));
}

} // namespace
