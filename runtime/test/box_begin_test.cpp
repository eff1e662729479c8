//===- box_begin_test.cpp - DMA boxes that begin past 0, boxes of rank 8 --===//
//
// A box moves the elements with begin[d] <= i_d < valid[d]: loads pad the
// rest of the tile, stores leave the rest of memory alone, only the region
// that moves counts as bytes and must lie in an allocation. Boxes have up
// to kMaxBoxRank (8) dimensions (ABI 4).
//
//===----------------------------------------------------------------------===//

#include "test_util.h"

#include "mtia/sim/fabric.h"
#include "mtia/sim/memory_system.h"
#include "mtia/sim/stats.h"

#include <gtest/gtest.h>

using namespace mtia;
using namespace mtia::test;

namespace {

/// A 2-D box of a row-major matrix with `cols` columns.
Box box2(int64_t rows, int64_t cols, int64_t rowStride, int64_t begin0, int64_t valid0,
         int64_t begin1, int64_t valid1) {
  Box b;
  b.rank = 2;
  b.shape[0] = rows;
  b.shape[1] = cols;
  b.stride[0] = rowStride;
  b.stride[1] = 1;
  b.begin[0] = begin0;
  b.valid[0] = valid0;
  b.begin[1] = begin1;
  b.valid[1] = valid1;
  return b;
}

/// dmaIn of the box at element `offset` of `in` (pad -7), then a dense
/// dmaOut of the whole tile to `out`. Args: in, out, offset, rows, cols,
/// row stride, begin0, valid0, begin1, valid1.
void beginInKernel(Ctx *c, const Arg *a) {
  const Box in = box2(a[3].i, a[4].i, a[5].i, a[6].i, a[7].i, a[8].i, a[9].i);
  dmaIn(c, 0, DType::I32, a[0].u + uint64_t(a[2].i * 4), in, immInt(DType::I32, -7));
  const Box out = box2(a[3].i, a[4].i, a[4].i, 0, a[3].i, 0, a[4].i);
  dmaOut(c, 0, DType::I32, a[1].u, out);
  cbPop(c, 0, a[3].i * a[4].i * 4);
}

/// A dense dmaIn of `in` (rows x cols), then a dmaOut of the box at element
/// `offset` of `out`. Args as beginInKernel.
void beginOutKernel(Ctx *c, const Arg *a) {
  const Box in = box2(a[3].i, a[4].i, a[4].i, 0, a[3].i, 0, a[4].i);
  dmaIn(c, 0, DType::I32, a[0].u, in, immInt(DType::I32, 0));
  const Box out = box2(a[3].i, a[4].i, a[5].i, a[6].i, a[7].i, a[8].i, a[9].i);
  dmaOut(c, 0, DType::I32, a[1].u + uint64_t(a[2].i * 4), out);
  cbPop(c, 0, a[3].i * a[4].i * 4);
}

class BoxBeginTest : public ::testing::Test {
protected:
  /// Runs `kernel` on one program with the box arguments.
  sim::LaunchSummary run(KernelEntry kernel, std::vector<int32_t> &in, std::vector<int32_t> &out,
                         int64_t offset, int64_t rows, int64_t cols, int64_t rowStride,
                         int64_t begin0, int64_t valid0, int64_t begin1, int64_t valid1) {
    KernelInfo info = kernelInfo("box_begin", 10, {rows * cols * 4});
    return sim.launch(kernel, info, {1, 1, 1},
                      {ptrArg(in.data()), ptrArg(out.data()), intArg(offset), intArg(rows),
                       intArg(cols), intArg(rowStride), intArg(begin0), intArg(valid0),
                       intArg(begin1), intArg(valid1)},
                      {regionOf(in), regionOf(out)});
  }

  rt::Simulator sim{sim::smallPreset()};
};

std::vector<int32_t> iota(int n) {
  std::vector<int32_t> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    v[size_t(i)] = 100 + i;
  return v;
}

TEST_F(BoxBeginTest, DmaIn1DPadsBeforeBeginAndAfterValid) {
  // out[i] = x[i - 1] for 1 <= i < 6 of an 8-element tile: the box's address
  // is one element before x, which is outside x and fine.
  std::vector<int32_t> x = iota(5), out(8, 0);
  run(beginInKernel, x, out, -1, 1, 8, 8, 0, 1, 1, 6);
  const std::vector<int32_t> want = {-7, 100, 101, 102, 103, 104, -7, -7};
  EXPECT_EQ(out, want);
}

TEST_F(BoxBeginTest, DmaIn2DPadsOutsideTheValidRegion) {
  // A 6x10 matrix; a 4x4 tile at (1, 2) whose rows [1, 3) and columns [2, 4)
  // move.
  std::vector<int32_t> m = iota(60), out(16, 0);
  run(beginInKernel, m, out, 1 * 10 + 2, 4, 4, 10, 1, 3, 2, 4);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      const int32_t want = r >= 1 && r < 3 && c >= 2 && c < 4 ? 100 + (1 + r) * 10 + 2 + c : -7;
      EXPECT_EQ(out[size_t(r * 4 + c)], want) << r << "," << c;
    }
}

