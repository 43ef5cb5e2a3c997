// Shard groups in the store: schema version 2 upgrades an old store in place
// (once), version 3 adds the run-queue wait beside each wall sample, and
// Store::MergeGroupFrom folds the shard runs of one night into one
// run, refusing what would corrupt it.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include "store/store.h"
#include "store/store_history.h"
#include "store_test_util.h"
#include "schema.h"
#include "sql.h"
#include "support/temp_dir.h"

namespace harness {
namespace {

using spyre_test::TempDir;
using test_util::MakeResult;
using test_util::OpenOrDie;
using test_util::QueryInt;
using test_util::QueryText;

constexpr const char* kEnv =
    R"({"blas": {"name": "OpenBLAS", "threads": 2}, "cpu": "A", "profile": "inductor"})";

// A shard store holding one run of `cases` of the nightly's suites, sharded `shard`.
void WriteGroupShard(const std::string& path, const std::string& shard,
                     const std::vector<std::string>& cases, const std::string& env = kEnv,
                     RunStatus status = RunStatus::kCompleted) {
  test_util::WriteShard(path, shard, cases, {"ops,decode", "ops", "nightly", env, "f", status});
}

// A store as spyre-regress wrote it before shard groups: schema version 1 and
// one completed run with one result, written with version 1's own SQL.
void WriteVersion1Store(const std::string& path) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  const std::string sql =
      std::string(store_internal::Migrations()[0]) +
      "CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at TEXT NOT NULL);"
      "INSERT INTO schema_version VALUES (1, '2026-11-01T00:00:00.000Z');"
      "INSERT INTO runs (uuid, suite, status, started_at, finished_at, fingerprint, env_json)"
      " VALUES ('u-old', 'ops', 'completed', '2026-11-01T01:00:00.000Z',"
      " '2026-11-01T01:05:00.000Z', 'f', '{}');"
      "INSERT INTO results (run_id, suite, case_name, status, recorded_at, wall_us_median)"
      " VALUES (1, 'ops', 'mm', 'passed', '2026-11-01T01:01:00.000Z', 20);"
      "INSERT INTO wall_samples (result_id, idx, wall_us) VALUES (1, 0, 10), (1, 1, 20), (1, 2, "
      "30);";
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_close(db);
}

TEST(StoreGroupTest, Version1StoreUpgradesOnceAndKeepsItsRuns) {
  const int latest = Store::LatestSchemaVersion();
  ASSERT_GE(latest, 2);
  TempDir dir;
  WriteVersion1Store(dir.File("old.db"));
  // A version-1 store cannot be read as it is: read-only opens do not migrate.
  auto read_only = Store::Open(dir.File("old.db"), Store::Mode::kReadOnly);
  ASSERT_FALSE(read_only.ok());
  EXPECT_NE(read_only.status().message().find("open it read-write once"), std::string::npos);
  for (int open = 0; open < 2; ++open) {  // the second open finds nothing to do
    auto store = OpenOrDie(dir.File("old.db"));
    sqlite3* db = harness::store_internal::Access::Db(*store);
    EXPECT_EQ(*store->SchemaVersion(), latest);
    std::string every;  // each migration applied once, in order
    for (int v = 1; v <= latest; ++v) every += (v > 1 ? "," : "") + std::to_string(v);
    EXPECT_EQ(QueryText(db, "SELECT group_concat(version, ',') FROM schema_version"), every);
    EXPECT_EQ(QueryText(db, "SELECT run_id || ' ' || suite || ' ' || status FROM v_runs"),
              "1 ops completed");
    // Recorded before the device was part of the fingerprint: the emulator.
    EXPECT_EQ(QueryText(db, "SELECT device || ' ' || device_name FROM v_runs"),
              "emulator spyre_emu");
    EXPECT_EQ(QueryText(db, "SELECT case_name FROM v_results WHERE run_id = 1"), "mm");
    auto run = store->FindRun(1);
    ASSERT_TRUE(run.ok() && run->has_value());
    EXPECT_EQ((*run)->shard_group, "");
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM run_parts"), 0);
  }
}

TEST(StoreGroupTest, OlderWallSamplesReadBackWithoutRunQueueWaitsAndNewOnesKeepThem) {
  TempDir dir;
  WriteVersion1Store(dir.File("old.db"));
  auto store = OpenOrDie(dir.File("old.db"));
  sqlite3* db = harness::store_internal::Access::Db(*store);
  // The old result: wall samples as recorded, no waits, judged on wall time.
  auto old_run = LoadRunRecord(*store, 1);
  ASSERT_TRUE(old_run.ok()) << old_run.status().message();
  ASSERT_EQ(old_run->cases.size(), 1u);
  EXPECT_EQ(old_run->cases[0].wall_us, (std::vector<double>{10, 20, 30}));
  EXPECT_TRUE(old_run->cases[0].queue_us.empty());
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM results WHERE unqueued_us_median IS NULL"), 1);
  // A new result keeps its waits and the median of wall time less them.
  NewRun run;
  run.suite = "ops";
  run.env_json = kEnv;
  run.fingerprint = "f";
  const int64_t id = *store->BeginRun(run);
  CaseResult r = MakeResult("ops", "mm", CaseStatus::kPassed, 1);  // wall 10, 30, 20
  r.queue_us = {1, 25, 4};
  ASSERT_TRUE(store->RecordResult(id, r).ok());
  ASSERT_TRUE(store->FinishRun(id, RunStatus::kCompleted).ok());
  auto new_run = LoadRunRecord(*store, id);
  ASSERT_TRUE(new_run.ok()) << new_run.status().message();
  EXPECT_EQ(new_run->cases[0].queue_us, (std::vector<double>{1, 25, 4}));
  EXPECT_DOUBLE_EQ(
      std::stod(QueryText(
          db, "SELECT unqueued_us_median FROM results WHERE run_id = " + std::to_string(id))),
      9.0);  // 9, 5, 16
  auto series = LoadSeries(*store, "ops", "mm", "unqueued_us_median");
  ASSERT_TRUE(series.ok());
  ASSERT_EQ(series->size(), 1u) << "the old run has no value of it";
  EXPECT_TRUE(IsHistoryMetric("unqueued_us_median"));
}

TEST(StoreGroupTest, ShardsOfOneNightBecomeOneCompletedRun) {
  TempDir dir;
  WriteGroupShard(dir.File("s1.db"), "1/3", {"a", "b"});
  WriteGroupShard(dir.File("s2.db"), "2/3", {"c"});
  WriteGroupShard(dir.File("s3.db"), "3/3", {"d"},
             R"({"blas": {"name": "OpenBLAS", "threads": 8}, "cpu": "B",
                                                "profile": "inductor"})");  // another host: allowed
  auto into = OpenOrDie(dir.File("history.db"));
  auto first = into->MergeGroupFrom(dir.File("s1.db"), "night-1");
  ASSERT_TRUE(first.ok()) << first.status().message();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].status, "aborted");  // 2/3 and 3/3 still missing
  EXPECT_NE((*first)[0].note.find("missing shard(s) 2/3, 3/3"), std::string::npos)
      << (*first)[0].note;
  ASSERT_TRUE(into->MergeGroupFrom(dir.File("s3.db"), "night-1").ok());
  auto last = into->MergeGroupFrom(dir.File("s2.db"), "night-1");
  ASSERT_TRUE(last.ok()) << last.status().message();
  const GroupRun& g = (*last)[0];
  EXPECT_EQ(g.status, "completed");
  EXPECT_EQ(g.parts, 3);
  EXPECT_EQ(g.shards, "1/3,2/3,3/3");
  EXPECT_EQ(g.suite, "ops,decode");
  sqlite3* db = harness::store_internal::Access::Db(*into);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM v_runs"), 1);
  EXPECT_EQ(QueryText(db, "SELECT status || ' ' || label FROM v_runs"), "completed nightly");
  EXPECT_EQ(QueryText(db, "SELECT shard_group FROM runs"), "night-1");
  EXPECT_EQ(QueryText(db, "SELECT shard_group FROM v_runs"), "night-1");
  EXPECT_EQ(QueryText(db, "SELECT group_concat(shard || ' ' || status, ',') FROM"
                          " (SELECT * FROM v_run_parts WHERE run_id = 1 ORDER BY shard)"),
            "1/3 completed,2/3 completed,3/3 completed");
  EXPECT_EQ(QueryText(db,
                      "SELECT group_concat(case_name, ',') FROM (SELECT case_name FROM v_results"
                      " WHERE run_id = 1 ORDER BY case_name)"),
            "a,b,c,d");
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM wall_samples"), 12);
  // The night spans its parts.
  EXPECT_EQ(QueryText(db,
                      "SELECT started_at = (SELECT min(started_at) FROM run_parts) AND"
                      " finished_at = (SELECT max(finished_at) FROM run_parts) FROM runs"),
            "1");
}

