// Reading runs and series back from the store for the judges. Table layout:
// harness/src/store/schema.cpp. Every value is bound; the only identifiers
// spliced into SQL come from the fixed column list below.
#include <cmath>
#include <map>

#include "harness/host_probe.h"
#include "history_internal.h"
#include "store/sql.h"

namespace harness {

namespace history_internal {
Status QueryError(sqlite3* db, int rc, const std::string& doing) {
  const char* path = sqlite3_db_filename(db, "main");
  return store_internal::SqlStatus(db, rc, path != nullptr ? path : "", doing);
}
}  // namespace history_internal

namespace {

using history_internal::QueryError;
using store_internal::Stmt;

nlohmann::json ParseJson(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? nlohmann::json::object() : j;
}

// Columns of `results` a series can follow directly.
const char* ResultColumn(const std::string& metric) {
  static const char* kColumns[] = {"wall_us_median", "unqueued_us_median", "modeled_us", "max_abs_err", "max_rel_err", "rel_l2",
                                   "max_ulp", "cosine", "fallback_ops", "peak_device_bytes"};
  for (const char* c : kColumns) if (metric == c) return c;
  return nullptr;
}

// The wall median at the reference host speed (harness/host_probe.h); NULL,
// so left out, for results recorded without a probe.
constexpr const char* kNormalizedWall = "wall_us_normalized";
constexpr const char* kNormalizedWallSql =
    "r.wall_us_median * ?4 / json_extract(r.extra_json, '$.host_probe_us')";


}  // namespace

bool IsHistoryMetric(const std::string& metric) {
  return ResultColumn(metric) != nullptr || metric == kNormalizedWall;
}

StatusOr<bool> SuiteHasResults(sqlite3* db, const std::string& suite) {
  Stmt s(db, "SELECT 1 FROM results WHERE suite = ? LIMIT 1");
  s.Bind(1, suite);
  const int rc = s.Step();
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return QueryError(db, rc, "looking for results of suite " + suite);
}

StatusOr<RunRecord> LoadRunRecord(sqlite3* db, int64_t run_id) {
  RunRecord run;
  {
    Stmt s(db, "SELECT id, suite, label, env_json FROM runs WHERE id = ?");
    s.Bind(1, run_id);
    int rc = s.Step();
    if (rc == SQLITE_DONE) return NotFound("run " + std::to_string(run_id) + " is not in the store; list runs with `sqlite3 FILE 'SELECT * FROM v_runs'`");
    if (rc != SQLITE_ROW) return QueryError(db, rc, "reading run " + std::to_string(run_id));
    run.run_id = s.Int(0);
    run.suite = s.Text(1);
    run.label = s.Text(2);
    run.env = ParseJson(s.Text(3));
  }
  std::map<int64_t, size_t> index;  // result id -> position in run.cases
  Stmt r(db,
         "SELECT id, suite, case_name, status, message, max_abs_err, max_rel_err, rel_l2, max_ulp, cosine, "
         "modeled_us, fallback_ops, peak_device_bytes, extra_json FROM results WHERE run_id = ? ORDER BY id");
  r.Bind(1, run_id);
  int rc;
  while ((rc = r.Step()) == SQLITE_ROW) {
    CaseResult c;
    c.suite = r.Text(1);
    c.case_id = r.Text(2);
    auto status = ParseCaseStatus(r.Text(3));
    c.status = status.ok() ? *status : CaseStatus::kError;
    c.message = r.Text(4);
    c.max_abs_err = r.Real(5);
    c.max_rel_err = r.Real(6);
    c.rel_l2 = r.Real(7);
    c.max_ulp = r.Real(8);
    c.cosine = r.Real(9);
    c.modeled_us = r.Real(10);
    c.fallback_ops = r.Int(11);
    c.peak_device_bytes = r.Int(12);
    c.extra = ParseJson(r.Text(13));
    index[r.Int(0)] = run.cases.size();
    run.cases.push_back(std::move(c));
  }
  if (rc != SQLITE_DONE) return QueryError(db, rc, "reading results");
  // The child tables: each row's first column is its result id.
  auto each_row = [&](const char* sql, const char* doing, auto fill) -> Status {
    Stmt s(db, sql);
    s.Bind(1, run_id);
    int step;
    while ((step = s.Step()) == SQLITE_ROW) {
      auto it = index.find(s.Int(0));
      if (it != index.end()) fill(s, run.cases[it->second]);
    }
    return step == SQLITE_DONE ? Status::Ok() : QueryError(db, step, doing);
  };
  SPYRE_RETURN_IF_ERROR(each_row(
      "SELECT m.result_id, m.output, m.name, m.value, m.limit_value, m.failed FROM metrics m "
      "JOIN results r ON r.id = m.result_id WHERE r.run_id = ? ORDER BY m.rowid",
      "reading metrics", [](const Stmt& s, CaseResult& c) {
        c.metrics.push_back({s.Text(1), s.Text(2), s.Real(3), s.Real(4), s.Int(5) != 0});
      }));
  SPYRE_RETURN_IF_ERROR(each_row(
      "SELECT w.result_id, w.wall_us, w.queue_us FROM wall_samples w JOIN results r ON r.id = "
      "w.result_id WHERE r.run_id = ? ORDER BY w.result_id, w.idx",
      "reading wall samples", [](const Stmt& s, CaseResult& c) {
        c.wall_us.push_back(s.Real(1));
        if (!std::isnan(s.Real(2))) c.queue_us.push_back(s.Real(2));
      }));
  SPYRE_RETURN_IF_ERROR(each_row(
      "SELECT o.result_id, o.op, o.calls, o.modeled_us, o.wall_us, o.fallbacks FROM op_summaries o "
      "JOIN results r ON r.id = o.result_id WHERE r.run_id = ? ORDER BY o.result_id, o.op",
      "reading op summaries", [](const Stmt& s, CaseResult& c) {
        c.ops.push_back({s.Text(1), s.Int(2), s.Real(3), s.Real(4), s.Int(5)});
      }));
  // Run-queue waits only where every sample has one (older results: none).
  for (CaseResult& c : run.cases) {
    if (c.queue_us.size() != c.wall_us.size()) c.queue_us.clear();
  }
  return run;
}

namespace history_internal {

StatusOr<std::map<std::string, std::vector<SeriesPoint>>> LoadSuiteSeries(
    sqlite3* db, const std::string& suite, const std::string& case_name, const std::string& metric,
    int64_t through_run_id) {
  std::string value_sql;
  if (const char* col = ResultColumn(metric)) {
    value_sql = std::string("r.") + col;
  } else if (metric == kNormalizedWall) {
    value_sql = kNormalizedWallSql;
  } else {
    value_sql = std::string("(SELECT ") + (HigherIsBetter(metric) ? "MIN" : "MAX") +
                "(m.value) FROM metrics m WHERE m.result_id = r.id AND m.name = ?3)";
  }
  std::string sql =
      "SELECT r.case_name, r.run_id, runs.started_at, runs.label, runs.env_json, " + value_sql +
      " FROM results r JOIN runs ON runs.id = r.run_id"
      " WHERE r.suite = ?1 AND runs.status = 'completed'" +
      // One case: a separate condition so the (suite, case_name) index is used.
      std::string(case_name.empty() ? "" : " AND r.case_name = ?2") +
      std::string(through_run_id > 0 ? " AND (runs.started_at, runs.id) <= "
                                       "(SELECT started_at, id FROM runs WHERE id = ?5)"
                                     : "") +
      " ORDER BY runs.started_at, runs.id";
  Stmt s(db, sql.c_str());
  s.Bind(1, suite);
  if (!case_name.empty()) s.Bind(2, case_name);
  if (through_run_id > 0) s.Bind(5, through_run_id);
  if (metric == kNormalizedWall) {
    s.Bind(4, kHostProbeReferenceUs);
  } else if (!ResultColumn(metric)) {
    s.Bind(3, metric);
  }
  std::map<int64_t, nlohmann::json> envs;
  std::map<std::string, std::vector<SeriesPoint>> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    double v = s.Real(5);
    if (std::isnan(v)) continue;
    SeriesPoint p;
    p.run_id = s.Int(1);
    p.started_at = s.Text(2);
    p.label = s.Text(3);
    p.value = v;
    auto it = envs.find(p.run_id);
    if (it == envs.end()) it = envs.emplace(p.run_id, ParseJson(s.Text(4))).first;
    p.env = it->second;
    out[s.Text(0)].push_back(std::move(p));
  }
  if (rc != SQLITE_DONE) return QueryError(db, rc, "reading the history of suite " + suite);
  return out;
}

}  // namespace history_internal

StatusOr<std::vector<SeriesPoint>> LoadSeries(sqlite3* db, const std::string& suite,
                                              const std::string& case_name,
                                              const std::string& metric, int64_t through_run_id) {
  auto all = history_internal::LoadSuiteSeries(db, suite, case_name, metric, through_run_id);
  if (!all.ok()) return all.status();
  auto it = all->find(case_name);
  if (it == all->end()) return std::vector<SeriesPoint>{};
  return it->second;
}

}  // namespace harness
