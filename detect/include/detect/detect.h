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
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/case_result.h"
#include "detect/thresholds.h"
#include "store/run_record.h"

namespace harness {

enum class FindingKind { kStatus, kAccuracy, kLatency, kModeledLatency, kFallback, kMemory, kGoldenDrift };
const char* FindingKindName(FindingKind k);  // "status", "accuracy", "latency", ...

// An op a finding names, with its share of the change in the finding's
// unit: "mm" +2.5 "us" (latency: its part of the case's change), +3 "calls"
// (fallback). `delta` is NaN where only the name is known (an accuracy
// break names the op whose output first departed; older stored findings).
struct BlamedOp {
  std::string op;
  double delta = 0;
  std::string unit;
};
// "mm (+2.5 us)", "mm (+3 calls)", or "mm" without a delta.
std::string BlamedOpText(const BlamedOp& b);

// One finding carries one set of figures, computed once, stored, and shown
// the same way everywhere (terminal, compare, every report): `baseline` and
// `candidate` in the metric's unit, `ratio` = candidate / baseline, and the
// `statistic` both figures are ("median of 7 timing rounds each, wall time
// less run-queue wait"). The detail holds the evidence (test, p-value,
// spread), never another figure for the same quantity.
struct Finding {
  std::string suite;
  std::string case_id;
  FindingKind kind = FindingKind::kStatus;
  std::string metric;   // "status", "max_ulp", "wall_us_median", "modeled_us", ...
  double baseline = 0;  // status findings: severity rank passed 0, failed 1, error 2, timeout 3, crashed 4
  double candidate = 0;
  double ratio = 0;     // candidate / baseline (NaN when the baseline is 0 or for a status)
  std::string statistic;  // what baseline and candidate are; "" for a status or golden change
  std::string detail;   // human sentence: the evidence, and the op blamed
  std::vector<BlamedOp> blamed_ops;  // the ops the change went through, largest first
  // Whether the environment change of the comparison may be named as the
  // cause: always for deterministic kinds; for wall time only when the
  // evidence separates the change from between-run noise (an interleaved
  // re-timing of both configurations, or a move the case's history never
  // makes without it).
  bool env_cause = true;
  // What an experiment (`bisect`, detect/attribution.h) established about
  // the cause, when one was run: its verdict ("caused", "together", "each",
  // "not_separable", "not_reproduced", "undecided") and its sentence.
  std::string cause_verdict;
  std::string cause;
};

struct EnvChange {
  std::string component;  // "libtorch", "blas", "profile", "tag:vllm", ...
  std::string baseline;
  std::string candidate;
  bool upstream = false;  // a component upstream of the device under test
};

// The detection power a comparison had for one case's wall time: the
// smallest change (relative: 0.08 is 8%, either way) that the evidence its
// verdict rested on would have reported with probability 0.95, at the level
// it was judged at, and never below what is reported at all (the minimum
// effect, the minimum absolute change, for timing rounds what whole runs
// move by themselves). `basis` names that evidence: "paired",
// "interleaved" (fresh processes beside the baseline's configuration),
// "history" (against the case's run-to-run history), "rounds" (both runs'
// timing rounds) or "screen" (no re-timing: the main pass's screen found
// nothing to re-time); `values` is how many values a side it rests on
// (the candidate's).
struct WallPower {
  std::string suite;
  std::string case_id;
  double detectable = 0;
  std::string basis;
  int values = 0;
};

struct Comparison {
  RunRecord baseline_run;   // cases omitted in JSON
  RunRecord candidate_run;
  std::vector<EnvChange> env_diff;
  std::vector<Finding> regressions;
  std::vector<Finding> improvements;
  std::vector<std::string> notes;  // e.g. "not enough samples" for wall latency
  std::vector<WallPower> power;    // one per case whose wall time was compared
};

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
// The same over other per-sample values of `r` (one per wall sample), e.g.
// r.UnqueuedUs().
std::vector<double> RoundValuesOf(const CaseResult& r, const std::vector<double>& samples);

// What latency is judged on (docs/detection.md): wall time less the
// run-queue wait of the timing thread when both results recorded that wait
// for every sample, wall time otherwise (older results, kernels without
// /proc/thread-self/schedstat).
bool JudgeUnqueued(const CaseResult& base, const CaseResult& cand);
// The samples of `r` in that quantity.
std::vector<double> LatencySamples(const CaseResult& r, bool unqueued);

// Confirmation of a wall-time suspect (runner/confirm.h): the case re-timed
// in fresh worker processes after the main pass, read from
// extra["confirm"]. `values`: one median per fresh candidate process;
// `baseline_values`: the same for the baseline's configuration re-timed
// interleaved with them (empty when it could not be reproduced);
// `op_wall` / `baseline_op_wall`: per-op wall time per process.
// `paired`: both configurations were timed in every one of those processes,
// one after the other (they differed only in injected faults), so value i
// and baseline value i (and op value i on both sides) come from the same
// process and are judged as pairs.
struct WallConfirmation {
  int64_t baseline_run_id = 0;
  bool paired = false;
  // The values are medians of wall time less run-queue wait (true), or of
  // wall time (false: recorded before the wait was kept, or not available).
  bool unqueued = false;
  std::vector<double> values, baseline_values;
  std::map<std::string, std::vector<double>> op_wall, baseline_op_wall;
  // The fewest wall samples one process took of the case on either side,
  // each value being their median (0: not recorded).
  int samples = 0;
  // The most processes a side the sequential design would have taken of
  // the case while undecided (0: not recorded). A case stops early when it
  // is plainly unchanged or clearly changed; had it been changed, it would
  // have gone on, so its power is that of this many.
  int max_rounds = 0;
};
std::optional<WallConfirmation> ReadWallConfirmation(const CaseResult& r);

// The evidence of one confirmation beside the baseline's configuration,
// before any level: the two-sided p-value (paired: a one-sample t-test of
// the pairs' log ratios; otherwise Mann-Whitney between the two sets of
// processes) and the estimated shift (log ratio, candidate over baseline:
// the median Walsh average of the pairs, or Hodges-Lehmann). `usable` is
// false with fewer than three processes a side (or paired sides of
// different lengths); p is then 1.
struct ConfirmTest {
  double p = 1;
  double shift = 0;
  bool usable = false;
};
ConfirmTest TestConfirmation(const std::vector<double>& base, const std::vector<double>& cand,
                             bool paired);
// A confirmation's p-value divided by the case's wall_confirm_alpha, what
// the run's confirmations share their level by (SharedConfirmScale);
// infinity when it cannot be a finding: not usable, an estimate short of
// wall_min_effect, or medians closer than wall_min_abs_us. Paired when
// c.paired and both sides have as many values.
double RelativeConfirmP(const WallConfirmation& c, const ThresholdValues& v);

// The run's confirmations beside the baseline's configuration share one
// level. Given, per such case, its p-value divided by its own
// wall_confirm_alpha (infinity where its estimate falls short of
// wall_min_effect: it cannot be a finding), returns the factor every case's
// wall_confirm_alpha is multiplied by: min(1, max(10, k) / n) for n cases,
// where k is the largest j whose j-th smallest relative p-value is at most
// max(10, j) / n (a step-up rule, after Benjamini and Hochberg). Without a
// real change this is a tenth of Bonferroni's correction: a run that
// re-times all of its 250 cases keeps about a 1% chance of any latency
// finding, as ten cases at wall_confirm_alpha would; when tens of cases
// changed (a slower kernel under many of them) the level rises with their
// number, so that the expected share of false findings among them stays
// near wall_confirm_alpha. Up to ten cases: 1.
double SharedConfirmScale(std::vector<double> relative_p);
nlohmann::json WallConfirmationJson(const WallConfirmation& c);

// Whether the candidate's wall samples look changed against the baseline's
// when judged inside one process each (the slowest sample of each side left
// out, Mann-Whitney p < 0.1 and the Hodges-Lehmann shift at least
// wall_min_effect; or the fastest half of each side completely apart by at
// least twice wall_min_effect). Such a case is a
// suspect: not a verdict (one process cannot show the between-process
// noise), but worth re-timing in fresh processes.
bool WallSuspect(const CaseResult& base, const CaseResult& cand, const ThresholdValues& v);
// Whether the device's modeled time of the case moved by wall_min_effect or
// more (both recorded): the work changed, so its wall time is worth
// re-timing too, even when the main pass did not show it (one process a
// side: a baseline process that ran through a slow phase of the host hides
// a slowdown).
bool ModeledMoved(const CaseResult& base, const CaseResult& cand, const ThresholdValues& v);

// The emulator settings that turn the candidate's environment into the
// baseline's (SPYRE_EMU_PROFILE, _FAULTS, _ROUNDING, _CORES), when the two
// differ in nothing else: then the baseline's configuration can be re-timed
// beside the candidate's by this very binary. Another BLAS library is put
// back too, while the baseline's file is still there: LD_PRELOAD of that
// file, and OPENBLAS_CORETYPE when OpenBLAS chose another kernel set.
// std::nullopt otherwise (another libtorch, harness build, host or tag; a
// BLAS file that is gone).
std::optional<std::map<std::string, std::string>> BaselineWorkerSettings(
    const nlohmann::json& baseline, const nlohmann::json& candidate);

// Differences between two fingerprints, one entry per component. The
// digests of the suite files ("suite_files") are compared only when both
// runs recorded them.
std::vector<EnvChange> DiffEnvironments(const nlohmann::json& baseline, const nlohmann::json& candidate);

// What kind of change a component's is, as reports label it: "upstream
// change" (libtorch, BLAS, compiler, C library), "device under test" (the
// device library, the emulator's version), "emulator setting" (profile,
// rounding, cores), "injected fault", "test input" (suite files, golden
// files), "harness", "tag" or "host".
const char* EnvChangeKind(const std::string& component);

// Compares the cases the two runs share (by suite and case id).
Comparison CompareRuns(const RunRecord& baseline, const RunRecord& candidate, const Thresholds& thresholds);

// The sentence that attributes findings to upstream changes and changed
// test inputs, e.g. "appeared with blas OpenBLAS 0.3.21 -> reference";
// empty when neither changed.
std::string Attribution(const Comparison& c);

// A finding's figures in one phrase, the same in every format:
// "13.8 us -> 93.6 us (+578%)"; a status finding reads "passed -> failed",
// a golden change "golden outputs changed".
std::string FindingFigures(const Finding& f);

// The op a finding names, as a phrase: "grew most: mm (+2.5 us)" (latency
// kinds), "now falling back: add (+2 calls)", "first departing op: mm"
// (accuracy and status); "" when it names none.
std::string BlamedOpPhrase(const Finding& f);

// One finding in one line: its kind and metric, its figures
// (FindingFigures) with the statistic they are, then the detail and the op
// named (BlamedOpPhrase); a bisect's word last. "latency unqueued_us_median: 13.8 us -> 93.6 us (+578%; median
// of 7 fresh processes each side, ...): Mann-Whitney p < 0.001 ...".
std::string FindingSummary(const Finding& f);

// Human text: the environment change, the attribution, then one line per
// regression (at most `max_rows`, then "... and N more"), improvements
// counted and those that are a better status (a case that now passes) named
// one a line, notes listed.
std::string FormatComparison(const Comparison& c, size_t max_rows = 50);

// The JSON shape `compare --json` prints (docs/detection.md).
nlohmann::json ToJson(const Comparison& c);
// One finding as ToJson lists it.
nlohmann::json FindingToJson(const Finding& f);

}  // namespace harness
