//===- config_test.cpp - Parameters and presets ---------------------------===//

#include "mtia/sim/config.h"

#include <gtest/gtest.h>

#include <stdexcept>

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
