//===- timing_test.cpp - Cycle counts: blocking, determinism, bandwidth ---===//

#include "test_util.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>

using namespace mtia;
using namespace mtia::test;

namespace {

/// Streams tiles through cb0 -> SE copy -> cb1 -> memory. Args: in, out,
/// tile elements.
void streamCopyKernel(Ctx *c, const Arg *a) {
  const int64_t n = a[2].i;
  const uint64_t offset = uint64_t(programId(c, 0)) * uint64_t(n) * 4;
  const Shape s = shape1(n);
  dmaIn(c, 0, DType::F32, a[0].u + offset, box1(n, n), immFloat(DType::F32, 0));
  se(c, SeOp::Copy, 1, DType::F32, s, tile(0, DType::F32, s));
  cbPop(c, 0, n * 4);
  dmaOut(c, 1, DType::F32, a[1].u + offset, box1(n, n));
  cbPop(c, 1, n * 4);
}

uint64_t streamCopyCycles(int64_t tilesPerCb) {
  const int64_t n = 4096, programs = 32;
  std::vector<float> in(size_t(n * programs)), out(in.size());
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = float(i);
  rt::Simulator sim(rowOfPes(1));
  KernelInfo info = kernelInfo("stream_copy", 3, {tilesPerCb * n * 4, tilesPerCb * n * 4});
  sim::LaunchSummary r = sim.launch(streamCopyKernel, info, {programs, 1, 1},
                                    {ptrArg(in.data()), ptrArg(out.data()), intArg(n)},
                                    {regionOf(in), regionOf(out)});
  EXPECT_EQ(in, out);
  return r.cycles;
}

TEST(Timing, OneTileCbsSerializeWhatTwoTileCbsOverlap) {
  const uint64_t single = streamCopyCycles(1), dbl = streamCopyCycles(2);
  EXPECT_GT(single, dbl);
  // Double buffering hides a large part of the DMA behind the SE and back.
  EXPECT_GT(double(single) / double(dbl), 1.2) << single << " vs " << dbl;
}

void flatten(const sim::StatNode &n, const std::string &prefix,
             std::map<std::string, uint64_t> &out) {
  if (!n.isGroup) {
    out[prefix + n.name] = n.value;
    return;
  }
  for (const sim::StatNode &c : n.children)
    flatten(c, prefix + n.name + ".", out);
}

TEST(Timing, SameLaunchTwiceGivesTheSameCyclesAndStats) {
  const int64_t n = 1 << 16, block = 1024;
  std::vector<float> x(n, 1), y(n, 2), out(n);
  KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
  rt::Simulator sim(sim::mtia2iPreset());
  auto run = [&] {
    sim::LaunchSummary r = sim.launch(
        vectorAddKernel, info, {n / block, 1, 1},
        {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n), intArg(block)},
        {regionOf(x), regionOf(y), regionOf(out)});
    std::map<std::string, uint64_t> flat;
    flatten(r.stats, "", flat);
    return std::make_pair(r.cycles, flat);
  };
  auto first = run();
  auto second = run();
  EXPECT_EQ(first.first, second.first);
  EXPECT_EQ(first.second, second.second);
}

/// A vector add of 4M fp32 from LPDDR on the mtia2i preset, its writes
/// going through to LPDDR or kept by the SRAM cache.
sim::LaunchSummary vectorAdd4M(bool writeBack) {
  const int64_t n = 4 * 1024 * 1024, block = 1024;
  std::vector<float> x(n), y(n), out(n);
  for (int64_t i = 0; i < n; i += 4099) {
    x[size_t(i)] = float(i);
    y[size_t(i)] = 1.0f;
  }
  KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
  sim::Config cfg = sim::mtia2iPreset();
  cfg.sram_write_back = writeBack;
  rt::Simulator sim(cfg);
  sim::LaunchSummary r =
      sim.launch(vectorAddKernel, info, {n / block, 1, 1},
                 {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n), intArg(block)},
                 {regionOf(x), regionOf(y), regionOf(out)});
  for (int64_t i = 0; i < n; i += 4099)
    EXPECT_EQ(out[size_t(i)], float(i) + 1.0f);
  EXPECT_EQ(r.pesUsed, 64);
  // Reads fill whole SRAM pages: the arrays' unaligned ends over-fetch.
  const uint64_t read = r.stats.find("memory.lpddr.bytes_read")->value;
  EXPECT_GE(read, uint64_t(8 * n));
  EXPECT_LE(read, uint64_t(8 * n + 4 * cfg.sram_page_bytes));
  return r;
}

