#pragma once
// Findings grouped by what they have in common and ranked by effect, so a
// person reads "28 cases of latency, all through mm, +40% to +600%" before
// 28 rows in alphabetical order. A group is one kind of finding through one
// op (the op a latency finding blames, the op an accuracy or status finding
// names; none when it names none). Status findings (a case that fails,
// errors or crashes now) outrank every other kind; among the rest, the
// larger change comes first.
#include <string>
#include <vector>

#include "detect/detect.h"

namespace harness {

// How much a finding moved, for ranking: |log(candidate / baseline)|; a
// change from or to zero, or a status change, ranks above any ratio.
double FindingEffect(const Finding& f);

// Orders `findings` by rank: groups first (status first, then by their
// largest effect), members by effect; ties keep suite and case order.
void RankFindings(std::vector<Finding>* findings);

// The op a finding names: the first op it blames; "" when none.
std::string FindingOp(const Finding& f);

struct FindingGroup {
  FindingKind kind = FindingKind::kStatus;
  std::string op;                 // "" when the findings name no op
  std::vector<size_t> members;    // indices into the findings, in rank order
  size_t cases = 0;               // distinct suite/case among them
  double low = 0, high = 0;       // smallest and largest ratio (NaN when none is finite)
  std::string headline;           // "28 cases of latency, all through mm, +40.0% to +600%"
};

// The groups of ranked findings (RankFindings), in rank order.
std::vector<FindingGroup> GroupFindings(const std::vector<Finding>& ranked);

// Distinct suite/case among the findings: what a summary line counts.
size_t RegressedCases(const std::vector<Finding>& findings);

// How many cases (suite and case id) two runs share: none, and a
// comparison of them would say "regressions: 0" about nothing.
size_t SharedCases(const RunRecord& a, const RunRecord& b);

}  // namespace harness
