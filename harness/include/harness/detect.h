#pragma once
// Regression detection between a baseline run and a candidate run (the
// judge; it never runs cases). Per case and metric: status changes, accuracy
// worse than the baseline beyond a margin (even while inside tolerance),
// modeled latency beyond 0.5%, wall latency by a two-sided Mann-Whitney U test
// plus a minimum effect, more CPU fallbacks, more peak device memory, golden
// drift. Improvements are found by the same rules in the other direction.
// Every comparison carries the environment diff of the two runs, so findings
// can be attributed to an upstream change.
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/case_result.h"
#include "harness/thresholds.h"

namespace harness {

// One recorded run as the judge needs it.
struct RunRecord {
  int64_t run_id = 0;
  std::string suite;  // may list several suites, comma-separated
  std::string label;
  nlohmann::json env = nlohmann::json::object();  // the fingerprint
  std::vector<CaseResult> cases;
  // Run-to-run spread of each case's wall median ("suite/case" -> standard
  // deviation of log medians over earlier runs, see AttachWallNoise in
  // history.h). Separate processes on a shared host land on different,
  // stable speeds that a test within one pair of runs cannot see; when known,
  // a wall-time shift must also exceed wall_noise_k times this spread.
  std::map<std::string, double> wall_run_sigma;
};

enum class FindingKind { kStatus, kAccuracy, kLatency, kModeledLatency, kFallback, kMemory, kGoldenDrift };
const char* FindingKindName(FindingKind k);  // "status", "accuracy", "latency", ...

struct Finding {
  std::string suite;
  std::string case_id;
  FindingKind kind = FindingKind::kStatus;
  std::string metric;   // "status", "max_ulp", "wall_us_median", "modeled_us", ...
  double baseline = 0;  // status findings: severity rank passed 0, failed 1, error 2, timeout 3, crashed 4
  double candidate = 0;
  double ratio = 0;     // candidate / baseline (NaN when the baseline is 0)
  std::string detail;   // human sentence: why, and the op blamed for latency
  std::vector<std::string> blamed_ops;  // ops whose time grew most (latency kinds)
};

struct EnvChange {
  std::string component;  // "libtorch", "blas", "profile", "tag:vllm", ...
  std::string baseline;
  std::string candidate;
  bool upstream = false;  // a component upstream of the device under test
};

struct Comparison {
  RunRecord baseline_run;   // cases omitted in JSON
  RunRecord candidate_run;
  std::vector<EnvChange> env_diff;
  std::vector<Finding> regressions;
  std::vector<Finding> improvements;
  std::vector<std::string> notes;  // e.g. "not enough samples" for wall latency
};

// True for metrics where larger is better (cosine, top-1 agreement, top-k
// overlap); every other metric is an error, smaller is better.
bool HigherIsBetter(const std::string& metric);

// Whether a recorded metric measures accuracy, so the accuracy rule judges
// it. Not accuracy: timings a case reports among its metrics (output
// "latency": decode's ttft/itl/tokens per second, judged through the wall
// samples and modeled time instead), timing-only figures (outputs "time" and
// "figure"), and descriptive counts (first_divergence_step is -1 for "never",
// near_ties are not errors; hard flips and top-1 agreement carry the news).
bool IsAccuracyMetric(const std::string& output, const std::string& name);

// One value per timing round (`run --rounds`; runner/timing_rounds.h): the
// median of each round's samples, read from extra["rounds"]["samples"] (the
// rounds' sizes, in order). Empty when the result has no rounds or its
// record does not add up (older runs, single-process samples).
std::vector<double> WallRoundValues(const CaseResult& r);

// Differences between two fingerprints, one entry per component.
std::vector<EnvChange> DiffEnvironments(const nlohmann::json& baseline, const nlohmann::json& candidate);

// Compares the cases the two runs share (by suite and case id).
Comparison CompareRuns(const RunRecord& baseline, const RunRecord& candidate, const Thresholds& thresholds);

// The sentence that attributes findings to upstream changes, e.g.
// "appeared with blas OpenBLAS 0.3.21 -> reference"; empty when no upstream
// component changed.
std::string Attribution(const Comparison& c);

// Human text: the environment change, the attribution, then one line per
// regression (at most `max_rows`, then "... and N more"), improvements
// counted, notes listed.
std::string FormatComparison(const Comparison& c, size_t max_rows = 50);

// The contract's JSON shape (shared/CONTRACT.md, compare --json).
nlohmann::json ToJson(const Comparison& c);

}  // namespace harness