/// The launch's cycles over the LPDDR bound of `bytesPerElement` for 4M
/// elements, printed with `what`.
double ratioToLpddrBound(const sim::LaunchSummary &r, double bytesPerElement, const char *what) {
  const double bound =
      bytesPerElement * 4.0 * 1024 * 1024 / sim::mtia2iPreset().lpddrBytesPerCycle();
  const double ratio = double(r.cycles) / bound;
  std::printf("vector add 4M fp32, %s: %llu cycles, LPDDR bound %.0f cycles, ratio %.3f\n", what,
              static_cast<unsigned long long>(r.cycles), bound, ratio);
  return ratio;
}

TEST(Timing, VectorAddFromLpddrRunsAtLpddrBandwidth) {
  const int64_t n = 4 * 1024 * 1024, programs = n / 1024;
  const sim::Config cfg = sim::mtia2iPreset();
  // Write-through: 12 bytes per element cross LPDDR.
  const sim::LaunchSummary through = vectorAdd4M(false);
  const double ratio = ratioToLpddrBound(through, 12, "write-through");
  EXPECT_GE(ratio, 0.66);
  EXPECT_LE(ratio, 1.33);
  // Writes cost whole granules: a std::vector need not be 32-byte aligned,
  // so each program's tile may straddle one more.
  const uint64_t written = through.stats.find("memory.lpddr.bytes_written")->value;
  EXPECT_GE(written, uint64_t(4 * n));
  EXPECT_LE(written, uint64_t(4 * n + programs * cfg.memory_access_bytes));
}

TEST(Timing, WriteBackSramKeepsTheOutputOffLpddr) {
  const int64_t n = 4 * 1024 * 1024;
  // Write-back (the default): the 16 MiB output stays in the SRAM cache,
  // only the 8 bytes per element read cross LPDDR.
  const sim::LaunchSummary back = vectorAdd4M(true);
  const double ratio = ratioToLpddrBound(back, 8, "write-back");
  EXPECT_GE(ratio, 0.95);
  EXPECT_LE(ratio, 1.33);
  EXPECT_EQ(back.stats.find("memory.lpddr.bytes_written")->value, 0u);
  EXPECT_EQ(back.stats.find("memory.sram.write_backs")->value, 0u);
  EXPECT_GE(back.stats.find("memory.sram.bytes_written")->value, uint64_t(4 * n));
}

/// Writes a[1] tiles of 4 KiB to a[0], one per program.
void tileWriterKernel(Ctx *c, const Arg *a) {
  const int64_t p = programId(c, 0);
  seIota(c, 0, DType::F32, 1024, p);
  dmaOut(c, 0, DType::F32, a[0].u + uint64_t(p) * 4096, box1(1024, 1024));
  cbPop(c, 0, 4096);
}

TEST(Memory, DirtyPagesReachLpddrWhenEvicted) {
  // 1 MiB of SRAM (256 pages) under 4 MiB of writes: the first 3 MiB are
  // evicted, dirty, and written back; the last 1 MiB stays.
  const int64_t tiles = 1024;
  std::vector<float> out(size_t(tiles) * 1024 + 1024);
  const uint64_t base = (reinterpret_cast<uint64_t>(out.data()) + 4095) & ~uint64_t(4095);
  sim::Config cfg = rowOfPes(1);
  cfg.sram_bytes = 1 << 20;
  cfg.sram_region_bytes = 1 << 20;
  rt::Simulator sim(cfg);
  KernelInfo info = kernelInfo("tile_writer", 1, {8192});
  sim::LaunchSummary r =
      sim.launch(tileWriterKernel, info, {tiles, 1, 1}, {intArg(int64_t(base))}, {regionOf(out)});
  EXPECT_EQ(r.stats.find("memory.sram.write_backs")->value, uint64_t(tiles - 256));
  EXPECT_EQ(r.stats.find("memory.lpddr.bytes_written")->value, uint64_t(tiles - 256) * 4096);
  EXPECT_EQ(r.stats.find("memory.lpddr.bytes_read")->value, 0u);
  for (int64_t t = 0; t < tiles; t += 97)
    EXPECT_EQ(reinterpret_cast<const float *>(base)[t * 1024 + 5], float(t + 5));
}

