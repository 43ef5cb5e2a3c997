// Every past schema version, migrated to the latest: each fixture in
// fixtures/ is a store of that version as SQL text (`sqlite3 .dump`). Opening
// it read-write migrates it; every row must still be there, the views must
// answer with the contract's columns, every run must load, and a run recorded
// by this build must compare with a run recorded under the old schema.
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>

#include <gtest/gtest.h>

#include "detect/detect.h"
#include "detect/history.h"
#include "detect/thresholds.h"
#include "store/store.h"
#include "store/store_history.h"
#include "store_test_util.h"
#include "sql.h"
#include "support/temp_dir.h"

namespace harness {
namespace {

using spyre_test::TempDir;

using test_util::QueryInt;

std::vector<std::string> Columns(sqlite3* db, const std::string& view) {
  std::vector<std::string> names;
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, ("SELECT * FROM " + view).c_str(), -1, &s, nullptr) == SQLITE_OK) {
    for (int i = 0; i < sqlite3_column_count(s); ++i) names.push_back(sqlite3_column_name(s, i));
  }
  sqlite3_finalize(s);
  return names;
}

// v_results' extra JSON of one result.
std::string ViewExtra(sqlite3* db, int64_t run_id, const std::string& suite,
                      const std::string& case_name) {
  std::string out = "null";
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db,
                         "SELECT extra_json FROM v_results WHERE run_id = ?1 AND suite = ?2"
                         " AND case_name = ?3",
                         -1, &s, nullptr) == SQLITE_OK) {
    sqlite3_bind_int64(s, 1, run_id);
    sqlite3_bind_text(s, 2, suite.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 3, case_name.c_str(), -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0) != nullptr) {
      out = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    }
  }
  sqlite3_finalize(s);
  return out;
}

const char* const kTables[] = {"runs",         "results",      "metrics",
                               "wall_samples", "op_summaries", "regressions"};

// Builds the fixture's store at `path` from its SQL text; returns the row
// count of every table before any migration.
std::map<std::string, int64_t> Restore(const std::string& sql_path, const std::string& path) {
  std::map<std::string, int64_t> counts;
  const std::string sql = spyre_test::ReadFile(sql_path);
  EXPECT_FALSE(sql.empty()) << sql_path;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  for (const char* t : kTables) counts[t] = QueryInt(db, std::string("SELECT count(*) FROM ") + t);
  sqlite3_close(db);
  return counts;
}

