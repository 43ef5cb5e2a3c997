#pragma once
// Detection thresholds: defaults, per-suite and per-case overrides, read from
// a JSON file (config/thresholds.json by default; see docs/detection.md
// for every key). A case override applies to case ids matching its
// regular expression (whole-id match), the last matching entry winning.
//
//   {"defaults": {"modeled_latency": 0.005},
//    "suites": {"decode": {"wall_min_effect": 0.08}},
//    "cases": [{"suite": "ops", "match": "softmax/.*", "accuracy_rel_margin": 0.5}]}
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace harness {

struct ThresholdValues {
  double modeled_latency = 0.005;    // relative change of modeled time that counts
  double wall_min_effect = 0.05;     // smallest relative wall-time change that counts
  double wall_alpha = 0.01;          // Mann-Whitney significance level
  // The level for a suspect re-timed in fresh processes interleaved with the
  // baseline's configuration: a run confirms tens of suspects, and each one
  // that passes makes the run exit 1. 7 processes a side can reach 0.001
  // (complete separation: p = 0.00058); 6 cannot.
  double wall_confirm_alpha = 0.001;
  int wall_min_samples = 5;          // fewer samples per side: "not enough samples"
  // With rounds, between two runs: the shift must exceed k x the spread of
  // the difference of two runs' medians (sqrt(2) x the case's run-to-run
  // spread; for a spread learned from few runs, Student t's quantile at the
  // same level in place of k).
  double wall_noise_k = 3;
  // The run-to-run spread (standard deviation of log run medians) taken for
  // a case whose history does not show its own: whole runs on a shared host
  // drift with the load level (shared cache, SMT sibling), which no number
  // of rounds inside one run samples.
  double wall_run_spread_unknown = 0.1;
  // The least run-to-run spread a case's history may claim.
  double wall_run_spread_min = 0.01;
  double wall_noise_prior = 0.1;  // no longer used: accepted so that older files still load
  double wall_min_abs_us = 0;     // medians closer than this never count (0: no floor)
  // Both runs timed in at least this many rounds (`run --rounds`): the
  // samples carry the process-to-process variance, so neither the prior nor
  // the microsecond floor applies; between two runs, wall_noise_k does.
  int wall_min_rounds = 10;
  double accuracy_rel_margin = 0.25; // relative worsening of an error metric that counts...
  double accuracy_abs_margin = 1e-6; // ...and it must also worsen by this much
  double ulp_margin = 1;             // max_ulp must also grow by at least this many ULPs
  // An accuracy metric that worsened while the case still passes is a note
  // (shown, recorded in the comparison, no exit 1); true makes it a
  // regression, for a suite whose every digit matters.
  bool accuracy_drift_fails = false;
  double memory = 0.0;               // relative growth of peak device bytes that counts
  double fallback = 0;               // extra CPU-fallback calls tolerated
};

class Thresholds {
 public:
  Thresholds() = default;
  // Parses the config; errors name the key (JSON pointer) and what is expected.
  static StatusOr<Thresholds> FromJson(const nlohmann::json& j, const std::string& origin);
  static StatusOr<Thresholds> FromFile(const std::string& path);
  // The thresholds in force: the file named by SPYRE_REGRESS_THRESHOLDS (the
  // CLI sets it from --thresholds, default <project>/config/thresholds.json);
  // built-in defaults when the variable is unset. A named file that is missing
  // or malformed is an error.
  static StatusOr<Thresholds> Configured();
  // The values in force for one case.
  ThresholdValues For(const std::string& suite, const std::string& case_id) const;

 private:
  struct CaseOverride {
    std::string suite;
    std::string match;
    nlohmann::json values;
  };
  ThresholdValues defaults_;
  nlohmann::json suites_ = nlohmann::json::object();
  std::vector<CaseOverride> cases_;
};

}  // namespace harness