TEST(Memory, ReadingAPartlyWrittenPageFillsTheRest) {
  // Half a page written, then the whole page read: the read waits for a
  // fill from LPDDR.
  std::vector<float> buf(4096);
  const uint64_t base = (reinterpret_cast<uint64_t>(buf.data()) + 4095) & ~uint64_t(4095);
  sim::Config cfg = rowOfPes(1);
  rt::Simulator sim(cfg);
  KernelInfo info = kernelInfo("half_then_whole", 1, {4096});
  auto kernel = [](Ctx *c, const Arg *a) {
    seIota(c, 0, DType::F32, 512, 0);
    dmaOut(c, 0, DType::F32, a[0].u, box1(512, 512));
    cbPop(c, 0, 2048);
    barrier(c);
    dmaIn(c, 0, DType::F32, a[0].u, box1(1024, 1024), immFloat(DType::F32, 0));
    cbPop(c, 0, 4096);
  };
  sim::LaunchSummary r =
      sim.launch(kernel, info, {1, 1, 1}, {intArg(int64_t(base))}, {regionOf(buf)});
  EXPECT_EQ(r.stats.find("memory.sram.misses")->value, 1u);
  EXPECT_EQ(r.stats.find("memory.lpddr.bytes_read")->value, 4096u);
  EXPECT_EQ(r.stats.find("memory.lpddr.bytes_written")->value, 0u);
}

TEST(Timing, MemoryStallIsTheWaitForTheServersBeyondTheTransfer) {
  const int64_t n = 1 << 18, block = 1024;
  std::vector<float> x(n, 1), y(n, 2), out(n);
  KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
  auto run = [&](const sim::Config &cfg, bool sram) {
    rt::Simulator sim(cfg);
    sim::Region rx = regionOf(x), ry = regionOf(y), ro = regionOf(out);
    rx.sram = ry.sram = ro.sram = sram;
    return sim.launch(vectorAddKernel, info, {n / block, 1, 1},
                      {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n),
                       intArg(block)},
                      {rx, ry, ro});
  };
  // 64 PEs share 152 B/cycle of LPDDR, 2.4 B/cycle each against a 64
  // B/cycle fabric interface: most of a DMA's occupancy is waiting.
  sim::LaunchSummary lp = run(sim::mtia2iPreset(), false);
  const uint64_t busy = lp.stats.find("units.dma_in.busy_cycles")->value;
  const uint64_t stall = lp.stats.find("units.dma_in.memory_stall_cycles")->value;
  EXPECT_GT(stall, busy / 2);
  EXPECT_LE(stall, busy);
  EXPECT_EQ(lp.stats.find("pe.0.dma_in.memory_stall_cycles") != nullptr, true);
  // One PE reading SRAM scratch (2000 B/cycle) never waits for it.
  sim::Config one = sim::mtia2iPreset();
  one.pe_rows = one.pe_cols = 1;
  sim::LaunchSummary sr = run(one, true);
  EXPECT_EQ(sr.stats.find("units.dma_in.memory_stall_cycles")->value, 0u);
  EXPECT_GT(sr.stats.find("units.dma_in.busy_cycles")->value, 0u);
}

/// Only the program a[1] reads one 256-byte tile from a[0].
void oneReaderKernel(Ctx *c, const Arg *a) {
  if (programId(c, 0) != a[1].i)
    return;
  dmaIn(c, 0, DType::F32, a[0].u, box1(64, 64), immFloat(DType::F32, 0));
  cbPop(c, 0, 256);
}

