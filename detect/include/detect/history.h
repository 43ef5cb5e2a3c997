#pragma once
// History for the judges: the run-to-run noise floor of a baseline, suite
// geometric means and change points over the recorded runs. The reading
// itself (runs, series, baselines) is the store's (store_history.h).
//
//   auto base = LoadRunRecord(*store, 3);
//   SPYRE_RETURN_IF_ERROR(AttachWallNoise(*store, &*base));
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "detect/changepoint.h"
#include "detect/detect.h"
#include "base/status.h"
#include "store/store.h"
#include "store/store_history.h"

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

// What a shift of the suite's level is put down to. Two witnesses of the
// host's speed are recorded beside every timed case: the host probe
// (base/host_probe.h: the harness's own arithmetic, which depends on nothing
// upstream, so a slower CPU moves it and a slower build does not) and the
// run-queue wait (the ratio of wall time to wall time less the time the case
// waited for a CPU: a busier host raises it, a slower build does not).
enum class LevelCause {
  kUnknown,  // a witness has too few runs on a side to tell
  kHost,     // a witness moved with the level: divided out of the cases
  kNotHost,  // neither did: kept in the cases, which get change points of their own
  kSmall,    // neither did, but the step is under kMinCaseLevelStep: said for the
             // suite, divided out of the cases
};
const char* LevelCauseName(LevelCause cause);  // "unknown", "host", "not_host", "small"

// A change point of a series, attributed to the environment change at it.
struct HistoryShift {
  std::string suite, case_name, metric;
  ChangePoint point;
  int64_t first_run_id = 0;          // the first run of the new regime
  int64_t previous_run_id = 0;       // the last run before it
  std::vector<EnvChange> env_change; // between those two runs
  // Found with the suite's level in each run divided out (SuiteLogLevels),
  // less its shifts that were not the host's (SplitSuiteLevel); `point`'s
  // before and after are still the series' own medians.
  bool level_removed = false;
  // A shift of the suite's level itself (every case together): case_name is
  // empty and before / after are levels relative to the cases' usual ones;
  // moved_with names the cases whose own medians over the level's segments
  // moved the same way by 5% or more, of level_cases with values there.
  bool suite_level = false;
  std::vector<std::string> moved_with;
  size_t level_cases = 0;
  // Suite-level shifts only: what the shift is put down to, and each
  // witness's own change over the same runs (after / before - 1, of the
  // probe's time and of wall time over wall time less run-queue wait; NaN
  // where it has too few runs).
  LevelCause level_cause = LevelCause::kUnknown;
  double probe_relative = std::nan("");
  double queue_relative = std::nan("");
  // How busy the rest of the machine was (share of its CPU time, medians
  // of the runs) on each side; NaN where too few runs recorded it.
  double busy_before = std::nan("");
  double busy_after = std::nan("");
};

// Cases a run needs for its suite level to be taken.
inline constexpr size_t kMinLevelCases = 8;

// The level of a suite's wall time in each run: for a run with at least
// `min_cases` cases, each case's log value less the median of its logs over
// all its runs, and of those the middle of the densest half (the median of
// the shortest window holding half of them and one more). A host that runs
// the whole suite slower for a while (a parallel build's phases) moves it;
// a change that moved fewer than half of the cases does not. Run id -> log
// level; runs with fewer cases have none.
std::map<int64_t, double> SuiteLogLevels(const std::map<std::string, std::vector<SeriesPoint>>& cases,
                                         size_t min_cases = kMinLevelCases);

// The witnesses' levels in each run, run id -> log level less its median
// over the runs (runs with fewer than `min_cases` cases that have the
// values get none):
//   probe  the log of the median over the run's cases of their recorded
//          probe times (LoadSeriesTable's host_probe_us);
//   queue  the median over the run's cases of the log of the wall median over
//          the median of wall time less run-queue wait.
std::map<int64_t, double> HostProbeLogLevels(const SeriesTable& probes,
                                             size_t min_cases = kMinLevelCases);
std::map<int64_t, double> RunQueueLogLevels(const SeriesTable& wall, const SeriesTable& unqueued,
                                            size_t min_cases = kMinLevelCases);
//   busy   the share of the machine's CPU time other processes used while
//          the run's cases were timed, their clock ticks pooled
//          (LoadSeriesTable's host_busy_others over host_busy_ticks, at
//          least kMinBusyTicks of them), as it is, not centred.
inline constexpr double kMinBusyTicks = 50;
std::map<int64_t, double> HostBusyLevels(const SeriesTable& others, const SeriesTable& ticks,
                                         size_t min_cases = kMinLevelCases);
struct HostSignals {
  std::map<int64_t, double> probe, queue, busy;
};

