// The seam between the runner and regression detection (issue 7). The runner
// resolves and validates --baseline here; running the detector over the two
// runs and storing its findings is detection's to add. Until then no baseline
// is claimed, so the run reports "regressions: none (no baseline)" rather than
// a comparison that did not happen.
#include <cstdlib>

#include "harness/run_session.h"

namespace harness {

StatusOr<BaselineOutcome> DetectRegressionsForRun(Store& store, int64_t run_id,
                                                  const std::string& suite_key,
                                                  const std::string& baseline) {
  BaselineOutcome outcome;
  if (baseline == "none") return outcome;
  std::optional<int64_t> chosen;
  if (baseline == "auto") {
    StatusOr<std::optional<int64_t>> latest = store.LatestCompletedRun(suite_key, run_id);
    if (!latest.ok()) return latest.status();
    chosen = *latest;
  } else {
    char* end = nullptr;
    const long long id = std::strtoll(baseline.c_str(), &end, 10);
    if (baseline.empty() || *end != '\0' || id <= 0) {
      return UsageError("--baseline '" + baseline + "' is not auto, none or a run id");
    }
    StatusOr<std::optional<RunRow>> row = store.FindRun(id);
    if (!row.ok()) return row.status();
    if (!row->has_value()) {
      return NotFound("--baseline " + baseline + ": no such run in '" + store.path() +
                      "' (see v_runs for the run ids)");
    }
    chosen = id;
  }
  // Detection (issue 7) plugs in here: compare `*chosen` with `run_id`, store
  // the findings with store.RecordRegressions and fill `outcome`.
  (void)chosen;
  return outcome;
}

}  // namespace harness