TEST(Noc, PesFartherFromTheirEdgeWaitLonger) {
  // One row of 8 PEs: columns 0-3 reach the west crossbar, 4-7 the east one.
  sim::Config cfg = rowOfPes(8);
  rt::Simulator sim(cfg);
  std::vector<float> x(64, 1);
  sim::Region rx = regionOf(x);
  rx.sram = true;
  KernelInfo info = kernelInfo("one_reader", 2, {256});
  auto cyclesOn = [&](int64_t pe) {
    return int64_t(sim.launch(oneReaderKernel, info, {8, 1, 1}, {ptrArg(x.data()), intArg(pe)},
                              {rx})
                       .cycles);
  };
  const int64_t hop = 2 * cfg.noc_hop_cycles; // there and back
  EXPECT_EQ(cyclesOn(3) - cyclesOn(0), 3 * hop);
  EXPECT_EQ(cyclesOn(4) - cyclesOn(7), 3 * hop);
  EXPECT_EQ(cyclesOn(0), cyclesOn(7)); // one hop to either edge
}

TEST(Noc, PesOfOneEdgeContendOnTheirCrossbar) {
  // 8 PEs (4 rows x 2 columns) stream from SRAM scratch through crossbars
  // of 32 B/cycle, below what the SRAM and the fabric interfaces offer.
  const int64_t n = 1 << 16, block = 1024;
  std::vector<float> x(n, 1), y(n, 2), out(n);
  KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
  auto run = [&](int64_t crossbars) {
    sim::Config cfg = sim::mtia2iPreset();
    cfg.pe_rows = 4;
    cfg.pe_cols = 2;
    cfg.noc_crossbars = crossbars;
    cfg.noc_crossbar_gbps = 32 * cfg.clock_ghz;
    rt::Simulator sim(cfg);
    sim::Region rx = regionOf(x), ry = regionOf(y), ro = regionOf(out);
    rx.sram = ry.sram = ro.sram = true;
    return sim.launch(vectorAddKernel, info, {n / block, 1, 1},
                      {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n),
                       intArg(block)},
                      {rx, ry, ro});
  };
  sim::LaunchSummary two = run(2), one = run(1);
  // 12 bytes per element cross the NoC; each edge carries half of them
  // with two crossbars, all of them with one.
  const double bytes = 12.0 * double(n);
  EXPECT_EQ(two.stats.find("memory.noc.crossbar0.bytes")->value, uint64_t(bytes / 2));
  EXPECT_EQ(two.stats.find("memory.noc.crossbar1.bytes")->value, uint64_t(bytes / 2));
  EXPECT_EQ(one.stats.find("memory.noc.crossbar0.bytes")->value, uint64_t(bytes));
  EXPECT_EQ(one.stats.find("memory.noc.crossbar1"), nullptr);
  const double launch = double(sim::mtia2iPreset().launch_overhead_cycles);
  EXPECT_NEAR(double(two.cycles) - launch, bytes / 64, bytes / 64 * 0.05);
  EXPECT_NEAR(double(one.cycles) - launch, bytes / 32, bytes / 32 * 0.05);
  EXPECT_GT(one.stats.find("units.dma_in.memory_stall_cycles")->value,
            two.stats.find("units.dma_in.memory_stall_cycles")->value);
}

TEST(Timing, SmallerChipIsSlower) {
  const int64_t n = 1 << 16, block = 1024;
  std::vector<float> x(n, 1), y(n, 2), out(n);
  KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
  auto cycles = [&](const sim::Config &cfg) {
    rt::Simulator sim(cfg);
    return sim
        .launch(vectorAddKernel, info, {n / block, 1, 1},
                {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n), intArg(block)},
                {regionOf(x), regionOf(y), regionOf(out)})
        .cycles;
  };
  EXPECT_GT(cycles(sim::smallPreset()), cycles(sim::mtia2iPreset()));
}

TEST(Timing, WarmSramServesRereads) {
  const int64_t n = 1 << 16, block = 1024;
  std::vector<float> x(n, 1), y(n, 2), out(n);
  KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
  sim::Config cfg = sim::mtia2iPreset();
  cfg.keep_sram_warm = 1;
  rt::Simulator sim(cfg);
  auto run = [&] {
    return sim.launch(vectorAddKernel, info, {n / block, 1, 1},
                      {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n),
                       intArg(block)},
                      {regionOf(x), regionOf(y), regionOf(out)});
  };
  sim::LaunchSummary cold = run(), warm = run();
  EXPECT_EQ(warm.stats.find("memory.lpddr.bytes_read")->value, 0u);
  EXPECT_GT(warm.stats.find("memory.sram.hits")->value, 0u);
  EXPECT_LT(warm.cycles, cold.cycles);
}

