#pragma once
// History for the judges: the run-to-run noise floor of a baseline, suite
// geometric means and change points over the recorded runs. The reading
// itself (runs, series, baselines) is the store's (store_history.h).
//
//   auto base = LoadRunRecord(*store, 3);
//   SPYRE_RETURN_IF_ERROR(AttachWallNoise(*store, &*base));
#include <cstdint>
#include <string>
#include <vector>

#include "harness/detect/changepoint.h"
#include "harness/detect/detect.h"
#include "harness/status.h"
#include "harness/store/store.h"
#include "harness/store/store_history.h"

namespace harness {

// Fills run->wall_run_medians and op_run_wall (the raw wall medians and
// per-op wall times of up to `max_runs` completed runs with the run's own
// environment, newest first, the run included; cases with fewer than three
// get none) and run->wall_run_sigma: for every case, the standard deviation of the
// log wall medians of the last `max_runs` completed runs of its suite up to
// and including `run` itself (the most extreme one left out when there are at
// least five), host-speed normalised (wall_us_normalized) where those runs
// recorded a probe. Cases with fewer than three such runs get no entry. Pass the
// baseline run: the spread is learned from history, never from the candidate.
Status AttachWallNoise(Store& store, RunRecord* run, size_t max_runs = 10);

// Per completed run of `suite`: the geometric mean of `metric` over the
// cases present in every one of those runs (so a case added later does not
// move the mean).
// `through_run_id` as for LoadSeries.
StatusOr<std::vector<SeriesPoint>> LoadSuiteGeomeanSeries(Store& store, const std::string& suite,
                                                          const std::string& metric,
                                                          int64_t through_run_id = 0);

// A change point of a series, attributed to the environment change at it.
struct HistoryShift {
  std::string suite, case_name, metric;
  ChangePoint point;
  int64_t first_run_id = 0;          // the first run of the new regime
  int64_t previous_run_id = 0;       // the last run before it
  std::vector<EnvChange> env_change; // between those two runs
};

// Change points of one series (see changepoint.h), each with the environment
// change at its first run. Deterministic metrics (modeled_us, accuracy,
// fallback, memory) use min_relative_shift 0; wall time uses 5%.
std::vector<HistoryShift> FindShifts(const std::string& suite, const std::string& case_name,
                                     const std::string& metric, const std::vector<SeriesPoint>& series);

// Every case of `suite` (or just `case_name` when not empty) and every metric
// in `metrics`. When empty: modeled_us, wall time, max_ulp, rel_l2,
// fallback_ops and peak_device_bytes, where wall time is wall_us_normalized
// for cases whose runs recorded a host probe and wall_us_median otherwise.
StatusOr<std::vector<HistoryShift>> SuiteHistory(Store& store, const std::string& suite,
                                                 const std::string& case_name,
                                                 const std::vector<std::string>& metrics);

}  // namespace harness
