// Unit tests of the SQLite store on temporary files: schema and migrations,
// the contract's views, result round trip, abandoned runs, concurrent
// writers, and the failure modes that must never destroy data.
#include "store/store.h"
#include "sql.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "store_test_util.h"
#include "support/temp_dir.h"

namespace harness {
namespace {

using spyre_test::TempDir;
using test_util::Column;
using test_util::ColumnNames;
using test_util::MakeResult;
using test_util::OpenOrDie;
using test_util::QueryInt;
using test_util::QueryText;

TEST(StoreTest, FreshStoreHasLatestSchemaAndWal) {
  TempDir dir;
  auto store = OpenOrDie(dir.File("s.db"));
  EXPECT_EQ(*store->SchemaVersion(), Store::LatestSchemaVersion());
  EXPECT_EQ(QueryText(harness::store_internal::Access::Db(*store), "PRAGMA journal_mode"), "wal");
  // Reopening applies nothing twice.
  store.reset();
  store = OpenOrDie(dir.File("s.db"));
  EXPECT_EQ(
      QueryInt(harness::store_internal::Access::Db(*store), "SELECT count(*) FROM schema_version"),
      Store::LatestSchemaVersion());
}

TEST(StoreTest, ViewsHaveTheContractColumns) {
  TempDir dir;
  auto store = OpenOrDie(dir.File("s.db"));
  EXPECT_EQ(
      ColumnNames(harness::store_internal::Access::Db(*store), "v_runs"),
      (std::vector<std::string>{"run_id", "suite", "label", "status", "started_at", "finished_at",
                                "fingerprint", "env_json", "device", "device_name",
                                "device_version", "device_path", "device_sha256", "uuid", "shard",
                                "shard_group", "jobs", "threads", "host", "note",
                                "options_json"}));
  EXPECT_EQ(ColumnNames(harness::store_internal::Access::Db(*store), "v_results"),
            (std::vector<std::string>{"run_id", "suite", "case_name", "status", "max_abs_err",
                                      "rel_l2", "max_ulp", "cosine", "wall_us_median", "modeled_us",
                                      "fallback_ops", "peak_device_bytes", "message",
                                      "max_rel_err", "wall_us_mad", "wall_samples",
                                      "unqueued_us_median", "recorded_at", "extra_json"}));
  EXPECT_EQ(ColumnNames(harness::store_internal::Access::Db(*store), "v_regressions"),
            (std::vector<std::string>{"run_id", "baseline_run_id", "suite", "case_name", "kind",
                                      "metric", "baseline_value", "candidate_value", "ratio"}));
  EXPECT_EQ(ColumnNames(harness::store_internal::Access::Db(*store), "v_op_summaries"),
            (std::vector<std::string>{"run_id", "suite", "case_name", "op", "calls", "modeled_us",
                                      "wall_us", "fallbacks"}));
  EXPECT_EQ(ColumnNames(harness::store_internal::Access::Db(*store), "v_run_parts"),
            (std::vector<std::string>{"run_id", "uuid", "shard", "status", "started_at",
                                      "finished_at", "host", "fingerprint", "note"}));
}

TEST(StoreTest, NewerSchemaIsRefusedAndLeftAlone) {
  TempDir dir;
  {
    auto store = OpenOrDie(dir.File("s.db"));
    ASSERT_EQ(
        sqlite3_exec(harness::store_internal::Access::Db(*store),
                     "INSERT INTO schema_version VALUES (99, 'future')", nullptr, nullptr, nullptr),
        SQLITE_OK);
  }
  auto again = Store::Open(dir.File("s.db"));
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("newer than this spyre-regress"), std::string::npos)
      << again.status().message();
}

TEST(StoreTest, RunAndResultRoundTrip) {
  TempDir dir;
  auto store = OpenOrDie(dir.File("s.db"));
  NewRun run;
  run.suite = "smoke";
  run.label = "it's \"quoted\"; DROP TABLE runs; --";  // bound, never spliced
  run.fingerprint = "abcd";
  run.env_json = R"({"libtorch":"1.13.0"})";
  auto id = store->BeginRun(run);
  ASSERT_TRUE(id.ok()) << id.status().message();
  CaseResult r = MakeResult("smoke", "mm.f16", CaseStatus::kPassed, 3);
  r.cosine = std::nan("");
  ASSERT_TRUE(store->RecordResult(*id, r).ok());
  ASSERT_TRUE(store->FinishRun(*id, RunStatus::kCompleted).ok());

  sqlite3* db = harness::store_internal::Access::Db(*store);
  EXPECT_EQ(QueryText(db, "SELECT label FROM v_runs"), run.label);
  EXPECT_EQ(QueryText(db, "SELECT status FROM v_runs"), "completed");
  EXPECT_EQ(QueryText(db, "SELECT status FROM v_results WHERE case_name = 'mm.f16'"), "passed");
  EXPECT_EQ(QueryInt(db, "SELECT cosine IS NULL FROM v_results"), 1);          // NaN -> NULL
  EXPECT_DOUBLE_EQ(Column(db, "SELECT wall_us_median FROM v_results"), 20.0);  // samples 10, 20, 30
  EXPECT_DOUBLE_EQ(Column(db, "SELECT wall_us_mad FROM results"), 10.0);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM wall_samples"), 3);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM metrics"), 3);
  EXPECT_EQ(QueryInt(db, "SELECT calls FROM op_summaries WHERE op = 'mm'"), 2);
  EXPECT_DOUBLE_EQ(Column(db, "SELECT modeled_us FROM op_summaries WHERE op = 'mm'"), 7.5);
  // An op listed twice in a summary is folded, not an error.
  CaseResult twice = MakeResult("smoke", "twice", CaseStatus::kPassed, 0);
  twice.ops.push_back({"mm", 3, 2.5, 1.0, 1});
  ASSERT_TRUE(store->RecordResult(*id, twice).ok());
  EXPECT_EQ(
      QueryText(db,
                "SELECT o.calls || '|' || o.modeled_us || '|' || o.fallbacks FROM op_summaries o"
                " JOIN results r ON r.id = o.result_id WHERE r.case_name = 'twice' AND op = 'mm'"),
      "5|10.0|1");
  // The views show the same.
  EXPECT_EQ(QueryText(db, "SELECT wall_us_mad || '|' || wall_samples || '|' ||"
                          " ifnull(max_rel_err, '-') || '|' || message FROM v_results"
                          " WHERE case_name = 'mm.f16'"),
            "10.0|3|-|");
  EXPECT_EQ(QueryText(db, "SELECT group_concat(case_name || ':' || op || ':' || calls, ',') FROM"
                          " (SELECT * FROM v_op_summaries ORDER BY case_name, op)"),
            "mm.f16:add:1,mm.f16:mm:2,twice:add:1,twice:mm:5");
  EXPECT_EQ(QueryText(db, "SELECT jobs || '|' || threads || '|' || note || '|' ||"
                          " json_valid(options_json) || '|' || (length(uuid) > 0) FROM v_runs"),
            "1|1||1|1");
  // A second result for the same case is refused.
  EXPECT_FALSE(store->RecordResult(*id, r).ok());
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM results"), 2);
}