TEST(Timing, TwentyFiveThousandCommandsSimulateQuickly) {
  // 4096 programs x 7 commands (3 DMA, 1 SE, 3 pops); the bound is generous
  // for loaded machines.
  const int64_t n = 4096 * 256, block = 256;
  std::vector<float> x(n, 1), y(n, 2), out(n);
  KernelInfo info = kernelInfo("vector_add", 5, {2048, 2048, 2048});
  sim::Config cfg = sim::mtia2iPreset();
  cfg.timing_only = 1;
  rt::Simulator sim(cfg);
  auto t0 = std::chrono::steady_clock::now();
  sim::LaunchSummary r =
      sim.launch(vectorAddKernel, info, {n / block, 1, 1},
                 {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n), intArg(block)},
                 {regionOf(x), regionOf(y), regionOf(out)});
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%llu commands, %llu events, %llu cycles in %.3f s\n",
              static_cast<unsigned long long>(r.stats.find("units.riscv.commands")->value),
              static_cast<unsigned long long>(r.stats.find("events")->value),
              static_cast<unsigned long long>(r.cycles), seconds);
  EXPECT_EQ(r.stats.find("units.riscv.commands")->value, uint64_t(7 * n / block));
  EXPECT_LT(seconds, 1.0);
}

} // namespace

namespace {

TEST(Memory, SramScratchAllocationsNeverTouchLpddr) {
  const int64_t n = 1 << 16, block = 1024;
  std::vector<float> x(n, 1), y(n, 2), out(n);
  KernelInfo info = kernelInfo("vector_add", 5, {8192, 8192, 8192});
  auto launch = [&](bool sram) {
    rt::Simulator sim(sim::mtia2iPreset());
    auto place = [&](const std::vector<float> &v) {
      sim::Region r = regionOf(v);
      r.sram = sram;
      return r;
    };
    return sim.launch(vectorAddKernel, info, {n / block, 1, 1},
                      {ptrArg(x.data()), ptrArg(y.data()), ptrArg(out.data()), intArg(n),
                       intArg(block)},
                      {place(x), place(y), place(out)});
  };
  sim::LaunchSummary lpddr = launch(false), sram = launch(true);
  EXPECT_EQ(out[5], 3.0f);
  EXPECT_EQ(sram.stats.find("memory.lpddr.bytes_read")->value, 0u);
  EXPECT_EQ(sram.stats.find("memory.lpddr.bytes_written")->value, 0u);
  EXPECT_EQ(sram.stats.find("memory.sram.bytes_read")->value, uint64_t(8 * n));
  EXPECT_EQ(sram.stats.find("memory.sram.scratch_bytes")->value, 3u * 32 * 1024 * 1024);
  EXPECT_LT(sram.cycles, lpddr.cycles);
}

TEST(Memory, SramPlacementsLargerThanTheSramFault) {
  std::vector<float> x(16);
  sim::Config cfg = sim::mtia2iPreset();
  cfg.sram_bytes = 32ll * 1024 * 1024;
  rt::Simulator sim(cfg);
  KernelInfo info = kernelInfo("vector_add", 5, {64, 64, 64});
  sim::Region a = regionOf(x), b{a.addr + (1 << 20), 16, true};
  a.sram = true;
  EXPECT_THROW(sim.launch(vectorAddKernel, info, {1, 1, 1},
                          {ptrArg(x.data()), ptrArg(x.data()), ptrArg(x.data()), intArg(16),
                           intArg(16)},
                          {a, b}),
               sim::FaultError);
}

/// Every program writes 256 bytes at a[0] + pid * a[1] (a stride in bytes).
void stridedStoreKernel(Ctx *c, const Arg *a) {
  seIota(c, 0, DType::I32, 64, 0);
  dmaOut(c, 0, DType::I32, a[0].u + uint64_t(programId(c, 0)) * a[1].u, box1(64, 64));
  cbPop(c, 0, 256);
}

TEST(Memory, ChannelHotSpotsAreSlowerThanInterleavedStreams) {
  // 4096 stores of 256 B: spread over 16 channels (stride 256) or all on one
  // (stride 16 x 256).
  std::vector<uint8_t> buf(size_t(4096) * 16 * 256);
  KernelInfo info = kernelInfo("strided_store", 2, {1024});
  auto cycles = [&](int64_t stride) {
    sim::Config cfg = sim::mtia2iPreset();
    cfg.sram_write_back = 0; // the stores reach the channels as they are
    rt::Simulator sim(cfg);
    return sim
        .launch(stridedStoreKernel, info, {4096, 1, 1},
                {ptrArg(buf.data() + (256 - reinterpret_cast<uintptr_t>(buf.data()) % 256) % 256),
                 intArg(stride)},
                {regionOf(buf)})
        .cycles;
  };
  const uint64_t spread = cycles(256), hot = cycles(16 * 256);
  EXPECT_GT(double(hot) / double(spread), 4.0) << hot << " vs " << spread;
}

} // namespace

