// End-to-end robustness of `spyre-regress run` with real fault injection
// (SPYRE_EMU_FAULTS): crashing, aborting and hanging ops, kill -9 of the
// supervisor, and Ctrl-C.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "e2e_util.h"
#include "support/temp_dir.h"

namespace runner_e2e {
namespace {

using spyre_test::RunCli;
using spyre_test::TempDir;

// Waits until `db` holds at least `n` results (or `seconds` pass).
bool WaitForResults(const std::string& db, int n, int seconds) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    auto rows = Query(db, "SELECT count(*) FROM v_results");
    if (!rows.empty() && rows[0].find('<') == std::string::npos && std::stoi(rows[0]) >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

// segv on mm, abort on sum, hang on gelu: their cases are crashed / crashed /
// timeout, every other case passes, and the run completes.
TEST(RobustnessE2E, CrashingAbortingAndHangingOpsAreRecordedAndTheRunCompletes) {
  TempDir dir;
  const auto cases = SuiteCases("smoke");
  std::map<std::string, std::string> expected;  // case -> status
  for (const auto& [id, op] : cases) {
    expected[id] = op == "mm" ? "crashed" : op == "sum" ? "crashed" : op == "gelu" ? "timeout" : "passed";
  }
  auto r = RunCli({"run", "--suite", "smoke", "--jobs", "2", "--timeout", "3", "--db", dir.File("s.db")},
                  {{"SPYRE_EMU_FAULTS", "mm:segv;sum:abort;gelu:hang"}});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const std::string db = dir.File("s.db");
  EXPECT_EQ(One(db, "SELECT status FROM v_runs"), "completed");
  std::map<std::string, std::string> got;
  for (const auto& row : Query(db, "SELECT case_name || '|' || status FROM v_results")) {
    got[row.substr(0, row.find('|'))] = row.substr(row.find('|') + 1);
  }
  EXPECT_EQ(got, expected);
  for (const auto& row : Query(db, "SELECT message FROM v_results WHERE status = 'crashed'")) {
    EXPECT_TRUE(row.find("SIGSEGV") != std::string::npos || row.find("SIGABRT") != std::string::npos) << row;
  }
  EXPECT_EQ(One(db, "SELECT json_extract(env_json, '$.faults') FROM v_runs"), "mm:segv;sum:abort;gelu:hang");
  auto lines = Lines(r.out);
  ASSERT_GE(lines.size(), 2u);
  int not_passed = 0;
  for (const auto& [id, s] : expected) not_passed += s != "passed";
  EXPECT_EQ(lines[lines.size() - 2],
            std::to_string(cases.size() - not_passed) + " passed, " + std::to_string(not_passed) + " failed");
}

// kill -9 of the supervisor mid-run: the store stays consistent, and the next
// command that opens it marks the run aborted (its supervisor is gone).
TEST(RobustnessE2E, KilledSupervisorLeavesAConsistentStoreAndAnAbortedRun) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  {
    // gelu hangs with a long timeout, so the run is surely mid-way when killed.
    BackgroundCli run({"run", "--suite", "smoke", "--timeout", "120", "--db", db},
                      {{"SPYRE_EMU_FAULTS", "gelu:hang"}});
    ASSERT_TRUE(WaitForResults(db, 3, 120));
    ::kill(run.pid(), SIGKILL);
    EXPECT_EQ(run.Wait(), 128 + SIGKILL);
  }
  EXPECT_EQ(One(db, "PRAGMA integrity_check"), "ok");
  EXPECT_EQ(One(db, "SELECT status FROM v_runs WHERE run_id = 1"), "running");  // nobody has looked yet
  auto next = RunCli({"run", "--suite", "smoke", "--filter", "^smoke/exp$", "--quiet", "--db", db});
  EXPECT_EQ(next.exit_code, 0) << next.err;
  EXPECT_EQ(One(db, "SELECT status FROM v_runs WHERE run_id = 1"), "aborted");
  EXPECT_EQ(One(db, "SELECT status FROM v_runs WHERE run_id = 2"), "completed");
  EXPECT_GE(std::stoi(One(db, "SELECT count(*) FROM v_results WHERE run_id = 1")), 3);
}

// Ctrl-C: the workers end, the run is marked aborted with what was recorded.
TEST(RobustnessE2E, InterruptMarksTheRunAbortedAndKeepsResults) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  BackgroundCli run({"run", "--suite", "smoke", "--timeout", "120", "--db", db},
                    {{"SPYRE_EMU_FAULTS", "gelu:hang"}});
  ASSERT_TRUE(WaitForResults(db, 3, 120));
  ::kill(run.pid(), SIGINT);
  EXPECT_EQ(run.Wait(), 2);
  EXPECT_EQ(One(db, "SELECT status FROM v_runs"), "aborted");
  EXPECT_GE(std::stoi(One(db, "SELECT count(*) FROM v_results")), 3);
  EXPECT_EQ(One(db, "PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace runner_e2e