TEST_F(BoxBeginTest, DmaOutLeavesMemoryOutsideTheValidRegionUntouched) {
  // A 3x5 tile stored into a 3x5 matrix with rows [1, 3) and columns [2, 5).
  std::vector<int32_t> tile = iota(15), m(15, -1);
  run(beginOutKernel, tile, m, 0, 3, 5, 5, 1, 3, 2, 5);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c) {
      const int32_t want = r >= 1 && c >= 2 ? 100 + r * 5 + c : -1;
      EXPECT_EQ(m[size_t(r * 5 + c)], want) << r << "," << c;
    }
}

TEST_F(BoxBeginTest, BeginAtOrPastValidMovesNothing) {
  std::vector<int32_t> x = iota(8), out(8, 0);
  sim::LaunchSummary r = run(beginInKernel, x, out, 0, 1, 8, 8, 0, 1, 5, 5);
  EXPECT_EQ(out, std::vector<int32_t>(8, -7));
  EXPECT_EQ(r.stats.find("memory.lpddr.bytes_read")->value, 0u);
  // Even at an address far outside every allocation: nothing moves.
  std::vector<int32_t> m(8, 3);
  run(beginOutKernel, x, m, 1 << 20, 1, 8, 8, 0, 1, 7, 2);
  EXPECT_EQ(m, std::vector<int32_t>(8, 3));
  run(beginOutKernel, x, m, -(1 << 20), 2, 4, 4, 3, 2, 0, 4);
  EXPECT_EQ(m, std::vector<int32_t>(8, 3));
}

TEST_F(BoxBeginTest, NegativeBeginCountsAsZero) {
  std::vector<int32_t> x = iota(8), out(8, 0);
  run(beginInKernel, x, out, 0, 1, 8, 8, -3, 1, -2, 3);
  const std::vector<int32_t> want = {100, 101, 102, -7, -7, -7, -7, -7};
  EXPECT_EQ(out, want);
}

TEST_F(BoxBeginTest, OnlyTheValidRegionIsCheckedForBounds) {
  // A 4x4 tile whose address is 2 rows and 1 column before a 4x4 matrix;
  // rows [2, 4) and columns [1, 4) are the matrix's first 2x3 elements.
  std::vector<int32_t> m = iota(16), out(16, 0);
  run(beginInKernel, m, out, -(2 * 4 + 1), 4, 4, 4, 2, 4, 1, 4);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) {
      const int32_t want = r >= 2 && c >= 1 ? 100 + (r - 2) * 4 + (c - 1) : -7;
      EXPECT_EQ(out[size_t(r * 4 + c)], want) << r << "," << c;
    }
  // The store side: rows [2, 4) of a tile addressed 2 rows before m.
  std::vector<int32_t> tile = iota(16), dst(8, -1);
  run(beginOutKernel, tile, dst, -8, 4, 4, 4, 2, 4, 0, 4);
  EXPECT_EQ(dst, std::vector<int32_t>(tile.begin() + 8, tile.end()));
  // One more row of the valid region would reach outside: a fault.
  std::vector<int32_t> out2(16, 0);
  EXPECT_THROW(run(beginInKernel, m, out2, -(2 * 4 + 1), 4, 4, 4, 1, 4, 1, 4), sim::FaultError);
}

/// The fabric-level outcome: bytes are the elements of the valid region.
class FabricBoxTest : public ::testing::Test {
protected:
  FabricBoxTest() : mem(cfg, stats) {}
  void SetUp() override {
    mem.beginLaunch({sim::Region{reinterpret_cast<uint64_t>(data.data()), data.size() * 4}});
  }
  uint64_t at(int64_t element) const {
    return reinterpret_cast<uint64_t>(data.data()) + uint64_t(element * 4);
  }

  sim::Config cfg = sim::smallPreset();
  sim::StatGroup stats{"memory"};
  sim::MemorySystem mem;
  std::vector<int32_t> data = iota(64);
};