//===----------------------------------------------------------------------===//
// Access granules
//===----------------------------------------------------------------------===//

namespace {

constexpr int64_t kGranuleElems = 1024;

/// Reads kGranuleElems fp32 elements from a[0] with element stride a[1]: by
/// a strided box when a[2] == 0, else by a gather of the same addresses.
void stridedReadKernel(Ctx *c, const Arg *a) {
  const int64_t n = kGranuleElems, stride = a[1].i;
  if (a[2].i == 0) {
    Box b = box1(n, n);
    b.stride[0] = stride;
    dmaIn(c, 0, DType::F32, a[0].u, b, immFloat(DType::F32, 0));
  } else {
    // Addresses a[0] + i * stride * 4, built on the SE.
    const Shape s = shape1(n);
    seIota(c, 1, DType::I64, n, 0);
    se(c, SeOp::Mul, 2, DType::I64, s, tile(1, DType::I64, s), immInt(DType::I64, stride * 4));
    cbPop(c, 1, n * 8);
    se(c, SeOp::Add, 1, DType::I64, s, tile(2, DType::I64, s),
       immInt(DType::I64, int64_t(a[0].u)));
    cbPop(c, 2, n * 8);
    gatherIn(c, 0, DType::F32, s, 1, -1, immFloat(DType::F32, 0));
    cbPop(c, 1, n * 8);
  }
  cbPop(c, 0, n * 4);
}

uint64_t lpddrBytesRead(int64_t stride, bool gather) {
  sim::Config cfg = rowOfPes(1);
  cfg.sram_bytes = 0; // no cache: every access goes to LPDDR as it is
  rt::Simulator sim(cfg);
  // 64-byte aligned, as torch allocates.
  std::vector<float> buf(size_t(kGranuleElems * stride + 16));
  const uint64_t base = (reinterpret_cast<uint64_t>(buf.data()) + 63) & ~uint64_t(63);
  KernelInfo info = kernelInfo("strided_read", 3, {kGranuleElems * 4, kGranuleElems * 8,
                                                   kGranuleElems * 8});
  sim::LaunchSummary r = sim.launch(stridedReadKernel, info, {1, 1, 1},
                                    {intArg(int64_t(base)), intArg(stride), intArg(gather)},
                                    {regionOf(buf)});
  return r.stats.find("memory.lpddr.bytes_read")->value;
}

TEST(Memory, AccessesCostWholeGranulesAndNeighboursShareThem) {
  const uint64_t g = uint64_t(sim::mtia2iPreset().memory_access_bytes);
  // Dense: the bytes themselves, by box or by a gather of neighbours.
  EXPECT_EQ(lpddrBytesRead(1, false), uint64_t(kGranuleElems * 4));
  EXPECT_EQ(lpddrBytesRead(1, true), uint64_t(kGranuleElems * 4));
  // Two elements per granule: still the granules they span.
  EXPECT_EQ(lpddrBytesRead(4, true), uint64_t(kGranuleElems / 2) * g);
  // One element per granule or sparser: a granule per element.
  EXPECT_EQ(lpddrBytesRead(8, false), uint64_t(kGranuleElems) * g);
  EXPECT_EQ(lpddrBytesRead(8, true), uint64_t(kGranuleElems) * g);
  EXPECT_EQ(lpddrBytesRead(64, true), uint64_t(kGranuleElems) * g);
}

} // namespace
