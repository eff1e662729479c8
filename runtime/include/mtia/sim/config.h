//===- config.h - Every parameter of the simulated chip --------*- C++ -*-===//
//
// One struct holds every parameter of the model. Each entry below gives its
// name (the key Python uses), its default, and where the value comes from:
//   [I25]  ISCA 2025, "Meta's Second Generation AI Chip" (MTIA 2i)
//   [M300] ISCA 2026 MTIA 300 paper, Table I, MTIA 2i column
//   [P]    the seed paper, arXiv 2608.00325
//   [model] a modelling choice of ours, explained in docs/simulator.md
//
//===----------------------------------------------------------------------===//

#ifndef MTIA_SIM_CONFIG_H
#define MTIA_SIM_CONFIG_H

#include <cstdint>
#include <map>
#include <string>
#include <variant>

namespace mtia::sim {

// X(type, name, default, source)
#define MTIA_SIM_CONFIG_PARAMS(X)                                              \
  X(int64_t, pe_rows, 8, "[I25] 8x8 grid of processing elements")             \
  X(int64_t, pe_cols, 8, "[I25] 8x8 grid of processing elements")             \
  X(double, clock_ghz, 1.35, "[I25 T2] 1.35 GHz")                             \
  X(int64_t, local_memory_bytes, 384 * 1024,                                  \
    "[P 5.3, I25] 384 KB local memory per PE")                                \
  X(double, local_memory_bytes_per_cycle, 740.0,                              \
    "[P 5.3, I25] local memory ~1.0 TB/s (read + write) per PE, shared by "   \
    "its units; 0: unlimited")                                                \
  X(int64_t, max_cbs, 15, "[P 5.3] 15 circular buffers per PE")               \
  X(int64_t, issue_cycles, 8,                                                 \
    "[model] RISC-V cycles to build and issue one command to the CP")         \
  X(int64_t, core_read_cycles, 8,                                             \
    "[model] RISC-V cycles for readInt/readFloat of published CB data")       \
  X(int64_t, queue_depth, 16, "[model] command queue entries per unit")       \
  X(int64_t, se_lanes, 32,                                                    \
    "[I25, M300] SE lanes for 32-bit elements (64 for 16-bit, 16 for "        \
    "64-bit, 128 for 8-bit)")                                                 \
  X(int64_t, se_fill_cycles, 8, "[model] SE pipeline fill latency")           \
  X(int64_t, dpe_fp16_macs_per_cycle, 1024,                                   \
    "[I25] DPE: 1024 FP16/BF16 MAC per cycle per PE (177 TFLOPS / 64 PEs)")   \
  X(int64_t, dpe_int8_macs_per_cycle, 2048,                                   \
    "[I25] DPE: 2048 INT8 MAC per cycle per PE (354 TOPS); fp8 at this rate " \
    "[model]")                                                                \
  X(int64_t, dpe_fp32_macs_per_cycle, 256,                                    \
    "[model] DPE on F32 inputs: a quarter of the FP16 rate")                  \
  X(int64_t, dpe_fill_cycles, 32,                                             \
    "[model] DPE pipeline fill latency (operand load + adder tree)")          \
  X(int64_t, mlu_bytes_per_cycle, 64,                                         \
    "[model] MLU copy/transpose bandwidth per PE")                            \
  X(int64_t, mlu_fill_cycles, 8, "[model] MLU pipeline fill latency")         \
  X(int64_t, vec_bytes_per_cycle, 64,                                         \
    "[I25] RVV VLEN 512: 64/32/16 elements per cycle for 8/16/32-bit")        \
  X(int64_t, vec_fill_cycles, 4, "[model] vector-core pipeline fill latency") \
  X(int64_t, re_bytes_per_cycle, 64,                                          \
    "[model] reduction engine: accumulate / send bandwidth per PE and link")  \
  X(int64_t, re_hop_cycles, 16,                                               \
    "[model] reduction network latency to a neighbouring PE")                 \
  X(int64_t, noc_crossbars, 2,                                                \
    "[I25, P 2.3] NoC crossbars on the die edges link the PE grid to SRAM "  \
    "and LPDDR; [model] two (west, east), each serving a band of PE "       \
    "columns (at most one per column)")                                     \
  X(double, noc_crossbar_gbps, 1728.0,                                        \
    "[model] bandwidth of one crossbar (1280 B/cycle), both directions")    \
  X(int64_t, noc_hop_cycles, 2,                                               \
    "[model] router hop latency between neighbouring PEs, toward the edge")   \
  X(int64_t, fi_bytes_per_cycle, 64,                                          \
    "[model] fabric-interface bandwidth per PE and direction")                \
  X(double, lpddr_gbps, 204.8, "[I25] LPDDR5, 16 channels, 204.8 GB/s")       \
  X(int64_t, lpddr_latency_cycles, 200, "[model] ~150 ns LPDDR access")       \
  X(int64_t, lpddr_channels, 16, "[I25] LPDDR5, 16 channels")                 \
  X(int64_t, memory_access_bytes, 32,                                         \
    "[model] access granule of LPDDR and SRAM: LPDDR5 BL16 x 16 bit = 32 B")  \
  X(int64_t, lpddr_interleave_bytes, 256,                                     \
    "[model] address interleave granularity over the LPDDR channels")         \
  X(int64_t, sram_bytes, 256ll * 1024 * 1024, "[I25] 256 MB on-chip SRAM")    \
  X(double, sram_gbps, 2700.0, "[I25] SRAM 2.7 TB/s (read + write)")          \
  X(int64_t, sram_latency_cycles, 60, "[model] ~45 ns SRAM access")           \
  X(int64_t, sram_region_bytes, 32ll * 1024 * 1024,                          \
    "[I25] SRAM is managed in 32 MB regions, each a cache or scratch")        \
  X(int64_t, sram_page_bytes, 4096,                                           \
    "[model] SRAM-as-cache fill and LRU granularity")                         \
  X(int64_t, sram_write_back, 1,                                              \
    "[model] 1: the SRAM cache absorbs writes, dirty pages reach LPDDR when " \
    "evicted; 0: writes go through to LPDDR")                                 \
  X(int64_t, keep_sram_warm, 0,                                               \
    "[model] 1: SRAM contents survive between launches of one Simulator")     \
  X(int64_t, launch_overhead_cycles, 1350, "[I25] job launch < 1 us")         \
  X(int64_t, timing_only, 0,                                                  \
    "[model] 1: skip the functional math and data movement (sweeps)")         \
  X(int64_t, check_memory_order, 1,                                           \
    "[model] 1: a DMA that touches bytes an earlier DMA of its program on "  \
    "the other fabric unit has not finished with is a fault (sanitizer)")    \
  X(int64_t, watchdog_cycles, 1ll << 28,                                      \
    "[model] a launch in which nothing stores, no atomic changes memory and " \
    "no program finishes for this many cycles is stopped as a hang; 0: off")  \
  X(int64_t, max_launch_cycles, 0,                                            \
    "[model] a launch still running at this cycle is stopped as a hang; "     \
    "0: no limit")                                                            \
  X(int64_t, fiber_stack_bytes, 256 * 1024,                                   \
    "[model] native stack of each PE's kernel fiber")                         \
  X(int64_t, trace_max_events, 2000000,                                       \
    "[model] trace events kept per launch; the rest are counted as dropped")

/// The whole parameter set. Plain data: copy it, compare it, override it.
struct Config {
#define MTIA_SIM_DECLARE(T, N, D, S) T N = D;
  MTIA_SIM_CONFIG_PARAMS(MTIA_SIM_DECLARE)
#undef MTIA_SIM_DECLARE

