#pragma once
// The store's read queries for the CLI and the reports: finding runs by
// position, label or id, listing runs, and the names a history holds.
// Read-only; a store opened read-only is enough. A failed read is one
// IoError line saying what was being read.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "store/store.h"

namespace harness {

// The id of the run `back` runs before the newest (by id); none when the
// store has fewer runs.
StatusOr<std::optional<int64_t>> NthNewestRunId(Store& store, int64_t back);
// The newest run with `label`; none when no run has it.
StatusOr<std::optional<int64_t>> NewestRunIdWithLabel(Store& store, const std::string& label);
// Whether run `run_id` is in the store.
StatusOr<bool> RunExists(Store& store, int64_t run_id);
// The newest run; none in an empty store.
StatusOr<std::optional<int64_t>> LatestRunId(Store& store);

// A run as the v_runs view shows it, with its note.
struct RunView {
  int64_t run_id = 0;
  std::string suite, label, status, started_at, finished_at, fingerprint, env_json, note;
};
// None when there is no such run.
StatusOr<std::optional<RunView>> ReadRunView(Store& store, int64_t run_id);
// The baseline detection recorded findings against for the run, if any.
StatusOr<std::optional<int64_t>> RecordedBaselineRun(Store& store, int64_t run_id);

// The findings recorded for run `run_id` (against the baseline it was
// judged against), in the order they were recorded.
StatusOr<std::vector<RegressionRow>> ReadRegressions(Store& store, int64_t run_id);
// Every attribution recorded for run `run_id`, oldest bisect first.
StatusOr<std::vector<AttributionRow>> ReadAttributions(Store& store, int64_t run_id);

// One line of `runs`: newest first, at most `limit` (-1: all), of runs whose
// suite set contains `suite` and whose label is `label` (each "" for any).
struct RunListQuery {
  std::string suite, label;
  int64_t limit = -1;
};
struct RunListing {
  int64_t id = 0;
  std::string started, finished, suite, label, shard, fingerprint, env_json, options_json;
  int64_t regressions = 0;
  std::optional<int64_t> regressions_baseline;  // from the stored findings
};
StatusOr<std::vector<RunListing>> ListRuns(Store& store, const RunListQuery& query);
// The distinct suites (column "suite") or labels ("label") of the runs.
StatusOr<std::vector<std::string>> DistinctRunValues(Store& store, const std::string& column);

// The suites with results; the cases of `suite` with results; the metric
// names (metrics table) recorded for `suite`.
StatusOr<std::vector<std::string>> SuitesWithResults(Store& store);
StatusOr<std::vector<std::string>> CasesWithResults(Store& store, const std::string& suite);
StatusOr<std::vector<std::string>> RecordedMetricNames(Store& store, const std::string& suite);

// How many completed runs recorded results of `suite`: the length of its history.
StatusOr<int64_t> CompletedRunsOfSuite(Store& store, const std::string& suite);

// "suite/case" of every result of run `run_id`: what a run shares with another.
StatusOr<std::vector<std::string>> RunCaseKeys(Store& store, int64_t run_id);

// For `report --stacks`: every value of the run tag `key` (the runs'
// env_json "tags": {key: value}, set by `run --tag key=value`) among completed
// runs, and every suite such a run recorded results for, the latest completed
// run of that suite with that tag value (by started_at, then run id). A run
// that recorded several suites can be the latest of one and not of another.
// Oldest first (started_at, run id, suite). Left out: runs that are not
// completed, runs whose env_json is not JSON, values that are not a
// non-empty string. No tagged run: an empty list.
struct TaggedRun {
  std::string tag_value;  // e.g. "debian-12"
  std::string suite;
  int64_t run_id = 0;
  std::string started_at;
};
StatusOr<std::vector<TaggedRun>> LatestRunsPerTagValue(Store& store, const std::string& key);

}  // namespace harness
