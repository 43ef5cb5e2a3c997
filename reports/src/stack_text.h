#pragma once
// How a stack matrix cell and a stack's changes read in stacks.html and
// stacks.md (private to spyre_reports). Plain text: each format escapes it.
#include <cmath>
#include <string>

#include "base/human_format.h"
#include "reports/escape.h"
#include "reports/stack_model.h"

namespace reports::internal {

// What a cell shows for a stack that did not record the case.
inline constexpr const char* kNoCaseMark = "\u2014";  // an em dash

// "passed", "failed", ...; kNoCaseMark without a cell.
inline std::string StackStatusText(const StackCell* cell) {
  return cell == nullptr ? kNoCaseMark : harness::CaseStatusName(cell->status);
}

// "16 ULP"; "" when the case recorded none.
inline std::string UlpText(double max_ulp) {
  return std::isfinite(max_ulp) ? harness::HumanNumber(max_ulp) + " ULP" : "";
}

// The latency figure of a cell: the baseline's own wall median ("40.0 us"),
// another stack's change against it ("+25.0%"); "" when there is none.
inline std::string WallText(const StackCell& cell, bool baseline) {
  if (baseline) return std::isfinite(cell.wall_us) ? harness::HumanDuration(cell.wall_us) : "";
  return std::isfinite(cell.wall_ratio) ? FormatChange(cell.wall_ratio) : "";
}

// "libtorch 1.13.0 -> 2.6.0" ("none" for a blank side).
inline std::string ChangeText(const harness::EnvChange& e) {
  return e.component + " " + harness::EnvValueText(e.baseline) + " -> " +
         harness::EnvValueText(e.candidate);
}

// A component's value as shown: "unknown" when the environment did not say.
inline std::string ComponentText(const StackComponent& c) {
  return c.value.empty() ? "unknown" : c.value;
}

}  // namespace reports::internal