TEST(StoreTest, AbandonedRunIsMarkedAbortedOnlyWhenItsSupervisorIsGone) {
  TempDir dir;
  int64_t dead_run = 0, live_run = 0;
  {
    auto store = OpenOrDie(dir.File("s.db"));
    NewRun run;
    run.suite = "smoke";
    dead_run = *store->BeginRun(run);
    live_run = *store->BeginRun(run);
    pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    std::string sql = "UPDATE runs SET pid = " + std::to_string(child) +
                      " WHERE id = " + std::to_string(dead_run);
    ASSERT_EQ(sqlite3_exec(harness::store_internal::Access::Db(*store), sql.c_str(), nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
  }
  {
    // Read-only: nothing is written, yet v_runs shows the abandoned run
    // aborted, with every column of the stored view.
    auto reader = Store::Open(dir.File("s.db"), Store::Mode::kReadOnly);
    ASSERT_TRUE(reader.ok()) << reader.status().message();
    sqlite3* db = harness::store_internal::Access::Db(**reader);
    EXPECT_EQ(QueryText(db, "SELECT status FROM v_runs WHERE run_id = " + std::to_string(dead_run)),
              "aborted");
    EXPECT_EQ(ColumnNames(db, "v_runs"), ColumnNames(db, "main.v_runs"));
  }
  auto store = OpenOrDie(dir.File("s.db"));
  auto dead = *store->FindRun(dead_run);
  auto live = *store->FindRun(live_run);
  EXPECT_EQ(dead->status, "aborted");
  EXPECT_NE(dead->note.find("ended without finishing"), std::string::npos);
  EXPECT_EQ(live->status, "running");  // this process still owns it
}

TEST(StoreTest, RegressionsAreReplacedPerRun) {
  TempDir dir;
  auto store = OpenOrDie(dir.File("s.db"));
  NewRun run;
  run.suite = "smoke";
  int64_t a = *store->BeginRun(run), b = *store->BeginRun(run);
  RegressionRow row{"smoke", "mm", "modeled_latency", "modeled_us", "mm 2x slower", 1.0, 2.0, 2.0, ""};
  ASSERT_TRUE(store->RecordRegressions(b, a, {row, row}).ok());
  ASSERT_TRUE(store->RecordRegressions(b, a, {row}).ok());
  EXPECT_EQ(QueryInt(harness::store_internal::Access::Db(*store),
                     "SELECT count(*) FROM v_regressions WHERE run_id = " + std::to_string(b)),
            1);
  EXPECT_DOUBLE_EQ(
      Column(harness::store_internal::Access::Db(*store), "SELECT ratio FROM v_regressions"), 2.0);
}

TEST(StoreTest, TwoWritersOnOneStoreBothComplete) {
  TempDir dir;
  OpenOrDie(dir.File("s.db"));
  auto writer = [&](const std::string& suite, int n, bool* ok) {
    auto store = Store::Open(dir.File("s.db"));
    if (!store.ok()) return;
    NewRun run;
    run.suite = suite;
    auto id = (*store)->BeginRun(run);
    if (!id.ok()) return;
    for (int i = 0; i < n; ++i) {
      if (!(*store)
               ->RecordResult(*id,
                              MakeResult(suite, "c" + std::to_string(i), CaseStatus::kPassed, 5))
               .ok())
        return;
    }
    *ok = (*store)->FinishRun(*id, RunStatus::kCompleted).ok();
  };
  bool ok_a = false, ok_b = false;
  std::thread a(writer, "a", 300, &ok_a), b(writer, "b", 300, &ok_b);
  a.join();
  b.join();
  EXPECT_TRUE(ok_a);
  EXPECT_TRUE(ok_b);
  auto store = OpenOrDie(dir.File("s.db"));
  EXPECT_EQ(QueryInt(harness::store_internal::Access::Db(*store), "SELECT count(*) FROM v_results"),
            600);
  EXPECT_EQ(QueryText(harness::store_internal::Access::Db(*store), "PRAGMA integrity_check"), "ok");
}

// Eight processes that each open the same store which does not exist yet,
// as eight `run`s started at once on a new --db do: every one must create or
// join the store, record its run and finish it. Twenty rounds, each on a new
// file, because the race is in the first moments of the file's life.
TEST(StoreTest, EightProcessesCreatingOneNewStoreAllComplete) {
  constexpr int kProcesses = 8, kRounds = 20;
  TempDir dir;
  for (int round = 0; round < kRounds; ++round) {
    const std::string path = dir.File("new" + std::to_string(round) + ".db");
    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; ++p) {
      const pid_t pid = ::fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        // The child reports one byte of outcome through its exit status.
        auto store = Store::Open(path);
        if (!store.ok()) {
          std::fprintf(stderr, "open: %s\n", store.status().message().c_str());
          ::_exit(10);
        }
        NewRun run;
        run.suite = "s" + std::to_string(p);
        auto id = (*store)->BeginRun(run);
        if (!id.ok()) {
          std::fprintf(stderr, "begin: %s\n", id.status().message().c_str());
          ::_exit(11);
        }
        if (!(*store)->RecordResult(*id, MakeResult(run.suite, "c", CaseStatus::kPassed, 3)).ok()) {
          ::_exit(12);
        }
        ::_exit((*store)->FinishRun(*id, RunStatus::kCompleted).ok() ? 0 : 13);
      }
      children.push_back(pid);
    }
    for (pid_t pid : children) {
      int status = 0;
      ASSERT_EQ(::waitpid(pid, &status, 0), pid);
      ASSERT_TRUE(WIFEXITED(status)) << "round " << round << ": a child died of a signal";
      EXPECT_EQ(WEXITSTATUS(status), 0)
          << "round " << round << " (10 open, 11 begin, 12 record, 13 finish)";
    }
    auto store = OpenOrDie(path);
    EXPECT_EQ(QueryInt(harness::store_internal::Access::Db(*store),
                       "SELECT count(*) FROM v_runs WHERE status = 'completed'"),
              kProcesses)
        << "round " << round;
    EXPECT_EQ(QueryInt(harness::store_internal::Access::Db(*store),
                       "SELECT count(*) FROM schema_version"),
              Store::LatestSchemaVersion());
    EXPECT_EQ(QueryText(harness::store_internal::Access::Db(*store), "PRAGMA journal_mode"), "wal");
    EXPECT_EQ(QueryText(harness::store_internal::Access::Db(*store), "PRAGMA integrity_check"),
              "ok");
  }
}

