#include "spyre_emu/config.h"

#include <map>

#include <gtest/gtest.h>

namespace {

spyre_emu::EnvLookup Env(std::map<std::string, std::string> vars) {
  return [vars](const char* name, std::string* value) {
    auto it = vars.find(name);
    if (it == vars.end()) return false;
    *value = it->second;
    return true;
  };
}

TEST(ConfigTest, DefaultsFollowTheContract) {
  spyre_emu::Config c;
  const spyre_emu::Status parsed = spyre_emu::ParseConfig(Env({}), &c);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  EXPECT_EQ(c.profile, spyre_emu::Profile::kInductor);
  EXPECT_EQ(c.rounding, spyre_emu::Rounding::kNearestAway);
  EXPECT_EQ(c.cores, 32);
  EXPECT_EQ(c.memory_bytes, 128ull << 30);
  EXPECT_FALSE(c.fence);
  EXPECT_FALSE(c.strict);
}

TEST(ConfigTest, ReadsEverySetting) {
  spyre_emu::Config c;
  const spyre_emu::Status parsed = spyre_emu::ParseConfig(
      Env({{"SPYRE_EMU_PROFILE", "sendnn"}, {"SPYRE_EMU_ROUNDING", "truncate"},
           {"SPYRE_EMU_CORES", "4"}, {"SPYRE_EMU_MEMORY", "1048576"},
           {"SPYRE_EMU_FAULTS", "mm:slow=2"}, {"SPYRE_EMU_FENCE", "1"}, {"SPYRE_EMU_STRICT", "1"}}),
      &c);
  ASSERT_TRUE(parsed.ok()) << parsed.message();
  EXPECT_EQ(c.profile, spyre_emu::Profile::kSendnn);
  EXPECT_EQ(c.rounding, spyre_emu::Rounding::kTruncate);
  EXPECT_EQ(c.cores, 4);
  EXPECT_EQ(c.memory_bytes, 1048576u);
  EXPECT_EQ(c.faults, "mm:slow=2");
  EXPECT_TRUE(c.fence);
  EXPECT_TRUE(c.strict);
}

TEST(ConfigTest, RejectsBadValuesWithTheVariableName) {
  struct Bad { const char* var; const char* value; };
  for (Bad b : {Bad{"SPYRE_EMU_PROFILE", "fast"}, Bad{"SPYRE_EMU_ROUNDING", "up"},
                Bad{"SPYRE_EMU_CORES", "0"}, Bad{"SPYRE_EMU_CORES", "33"},
                Bad{"SPYRE_EMU_CORES", "4x"}, Bad{"SPYRE_EMU_MEMORY", "-1"},
                Bad{"SPYRE_EMU_MEMORY", "lots"}, Bad{"SPYRE_EMU_FENCE", "maybe"}}) {
    spyre_emu::Config c;
    c.cores = 7;
    const spyre_emu::Status parsed = spyre_emu::ParseConfig(Env({{b.var, b.value}}), &c);
    EXPECT_FALSE(parsed.ok()) << b.var;
    EXPECT_EQ(parsed.code(), spyre_emu::ErrorCode::kInvalidArgument) << b.var;
    const std::string& error = parsed.message();
    EXPECT_NE(error.find(b.var), std::string::npos) << error;
    EXPECT_NE(error.find(b.value), std::string::npos) << error;
    EXPECT_EQ(c.cores, 7) << "a failed parse must leave the config unchanged";
  }
}

}  // namespace
