// `spyre-regress report`: the built CLI end to end over the fixture store.
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "fixture_store.h"
#include "store/store.h"
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
  }
  // Written aside and renamed: the four files and nothing else.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.File("out")), {}), 4);
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

namespace reports_test {
namespace {

// Runs one statement on the store (to put a run in the state a killed or
// interrupted supervisor leaves behind).
void Sql(const std::string& db_path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  char* msg = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg);
  const std::string error = msg != nullptr ? msg : "";
  sqlite3_free(msg);
  sqlite3_close(db);
  ASSERT_EQ(rc, SQLITE_OK) << error;
}

// A run that did not complete is never reported as passed, in any format,
// and `report` exits non-zero for it.
void ExpectNoVerdict(const std::string& db, const std::string& run, const std::string& out,
                     const std::string& verdict, const std::string& why) {
  std::vector<std::string> args = {"--db", db, "report", "--out", out};
  if (!run.empty()) args.insert(args.end(), {"--run", run});
  auto r = RunCli(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  EXPECT_NE(r.out.find(" " + verdict + ": wrote"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(spyre_test::ReadFile(out + "/report.json"));
  EXPECT_EQ(j["verdict"], verdict);
  EXPECT_NE(j["incomplete"].get<std::string>().find(why), std::string::npos) << j["incomplete"];
  const std::string junit = spyre_test::ReadFile(out + "/junit.xml");
  const size_t top = junit.find("<testsuites ");
  ASSERT_NE(top, std::string::npos) << junit.substr(0, 300);
  const std::string top_line = junit.substr(top, junit.find('\n', top) - top);
  EXPECT_EQ(top_line.find(" errors=\"0\""), std::string::npos) << top_line;  // CI shows it red
  EXPECT_NE(junit.find("type=\"" + verdict + "\""), std::string::npos);
  EXPECT_NE(spyre_test::ReadFile(out + "/summary.md").find(": **" + verdict + "**"),
            std::string::npos);
  EXPECT_NE(spyre_test::ReadFile(out + "/summary.md").find("Not a verdict"), std::string::npos);
  EXPECT_NE(spyre_test::ReadFile(out + "/index.html").find("verdict verdict-" + verdict),
            std::string::npos);
}

TEST(ReportCliTest, AnAbortedRunIsReportedAsAbortedInEveryFormat) {
  spyre_test::TempDir dir;
  BuildFixtureStore(dir.File("store.db"));
  Sql(dir.File("store.db"),
      "UPDATE runs SET status = 'aborted', note = 'interrupted by signal 15' WHERE id = 3");
  ExpectNoVerdict(dir.File("store.db"), "3", dir.File("out"), "aborted",
                  "interrupted by signal 15");
}

TEST(ReportCliTest, TheLatestRunLeftRunningByAKilledSupervisorIsNotAPass) {
  spyre_test::TempDir dir;
  BuildFixtureStore(dir.File("store.db"));
  // What kill -9 leaves: still `running`, its pid gone (this host).
  Sql(dir.File("store.db"),
      "UPDATE runs SET status = 'running', finished_at = NULL, pid = 2147483646, pid_start = 1 "
      "WHERE id = 8");
  // Read-only, the report cannot record it aborted, but it says so.
  ExpectNoVerdict(dir.File("store.db"), "", dir.File("out"), "aborted", "supervisor is gone");
}

TEST(ReportCliTest, ACompletedRunMissingPlannedCasesIsPartial) {
  spyre_test::TempDir dir;
  BuildFixtureStore(dir.File("store.db"));
  Sql(dir.File("store.db"), "UPDATE runs SET options_json = '{\"cases\": 100}' WHERE id = 3");
  ExpectNoVerdict(dir.File("store.db"), "3", dir.File("out"), "partial",
                  "of 100 planned cases recorded");
}

TEST(ReportCliTest, CompareWarnsAboutARunThatDidNotCompleteAndRefusesAnUnrelatedBaseline) {
  spyre_test::TempDir dir;
  BuildFixtureStore(dir.File("store.db"));
  Sql(dir.File("store.db"),
      "UPDATE runs SET status = 'aborted', note = 'interrupted by signal 2' WHERE id = 8");
  auto r = RunCli({"--db", dir.File("store.db"), "compare", "--baseline", "5", "--candidate", "8"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("run 8 was aborted (interrupted by signal 2)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("candidate aborted, recorded cases only"), std::string::npos) << r.out;
  r = RunCli({"--db", dir.File("store.db"), "compare", "--baseline", "8", "--candidate", "5"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("a baseline must be a completed run"), std::string::npos) << r.err;
  // A baseline sharing no case with the candidate.
  Sql(dir.File("store.db"),
      "UPDATE results SET case_name = case_name || '-renamed' WHERE run_id = 5");
  r = RunCli({"--db", dir.File("store.db"), "compare", "--baseline", "5", "--candidate", "6"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("share no case"), std::string::npos) << r.err;
}

// The report shows the findings the run recorded, not a new judgement
// with the thresholds of the day: a thresholds file that would clear every
// finding changes nothing in the report of an already judged run.
TEST(ReportCliTest, TheReportShowsTheRecordedFindingsWhateverTheThresholdsSayToday) {
  spyre_test::TempDir dir;
  BuildFixtureStore(dir.File("store.db"));
  auto before = RunCli({"--db", dir.File("store.db"), "report", "--out", dir.File("a")});
  ASSERT_EQ(before.exit_code, 0) << before.err;
  const auto a = nlohmann::json::parse(spyre_test::ReadFile(dir.File("a/report.json")));
  ASSERT_FALSE(a["comparison"]["regressions"].empty());
  {
    std::ofstream lenient(dir.File("lenient.json"));
    lenient << R"({"defaults": {"modeled_latency": 1000, "wall_min_effect": 1000, "memory": 1000,
                  "fallback": 1000, "accuracy_rel_margin": 1000, "accuracy_abs_margin": 1000,
                  "ulp_margin": 1000}})";
  }
  // Judged again with these, the modeled and wall findings would all go.
  auto compared = RunCli({"--db", dir.File("store.db"), "compare", "--baseline", "5", "--candidate", "8", "--json"},
                         {{"SPYRE_REGRESS_THRESHOLDS", dir.File("lenient.json")}});
  const auto c = nlohmann::json::parse(compared.out);
  ASSERT_LT(c["regressions"].size(), a["comparison"]["regressions"].size()) << compared.out;
  auto after = RunCli({"--db", dir.File("store.db"), "report", "--out", dir.File("b")},
                      {{"SPYRE_REGRESS_THRESHOLDS", dir.File("lenient.json")}});
  ASSERT_EQ(after.exit_code, 0) << after.err;
  const auto b = nlohmann::json::parse(spyre_test::ReadFile(dir.File("b/report.json")));
  EXPECT_EQ(b["comparison"]["regressions"], a["comparison"]["regressions"]);
  EXPECT_EQ(b["verdict"], a["verdict"]);
  // What the report judges afresh (improvements, notes, detection power)
  // it judges with the thresholds in force, as `compare` does.
  ASSERT_FALSE(c["power"].empty()) << compared.out;
  EXPECT_EQ(b["comparison"]["power"], c["power"]);
  EXPECT_NE(b["comparison"]["power"], a["comparison"]["power"]);
  EXPECT_EQ(b["comparison"]["improvements"], c["improvements"]);
}

// A store on read-only media: WAL mode, its directory not writable, so no
// -shm can be created. Reading it must still work.
TEST(ReportCliTest, ReadOnlyVerbsReadAWalStoreInAReadOnlyDirectory) {
  spyre_test::TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  std::filesystem::create_directories(dir.File("ro"));
  BuildFixtureStore(dir.File("ro/store.db"));
  ASSERT_FALSE(std::filesystem::exists(dir.File("ro/store.db-wal")));
  std::filesystem::create_directories(dir.File("out"));
  ::chmod(dir.File("out").c_str(), 0777);
  ::chmod(dir.File("ro/store.db").c_str(), 0444);
  ::chmod(dir.File("ro").c_str(), 0555);
  // root writes anywhere: the commands then run as nobody.
  std::vector<std::string> prefix;
  if (::geteuid() == 0)
    prefix = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
  ASSERT_TRUE(prefix.empty() || std::filesystem::exists(prefix[0])) << "needs setpriv to drop root";
  auto cli = [&](std::vector<std::string> args) {
    std::vector<std::string> argv = prefix;
    argv.push_back(SPYRE_REGRESS_BIN);
    argv.insert(argv.end(), args.begin(), args.end());
    return spyre_test::RunCommand(argv);
  };
  auto r =
      cli({"--db", dir.File("ro/store.db"), "report", "--run", "3", "--out", dir.File("out/r")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::exists(dir.File("out/r/report.json")));
  r = cli({"--db", dir.File("ro/store.db"), "history", "--suite", "ops"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = cli({"--db", dir.File("ro/store.db"), "compare", "--baseline", "5", "--candidate", "6"});
  EXPECT_LE(r.exit_code, 1) << r.err;
  // Writing is refused with one line, and the store is left as it was.
  r = cli({"--db", dir.File("ro/store.db"), "merge", "--into", dir.File("ro/store.db"),
           dir.File("ro/store.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
  EXPECT_EQ(r.err.find("not an error"), std::string::npos) << r.err;
  ::chmod(dir.File("ro").c_str(), 0755);
}

// A tag value written as a Markdown link stays text in summary.md.
TEST(ReportCliTest, MarkdownLinkSyntaxInATagIsNotALiveLink) {
  spyre_test::TempDir dir;
  BuildFixtureStore(dir.File("store.db"));
  Sql(dir.File("store.db"),
      "UPDATE runs SET env_json = json_set(env_json, '$.tags.vllm', '[click](https://evil.example) "
      "![img](https://evil.example/x.png)') WHERE id = 8");
  auto r = RunCli({"--db", dir.File("store.db"), "report", "--run", "8", "--out", dir.File("out")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string md = spyre_test::ReadFile(dir.File("out/summary.md"));
  EXPECT_NE(md.find("evil.example"), std::string::npos) << md;  // shown...
  EXPECT_EQ(md.find("[click]("), std::string::npos) << md;      // ...never as a link
  EXPECT_EQ(md.find("![img]("), std::string::npos) << md;
  EXPECT_NE(md.find("\\[click\\](https://evil.example)"), std::string::npos) << md;
}

}  // namespace
}  // namespace reports_test
