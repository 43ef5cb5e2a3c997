// The seam between the runner and regression detection: after a completed
// run, resolve the baseline, judge the two runs, store the findings
// (v_regressions) and hand them back for the summary.
#include "harness/detect/history.h"
#include "harness/runner/regression_hook.h"

namespace harness {

StatusOr<BaselineOutcome> DetectRegressionsForRun(Store& store, int64_t run_id,
                                                  const std::string& /*suite_key*/,
                                                  const std::string& baseline) {
  BaselineOutcome outcome;
  SPYRE_ASSIGN_OR_RETURN(auto choice, ChooseBaseline(store, baseline, run_id));
  outcome.reason = choice.reason;
  const std::optional<int64_t>* chosen = &choice.run_id;
  if (!chosen->has_value()) return outcome;
  SPYRE_ASSIGN_OR_RETURN(auto thresholds, Thresholds::Configured());
  SPYRE_ASSIGN_OR_RETURN(auto base, LoadRunRecord(store, **chosen));
  SPYRE_RETURN_IF_ERROR(AttachWallNoise(store, &base));
  SPYRE_ASSIGN_OR_RETURN(auto cand, LoadRunRecord(store, run_id));
  Comparison comparison = CompareRuns(base, cand, thresholds);
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
  SPYRE_RETURN_IF_ERROR(store.RecordBaselineChoice(run_id, **chosen));
  outcome.baseline_run_id = **chosen;
  outcome.regressions = static_cast<int>(rows.size());
  outcome.comparison = ToJson(comparison);
  return outcome;
}

}  // namespace harness