TEST_F(FabricBoxTest, BytesAreTheValidRegion) {
  std::vector<int32_t> tile(16, 0);
  const uint8_t pad[4] = {0, 0, 0, 0};
  sim::MemoryRequest req;
  // 4x4 tile of an 8-column matrix, rows [1, 4) x columns [2, 4): 6 elements.
  sim::DmaOutcome in = sim::dmaBoxIn(mem, req, at(8), box2(4, 4, 8, 1, 4, 2, 4), DType::I32,
                                     pad, reinterpret_cast<uint8_t *>(tile.data()), true);
  EXPECT_FALSE(in.outOfBounds);
  EXPECT_EQ(in.bytes, 6u * 4);
  EXPECT_EQ(tile[size_t(1 * 4 + 2)], 100 + 2 * 8 + 2);
  EXPECT_EQ(tile[size_t(3 * 4 + 3)], 100 + 4 * 8 + 3);
  sim::MemoryRequest req2;
  sim::DmaOutcome out = sim::dmaBoxOut(mem, req2, at(0), box2(4, 4, 8, 3, 4, 1, 4), DType::I32,
                                       reinterpret_cast<const uint8_t *>(tile.data()), true);
  EXPECT_FALSE(out.outOfBounds);
  EXPECT_EQ(out.bytes, 3u * 4);
  sim::MemoryRequest req3;
  sim::DmaOutcome none = sim::dmaBoxIn(mem, req3, at(0), box2(4, 4, 8, 4, 4, 0, 4), DType::I32,
                                       pad, reinterpret_cast<uint8_t *>(tile.data()), true);
  EXPECT_EQ(none.bytes, 0u);
  EXPECT_EQ(req3.nocBytes, 0.0);
}

TEST_F(FabricBoxTest, TheOutOfBoundsSpanStartsAtBegin) {
  std::vector<int32_t> tile(16, 0);
  const uint8_t pad[4] = {0, 0, 0, 0};
  sim::MemoryRequest req;
  // Rows [1, 4) of 8-element rows at 16 elements before the data: row 1
  // starts 8 elements before it.
  sim::DmaOutcome bad = sim::dmaBoxIn(mem, req, at(-16), box2(4, 4, 8, 1, 4, 0, 4), DType::I32,
                                      pad, reinterpret_cast<uint8_t *>(tile.data()), true);
  ASSERT_TRUE(bad.outOfBounds);
  EXPECT_EQ(bad.badAddress, at(-8));
  EXPECT_EQ(bad.badBytes, uint64_t((2 * 8 + 4) * 4));
  EXPECT_EQ(bad.bytes, 0u);
}

TEST_F(FabricBoxTest, BoxesOfRankEightMoveEveryDimension) {
  // 64 elements seen as 2x2x2x2x2x2 (x1x1), each dimension reversed in
  // memory order (stride 1 outermost), with a begin of 1 in dimension 2 and
  // a valid of 1 in dimension 4: 2*2*1*2*1*2 = 16 elements move.
  Box b;
  b.rank = 8;
  for (int d = 0; d < 8; ++d) {
    b.shape[d] = d < 6 ? 2 : 1;
    b.stride[d] = d < 6 ? int64_t(1) << d : 0;
    b.valid[d] = b.shape[d];
  }
  b.begin[2] = 1;
  b.valid[4] = 1;
  std::vector<int32_t> tile(64, -1);
  const uint8_t pad[4] = {0, 0, 0, 0};
  sim::MemoryRequest req;
  sim::DmaOutcome in = sim::dmaBoxIn(mem, req, at(0), b, DType::I32, pad,
                                     reinterpret_cast<uint8_t *>(tile.data()), true);
  ASSERT_FALSE(in.outOfBounds);
  EXPECT_EQ(in.bytes, 16u * 4);
  for (int t = 0; t < 64; ++t) {
    // Tile index t has i_d = bit (5 - d) of t; memory offset sum i_d << d.
    int64_t off = 0;
    bool moves = true;
    for (int d = 0; d < 6; ++d) {
      const int i = (t >> (5 - d)) & 1;
      off += int64_t(i) << d;
      moves &= !(d == 2 && i < 1) && !(d == 4 && i >= 1);
    }
    EXPECT_EQ(tile[size_t(t)], moves ? 100 + off : 0) << t;
  }
  // The same box back into zeroed memory writes exactly those 16 elements.
  std::fill(data.begin(), data.end(), 0);
  sim::MemoryRequest req2;
  sim::DmaOutcome out = sim::dmaBoxOut(mem, req2, at(0), b, DType::I32,
                                       reinterpret_cast<const uint8_t *>(tile.data()), true);
  EXPECT_EQ(out.bytes, 16u * 4);
  int written = 0;
  for (int e = 0; e < 64; ++e)
    if (data[size_t(e)] != 0) {
      EXPECT_EQ(data[size_t(e)], 100 + e);
      ++written;
    }
  EXPECT_EQ(written, 16);
  b.rank = 9;
  EXPECT_NE(sim::checkBox(b), nullptr);
}

} // namespace