std::vector<std::filesystem::path> Fixtures() {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(std::string(SPYRE_SOURCE_DIR) +
                                                           "/tests/store/fixtures")) {
    if (e.path().extension() == ".sql") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(MigrationTest, ThereIsAFixtureForEveryPastSchemaVersion) {
  std::set<std::string> names;
  for (const auto& p : Fixtures()) names.insert(p.filename().string());
  for (int v = 1; v < Store::LatestSchemaVersion(); ++v) {
    EXPECT_EQ(names.count("schema_v" + std::to_string(v) + ".sql"), 1u)
        << "no fixture of schema version " << v
        << ": dump a store of that version into tests/store/fixtures (see its README)";
  }
}

TEST(MigrationTest, EveryFixtureMigratesToTheLatestWithEveryRowAndComparesAcrossVersions) {
  const auto fixtures = Fixtures();
  ASSERT_FALSE(fixtures.empty());
  for (const auto& fixture : fixtures) {
    SCOPED_TRACE(fixture.filename().string());
    TempDir dir;
    const std::string path = dir.File("old.db");
    const std::map<std::string, int64_t> before = Restore(fixture.string(), path);
    ASSERT_GT(before.at("results"), 0);
    auto opened = Store::Open(path);
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    Store& store = **opened;
    EXPECT_EQ(*store.SchemaVersion(), Store::LatestSchemaVersion());
    sqlite3* db = store_internal::Access::Db(store);
    for (const char* t : kTables) {
      EXPECT_EQ(QueryInt(db, std::string("SELECT count(*) FROM ") + t), before.at(t)) << t;
    }
    // The contract's columns come first; later versions may add more.
    const std::vector<std::string> contract = {"run_id",      "suite",      "label",
                                               "status",      "started_at", "finished_at",
                                               "fingerprint", "env_json"};
    std::vector<std::string> columns = Columns(db, "v_runs");
    columns.resize(std::min(columns.size(), contract.size()));
    EXPECT_EQ(columns, contract);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM v_runs"), before.at("runs"));
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM v_results"), before.at("results"));
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM v_regressions"), before.at("regressions"));
    // Every view has the columns of a store this build creates, in order.
    {
      TempDir fresh_dir;
      auto fresh = Store::Open(fresh_dir.File("new.db"));
      ASSERT_TRUE(fresh.ok()) << fresh.status().message();
      sqlite3* fresh_db = store_internal::Access::Db(**fresh);
      for (const char* view : {"v_runs", "v_results", "v_regressions", "v_attributions",
                               "v_op_summaries", "v_run_parts"}) {
        EXPECT_FALSE(Columns(fresh_db, view).empty()) << view;
        EXPECT_EQ(Columns(db, view), Columns(fresh_db, view)) << view;
      }
    }
    // The columns version 10 added read what the tables behind them hold.
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM v_results v JOIN results r ON r.run_id = v.run_id"
                       " AND r.suite = v.suite AND r.case_name = v.case_name"
                       " WHERE v.message = r.message AND v.wall_samples = r.wall_samples"
                       " AND v.wall_us_mad IS r.wall_us_mad AND v.recorded_at = r.recorded_at"
                       " AND v.extra_json = r.extra_json AND json_valid(v.extra_json)"),
              before.at("results"));
    EXPECT_EQ(QueryInt(db, "SELECT sum(wall_samples) FROM v_results"), before.at("wall_samples"));
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM v_runs v JOIN runs r ON r.id = v.run_id"
                       " WHERE v.uuid = r.uuid AND v.shard = r.shard AND v.shard_group = ''"
                       " AND v.note = r.note AND v.options_json = r.options_json"
                       " AND json_extract(v.options_json, '$.repeat') = 2"),
              before.at("runs"));
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM v_op_summaries o JOIN v_results r"
                           " ON r.run_id = o.run_id AND r.case_name = o.case_name"
                           " WHERE o.calls > 0"),
              before.at("op_summaries"));
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM v_run_parts"), 0);  // no shard group
    // Nothing is shared before a prune under this build.
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM extra_sets"), 0);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM results WHERE extra_set IS NOT NULL"), 0);

    // Every old run loads, with its samples.
    std::vector<int64_t> ids;
    {
      sqlite3_stmt* s = nullptr;
      ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT id FROM runs ORDER BY id", -1, &s, nullptr),
                SQLITE_OK);
      while (sqlite3_step(s) == SQLITE_ROW) ids.push_back(sqlite3_column_int64(s, 0));
      sqlite3_finalize(s);
    }
    StatusOr<RunRecord> old_run = LoadRunRecord(store, ids.back());
    ASSERT_TRUE(old_run.ok()) << old_run.status().message();
    ASSERT_FALSE(old_run->cases.empty());

    // This build records the same results again as a new run: compared with
    // the old run, nothing changed; with one case made 3x slower in every
    // sample and one failing, both are found.
    auto record = [&](double slow) {
      NewRun run;
      run.suite = old_run->suite;
      run.env_json = old_run->env.dump();
      run.fingerprint = "migrated";
      StatusOr<int64_t> id = store.BeginRun(run);
      EXPECT_TRUE(id.ok());
      for (size_t i = 0; i < old_run->cases.size(); ++i) {
        CaseResult r = old_run->cases[i];
        if (i == 0 && slow != 1.0) {
          for (double& w : r.wall_us) w *= slow;
          r.status = CaseStatus::kFailed;
        }
        EXPECT_TRUE(store.RecordResult(*id, r).ok());
      }
      EXPECT_TRUE(store.FinishRun(*id, RunStatus::kCompleted).ok());
      StatusOr<RunRecord> rec = LoadRunRecord(store, *id);
      EXPECT_TRUE(rec.ok());
      return *rec;
    };
    Comparison same = CompareRuns(*old_run, record(1.0), Thresholds());
    EXPECT_TRUE(same.regressions.empty()) << FormatComparison(same);
    Comparison worse = CompareRuns(*old_run, record(3.0), Thresholds());
    bool status_found = false;
    for (const Finding& f : worse.regressions) {
      status_found = status_found ||
                     (f.kind == FindingKind::kStatus && f.case_id == old_run->cases[0].case_id);
    }
    EXPECT_TRUE(status_found) << FormatComparison(worse);

    // Pruned under this build, the old runs keep what they held: the same
    // metrics (now in shared sets), the same round values for the judge,
    // and the same verdict against the run recorded now.
    std::map<int64_t, std::vector<std::vector<Metric>>> metrics;
    std::map<int64_t, std::vector<std::vector<double>>> rounds;
    std::map<int64_t, std::vector<nlohmann::json>> extras;
    // What a compacted result's extra JSON keeps of what was recorded: all
    // but the timing rounds' detail and the worker's bookkeeping.
    auto described = [](nlohmann::json extra) {
      for (const char* key : {"rounds", "harness", "per_step"}) extra.erase(key);
      return extra;
    };
    for (int64_t id : ids) {
      StatusOr<RunRecord> run = LoadRunRecord(store, id);
      ASSERT_TRUE(run.ok());
      for (const CaseResult& c : run->cases) {
        metrics[id].push_back(c.metrics);
        rounds[id].push_back(WallRoundValues(c));
        extras[id].push_back(described(c.extra));
      }
    }
    const RunRecord now = record(1.0);
    PrunePolicy policy;
    policy.keep_runs = 1;
    StatusOr<PruneReport> pruned = store.Prune(policy);
    ASSERT_TRUE(pruned.ok()) << pruned.status().message();
    EXPECT_GT(pruned->metric_rows_shared, 0);
    EXPECT_GT(QueryInt(db, "SELECT count(*) FROM extra_sets"), 0);
    // Every result of a finished run keeps only the members that change
    // from run to run; the rest is in its shared set.
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM results r JOIN runs u ON u.id = r.run_id,"
                       " json_each(r.extra_json) j WHERE u.status != 'running' AND j.key NOT IN"
                       " ('harness', 'host_probe_us', 'wall_batch', 'confirm')"),
              0);
    for (int64_t id : ids) {
      StatusOr<RunRecord> run = LoadRunRecord(store, id);
      ASSERT_TRUE(run.ok());
      ASSERT_EQ(run->cases.size(), metrics[id].size());
      for (size_t i = 0; i < run->cases.size(); ++i) {
        const std::vector<Metric>& a = run->cases[i].metrics;
        const std::vector<Metric>& b = metrics[id][i];
        ASSERT_EQ(a.size(), b.size()) << "run " << id;
        for (size_t m = 0; m < a.size(); ++m) {
          EXPECT_EQ(a[m].output + "/" + a[m].name, b[m].output + "/" + b[m].name);
          EXPECT_TRUE(a[m].value == b[m].value || (std::isnan(a[m].value) && std::isnan(b[m].value)));
        }
        EXPECT_EQ(WallRoundValues(run->cases[i]), rounds[id][i]) << "run " << id;
        EXPECT_EQ(described(run->cases[i].extra), extras[id][i]) << "run " << id;
      }
    }
    // v_results shows a pruned result's extra JSON as the store reads it:
    // its own members joined with its shared set. The round sizes and the
    // per-op times of each round are packed beside the samples, which no
    // view shows.
    EXPECT_GT(QueryInt(db, "SELECT count(*) FROM v_results v JOIN results r ON r.run_id = v.run_id"
                           " AND r.suite = v.suite AND r.case_name = v.case_name"
                           " WHERE r.extra_set IS NOT NULL AND v.extra_json != r.extra_json"),
              0);
    auto unpacked = [](nlohmann::json extra) {
      auto rounds = extra.find("rounds");
      if (rounds != extra.end() && rounds->is_object()) {
        for (const char* key : {"samples", "op_wall_us"}) rounds->erase(key);
      }
      return extra;
    };
    for (int64_t id : ids) {
      StatusOr<RunRecord> run = LoadRunRecord(store, id);
      ASSERT_TRUE(run.ok());
      for (const CaseResult& c : run->cases) {
        EXPECT_EQ(unpacked(nlohmann::json::parse(ViewExtra(db, id, c.suite, c.case_id))),
                  unpacked(c.extra))
            << "run " << id << " " << c.case_id;
      }
    }
    StatusOr<RunRecord> old_pruned = LoadRunRecord(store, ids.back());
    ASSERT_TRUE(old_pruned.ok());
    Comparison after = CompareRuns(*old_pruned, now, Thresholds());
    EXPECT_TRUE(after.regressions.empty()) << FormatComparison(after);
  }
}

}  // namespace
}  // namespace harness
