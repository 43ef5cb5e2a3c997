// The store's read queries for the CLI and the reports (store_queries.h).
// Every value is bound as a parameter.
#include "store/store_queries.h"

#include "sql.h"

namespace harness {
namespace {

using store_internal::Access;
using store_internal::Stmt;

Status ReadError(sqlite3* db, const char* reading) {
  return IoError(std::string(reading) + ": " + sqlite3_errmsg(db));
}

constexpr const char* kRuns = "reading the runs";
constexpr const char* kHistory = "reading the history";
constexpr const char* kReport = "reading the store for a report";

// The first column of every row (NULLs left out), bound to `text` when the
// query has a parameter.
StatusOr<std::vector<std::string>> Names(Store& store, const char* sql, const std::string* text) {
  sqlite3* db = Access::Db(store);
  Stmt s(db, sql);
  if (text != nullptr) s.Bind(1, *text);
  std::vector<std::string> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    if (!s.IsNull(0)) out.push_back(s.Text(0));
  }
  if (rc != SQLITE_DONE) return ReadError(db, kHistory);
  return out;
}

}  // namespace

StatusOr<std::optional<int64_t>> NthNewestRunId(Store& store, int64_t back) {
  sqlite3* db = Access::Db(store);
  Stmt s(db, "SELECT run_id FROM v_runs ORDER BY run_id DESC LIMIT 1 OFFSET ?");
  s.Bind(1, back);
  const int rc = s.Step();
  if (rc == SQLITE_ROW) return std::optional<int64_t>(s.Int(0));
  if (rc != SQLITE_DONE) return ReadError(db, kRuns);
  return std::optional<int64_t>();
}

