#pragma once
// The per-case rules of regression detection (internal to detect/src).
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "detect/detect.h"

namespace harness::detect_rules {

// What the baseline's history says about one case (RunRecord's maps).
struct CaseHistory {
  double run_sigma = std::nan("");  // run-to-run spread of log wall medians, NaN when unknown
  const std::vector<double>* medians =
      nullptr;  // wall medians of recent runs, baseline's environment
  const std::map<std::string, std::vector<double>>* op_wall = nullptr;  // per-op wall, same runs
  // The same for wall time less run-queue wait, over the runs that kept it.
  double unqueued_sigma = std::nan("");
  const std::vector<double>* unqueued_medians = nullptr;
  // How many run medians each spread was computed from (0: not known).
  int run_count = 0, unqueued_count = 0;
  // Of the whole candidate run: how many cases were confirmed beside this
  // baseline's configuration, and the factor their wall_confirm_alpha is
  // multiplied by, the level they share (SharedConfirmScale).
  size_t confirmed_in_run = 0;
  double confirm_scale = 1;
};

// Appends the findings for one case present in both runs to *out.
void CompareCase(const CaseResult& base, const CaseResult& cand, const ThresholdValues& v,
                 const CaseHistory& h, Comparison* out);

std::vector<double> LogsOf(const std::vector<double>& v);

// Ops whose per-op time grew most from `base` to `cand` (modeled or wall),
// largest growth first, at most `limit`, each with its growth in us.
std::vector<BlamedOp> BlameOps(const CaseResult& base, const CaseResult& cand, bool modeled,
                                  size_t limit);

}  // namespace harness::detect_rules