// A shift of the suite's level is the host's when a witness moved the same
// way over the same runs by at least this share of the level's shift (in
// logs, the medians of the two segments); it is not the host's when both
// witnesses have at least kMinWitnessRuns runs on each side and neither did.
inline constexpr double kHostWitnessShare = 0.5;
inline constexpr size_t kMinWitnessRuns = 3;
// It is also the host's when the rest of the machine got busier or quieter
// over the same runs by at least this share of its CPU time, either way: a
// neighbour that starts or stops moves a case's speed through what it
// shares (caches, memory bandwidth, where the scheduler places the case)
// in either direction, while neither the probe, latency-bound and in
// cache, nor the run-queue wait, zero while a CPU is free, need move.
inline constexpr double kHostBusyShift = 0.1;
// What such a neighbour has been seen to do to a whole suite is a step of
// up to about 14%; a step larger than this (relative) is never put down to
// the rest of the machine's load alone.
inline constexpr double kHostBusyMaxStep = 0.25;
// A step of the level that no witness explains and that is smaller than
// this (relative) is kSmall: a shared host moves a whole suite by 5-7%
// between one run and the next for reasons none of the witnesses see (a
// neighbour's build changing phase), so history says it once for the
// suite and does not give each case a change point for it. A case that
// moved on its own is still found at wall time's 5%; the nightly's paired
// re-timing is what finds a small change of every case in one night.
inline constexpr double kMinCaseLevelStep = 0.10;

// One witness's log levels in the runs before and after a level shift.
struct WitnessRuns {
  std::vector<double> before, after;
};
// The witnesses of one level shift, and what each did over it.
struct LevelWitnesses {
  WitnessRuns probe, queue;  // log levels
  WitnessRuns busy;          // shares, as they are; optional (older runs have none)
};
struct WitnessChange {
  double probe_relative = std::nan(""), queue_relative = std::nan("");  // NaN: too few runs
  double busy_before = std::nan(""), busy_after = std::nan("");
};
// LevelCause of a level shift of `level_log_shift` (log after / before);
// *change is set to each witness's own change.
LevelCause AttributeLevelShift(double level_log_shift, const LevelWitnesses& w,
                               WitnessChange* change);

// The suite's level split for the search: the level's change points (each
// with moved_with, level_cases and its cause) and, per run, the log level
// that is divided out of the cases: the level less the steps of its change
// points that were not the host's, so that a change every case felt stays in
// each case's series while the host's phases are still taken out.
struct SuiteLevelSplit {
  std::vector<HistoryShift> shifts;           // in run order, suite_level set
  std::map<int64_t, double> divided;          // run id -> log level divided out
};
SuiteLevelSplit SplitSuiteLevel(const std::string& suite,
                                const std::map<std::string, std::vector<SeriesPoint>>& cases,
                                const std::map<int64_t, double>& levels, const HostSignals& host);

// One run's suite level as `history --json` lists it: the level, the part
// of it divided out of the cases and the witnesses' levels, each relative to
// the usual (1 = a usual run; a witness NaN where the run has none).
struct SuiteLevelPoint {
  int64_t run_id = 0;
  double level = 1, divided = 1, probe = std::nan(""), queue = std::nan("");
  double busy = std::nan("");  // a share of the machine, as recorded
};

// Change points of one series (see changepoint.h), each with the environment
// change at its first run. Deterministic metrics (modeled_us, accuracy,
// fallback, memory) use min_relative_shift 0; wall time uses 5%. With
// `log_levels` (wall time only, and only when every run of the series has
// one) the change points are searched for with the level divided out, and a
// change point is kept only when the series' own medians moved the same way
// by the same 5%.
std::vector<HistoryShift> FindShifts(const std::string& suite, const std::string& case_name,
                                     const std::string& metric, const std::vector<SeriesPoint>& series,
                                     const std::map<int64_t, double>* log_levels = nullptr);

// Every case of `suite` (or just `case_name` when not empty) and every metric
// in `metrics`. When empty: modeled_us, wall time, max_ulp, rel_l2,
// fallback_ops and peak_device_bytes, where wall time is the one of
// unqueued_us_median (wall time less run-queue wait), wall_us_normalized and
// wall_us_median whose series covers the most runs, in that order on ties.
// Wall time is searched with the suite's level divided out (SuiteLogLevels,
// over all of the suite's cases even with `case_name`) less the shifts of it
// the host's witnesses did not share (SplitSuiteLevel), and the level's own change
// points are shifts with suite_level set (with `case_name`, those the case
// moved with). `levels`, when given, receives the level of each run of the
// last wall series searched (the default one when `metrics` is empty).
StatusOr<std::vector<HistoryShift>> SuiteHistory(Store& store, const std::string& suite,
                                                 const std::string& case_name,
                                                 const std::vector<std::string>& metrics,
                                                 std::vector<SuiteLevelPoint>* levels = nullptr);

}  // namespace harness
