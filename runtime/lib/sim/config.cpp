//===- config.cpp - Parameter table of the simulated chip -----------------===//

#include "mtia/sim/config.h"

#include "mtia/device.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace mtia::sim {

namespace {

/// Stores `v` into an integer parameter, refusing fractions silently lost.
void assign(int64_t &dst, const std::string &name, Config::Value v) {
  if (const auto *i = std::get_if<int64_t>(&v)) {
    dst = *i;
    return;
  }
  double d = std::get<double>(v);
  if (!(std::trunc(d) == d) || std::fabs(d) > 9.0e18)
    throw std::invalid_argument("simulator parameter '" + name +
                                "' takes an integer, got " + std::to_string(d));
  dst = static_cast<int64_t>(d);
}

void assign(double &dst, const std::string &, Config::Value v) {
  dst = std::visit([](auto x) { return static_cast<double>(x); }, v);
}

} // namespace

void Config::set(const std::string &name, Value value) {
#define MTIA_SIM_SET(T, N, D, S)                                               \
  if (name == #N) {                                                            \
    assign(N, name, value);                                                    \
    return;                                                                    \
  }
  MTIA_SIM_CONFIG_PARAMS(MTIA_SIM_SET)
#undef MTIA_SIM_SET
  throw std::invalid_argument("unknown simulator parameter '" + name + "'");
}

std::map<std::string, Config::Value> Config::values() const {
  std::map<std::string, Value> out;
#define MTIA_SIM_GET(T, N, D, S) out.emplace(#N, Value(N));
  MTIA_SIM_CONFIG_PARAMS(MTIA_SIM_GET)
#undef MTIA_SIM_GET
  return out;
}

