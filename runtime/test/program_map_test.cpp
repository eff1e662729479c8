//===- program_map_test.cpp - Which PE runs which program -----------------===//

#include "test_util.h"

#include "mtia/sim/program_map.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace mtia;
using namespace mtia::test;
using sim::PidMapping;
using sim::ProgramMap;

namespace {

/// The programs of each PE, in the order it runs them.
std::vector<std::vector<int64_t>> deal(PidMapping m, int64_t programs, int64_t pes) {
  const ProgramMap map(m, programs, pes);
  std::vector<std::vector<int64_t>> out(static_cast<size_t>(pes));
  for (int64_t pe = 0; pe < pes; ++pe)
    for (int64_t i = 0; i < map.count(pe); ++i)
      out[size_t(pe)].push_back(map.pid(pe, i));
  return out;
}

using Deal = std::vector<std::vector<int64_t>>;

TEST(ProgramMap, TheThreeMappingsOfEightProgramsOnTwoPes) {
  // The paper's figure 5: 8 PIDs, 2 PEs.
  EXPECT_EQ(deal(PidMapping::Linear, 8, 2), (Deal{{0, 1, 2, 3}, {4, 5, 6, 7}}));
  EXPECT_EQ(deal(PidMapping::RoundRobin, 8, 2), (Deal{{0, 2, 4, 6}, {1, 3, 5, 7}}));
  EXPECT_EQ(deal(PidMapping::Zigzag, 8, 2), (Deal{{0, 3, 4, 7}, {1, 2, 5, 6}}));
}

TEST(ProgramMap, PartialLastRounds) {
  EXPECT_EQ(deal(PidMapping::Linear, 7, 3), (Deal{{0, 1, 2}, {3, 4, 5}, {6}}));
  EXPECT_EQ(deal(PidMapping::RoundRobin, 7, 3), (Deal{{0, 3, 6}, {1, 4}, {2, 5}}));
  // Round 1 goes backward; round 2 forward again, with one program left.
  EXPECT_EQ(deal(PidMapping::Zigzag, 7, 3), (Deal{{0, 5, 6}, {1, 4}, {2, 3}}));
  EXPECT_EQ(deal(PidMapping::Zigzag, 5, 3), (Deal{{0}, {1, 4}, {2, 3}}));
  // Fewer programs than PEs.
  EXPECT_EQ(ProgramMap(PidMapping::Zigzag, 2, 4).pesUsed(), 2);
  EXPECT_EQ(deal(PidMapping::Zigzag, 2, 4), (Deal{{0}, {1}, {}, {}}));
}

TEST(ProgramMap, EveryProgramRunsOnceWhateverTheMapping) {
  for (PidMapping m : {PidMapping::Linear, PidMapping::RoundRobin, PidMapping::Zigzag})
    for (int64_t programs : {1, 63, 64, 65, 130, 1000})
      for (int64_t pes : {1, 4, 64}) {
        std::multiset<int64_t> seen;
        int64_t used = 0;
        for (const auto &pe : deal(m, programs, pes)) {
          seen.insert(pe.begin(), pe.end());
          used += !pe.empty();
        }
        ASSERT_EQ(int64_t(seen.size()), programs) << sim::pidMappingName(m);
        std::set<int64_t> unique(seen.begin(), seen.end());
        ASSERT_EQ(int64_t(unique.size()), programs);
        ASSERT_EQ(*unique.rbegin(), programs - 1);
        ASSERT_EQ(used, ProgramMap(m, programs, pes).pesUsed());
      }
}

TEST(ProgramMap, NamesRoundTrip) {
  for (PidMapping m : {PidMapping::Linear, PidMapping::RoundRobin, PidMapping::Zigzag}) {
    PidMapping back = PidMapping::Linear;
    ASSERT_TRUE(sim::parsePidMapping(sim::pidMappingName(m), back));
    EXPECT_EQ(back, m);
  }
  PidMapping unused;
  EXPECT_FALSE(sim::parsePidMapping("diagonal", unused));
}

/// Program p does p + 1 SE commands of 1024 elements: work grows with the
/// id, as the rows of a causal attention do.
void growingWorkKernel(Ctx *c, const Arg *) {
  const int64_t p = programId(c, 0);
  for (int64_t i = 0; i <= p; ++i) {
    seIota(c, 0, DType::F32, 1024, i);
    cbPop(c, 0, 4096);
  }
}

uint64_t growingWorkCycles(PidMapping m) {
  rt::Simulator sim(rowOfPes(4));
  KernelInfo info = kernelInfo("growing_work", 0, {8192});
  return sim.launch(growingWorkKernel, info, {32, 1, 1}, {}, {}, "", m).cycles;
}

TEST(ProgramMap, ZigzagBalancesWorkThatGrowsWithTheProgramId) {
  // 32 programs on 4 PEs, program p costs p + 1: linear gives the last PE
  // 25 + ... + 32 = 228 units, round robin 29 + 25 + ... = 144, zigzag
  // 132 on every PE.
  const uint64_t linear = growingWorkCycles(PidMapping::Linear);
  const uint64_t roundRobin = growingWorkCycles(PidMapping::RoundRobin);
  const uint64_t zigzag = growingWorkCycles(PidMapping::Zigzag);
  EXPECT_LT(zigzag, roundRobin);
  EXPECT_LT(roundRobin, linear);
  EXPECT_GT(double(linear) / double(zigzag), 1.5) << linear << " vs " << zigzag;
}

} // namespace

