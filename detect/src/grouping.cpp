// Findings grouped and ranked (detect/grouping.h).
#include "detect/grouping.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "base/human_format.h"

namespace harness {
namespace {

using GroupKey = std::pair<FindingKind, std::string>;

GroupKey KeyOf(const Finding& f) { return {f.kind, FindingOp(f)}; }

// The ratio a group's range is told in; NaN when the finding has none.
double RatioOf(const Finding& f) {
  if (f.kind == FindingKind::kStatus || f.kind == FindingKind::kGoldenDrift) return std::nan("");
  // An agreement or cosine that dropped has a ratio below 1, which would
  // read as an improvement beside the errors that grew: left out of the range.
  const std::string name = f.metric.substr(f.metric.rfind('/') + 1);
  if (f.kind == FindingKind::kAccuracy && HigherIsBetter(name)) return std::nan("");
  return std::isfinite(f.ratio) && f.ratio > 0 ? f.ratio : std::nan("");
}

}  // namespace

double FindingEffect(const Finding& f) {
  if (f.kind == FindingKind::kStatus) return 1e6 + f.candidate;  // crashed above failed
  if (f.kind == FindingKind::kGoldenDrift) return 0;
  if (std::isfinite(f.ratio) && f.ratio > 0) return std::fabs(std::log(f.ratio));
  return 1e3;  // from or to zero, or a metric that turned NaN
}

std::string FindingOp(const Finding& f) {
  return f.blamed_ops.empty() ? "" : f.blamed_ops.front().op;
}

void RankFindings(std::vector<Finding>* findings) {
  std::map<GroupKey, double> group_effect;
  for (const Finding& f : *findings) {
    double& e = group_effect[KeyOf(f)];
    e = std::max(e, FindingEffect(f));
  }
  std::stable_sort(findings->begin(), findings->end(), [&](const Finding& a, const Finding& b) {
    const GroupKey ka = KeyOf(a), kb = KeyOf(b);
    const double ga = group_effect[ka], gb = group_effect[kb];
    if (ga != gb) return ga > gb;
    if (ka != kb) return ka < kb;
    const double ea = FindingEffect(a), eb = FindingEffect(b);
    if (ea != eb) return ea > eb;
    return std::tie(a.suite, a.case_id) < std::tie(b.suite, b.case_id);
  });
}

std::vector<FindingGroup> GroupFindings(const std::vector<Finding>& ranked) {
  std::vector<FindingGroup> groups;
  std::map<GroupKey, size_t> index;
  for (size_t i = 0; i < ranked.size(); ++i) {
    const GroupKey key = KeyOf(ranked[i]);
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, groups.size()).first;
      FindingGroup g;
      g.kind = key.first;
      g.op = key.second;
      g.low = g.high = std::nan("");
      groups.push_back(std::move(g));
    }
    groups[it->second].members.push_back(i);
  }
  for (FindingGroup& g : groups) {
    std::set<std::pair<std::string, std::string>> cases;
    for (size_t i : g.members) {
      const Finding& f = ranked[i];
      cases.emplace(f.suite, f.case_id);
      const double r = RatioOf(f);
      if (std::isnan(r)) continue;
      g.low = std::isnan(g.low) ? r : std::min(g.low, r);
      g.high = std::isnan(g.high) ? r : std::max(g.high, r);
    }
    g.cases = cases.size();
    std::string h = Plural(static_cast<int64_t>(g.cases), "case") + " of " + FindingKindName(g.kind);
    if (!g.op.empty()) h += g.cases == 1 ? ", through " + g.op : ", all through " + g.op;
    if (!std::isnan(g.low)) {
      h += ", " + HumanChange(g.low);
      if (HumanChange(g.high) != HumanChange(g.low)) h += " to " + HumanChange(g.high);
    }
    g.headline = h;
  }
  return groups;
}

size_t SharedCases(const RunRecord& a, const RunRecord& b) {
  std::set<std::pair<std::string, std::string>> in_a;
  for (const CaseResult& r : a.cases) in_a.emplace(r.suite, r.case_id);
  size_t shared = 0;
  for (const CaseResult& r : b.cases) shared += in_a.count({r.suite, r.case_id});
  return shared;
}

size_t RegressedCases(const std::vector<Finding>& findings) {
  std::set<std::pair<std::string, std::string>> cases;
  for (const Finding& f : findings) cases.emplace(f.suite, f.case_id);
  return cases.size();
}

}  // namespace harness
