// ci/nightly's verdict and its refusals: a failing case is news on the night
// it appears (also on a first night, with no baseline) and not again while it
// keeps failing; bad input and incomplete nights are exit 2, one line.
#include <gtest/gtest.h>

#include <filesystem>

#include "nightly/nightly_util.h"
#include "support/temp_dir.h"

namespace {

using nightly_test::Query;
using nightly_test::RunNightly;

class VerdictTest : public ::testing::Test {
 protected:
  VerdictTest() {
    // Wall time is judged in drill_test; here the verdict must follow the
    // deterministic findings only.
    spyre_test::WriteFile(dir_.File("thresholds.json"),
                          R"({"defaults": {"wall_min_abs_us": 1e12}})");
  }
  std::map<std::string, std::string> Env(const std::string& faults = "") {
    return nightly_test::NightlyEnv(
        {{"SPYRE_REGRESS_THRESHOLDS", dir_.File("thresholds.json")}, {"SPYRE_EMU_FAULTS", faults}});
  }
  spyre_test::TempDir dir_;
};

TEST_F(VerdictTest, AFailingCaseIsNewsOnceAndNotWhileItKeepsFailing) {
  const std::string store = dir_.File("history.db");
  auto first = RunNightly({"--suites", "smoke", store, dir_.File("r1")}, Env("mm:nan"));
  ASSERT_EQ(first.exit_code, 1) << first.out << first.err;
  const std::string failing =
      Query(store, "SELECT count(*) FROM v_results WHERE run_id = 1 AND status <> 'passed'").at(0);
  ASSERT_NE(failing, "0");
  EXPECT_NE(first.out.find("no baseline (first night in this store)"), std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("failing cases: " + failing + ", of which new: " + failing),
            std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("Nightly verdict: regressed"), std::string::npos);
  // Judged at the night's own minimum wall-time effect, 3% by default, on
  // top of the thresholds in force (whose other settings it keeps); the file
  // it was judged with is beside the reports.
  EXPECT_NE(first.out.find("smallest wall-time change reported: 3%"), std::string::npos)
      << first.out;
  const std::string judged = spyre_test::ReadFile(dir_.File("r1/thresholds.json"));
  EXPECT_NE(judged.find("\"wall_min_effect\":0.03"), std::string::npos) << judged;
  EXPECT_NE(judged.find("\"wall_min_abs_us\":1e12"), std::string::npos) << judged;

  auto second = RunNightly({"--suites", "smoke", store, dir_.File("r2")}, Env("mm:nan"));
  EXPECT_EQ(second.exit_code, 0) << second.out << second.err;
  EXPECT_NE(second.out.find("failing cases: " + failing + ", of which new: 0"), std::string::npos)
      << second.out;
  EXPECT_NE(second.out.find("regressions against baseline run 1: 0"), std::string::npos)
      << second.out;

  auto env = Env();
  env["NIGHTLY_MIN_EFFECT"] = "0.08";
  auto fixed = RunNightly({"--suites", "smoke", store, dir_.File("r3")}, env);
  EXPECT_EQ(fixed.exit_code, 0) << fixed.out << fixed.err;
  EXPECT_NE(fixed.out.find("failing cases: 0, of which new: 0"), std::string::npos) << fixed.out;
  EXPECT_NE(fixed.out.find("Nightly verdict: clean"), std::string::npos) << fixed.out;
  EXPECT_NE(fixed.out.find("smallest wall-time change reported: 8%"), std::string::npos)
      << fixed.out;
}

TEST_F(VerdictTest, BadInputAndIncompleteNightsAreExit2) {
  const std::string store = dir_.File("history.db");
  struct Case {
    std::vector<std::string> args;
    const char* says;
  } cases[] = {
      {{store}, "usage: ci/nightly"},
      {{"--tag", store, dir_.File("r")}, "usage: ci/nightly"},
      {{"--frobnicate", store, dir_.File("r")}, "unknown option '--frobnicate'"},
      {{"shard", "3", dir_.File("s.db")}, "is not I/N"},
      {{"merge", store, dir_.File("r"), "g", dir_.File("missing.db")}, "does not exist"},
      {{"--suites", "no_such_suite", store, dir_.File("r")}, "shard 1/1 failed"},
  };
  for (const Case& c : cases) {
    auto r = RunNightly(c.args, Env());
    EXPECT_EQ(r.exit_code, 2) << c.says << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
  }
  // A minimum effect that is not a fraction: refused before anything is merged.
  for (const char* effect : {"3%", "5", "0"}) {
    auto env = Env();
    env["NIGHTLY_MIN_EFFECT"] = effect;
    auto r = RunNightly({"--suites", "smoke", store, dir_.File("r")}, env);
    EXPECT_EQ(r.exit_code, 2) << effect << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(std::string("NIGHTLY_MIN_EFFECT=") + effect + " is not a fraction"),
              std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(std::filesystem::exists(store));
  // Half a night: shard 1 of 2 only.
  auto shard = RunNightly({"shard", "1/2", dir_.File("s1.db"), "--suites", "smoke"}, Env());
  ASSERT_EQ(shard.exit_code, 0) << shard.err;
  auto again = RunNightly({"shard", "1/2", dir_.File("s1.db"), "--suites", "smoke"}, Env());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
  auto merge = RunNightly({"merge", store, dir_.File("r"), "night-1", dir_.File("s1.db")}, Env());
  EXPECT_EQ(merge.exit_code, 2) << merge.out;
  EXPECT_NE(merge.err.find("missing shard(s) 2/2"), std::string::npos) << merge.err;
  EXPECT_EQ(Query(store, "SELECT status FROM v_runs"), std::vector<std::string>{"aborted"});
}

}  // namespace