StatusOr<std::optional<int64_t>> NewestRunIdWithLabel(Store& store, const std::string& label) {
  sqlite3* db = Access::Db(store);
  Stmt s(db, "SELECT max(run_id) FROM v_runs WHERE label = ?");
  s.Bind(1, label);
  const int rc = s.Step();
  if (rc != SQLITE_ROW) return ReadError(db, kRuns);
  if (s.IsNull(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

StatusOr<bool> RunExists(Store& store, int64_t run_id) {
  sqlite3* db = Access::Db(store);
  Stmt s(db, "SELECT count(*) FROM v_runs WHERE run_id = ?");
  s.Bind(1, run_id);
  const int rc = s.Step();
  if (rc != SQLITE_ROW) return ReadError(db, kRuns);
  return s.Int(0) > 0;
}

StatusOr<std::optional<int64_t>> LatestRunId(Store& store) {
  sqlite3* db = Access::Db(store);
  Stmt s(db, "SELECT max(run_id) FROM v_runs");
  const int rc = s.Step();
  if (s.rc() != SQLITE_OK) return ReadError(db, kReport);
  if (rc != SQLITE_ROW || s.IsNull(0)) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

StatusOr<std::optional<RunView>> ReadRunView(Store& store, int64_t run_id) {
  sqlite3* db = Access::Db(store);
  Stmt s(db,
         "SELECT run_id, suite, label, status, started_at, finished_at, fingerprint,"
         " env_json FROM v_runs WHERE run_id = ?");
  if (s.rc() != SQLITE_OK) return ReadError(db, kReport);
  s.Bind(1, run_id);
  if (s.Step() != SQLITE_ROW) return std::optional<RunView>();
  RunView r;
  r.run_id = s.Int(0);
  r.suite = s.Text(1);
  r.label = s.Text(2);
  r.status = s.Text(3);
  r.started_at = s.Text(4);
  r.finished_at = s.Text(5);
  r.fingerprint = s.Text(6);
  r.env_json = s.Text(7);
  Stmt note(db, "SELECT coalesce(note, '') FROM runs WHERE id = ?");
  if (note.rc() != SQLITE_OK) return ReadError(db, kReport);
  note.Bind(1, run_id);
  if (note.Step() == SQLITE_ROW) r.note = note.Text(0);
  return std::optional<RunView>(std::move(r));
}

StatusOr<std::optional<int64_t>> RecordedBaselineRun(Store& store, int64_t run_id) {
  sqlite3* db = Access::Db(store);
  // The findings name it; a run judged with no finding has it in its options.
  Stmt s(db, "SELECT coalesce((SELECT baseline_run_id FROM regressions WHERE run_id = ?1 LIMIT 1),"
             " (SELECT json_extract(options_json, '$.baseline_run_id') FROM runs WHERE id = ?1"
             "  AND json_valid(options_json)))");
  if (s.rc() != SQLITE_OK) return ReadError(db, kReport);
  s.Bind(1, run_id);
  if (s.Step() != SQLITE_ROW || s.IsNull(0) || s.Int(0) <= 0) return std::optional<int64_t>();
  return std::optional<int64_t>(s.Int(0));
}

StatusOr<std::vector<RunListing>> ListRuns(Store& store, const RunListQuery& query) {
  sqlite3* db = Access::Db(store);
  Stmt s(db,
         "SELECT v.run_id, v.started_at, coalesce(v.finished_at, ''), v.suite, v.label, runs.shard,"
         " v.fingerprint, v.env_json, runs.options_json,"
         " (SELECT count(*) FROM regressions g WHERE g.run_id = v.run_id),"
         " (SELECT max(baseline_run_id) FROM regressions g WHERE g.run_id = v.run_id)"
         " FROM v_runs v JOIN runs ON runs.id = v.run_id"
         " WHERE (?1 = '' OR v.suite = ?1 OR instr(',' || v.suite || ',', ',' || ?1 || ',') > 0)"
         "   AND (?2 = '' OR v.label = ?2)"
         " ORDER BY v.run_id DESC LIMIT ?3");
  if (s.rc() != SQLITE_OK) return ReadError(db, kRuns);
  s.Bind(1, query.suite).Bind(2, query.label).Bind(3, query.limit);
  std::vector<RunListing> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    RunListing l;
    l.id = s.Int(0);
    l.started = s.Text(1);
    l.finished = s.Text(2);
    l.suite = s.Text(3);
    l.label = s.Text(4);
    l.shard = s.Text(5);
    l.fingerprint = s.Text(6);
    l.env_json = s.Text(7);
    l.options_json = s.Text(8);
    l.regressions = s.Int(9);
    if (!s.IsNull(10)) l.regressions_baseline = s.Int(10);
    out.push_back(std::move(l));
  }
  if (rc != SQLITE_DONE) return ReadError(db, kRuns);
  return out;
}

StatusOr<std::vector<std::string>> DistinctRunValues(Store& store, const std::string& column) {
  sqlite3* db = Access::Db(store);
  Stmt s(db, column == "suite" ? "SELECT DISTINCT suite FROM v_runs"
                               : "SELECT DISTINCT label FROM v_runs");
  if (s.rc() != SQLITE_OK) return ReadError(db, kRuns);
  std::vector<std::string> out;
  while (s.Step() == SQLITE_ROW) out.push_back(s.Text(0));
  return out;
}

StatusOr<std::vector<std::string>> SuitesWithResults(Store& store) {
  return Names(store, "SELECT DISTINCT suite FROM results", nullptr);
}

StatusOr<std::vector<std::string>> CasesWithResults(Store& store, const std::string& suite) {
  return Names(store, "SELECT DISTINCT case_name FROM results WHERE suite = ?1", &suite);
}

StatusOr<int64_t> CompletedRunsOfSuite(Store& store, const std::string& suite) {
  sqlite3* db = Access::Db(store);
  Stmt s(db, "SELECT count(*) FROM runs WHERE status = 'completed'"
             " AND EXISTS (SELECT 1 FROM results x WHERE x.run_id = runs.id AND x.suite = ?1)");
  s.Bind(1, suite);
  if (int rc = s.Step(); rc != SQLITE_ROW) return ReadError(db, kHistory);
  return s.Int(0);
}

StatusOr<std::vector<std::string>> RunCaseKeys(Store& store, int64_t run_id) {
  sqlite3* db = Access::Db(store);
  Stmt s(db, "SELECT DISTINCT suite || '/' || case_name FROM results WHERE run_id = ?1");
  s.Bind(1, run_id);
  std::vector<std::string> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) out.push_back(s.Text(0));
  if (rc != SQLITE_DONE) return ReadError(db, kRuns);
  return out;
}

StatusOr<std::vector<std::string>> RecordedMetricNames(Store& store, const std::string& suite) {
  return Names(store,
               "SELECT m.name FROM metrics m JOIN results r ON r.id = m.result_id WHERE "
               "r.suite = ?1 UNION SELECT s.name FROM metric_set_rows s WHERE s.set_id IN"
               " (SELECT DISTINCT metric_set FROM results WHERE suite = ?1)",
               &suite);
}

StatusOr<std::vector<TaggedRun>> LatestRunsPerTagValue(Store& store, const std::string& key) {
  sqlite3* db = Access::Db(store);
  // json_each over a guarded document: one run with a broken env_json must
  // not fail the whole query.
  Stmt s(db,
         "WITH tagged AS ("
         "  SELECT DISTINCT t.value AS tag_value, r.suite AS suite, v.run_id AS run_id,"
         "         v.started_at AS started_at"
         "  FROM v_runs v,"
         "       json_each(CASE WHEN json_valid(v.env_json) THEN v.env_json ELSE '{}' END,"
         "                 '$.tags') t"
         "  JOIN results r ON r.run_id = v.run_id"
         "  WHERE v.status = 'completed' AND t.key = ?1 AND t.type = 'text' AND t.value <> ''),"
         " ranked AS ("
         "  SELECT tag_value, suite, run_id, started_at, row_number() OVER ("
         "    PARTITION BY tag_value, suite ORDER BY started_at DESC, run_id DESC) AS n"
         "  FROM tagged)"
         " SELECT tag_value, suite, run_id, started_at FROM ranked WHERE n = 1"
         " ORDER BY started_at, run_id, suite");
  if (s.rc() != SQLITE_OK) return ReadError(db, kReport);
  s.Bind(1, key);
  std::vector<TaggedRun> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    out.push_back({s.Text(0), s.Text(1), s.Int(2), s.Text(3)});
  }
  if (rc != SQLITE_DONE) return ReadError(db, kReport);
  return out;
}

}  // namespace harness

