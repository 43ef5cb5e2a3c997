#pragma once
// Helpers for the store tests: open-or-fail, one-value queries, view column
// names and a synthetic CaseResult.
#include <sqlite3.h>

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "store/store.h"

namespace harness::test_util {

inline std::unique_ptr<Store> OpenOrDie(const std::string& path) {
  auto store = Store::Open(path);
  EXPECT_TRUE(store.ok()) << store.status().message();
  if (!store.ok()) return nullptr;
  return std::move(*store);
}

inline std::string QueryText(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* s = nullptr;
  std::string out = "<no row>";
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(s, 0);
    out = t == nullptr ? "<null>" : reinterpret_cast<const char*>(t);
  }
  sqlite3_finalize(s);
  return out;
}

inline int64_t QueryInt(sqlite3* db, const std::string& sql) {
  return std::stoll(QueryText(db, sql));
}

inline double Column(sqlite3* db, const std::string& sql) { return std::stod(QueryText(db, sql)); }

inline std::vector<std::string> ColumnNames(sqlite3* db, const std::string& view) {
  std::vector<std::string> names;
  sqlite3_stmt* s = nullptr;
  std::string sql = "SELECT * FROM " + view;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK) {
    for (int i = 0; i < sqlite3_column_count(s); ++i) names.push_back(sqlite3_column_name(s, i));
  }
  sqlite3_finalize(s);
  return names;
}

// A result with `metrics` metrics, wall samples 10, 20, 30 and two ops.
inline CaseResult MakeResult(const std::string& suite, const std::string& id, CaseStatus status,
                             int metrics) {
  CaseResult r;
  r.suite = suite;
  r.case_id = id;
  r.status = status;
  r.max_abs_err = 0.001;
  r.rel_l2 = 0.0005;
  r.max_ulp = 1;
  r.cosine = 0.99999;
  for (int i = 0; i < metrics; ++i) r.metrics.push_back({"out0", "m" + std::to_string(i), 0.5 * i, 1.0, false});
  r.wall_us = {10, 30, 20};
  r.modeled_us = 12.5;
  r.ops = {{"mm", 2, 7.5, 9.0, 0}, {"add", 1, 5.0, 6.0, 1}};
  r.fallback_ops = 1;
  r.peak_device_bytes = 4096;
  return r;
}

// How WriteShard records its run: the run's suite key, the suite its cases
// are recorded in, and the rest of the run row as NewRun takes it.
struct ShardRun {
  std::string suite = "smoke", case_suite = "smoke", label, env_json, fingerprint;
  RunStatus status = RunStatus::kCompleted;
};

// A store at `path` holding one finished run of `cases` (each passed, with
// two metrics), sharded `shard`.
inline void WriteShard(const std::string& path, const std::string& shard,
                       const std::vector<std::string>& cases, const ShardRun& how = {}) {
  auto store = OpenOrDie(path);
  NewRun run;
  run.suite = how.suite;
  run.label = how.label;
  run.shard = shard;
  run.env_json = how.env_json;
  run.fingerprint = how.fingerprint;
  int64_t id = *store->BeginRun(run);
  for (const auto& c : cases) {
    ASSERT_TRUE(store->RecordResult(id, MakeResult(how.case_suite, c, CaseStatus::kPassed, 2)).ok());
  }
  ASSERT_TRUE(store->FinishRun(id, how.status).ok());
}

}  // namespace harness::test_util