TEST(StoreGroupTest, RefusesWhatWouldCorruptTheNightWithNothingMerged) {
  TempDir dir;
  WriteGroupShard(dir.File("s1.db"), "1/2", {"a"});
  WriteGroupShard(dir.File("s1_rerun.db"), "1/2", {"a"});
  WriteGroupShard(dir.File("other_count.db"), "2/3", {"b"});
  WriteGroupShard(dir.File("other_blas.db"), "2/2", {"b"}, R"({"blas": {"name": "reference"}, "cpu": "A",
                                                       "profile": "inductor"})");
  auto into = OpenOrDie(dir.File("history.db"));
  ASSERT_TRUE(into->MergeGroupFrom(dir.File("s1.db"), "n").ok());
  struct Case {
    const char* src;
    const char* says;
  } cases[] = {{"s1.db", "merged before?"},
               {"s1_rerun.db", "shard 1/2 of shard group n is already merged"},
               {"other_count.db", "splits the suite into 3 shards, shard group n into 2"},
               {"other_blas.db", "ran under another environment than shard group n"}};
  for (const Case& c : cases) {
    auto r = into->MergeGroupFrom(dir.File(c.src), "n");
    ASSERT_FALSE(r.ok()) << c.src;
    EXPECT_EQ(r.status().code(), ErrorCode::kInvalidInput);
    EXPECT_NE(r.status().message().find(c.says), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find("nothing was merged"), std::string::npos)
        << r.status().message();
  }
  EXPECT_EQ(QueryInt(harness::store_internal::Access::Db(*into), "SELECT count(*) FROM v_results"), 1);
  EXPECT_EQ(QueryInt(harness::store_internal::Access::Db(*into), "SELECT count(*) FROM run_parts"), 1);
  // A plain merge of a shard already folded into a group is refused as well.
  auto plain = into->MergeFrom(dir.File("s1.db"));
  ASSERT_FALSE(plain.ok());
  EXPECT_NE(plain.status().message().find("merged before?"), std::string::npos);
  EXPECT_FALSE(into->MergeGroupFrom(dir.File("s1.db"), "").ok());
}

