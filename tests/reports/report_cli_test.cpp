// `spyre-regress report`: the built CLI end to end over the fixture store.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "fixture_store.h"
#include "harness/store.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace reports_test {
namespace {

using spyre_test::RunCli;

TEST(ReportCliTest, WritesAllFourFilesForTheLatestRun) {
  spyre_test::TempDir dir;
  BuildFixtureStore(dir.File("store.db"));
  auto r = RunCli({"--db", dir.File("store.db"), "report", "--out", dir.File("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("run 8 failed"), std::string::npos) << r.out;
  for (const char* f : {"index.html", "junit.xml", "summary.md", "report.json"}) {
    EXPECT_TRUE(std::filesystem::is_regular_file(dir.File("out/") + f)) << f;
    EXPECT_FALSE(std::filesystem::exists(dir.File("out/") + f + ".tmp")) << f;
  }
  const auto j = nlohmann::json::parse(spyre_test::ReadFile(dir.File("out/report.json")));
  EXPECT_EQ(j["verdict"], "failed");
  EXPECT_EQ(j["run"]["run_id"], 8);
  const auto& c = j["comparison"];  // the contract's compare --json shape
  EXPECT_EQ(c["baseline"]["run_id"], 5);
  EXPECT_EQ(c["candidate"]["run_id"], 8);
  ASSERT_TRUE(c["env_diff"].is_array());
  ASSERT_FALSE(c["regressions"].empty());
  for (const char* k :
       {"suite", "case", "kind", "metric", "baseline", "candidate", "ratio", "detail"}) {
    EXPECT_TRUE(c["regressions"][0].contains(k)) << k;
  }
  EXPECT_TRUE(c["improvements"].is_array());
}

TEST(ReportCliTest, ReportsAChosenRun) {
  spyre_test::TempDir dir;
  BuildFixtureStore(dir.File("store.db"));
  auto r = RunCli({"--db", dir.File("store.db"), "report", "--run", "3", "--out", dir.File("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(spyre_test::ReadFile(dir.File("out/report.json")));
  EXPECT_EQ(j["run"]["run_id"], 3);
  EXPECT_EQ(j["verdict"], "passed");
}

void ExpectOneLineError(const spyre_test::CommandResult& r, const std::string& needle) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

TEST(ReportCliTest, ErrorsAreOneLineAndExitTwo) {
  spyre_test::TempDir dir;
  BuildFixtureStore(dir.File("store.db"));
  ExpectOneLineError(
      RunCli({"--db", dir.File("store.db"), "report", "--run", "99", "--out", dir.File("o")}),
      "run 99");
  ExpectOneLineError(
      RunCli({"--db", dir.File("store.db"), "report", "--run", "x1", "--out", dir.File("o")}),
      "x1");
  {
    auto empty = harness::Store::Open(dir.File("empty.db"));
    ASSERT_TRUE(empty.ok());
  }
  ExpectOneLineError(RunCli({"--db", dir.File("empty.db"), "report", "--out", dir.File("o")}),
                     "no runs");
  ExpectOneLineError(RunCli({"--db", dir.File("missing.db"), "report", "--out", dir.File("o")}),
                     "missing.db");
  spyre_test::WriteFile(dir.File("file"), "x");
  ExpectOneLineError(
      RunCli({"--db", dir.File("store.db"), "report", "--out", dir.File("file/sub")}), "file/sub");
}

}  // namespace
}  // namespace reports_test
