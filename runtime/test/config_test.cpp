//===- config_test.cpp - Parameters and presets ---------------------------===//

#include "mtia/sim/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <string>

using namespace mtia::sim;

TEST(Config, DefaultsAreTheMtia2iFacts) {
  Config c = mtia2iPreset();
  EXPECT_EQ(c.numPes(), 64);
  EXPECT_DOUBLE_EQ(c.clock_ghz, 1.35);
  EXPECT_EQ(c.local_memory_bytes, 384 * 1024);
  EXPECT_EQ(c.max_cbs, 15);
  EXPECT_NEAR(c.lpddrBytesPerCycle(), 151.7, 0.1);
  EXPECT_NEAR(c.sramBytesPerCycle(), 2000.0, 0.1);
  EXPECT_NO_THROW(c.validate());
}

TEST(Config, SetByName) {
  Config c;
  c.set("pe_rows", int64_t(4));
  c.set("lpddr_gbps", 100.0);
  c.set("queue_depth", 8.0); // an integral float is fine
  EXPECT_EQ(c.pe_rows, 4);
  EXPECT_DOUBLE_EQ(c.lpddr_gbps, 100.0);
  EXPECT_EQ(c.queue_depth, 8);
  EXPECT_EQ(std::get<int64_t>(c.values().at("pe_rows")), 4);
}

TEST(Config, UnknownKeyIsAnErrorNamingIt) {
  Config c;
  try {
    c.set("lpdr_gbps", 1.0);
    FAIL() << "no exception";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("lpdr_gbps"), std::string::npos);
  }
  EXPECT_THROW(c.set("queue_depth", 1.5), std::invalid_argument);
}

TEST(Config, ValidateNamesTheBadParameter) {
  Config c;
  c.sram_page_bytes = 1000;
  try {
    c.validate();
    FAIL() << "no exception";
  } catch (const std::invalid_argument &e) {
    EXPECT_NE(std::string(e.what()).find("sram_page_bytes"), std::string::npos);
  }
}

TEST(Config, EveryParameterHasASource) {
  for (const auto &[name, value] : Config().values())
    EXPECT_NE(std::string(Config::source(name)), "") << name;
}

TEST(Config, SmallPresetIsSmaller) {
  Config s = smallPreset();
  EXPECT_EQ(s.numPes(), 4);
  EXPECT_LT(s.lpddr_gbps, mtia2iPreset().lpddr_gbps);
  EXPECT_NO_THROW(s.validate());
}

namespace {
/// The message of the std::invalid_argument `f` throws ("" if none).
template <class F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const std::invalid_argument &e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST(ConfigFile, JsonOverridesThePreset) {
  Config c = mtia2iPreset();
  applyConfigJson(c, R"({ "lpddr_gbps": 102.4, "pe_rows": 4, "timing_only": true,
                          "sram_bytes": 134217728 })", "x.json");
  EXPECT_DOUBLE_EQ(c.lpddr_gbps, 102.4);
  EXPECT_EQ(c.pe_rows, 4);
  EXPECT_EQ(c.timing_only, 1);
  EXPECT_EQ(c.sram_bytes, 134217728);
  EXPECT_EQ(c.pe_cols, 8); // untouched entries keep the preset's value
  Config empty = smallPreset();
  applyConfigJson(empty, " {} ", "e.json");
  EXPECT_EQ(empty.numPes(), 4);
}

TEST(ConfigFile, ErrorsNameTheKeyOrTheOffset) {
  Config c;
  EXPECT_NE(errorOf([&] { applyConfigJson(c, R"({"lpddr_gpbs": 1})", "x.json"); })
                .find("unknown simulator parameter 'lpddr_gpbs'"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { applyConfigJson(c, R"({"pe_rows": "8"})", "x.json"); })
                .find("'pe_rows' takes a number"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { applyConfigJson(c, R"({"pe_rows": 2.5})", "x.json"); })
                .find("'pe_rows' takes an integer"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { applyConfigJson(c, R"({"pe_rows": 2, "pe_rows": 3})", "x.json"); })
                .find("'pe_rows' is given twice"),
            std::string::npos);
  EXPECT_NE(errorOf([&] { applyConfigJson(c, R"({"pe_rows": 0})", "x.json"); }).find("pe_rows"),
            std::string::npos);
  const std::string syntax = errorOf([&] { applyConfigJson(c, R"({"pe_rows" 2})", "x.json"); });
  EXPECT_NE(syntax.find("x.json: invalid JSON at offset 11"), std::string::npos) << syntax;
  EXPECT_NE(errorOf([&] { applyConfigJson(c, R"({"pe_rows": 2} x)", "x.json"); })
                .find("after the closing"),
            std::string::npos);
}

TEST(ConfigFile, LoadsAFileAndReportsAMissingOne) {
  const std::string path = ::testing::TempDir() + "mtia_config_test.json";
  {
    std::FILE *f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("{\n  \"clock_ghz\": 1.0,\n  \"queue_depth\": 4\n}\n", f);
    std::fclose(f);
  }
  Config c = loadConfigFile(path, mtia2iPreset());
  EXPECT_DOUBLE_EQ(c.clock_ghz, 1.0);
  EXPECT_EQ(c.queue_depth, 4);
  std::remove(path.c_str());
  EXPECT_NE(errorOf([&] { loadConfigFile(path, mtia2iPreset()); }).find("cannot read"),
            std::string::npos);
}