TEST(StoreGroupTest, AnAbortedShardKeepsTheNightAborted) {
  TempDir dir;
  WriteGroupShard(dir.File("s1.db"), "1/2", {"a"});
  WriteGroupShard(dir.File("s2.db"), "2/2", {"b"}, kEnv, RunStatus::kAborted);
  auto into = OpenOrDie(dir.File("history.db"));
  ASSERT_TRUE(into->MergeGroupFrom(dir.File("s1.db"), "n").ok());
  auto r = into->MergeGroupFrom(dir.File("s2.db"), "n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((*r)[0].status, "aborted");
  EXPECT_NE((*r)[0].note.find("shard 2/2 aborted"), std::string::npos) << (*r)[0].note;
  EXPECT_EQ(QueryText(harness::store_internal::Access::Db(*into), "SELECT status FROM v_runs"), "aborted");
}

TEST(StoreGroupTest, AGroupRunMergesOnAsOneRunWithItsParts) {
  TempDir dir;
  WriteGroupShard(dir.File("s1.db"), "1/1", {"a"});
  {
    auto night = OpenOrDie(dir.File("night.db"));
    ASSERT_TRUE(night->MergeGroupFrom(dir.File("s1.db"), "n").ok());
  }
  auto into = OpenOrDie(dir.File("all.db"));
  EXPECT_EQ(*into->MergeFrom(dir.File("night.db")), 1);
  EXPECT_EQ(QueryText(harness::store_internal::Access::Db(*into), "SELECT shard_group || ' ' || status FROM runs"),
            "n completed");
  EXPECT_EQ(QueryInt(harness::store_internal::Access::Db(*into), "SELECT count(*) FROM run_parts WHERE run_id = 1"), 1);
  // Its shard is known here too.
  EXPECT_FALSE(into->MergeGroupFrom(dir.File("s1.db"), "n").ok());
}

}  // namespace
}  // namespace harness
