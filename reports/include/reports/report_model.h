#pragma once
// The report model: everything a report shows, read from the store once and
// shared by every output format (reporter.h). Building it is the only part
// that touches SQLite; reporters are pure functions of the model.
//
//   SPYRE_ASSIGN_OR_RETURN(ReportModel model, BuildReportModel(*store, run_id, {}));
//
// Edge cases:
// - No baseline (first run of a suite, or --baseline none): `comparison` is
//   empty, the verdict is judged on case statuses alone.
// - The baseline is the one detection recorded for the run (v_regressions),
//   else resolved with `options.baseline` (store_history.h, ResolveBaseline).
// - History charts end at the reported run: a report of an earlier run
//   shows what was known when it ran, whatever was recorded since.
// - History charts are drawn for at most `options.max_case_charts` flagged
//   cases (the first regressions in comparison order); each suite gets one
//   geometric-mean chart per metric in `options.suite_chart_metrics`.
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "detect/detect.h"
#include "detect/history.h"
#include "detect/thresholds.h"
#include "base/status.h"
#include "store/store.h"

namespace reports {

enum class Verdict { kPassed, kFailed, kRegressed, kAborted, kRunning, kPartial };
// "passed", "failed" (a case failed, errored, crashed or timed out; wins over
// regressed), "regressed" (all cases passed or skipped, regressions found).
// A run that did not complete has no pass/fail verdict, whatever its recorded
// cases say, and these win over the others: "aborted" (interrupted, or its
// supervisor died), "running" (live, or abandoned and not yet marked) and
// "partial" (completed with fewer results than it planned).
// IsIncomplete: one of the last three.
const char* VerdictName(Verdict v);
bool IsIncomplete(Verdict v);

struct StatusCounts {
  int passed = 0, failed = 0, error = 0, crashed = 0, timeout = 0, skipped = 0;
  int total() const { return passed + failed + error + crashed + timeout + skipped; }
  int Of(harness::CaseStatus s) const;
  void Add(harness::CaseStatus s);
};

// The run as recorded in v_runs.
struct RunInfo {
  int64_t run_id = 0;
  std::string suite, label, status, started_at, finished_at, fingerprint;
  nlohmann::json env = nlohmann::json::object();
  // Warnings the run recorded in its note (e.g. an injected fault that
  // matched no call).
  std::vector<std::string> warnings;
};

// What a case measures, read from the metrics it recorded: "serving" (kv
// and latency outputs), "decode" (tokens,
// logprobs and latency outputs), "prefill" (logits with top-1 agreement),
// "embed" (embeddings) or "op" (everything else: per-output error metrics).
// The report gives each kind its own columns.
std::string CaseKindOf(const harness::CaseResult& r);

// One case of the candidate run beside its baseline values (NaN when the
// baseline run lacks the case or the value).
struct CaseRow {
  harness::CaseResult result;
  double wall_us = 0;  // candidate wall median (NaN without samples)
  double base_wall_us = 0;
  double base_modeled_us = 0;
  bool in_baseline = false;
  harness::CaseStatus base_status = harness::CaseStatus::kSkipped;  // when in_baseline
  std::vector<harness::Metric> base_metrics;                        // when in_baseline
  int regressions = 0;                                              // findings against this case
};

// A version change between two consecutive points of a chart.
struct VersionMark {
  size_t index = 0;                         // the first point with the new versions
  std::vector<harness::EnvChange> changes;  // upstream components only
};

// One history line: a flagged case's metric, or a suite's geometric mean.
struct Chart {
  std::string title;
  std::string suite, case_name, metric;  // case_name empty for a suite geomean
  std::vector<harness::SeriesPoint> points;
  std::vector<harness::HistoryShift> shifts;  // change points
  std::vector<VersionMark> versions;
  int64_t current_run_id = 0;  // the reported run, highlighted
  // For a flagged case: the finding's figures beside the reported run, e.g.
  // "10 us -> 12.5 us (+25.0%) vs run 5"; empty for suite charts.
  std::string note;
  // The finding's own two values (its statistic, which need not be the
  // run medians the line plots), drawn as labelled lines; NaN when none.
  double finding_baseline = std::numeric_limits<double>::quiet_NaN();
  double finding_candidate = std::numeric_limits<double>::quiet_NaN();
};

struct SuiteSection {
  std::string name;
  StatusCounts counts;
  std::vector<CaseRow> cases;  // in recorded order
  int64_t fallback_ops = 0;    // CPU-fallback calls over all cases (one repeat each)
  int cases_with_fallback = 0;
  // Cases whose device does not count CPU fallbacks (no device ABI): their
  // calls are "not provided", never counted as zero.
  int cases_without_fallback_counts = 0;
  int cases_with_ops = 0;                          // cases that recorded an op summary
  std::map<std::string, int64_t> fallbacks_by_op;  // op -> fallback calls
  std::map<std::string, int64_t> calls_by_op;      // op -> all calls (device + fallback)
  std::vector<Chart> charts;                       // geometric-mean history per metric
};

struct ReportModel {
  RunInfo run;
  std::optional<RunInfo> baseline;
  std::optional<harness::Comparison> comparison;
  std::string attribution;  // harness::Attribution, empty when nothing upstream changed
  Verdict verdict = Verdict::kPassed;
  // For an incomplete verdict, what happened: "run 4 was aborted (interrupted
  // by signal 15): 2 of 18 planned cases recorded"; empty otherwise.
  std::string incomplete;
  harness::RunState state;
  StatusCounts counts;
  std::vector<SuiteSection> suites;            // sorted by name
  std::vector<Chart> case_charts;              // history of flagged cases
  std::vector<harness::Finding> golden_drift;  // golden_drift findings

  // The candidate's row of (suite, case id); nullptr when absent.
  const CaseRow* FindCase(const std::string& suite, const std::string& case_id) const;
};

struct ReportOptions {
  std::string baseline = "auto";  // used when detection recorded no baseline
  harness::Thresholds thresholds;
  size_t max_case_charts = 12;
  std::vector<std::string> suite_chart_metrics = {"modeled_us", "wall_us_median"};
};

// Reads run `run_id` and everything around it. NotFound for a missing run.
harness::StatusOr<ReportModel> BuildReportModel(harness::Store& store, int64_t run_id,
                                                const ReportOptions& options);

// The newest run of the store (any status). NotFound when the store is empty.
harness::StatusOr<int64_t> LatestRunId(harness::Store& store);

}  // namespace reports
