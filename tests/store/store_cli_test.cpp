// The store verbs through the built CLI: a backup taken while a real `run`
// records, prune and export on a recorded run, and their bad input.
#include <sqlite3.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::RunCli;
using spyre_test::TempDir;

int64_t Count(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  int64_t n = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 5000);
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return n;
}

TEST(StoreCliTest, BackupDuringARunningRunRestoresEveryCommittedResult) {
  TempDir dir;
  const std::string db = dir.File("s.db"), copy = dir.File("copy/s.db");
  spyre_test::CommandResult run;
  std::thread runner([&] {
    run = RunCli({"--db", db, "run", "--suite", "smoke", "--baseline", "none"});
  });
  // Wait for the run to have recorded a result (it cannot finish sooner).
  int64_t seen = 0;
  for (int i = 0; i < 6000 && seen < 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    seen = Count(db, "SELECT count(*) FROM results");
  }
  ASSERT_GE(seen, 1) << "the run recorded nothing";
  std::filesystem::create_directories(dir.File("copy"));
  spyre_test::CommandResult backup = RunCli({"--db", db, "backup", "--to", copy});
  runner.join();
  ASSERT_EQ(backup.exit_code, 0) << backup.err;
  ASSERT_LE(run.exit_code, 1) << run.err;
  EXPECT_EQ(
      Count(copy, "SELECT count(*) FROM pragma_integrity_check WHERE integrity_check != 'ok'"), 0);
  EXPECT_EQ(Count(copy, "SELECT count(*) FROM runs"), 1);
  const int64_t copied = Count(copy, "SELECT count(*) FROM results");
  EXPECT_GE(copied, seen);
  EXPECT_LE(copied, Count(db, "SELECT count(*) FROM results"));
  // Each copied result is whole: its samples all there.
  EXPECT_EQ(Count(copy,
                  "SELECT count(*) FROM results r WHERE r.wall_samples !="
                  " (SELECT count(*) FROM wall_samples w WHERE w.result_id = r.id)"),
            0);
  // The copy opens as a store (the run it caught running is then aborted or completed).
  spyre_test::CommandResult runs = RunCli({"--db", copy, "runs", "--json"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_EQ(nlohmann::json::parse(runs.out)["runs"].size(), 1u);
}

TEST(StoreCliTest, PruneAndExportOnARecordedRun) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  auto run = RunCli({"--db", db, "run", "--suite", "smoke", "--filter", "add", "--baseline", "none",
                     "--rounds", "2", "--latency", "all"});
  ASSERT_LE(run.exit_code, 1) << run.err;
  auto dry = RunCli({"--db", db, "prune", "--dry-run", "--json"});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  nlohmann::json j = nlohmann::json::parse(dry.out);
  EXPECT_EQ(j["runs_examined"], 1);
  EXPECT_EQ(j["runs_compacted"], 0);  // the newest run keeps everything
  EXPECT_EQ(j["kept"][0]["why"], "one of the newest 30 runs of smoke");

  auto csv = RunCli({"--db", db, "export", "--format", "csv", "--table", "results"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("run_id,run_label,run_started_at,suite,case_name,status,", 0), 0u)
      << csv.out;
  EXPECT_EQ(spyre_test::LineCount(csv.out) - 1, Count(db, "SELECT count(*) FROM results"));
  auto jsonl =
      RunCli({"--db", db, "export", "--format", "jsonl", "--table", "metrics", "--run", "latest"});
  ASSERT_EQ(jsonl.exit_code, 0) << jsonl.err;
  EXPECT_EQ(spyre_test::LineCount(jsonl.out), Count(db, "SELECT count(*) FROM metrics"));
  auto all = RunCli({"--db", db, "export", "--format", "csv", "--out", dir.File("out")});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  for (const char* t : {"runs", "results", "metrics", "findings"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.File(std::string("out/") + t + ".csv"))) << t;
  }
}

TEST(StoreCliTest, BadInputIsOneLineAndExitTwo) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  ASSERT_LE(RunCli({"--db", db, "run", "--suite", "smoke", "--filter", "add", "--baseline", "none"})
                .exit_code,
            1);
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--db", db, "prune", "--keep-runs", "0"}, "--keep-runs"},
      {{"--db", db, "prune", "--keep-rounds", "0"}, "--keep-rounds"},
      {{"--db", db, "export", "--format", "xml"}, "--format"},
      {{"--db", db, "export", "--format", "csv", "--table", "nosuch"}, "--table"},
      {{"--db", db, "export", "--format", "csv", "--run", "99"}, "99"},
      {{"--db", db, "backup", "--to", dir.path()}, "is a directory"},
      {{"--db", db, "backup", "--to", db}, "is the store itself"},
      {{"--db", dir.File("missing.db"), "backup", "--to", dir.File("x.db")}, "does not exist"},
  };
  for (const Case& c : cases) {
    auto r = RunCli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args[2] << ": " << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_LE(spyre_test::LineCount(r.err), 2) << r.err;
  }
  // Nothing recorded was lost.
  EXPECT_EQ(Count(db, "SELECT count(*) FROM runs"), 1);
}

}  // namespace
