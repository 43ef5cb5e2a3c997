// The seam between the runner and regression detection: after a completed
// run, resolve the baseline, judge the two runs, store the findings
// (v_regressions) and hand them back for the summary.
#include "harness/detect/history.h"
#include "harness/runner/regression_hook.h"

namespace harness {
namespace {

// The baseline a run was judged against, kept with its options (`runs`
// lists it), whether or not the comparison found anything.
Status RecordBaselineChoice(sqlite3* db, int64_t run_id, int64_t baseline_run_id) {
  sqlite3_stmt* stmt = nullptr;
  int rc =
      sqlite3_prepare_v2(db,
                         "UPDATE runs SET options_json = json_set(coalesce(options_json, '{}'),"
                         " '$.baseline_run_id', ?) WHERE id = ?",
                         -1, &stmt, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_bind_int64(stmt, 1, baseline_run_id);
    sqlite3_bind_int64(stmt, 2, run_id);
    rc = sqlite3_step(stmt);
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE && rc != SQLITE_OK) {
    return IoError(std::string("recording the baseline of run ") + std::to_string(run_id) + ": " +
                   sqlite3_errmsg(db));
  }
  return Status::Ok();
}

}  // namespace

StatusOr<BaselineOutcome> DetectRegressionsForRun(Store& store, int64_t run_id,
                                                  const std::string& /*suite_key*/,
                                                  const std::string& baseline) {
  BaselineOutcome outcome;
  StatusOr<BaselineChoice> choice = ChooseBaseline(store.handle(), baseline, run_id);
  if (!choice.ok()) return choice.status();
  outcome.reason = choice->reason;
  const std::optional<int64_t>* chosen = &choice->run_id;
  if (!chosen->has_value()) return outcome;
  StatusOr<Thresholds> thresholds = Thresholds::Configured();
  if (!thresholds.ok()) return thresholds.status();
  StatusOr<RunRecord> base = LoadRunRecord(store.handle(), **chosen);
  if (!base.ok()) return base.status();
  SPYRE_RETURN_IF_ERROR(AttachWallNoise(store.handle(), &*base));
  StatusOr<RunRecord> cand = LoadRunRecord(store.handle(), run_id);
  if (!cand.ok()) return cand.status();
  Comparison comparison = CompareRuns(*base, *cand, *thresholds);
  std::vector<RegressionRow> rows;
  for (const Finding& f : comparison.regressions) {
    RegressionRow row;
    row.suite = f.suite;
    row.case_name = f.case_id;
    row.kind = FindingKindName(f.kind);
    row.metric = f.metric;
    row.detail = f.detail;
    row.baseline_value = f.baseline;
    row.candidate_value = f.candidate;
    row.ratio = f.ratio;
    rows.push_back(std::move(row));
  }
  SPYRE_RETURN_IF_ERROR(store.RecordRegressions(run_id, **chosen, rows));
  SPYRE_RETURN_IF_ERROR(RecordBaselineChoice(store.handle(), run_id, **chosen));
  outcome.baseline_run_id = **chosen;
  outcome.regressions = static_cast<int>(rows.size());
  outcome.comparison = ToJson(comparison);
  return outcome;
}

}  // namespace harness