TEST(StoreTest, LockedStoreIsOneClearError) {
  TempDir dir;
  OpenOrDie(dir.File("s.db"));
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(dir.File("s.db").c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
  auto store = Store::Open(dir.File("s.db"), Store::Mode::kReadWrite, /*busy_timeout_ms=*/100);
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), ErrorCode::kIo);
  EXPECT_NE(store.status().message().find("is locked by another process"), std::string::npos)
      << store.status().message();
}

TEST(StoreTest, CorruptFileIsRefusedAndLeftUntouched) {
  TempDir dir;
  const std::string garbage(8192, 'x');
  spyre_test::WriteFile(dir.File("bad.db"), garbage);
  auto store = Store::Open(dir.File("bad.db"));
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("not a SQLite database or is corrupt"), std::string::npos)
      << store.status().message();
  EXPECT_EQ(spyre_test::ReadFile(dir.File("bad.db")), garbage);
  EXPECT_FALSE(std::ifstream(dir.File("bad.db-wal")).good());
}

TEST(StoreTest, UnwritableLocationIsOneClearError) {
  auto store = Store::Open("/proc/no-such-dir/s.db");
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.status().message().find("cannot open store"), std::string::npos)
      << store.status().message();
}

// A read-only file must be refused for writing before anything is written.
// Root ignores file modes, so the open is tried as an unprivileged user in a
// child process when the test runs as root.
TEST(StoreTest, ReadOnlyFileIsRefusedAndLeftUntouched) {
  TempDir dir;
  {
    auto store = OpenOrDie(dir.File("s.db"));
    NewRun run;
    run.suite = "smoke";
    ASSERT_TRUE(store->BeginRun(run).ok());
  }
  const std::string before = spyre_test::ReadFile(dir.File("s.db"));
  ::chmod(dir.path().c_str(), 0755);
  ::chmod(dir.File("s.db").c_str(), 0444);
  pid_t child = ::fork();
  if (child == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
    auto store = Store::Open(dir.File("s.db"));
    if (store.ok()) ::_exit(1);
    ::_exit(store.status().message().find("is not writable") != std::string::npos ? 0 : 2);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "1: opened anyway, 2: unclear message, 3: could not drop root";
  EXPECT_EQ(spyre_test::ReadFile(dir.File("s.db")), before);
}

TEST(StoreTest, FullDiskFailsCleanlyAndKeepsEarlierResults) {
  TempDir dir;
  auto store = OpenOrDie(dir.File("s.db"));
  NewRun run;
  run.suite = "smoke";
  int64_t id = *store->BeginRun(run);
  ASSERT_TRUE(store->RecordResult(id, MakeResult("smoke", "first", CaseStatus::kPassed, 5)).ok());
  // SQLite reports SQLITE_FULL when the page limit is reached, as on a full disk.
  const int64_t pages = QueryInt(harness::store_internal::Access::Db(*store), "PRAGMA page_count");
  std::string limit = "PRAGMA max_page_count = " + std::to_string(pages + 1);
  ASSERT_EQ(sqlite3_exec(harness::store_internal::Access::Db(*store), limit.c_str(), nullptr,
                         nullptr, nullptr),
            SQLITE_OK);
  Status last;
  for (int i = 0; i < 200 && last.ok(); ++i) {
    CaseResult big = MakeResult("smoke", "big" + std::to_string(i), CaseStatus::kPassed, 400);
    big.message = std::string(4000, 'm');
    last = store->RecordResult(id, big);
  }
  ASSERT_FALSE(last.ok());
  EXPECT_NE(last.message().find("disk full"), std::string::npos) << last.message();
  EXPECT_EQ(QueryInt(harness::store_internal::Access::Db(*store),
                     "SELECT count(*) FROM results WHERE case_name = 'first'"),
            1);
  EXPECT_EQ(QueryText(harness::store_internal::Access::Db(*store), "PRAGMA integrity_check"), "ok");
}

}  // namespace
}  // namespace harness
