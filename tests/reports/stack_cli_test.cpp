// `report --stacks` end to end through the built CLI: the three files and
// nothing else, a chosen baseline stack, one line and exit 2 for a store
// without stack tags, an unknown stack and options that do not go together.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "store/store.h"
#include "stack_fixture.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

// Its own namespace: unity builds put test files together.
namespace reports_test::stack_cli_test {
namespace {

TEST(StackReportCliTest, WritesTheThreeStackFilesAndNothingElse) {
  spyre_test::TempDir dir;
  BuildStackStore(dir.File("stacks.db"));
  auto r = spyre_test::RunCli(
      {"--db", dir.File("stacks.db"), "report", "--stacks", "--out", dir.File("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("3 stacks, baseline debian-12"), std::string::npos) << r.out;
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir.File("out")))
    files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  EXPECT_EQ(files, (std::vector<std::string>{"stacks.html", "stacks.json", "stacks.md"}));
  const auto j = nlohmann::json::parse(spyre_test::ReadFile(dir.File("out/stacks.json")));
  EXPECT_EQ(j["baseline_stack"], "debian-12");

  r = spyre_test::RunCli({"--db", dir.File("stacks.db"), "report", "--stacks", "--baseline-stack",
                          "fedora-40", "--out", dir.File("out2")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j2 = nlohmann::json::parse(spyre_test::ReadFile(dir.File("out2/stacks.json")));
  EXPECT_EQ(j2["baseline_stack"], "fedora-40");
  EXPECT_EQ(j2["stacks"][0]["name"], "fedora-40");
}

void ExpectOneLine(const spyre_test::CommandResult& r, const std::vector<std::string>& needles) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
  for (const std::string& n : needles) EXPECT_NE(r.err.find(n), std::string::npos) << r.err;
}

TEST(StackReportCliTest, AStoreWithoutStackTagsIsOneLineSayingHowToTagRuns) {
  spyre_test::TempDir dir;
  {
    auto store = harness::Store::Open(dir.File("plain.db"));
    ASSERT_TRUE(store.ok());
    harness::NewRun info;
    info.suite = "ops";
    info.env_json = R"({"libtorch": "1.13.0", "tags": {"vllm": "0.6.3"}})";
    auto id = (*store)->BeginRun(info);
    ASSERT_TRUE(id.ok());
    harness::CaseResult c;
    c.suite = "ops";
    c.case_id = "mm.64x64x64.fp16";
    c.status = harness::CaseStatus::kPassed;
    ASSERT_TRUE((*store)->RecordResult(*id, c).ok());
    ASSERT_TRUE((*store)->FinishRun(*id, harness::RunStatus::kCompleted).ok());
  }
  auto r = spyre_test::RunCli(
      {"--db", dir.File("plain.db"), "report", "--stacks", "--out", dir.File("out")});
  ExpectOneLine(r, {"no completed run carries a `stack` tag", "run --tag stack=NAME"});
  EXPECT_FALSE(std::filesystem::exists(dir.File("out/stacks.json")));
}

TEST(StackReportCliTest, OptionsThatDoNotGoTogetherAreOneLine) {
  spyre_test::TempDir dir;
  BuildStackStore(dir.File("stacks.db"));
  const std::string db = dir.File("stacks.db"), out = dir.File("out");
  ExpectOneLine(spyre_test::RunCli(
                    {"--db", db, "report", "--stacks", "--baseline-stack", "arch", "--out", out}),
                {"'arch'", "debian-12, ubuntu-24, fedora-40"});
  ExpectOneLine(spyre_test::RunCli({"--db", db, "report", "--stacks", "--run", "2", "--out", out}),
                {"--run and --stacks"});
  ExpectOneLine(
      spyre_test::RunCli({"--db", db, "report", "--baseline-stack", "debian-12", "--out", out}),
      {"--baseline-stack goes with --stacks"});
  // Without --stacks, report is the run report it always was.
  auto r = spyre_test::RunCli({"--db", db, "report", "--run", "2", "--out", dir.File("run")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.File("run/index.html")));
  EXPECT_FALSE(std::filesystem::exists(dir.File("run/stacks.html")));
}

}  // namespace
}  // namespace reports_test::stack_cli_test