  using Value = std::variant<int64_t, double>;

  /// Sets parameter `name`. Throws std::invalid_argument naming the key when
  /// it is unknown, or when a non-integral value is given to an integer one.
  void set(const std::string &name, Value value);

  /// Every parameter by name.
  std::map<std::string, Value> values() const;

  /// The source note of parameter `name` (empty if unknown).
  static const char *source(const std::string &name);

  /// Throws std::invalid_argument naming the first parameter whose value
  /// cannot describe a chip (a zero-sized grid, no bandwidth, ...).
  void validate() const;

  int64_t numPes() const { return pe_rows * pe_cols; }
  /// Shared-memory bandwidths converted to bytes per core clock cycle.
  double lpddrBytesPerCycle() const { return lpddr_gbps / clock_ghz; }
  double sramBytesPerCycle() const { return sram_gbps / clock_ghz; }
};

/// Applies the JSON object `text`, {"name": value, ...}, to `cfg`: each
/// value a number, or true / false for 1 / 0. A flat object on purpose: a
/// config file is the preset's table with some entries changed. Throws
/// std::invalid_argument naming the key (unknown parameter, a value of the
/// wrong kind, repeated) or the offset of a syntax error, prefixed by
/// `where` (the file name). `cfg` is validated afterwards.
void applyConfigJson(Config &cfg, const std::string &text, const std::string &where);
/// `base` with the JSON file at `path` applied. Throws std::invalid_argument
/// when the file cannot be read or is not a valid config.
Config loadConfigFile(const std::string &path, Config base);

/// The MTIA-2i-class chip, every parameter at its default.
Config mtia2iPreset();
/// A 2x2-PE chip with a fraction of the bandwidth: proves the model is
/// parametric and keeps tests fast.
Config smallPreset();

} // namespace mtia::sim

#endif // MTIA_SIM_CONFIG_H
