#pragma once
// The per-case rules of regression detection (internal to harness/src/detect).
#include "harness/detect.h"

namespace harness::detect_rules {

// Appends the findings for one case present in both runs to *out.
// `run_sigma`: the case's run-to-run spread of log wall medians, NaN when unknown.
void CompareCase(const CaseResult& base, const CaseResult& cand, const ThresholdValues& v,
                 double run_sigma, Comparison* out);

// Ops whose per-op time grew most from `base` to `cand` (modeled or wall),
// largest growth first, at most `limit`, each as "op (+12.3 us)".
std::vector<std::string> BlameOps(const CaseResult& base, const CaseResult& cand, bool modeled,
                                  size_t limit);

}  // namespace harness::detect_rules
