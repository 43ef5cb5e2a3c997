#pragma once
// Reading recorded runs back for the judges (compare, history, reports).
// Works on an open store's SQLite handle (Store::handle()); read-only.
//
//   auto base = LoadRunRecord(store->handle(), 3);
//   auto cand = LoadRunRecord(store->handle(), 4);
//   Comparison c = CompareRuns(*base, *cand, thresholds);
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/detect/changepoint.h"
#include "harness/detect/detect.h"
#include "harness/status.h"

namespace harness {

// One run with every case result (metrics, wall samples, op summaries).
// NotFound when there is no such run.
StatusOr<RunRecord> LoadRunRecord(sqlite3* db, int64_t run_id);

// Fills run->wall_run_medians and op_run_wall (the raw wall medians and
// per-op wall times of up to `max_runs` completed runs with the run's own
// environment, newest first, the run included; cases with fewer than three
// get none) and run->wall_run_sigma: for every case, the standard deviation of the
// log wall medians of the last `max_runs` completed runs of its suite up to
// and including `run` itself (the most extreme one left out when there are at
// least five), host-speed normalised (wall_us_normalized) where those runs
// recorded a probe. Cases with fewer than three such runs get no entry. Pass the
// baseline run: the spread is learned from history, never from the candidate.
Status AttachWallNoise(sqlite3* db, RunRecord* run, size_t max_runs = 10);

// Resolves --baseline for a candidate run:
//   "auto"        the newest completed run of the same suite set that shares
//                 at least one case with the candidate, has no injected
//                 faults and no harness errors, preferring one recorded on
//                 the same CPU model; none when there is no such run
//   "none"        no baseline
//   "<id>"        that run (must exist and be completed)
//   "label:NAME"  the newest completed run with that label
// Returns std::nullopt for "none" or when auto finds nothing. A run id or
// label that does not exist is NotFound; a malformed spec is a usage error.
StatusOr<std::optional<int64_t>> ResolveBaseline(sqlite3* db, const std::string& spec,
                                                 int64_t candidate_run_id);

// The same choice with the reason, for the output ("the latest completed run
// of ops with no injected faults and no harness errors (passed over run 7:
// injected faults 'mm:slow=2')"). auto takes the newest completed run of the
// same suite set that shares a case with the candidate and has no injected
// faults and no harness errors (a case that errored, crashed or timed out,
// or no case passing), preferring one on the same CPU model.
struct BaselineChoice {
  std::optional<int64_t> run_id;
  std::string reason;
};
StatusOr<BaselineChoice> ChooseBaseline(sqlite3* db, const std::string& spec,
                                        int64_t candidate_run_id);

// The metrics a history series can follow: wall_us_median,
// wall_us_normalized (the wall median at the reference host speed, see
// harness/host_probe.h; only results that recorded a probe), modeled_us,
// max_abs_err, max_rel_err, rel_l2, max_ulp, cosine, fallback_ops,
// peak_device_bytes, and any per-output metric name recorded in `metrics`
// (its worst value over outputs).
bool IsHistoryMetric(const std::string& metric);

// Whether the store holds any result of `suite` (completed run or not).
StatusOr<bool> SuiteHasResults(sqlite3* db, const std::string& suite);

struct SeriesPoint {
  int64_t run_id = 0;
  std::string started_at;
  std::string label;
  double value = 0;
  nlohmann::json env = nlohmann::json::object();
};

// The value of (suite, case, metric) in every completed run that has it, in
// run order. Runs where the value is NULL/NaN are left out.
// `through_run_id` > 0: only runs up to that one in run order (what was
// known when it ran); 0: all.
StatusOr<std::vector<SeriesPoint>> LoadSeries(sqlite3* db, const std::string& suite,
                                              const std::string& case_name,
                                              const std::string& metric,
                                              int64_t through_run_id = 0);

// Per completed run of `suite`: the geometric mean of `metric` over the
// cases present in every one of those runs (so a case added later does not
// move the mean).
// `through_run_id` as for LoadSeries.
StatusOr<std::vector<SeriesPoint>> LoadSuiteGeomeanSeries(sqlite3* db, const std::string& suite,
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
StatusOr<std::vector<HistoryShift>> SuiteHistory(sqlite3* db, const std::string& suite,
                                                 const std::string& case_name,
                                                 const std::vector<std::string>& metrics);

}  // namespace harness
