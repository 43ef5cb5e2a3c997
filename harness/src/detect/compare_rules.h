#pragma once
// The per-case rules of regression detection (internal to harness/src/detect).
#include "harness/detect.h"

namespace harness::detect_rules {

// Appends the findings for one case present in both runs to *out.
void CompareCase(const CaseResult& base, const CaseResult& cand, const ThresholdValues& v,
                 Comparison* out);

// Ops whose per-op time grew most from `base` to `cand` (modeled or wall),
// largest growth first, at most `limit`, each as "op (+12.3 us)".
std::vector<std::string> BlameOps(const CaseResult& base, const CaseResult& cand, bool modeled,
                                  size_t limit);

}  // namespace harness::detect_rules