const char *Config::source(const std::string &name) {
#define MTIA_SIM_SOURCE(T, N, D, S)                                            \
  if (name == #N)                                                              \
    return S;
  MTIA_SIM_CONFIG_PARAMS(MTIA_SIM_SOURCE)
#undef MTIA_SIM_SOURCE
  return "";
}

void Config::validate() const {
  auto require = [](bool ok, const char *name, const char *what) {
    if (!ok)
      throw std::invalid_argument(std::string("simulator parameter '") + name +
                                  "' " + what);
  };
  require(pe_rows >= 1 && pe_rows <= 64, "pe_rows", "must be in [1, 64]");
  require(pe_cols >= 1 && pe_cols <= 64, "pe_cols", "must be in [1, 64]");
  require(clock_ghz > 0, "clock_ghz", "must be positive");
  require(local_memory_bytes > 0, "local_memory_bytes", "must be positive");
  require(local_memory_bytes_per_cycle >= 0, "local_memory_bytes_per_cycle",
          "must be >= 0 (0: unlimited)");
  require(max_cbs >= 1 && max_cbs <= kMaxCbs, "max_cbs",
          "must be in [1, 15] (device.h kMaxCbs)");
  require(issue_cycles >= 0, "issue_cycles", "must be >= 0");
  require(core_read_cycles >= 0, "core_read_cycles", "must be >= 0");
  require(queue_depth >= 1, "queue_depth", "must be >= 1");
  require(se_lanes >= 1, "se_lanes", "must be >= 1");
  require(se_fill_cycles >= 0, "se_fill_cycles", "must be >= 0");
  require(dpe_fp16_macs_per_cycle >= 1, "dpe_fp16_macs_per_cycle", "must be >= 1");
  require(dpe_int8_macs_per_cycle >= 1, "dpe_int8_macs_per_cycle", "must be >= 1");
  require(dpe_fp32_macs_per_cycle >= 1, "dpe_fp32_macs_per_cycle", "must be >= 1");
  require(dpe_fill_cycles >= 0, "dpe_fill_cycles", "must be >= 0");
  require(mlu_bytes_per_cycle >= 1, "mlu_bytes_per_cycle", "must be >= 1");
  require(mlu_fill_cycles >= 0, "mlu_fill_cycles", "must be >= 0");
  require(vec_bytes_per_cycle >= 1, "vec_bytes_per_cycle", "must be >= 1");
  require(vec_fill_cycles >= 0, "vec_fill_cycles", "must be >= 0");
  require(re_bytes_per_cycle >= 1, "re_bytes_per_cycle", "must be >= 1");
  require(re_hop_cycles >= 0, "re_hop_cycles", "must be >= 0");
  require(noc_crossbars >= 1, "noc_crossbars", "must be >= 1");
  require(noc_crossbar_gbps > 0, "noc_crossbar_gbps", "must be positive");
  require(noc_hop_cycles >= 0, "noc_hop_cycles", "must be >= 0");
  require(fi_bytes_per_cycle >= 1, "fi_bytes_per_cycle", "must be >= 1");
  require(lpddr_gbps > 0, "lpddr_gbps", "must be positive");
  require(lpddr_channels >= 1 && lpddr_channels <= 64, "lpddr_channels", "must be in [1, 64]");
  require(memory_access_bytes >= 1 &&
              (memory_access_bytes & (memory_access_bytes - 1)) == 0,
          "memory_access_bytes", "must be a power of two");
  require(lpddr_interleave_bytes >= 1, "lpddr_interleave_bytes", "must be >= 1");
  require(sram_region_bytes >= 4096, "sram_region_bytes", "must be >= 4096");
  require(lpddr_latency_cycles >= 0, "lpddr_latency_cycles", "must be >= 0");
  require(sram_bytes >= 0, "sram_bytes", "must be >= 0 (0 disables the cache)");
  require(sram_gbps > 0, "sram_gbps", "must be positive");
  require(sram_latency_cycles >= 0, "sram_latency_cycles", "must be >= 0");
  require(sram_page_bytes >= 64 &&
              (sram_page_bytes & (sram_page_bytes - 1)) == 0,
          "sram_page_bytes", "must be a power of two >= 64");
  require(sram_write_back == 0 || sram_write_back == 1, "sram_write_back",
          "must be 0 or 1");
  require(keep_sram_warm == 0 || keep_sram_warm == 1, "keep_sram_warm",
          "must be 0 or 1");
  require(launch_overhead_cycles >= 0, "launch_overhead_cycles",
          "must be >= 0");
  require(timing_only == 0 || timing_only == 1, "timing_only",
          "must be 0 or 1");
  require(watchdog_cycles >= 0, "watchdog_cycles", "must be >= 0 (0: off)");
  require(max_launch_cycles >= 0, "max_launch_cycles", "must be >= 0 (0: no limit)");
  require(fiber_stack_bytes >= 64 * 1024, "fiber_stack_bytes",
          "must be >= 64 KiB");
  require(trace_max_events >= 0, "trace_max_events", "must be >= 0");
}

namespace {

/// The flat JSON object of a config file, read value by value into a
/// Config. Only what such a file holds: strings as keys, numbers and
/// booleans as values.
class ConfigJsonReader {
public:
  ConfigJsonReader(const std::string &text, const std::string &where)
      : text_(text), where_(where) {}

  void applyTo(Config &cfg) {
    expect('{');
    std::set<std::string> seen;
    if (peek() == '}') {
      ++pos_;
    } else {
      for (;;) {
        const std::string key = readString();
        if (!seen.insert(key).second)
          fail("parameter '" + key + "' is given twice");
        expect(':');
        Config::Value v = readValue(key);
        try {
          cfg.set(key, v);
        } catch (const std::invalid_argument &e) {
          fail(e.what());
        }
        if (peek() == ',') {
          ++pos_;
          continue;
        }
        expect('}');
        break;
      }
    }
    if (peek() != '\0')
      syntax("text after the closing '}'");
    try {
      cfg.validate();
    } catch (const std::invalid_argument &e) {
      fail(e.what());
    }
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    throw std::invalid_argument(where_ + ": " + what);
  }
  [[noreturn]] void syntax(const std::string &what) const {
    fail("invalid JSON at offset " + std::to_string(pos_) + ": " + what);
  }
  /// The next non-blank character ('\0' at the end), not consumed.
  char peek() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  void expect(char c) {
    if (peek() != c)
      syntax(std::string("expected '") + c + "'");
    ++pos_;
  }
  std::string readString() {
    expect('"');
    std::string out;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_++];
      if (c == '\\') {
        if (pos_ >= text_.size())
          break;
        c = text_[pos_++];
        if (c != '"' && c != '\\' && c != '/')
          syntax("escape sequences other than \\\" \\\\ \\/ have no use in parameter names");
      }
      out += c;
    }
    if (pos_ >= text_.size())
      syntax("unterminated string");
    ++pos_;
    return out;
  }
  Config::Value readValue(const std::string &key) {
    const char c = peek();
    for (const char *word : {"true", "false"})
      if (text_.compare(pos_, std::strlen(word), word) == 0) {
        pos_ += std::strlen(word);
        return int64_t(word[0] == 't');
      }
    if (c != '-' && !std::isdigit(static_cast<unsigned char>(c)))
      fail("parameter '" + key + "' takes a number");
    const char *begin = text_.c_str() + pos_;
    char *end = nullptr;
    const double d = std::strtod(begin, &end);
    if (end == begin)
      syntax("expected a number");
    const std::string lexeme(begin, size_t(end - begin));
    pos_ += lexeme.size();
    // Integers stay exact (an int64 above 2^53 would not survive a double).
    if (lexeme.find_first_of(".eE") == std::string::npos) {
      errno = 0;
      long long i = std::strtoll(lexeme.c_str(), nullptr, 10);
      if (errno == 0)
        return int64_t(i);
    }
    return d;
  }

  const std::string &text_;
  const std::string &where_;
  size_t pos_ = 0;
};

} // namespace

void applyConfigJson(Config &cfg, const std::string &text, const std::string &where) {
  ConfigJsonReader(text, where).applyTo(cfg);
}

Config loadConfigFile(const std::string &path, Config base) {
  std::ifstream in(path);
  if (!in)
    throw std::invalid_argument("cannot read simulator config file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  applyConfigJson(base, text.str(), path);
  return base;
}

Config mtia2iPreset() { return Config(); }

Config smallPreset() {
  Config c;
  c.pe_rows = 2;
  c.pe_cols = 2;
  c.lpddr_gbps = 25.6;
  c.sram_bytes = 16ll * 1024 * 1024;
  c.sram_region_bytes = 2ll * 1024 * 1024;
  c.lpddr_channels = 2;
  c.sram_gbps = 337.5;
  return c;
}

} // namespace mtia::sim
