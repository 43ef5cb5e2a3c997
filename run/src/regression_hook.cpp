// The seam between the runner and regression detection: after a completed
// run, resolve the baseline, judge the two runs, store the findings
// (v_regressions) and hand them back for the summary.
#include "detect/grouping.h"
#include "detect/history.h"
#include "detect/recorded_findings.h"
#include "run/regression_hook.h"

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
  // A baseline sharing no case would give "regressions: 0" for nothing
  // compared (a named baseline of another suite; `run` refuses it before
  // it starts, `merge --baseline` here).
  if (SharedCases(base, cand) == 0 && !cand.cases.empty()) {
    return InvalidInput("--baseline " + baseline + " (run " + std::to_string(**chosen) + ", " + base.suite +
                        ") shares no case with run " + std::to_string(run_id) + " (" + cand.suite +
                        "), so nothing was compared: pick a baseline of the same suite");
  }
  Comparison comparison = CompareRuns(base, cand, thresholds);
  std::vector<RegressionRow> rows;
  for (const Finding& f : comparison.regressions) rows.push_back(RegressionRowOf(f));
  SPYRE_RETURN_IF_ERROR(store.RecordRegressions(run_id, **chosen, rows));
  SPYRE_RETURN_IF_ERROR(store.RecordBaselineChoice(run_id, **chosen));
  outcome.baseline_run_id = **chosen;
  outcome.regressions = static_cast<int>(rows.size());
  outcome.regressed_cases = static_cast<int>(RegressedCases(comparison.regressions));
  outcome.comparison = ToJson(comparison);
  return outcome;
}

}  // namespace harness