namespace harness {

StatusOr<std::vector<RegressionRow>> ReadRegressions(Store& store, int64_t run_id) {
  sqlite3* db = store_internal::Access::Db(store);
  store_internal::Stmt s(db, "SELECT suite, case_name, kind, metric, baseline_value, candidate_value,"
                             " ratio, detail, finding_json FROM regressions WHERE run_id = ? ORDER BY id");
  s.Bind(1, run_id);
  std::vector<RegressionRow> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    RegressionRow r;
    r.suite = s.Text(0);
    r.case_name = s.Text(1);
    r.kind = s.Text(2);
    r.metric = s.Text(3);
    r.baseline_value = s.Real(4);
    r.candidate_value = s.Real(5);
    r.ratio = s.Real(6);
    r.detail = s.Text(7);
    r.finding_json = s.Text(8);
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return IoError(std::string("reading the findings: ") + sqlite3_errmsg(db));
  return out;
}

StatusOr<std::vector<AttributionRow>> ReadAttributions(Store& store, int64_t run_id) {
  sqlite3* db = store_internal::Access::Db(store);
  store_internal::Stmt s(db, "SELECT b.id, b.run_id, b.baseline_run_id, a.suite, a.case_name, a.kind,"
                             " a.metric, a.verdict, a.components, a.text, a.evidence_json"
                             " FROM attributions a JOIN bisects b ON b.id = a.bisect_id"
                             " WHERE b.run_id = ? ORDER BY b.id, a.rowid");
  s.Bind(1, run_id);
  std::vector<AttributionRow> out;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    AttributionRow r;
    r.bisect_id = s.Int(0);
    r.run_id = s.Int(1);
    r.baseline_run_id = s.Int(2);
    r.suite = s.Text(3);
    r.case_name = s.Text(4);
    r.kind = s.Text(5);
    r.metric = s.Text(6);
    r.verdict = s.Text(7);
    r.components = s.Text(8);
    r.text = s.Text(9);
    r.evidence_json = s.Text(10);
    out.push_back(std::move(r));
  }
  if (rc != SQLITE_DONE) return IoError(std::string("reading the attributions: ") + sqlite3_errmsg(db));
  return out;
}

}  // namespace harness
