#pragma once
// Reading recorded runs back for the judges (compare, history, reports):
// whole runs, series of one metric over runs, and the choice of a baseline.
// Read-only; a store opened read-only is enough.
//
//   auto base = LoadRunRecord(*store, 3);
//   auto cand = LoadRunRecord(*store, 4);
//   Comparison c = CompareRuns(*base, *cand, thresholds);
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "store/run_record.h"
#include "store/store.h"

namespace harness {

// One run with every case result (metrics, wall samples, op summaries).
// NotFound when there is no such run.
StatusOr<RunRecord> LoadRunRecord(Store& store, int64_t run_id);

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
StatusOr<std::optional<int64_t>> ResolveBaseline(Store& store, const std::string& spec,
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
StatusOr<BaselineChoice> ChooseBaseline(Store& store, const std::string& spec,
                                        int64_t candidate_run_id);

// The metrics a history series can follow: wall_us_median,
// wall_us_normalized (the wall median at the reference host speed, see
// base/host_probe.h; only results that recorded a probe), modeled_us,
// max_abs_err, max_rel_err, rel_l2, max_ulp, cosine, fallback_ops,
// peak_device_bytes, and any per-output metric name recorded in `metrics`
// (its worst value over outputs).
bool IsHistoryMetric(const std::string& metric);

// Whether the store holds any result of `suite` (completed run or not).
StatusOr<bool> SuiteHasResults(Store& store, const std::string& suite);

struct SeriesPoint {
  int64_t run_id = 0;
  std::string started_at;
  std::string label;
  double value = 0;
  nlohmann::json env = nlohmann::json::object();
};

// The value of (suite, case, metric) in every completed run that has it, in
// run order. Runs where the value is NULL/NaN are left out. Besides the
// history metrics, `metric` may be host_probe_us: the host probe's median
// time recorded beside each timed case (base/host_probe.h), for the judges
// that tell the host's speed from the case's; or host_busy_others and
// host_busy_ticks: the clock ticks other processes used while the case was
// timed, and the machine's.
// `through_run_id` > 0: only runs up to that one in run order (what was
// known when it ran); 0: all.
StatusOr<std::vector<SeriesPoint>> LoadSeries(Store& store, const std::string& suite,
                                              const std::string& case_name,
                                              const std::string& metric,
                                              int64_t through_run_id = 0);

// (case name -> series) for every case of `suite` (or only `case_name` when
// not empty), as LoadSeries.
StatusOr<std::map<std::string, std::vector<SeriesPoint>>> LoadSuiteSeries(
    Store& store, const std::string& suite, const std::string& case_name, const std::string& metric,
    int64_t through_run_id = 0);

// The same values for every case at once, each run's details held once:
// `runs` are the completed runs that recorded `suite` (up to
// `through_run_id` when > 0), in run order, and each case's values are
// (index into runs, value) in run order. What LoadSuiteSeries returns, without
// a copy of a run's environment in every point (a year of a 300-case suite
// is 100,000 points).
struct SeriesRun {
  int64_t run_id = 0;
  std::string started_at;
  std::string label;
  nlohmann::json env = nlohmann::json::object();
};
struct SeriesTable {
  std::vector<SeriesRun> runs;
  std::map<std::string, std::vector<std::pair<size_t, double>>> cases;
  // The point of `value` at runs[run_index], as LoadSeries gives it.
  SeriesPoint Point(size_t run_index, double value) const;
};
StatusOr<SeriesTable> LoadSeriesTable(Store& store, const std::string& suite,
                                      const std::string& case_name, const std::string& metric,
                                      int64_t through_run_id = 0);

// Per-op wall time of `suite`'s cases in `run_id`: case -> op -> value,
// added to `out`.
Status LoadOpWall(Store& store, const std::string& suite, int64_t run_id,
                  std::map<std::string, std::map<std::string, double>>* out);

}  // namespace harness