namespace {

TEST(ProgramMap, UserRunsProgramKOnPeK) {
  EXPECT_EQ(deal(PidMapping::User, 4, 4), (Deal{{0}, {1}, {2}, {3}}));
  EXPECT_EQ(ProgramMap(PidMapping::User, 64, 64).pesUsed(), 64);
  sim::PidMapping parsed;
  ASSERT_TRUE(sim::parsePidMapping("user", parsed));
  EXPECT_EQ(parsed, PidMapping::User);
}

/// Each program writes its PE's row and column and the grid's rows and
/// columns (mtl.get_pe_id, mtl.get_pe_grid_size) to out[4 * pid].
void peIdKernel(Ctx *c, const Arg *a) {
  const int64_t pid = programId(c, 0);
  const int32_t facts[4] = {peId(c, 0), peId(c, 1), peGridSize(c, 0), peGridSize(c, 1)};
  for (int i = 0; i < 4; ++i) {
    se(c, SeOp::Copy, 0, DType::I32, shape1(1), immInt(DType::I32, facts[i]));
    dmaOut(c, 0, DType::I32, a[0].u + uint64_t(4 * pid + i) * 4, box1(1, 1));
    cbPop(c, 0, 4);
  }
}

sim::Config gridOfPes(int64_t rows, int64_t cols) {
  sim::Config cfg = sim::mtia2iPreset();
  cfg.pe_rows = rows;
  cfg.pe_cols = cols;
  return cfg;
}

TEST(ProgramMap, UserMappingGivesProgramKThePeIdsOfPeK) {
  rt::Simulator sim(gridOfPes(2, 3));
  KernelInfo info = kernelInfo("pe_ids", 1, {64});
  std::vector<int32_t> out(6 * 4, -1);
  sim.launch(peIdKernel, info, {6, 1, 1}, {ptrArg(out.data())}, {regionOf(out)}, "", PidMapping::User);
  for (int32_t k = 0; k < 6; ++k) {
    const std::vector<int32_t> got(out.begin() + 4 * k, out.begin() + 4 * k + 4);
    EXPECT_EQ(got, (std::vector<int32_t>{k / 3, k % 3, 2, 3})) << "program " << k;
  }
}

TEST(ProgramMap, UserMappingNeedsOneProgramPerPe) {
  rt::Simulator sim(gridOfPes(2, 3));
  KernelInfo info = kernelInfo("pe_ids", 1, {64});
  std::vector<int32_t> out(7 * 4, -1);
  try {
    sim.launch(peIdKernel, info, {7, 1, 1}, {ptrArg(out.data())}, {regionOf(out)}, "", PidMapping::User);
    FAIL() << "a grid of 7 programs ran on 6 PEs with pid_mapping user";
  } catch (const sim::FaultError &e) {
    EXPECT_EQ(e.fault().kind, sim::fault_kind::kInvalidLaunch);
    EXPECT_NE(e.fault().message.find("grid must have 6 programs (2x3 PEs), not 7"), std::string::npos)
        << e.fault().message;
  }
}

} // namespace
