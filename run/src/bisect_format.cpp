// How a bisect's outcome reads (runner/bisect.h): torch-free, for the
// program users run.
#include <cstdio>
#include <map>

#include "base/human_format.h"
#include "run/bisect.h"

namespace harness {

nlohmann::json BisectJson(const BisectOutcome& o) {
  nlohmann::json j = {{"bisect_id", o.bisect_id}, {"configurations", o.configurations},
                      {"rounds", o.rounds},       {"elapsed_s", o.elapsed_s},
                      {"budget_s", o.budget_s},   {"skipped", o.skipped}};
  j["components"] = nlohmann::json::array();
  for (const SwapComponent& s : o.components) {
    j["components"].push_back({{"component", s.component},
                               {"baseline", s.baseline},
                               {"candidate", s.candidate},
                               {"swappable", s.swappable},
                               {"how", s.swappable ? s.how : s.why_not}});
  }
  j["seconds"] = nlohmann::json::object();
  for (const auto& [k, v] : o.seconds) j["seconds"][k] = v;
  j["findings"] = nlohmann::json::array();
  for (const BisectFinding& f : o.findings) {
    j["findings"].push_back({{"suite", f.finding.suite},
                             {"case", f.finding.case_id},
                             {"kind", FindingKindName(f.finding.kind)},
                             {"metric", f.finding.metric},
                             {"verdict", CauseVerdictName(f.attribution.verdict)},
                             {"components", f.attribution.components},
                             {"text", f.attribution.text},
                             {"evidence", f.attribution.evidence}});
  }
  return j;
}

std::string FormatBisect(const BisectOutcome& o) {
  std::string s;
  std::string swapped, not_swapped;
  for (const SwapComponent& c : o.components) {
    const std::string line = c.component + " " + EnvValueText(c.baseline) + " -> " + EnvValueText(c.candidate);
    if (c.swappable) {
      swapped += (swapped.empty() ? "" : "; ") + line;
    } else {
      not_swapped += (not_swapped.empty() ? "" : "; ") + line + " (" + c.why_not + ")";
    }
  }
  s += "swapped: " + (swapped.empty() ? std::string("nothing") : swapped) + "\n";
  if (!not_swapped.empty()) s += "not swapped: " + not_swapped + "\n";
  char cost[256];
  std::snprintf(cost, sizeof(cost), "%d configuration(s) x %d round(s), %.0f s of a %.0f s budget", o.configurations,
                o.rounds, o.elapsed_s, o.budget_s);
  s += cost;
  std::string split;
  for (const auto& [k, v] : o.seconds) split += (split.empty() ? ": " : ", ") + k + " " + HumanDuration(v * 1e6);
  s += split + "\n";
  std::map<std::string, int> counts;
  for (const BisectFinding& f : o.findings) {
    ++counts[CauseVerdictName(f.attribution.verdict)];
    s += f.finding.suite + "/" + f.finding.case_id + " " + FindingKindName(f.finding.kind) + ": " +
         f.attribution.text + "\n";
  }
  for (const std::string& k : o.skipped) s += "not examined: " + k + "\n";
  std::string tally;
  for (const char* v : {"caused", "together", "each", "not_separable", "not_reproduced", "undecided"}) {
    if (counts[v] > 0) tally += (tally.empty() ? "" : ", ") + std::to_string(counts[v]) + " " + v;
  }
  s += "attributed " + Plural(static_cast<int64_t>(o.findings.size()), "finding") + ": " + tally +
       " (bisect " + std::to_string(o.bisect_id) + ")\n";
  return s;
}

}  // namespace harness
