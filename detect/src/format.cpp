#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "detect/detect.h"
#include "detect/grouping.h"
#include "base/human_format.h"

namespace harness {

namespace {

// The status a severity rank stands for (detect rules: passed 0 ... crashed 4).
const char* StatusOfRank(double rank) {
  static const char* kNames[] = {"passed", "failed", "error", "timeout", "crashed"};
  const int i = static_cast<int>(rank);
  return i >= 0 && i < 5 && rank == i ? kNames[i] : "-";
}

}  // namespace

std::string BlamedOpText(const BlamedOp& b) {
  if (!std::isfinite(b.delta)) return b.op;
  const std::string amount = b.unit == "us"      ? HumanDuration(std::fabs(b.delta))
                             : b.unit == "bytes" ? HumanBytes(std::fabs(b.delta))
                                                 : HumanNumber(std::fabs(b.delta)) +
                                                       (b.unit.empty() ? "" : " " + b.unit);
  return b.op + " (" + (b.delta < 0 ? "-" : "+") + amount + ")";
}

std::string FindingFigures(const Finding& f) {
  switch (f.kind) {
    case FindingKind::kStatus:
      return std::string(StatusOfRank(f.baseline)) + " -> " + StatusOfRank(f.candidate);
    case FindingKind::kGoldenDrift:
      return "golden outputs changed";
    default:
      break;
  }
  std::string s = HumanMetric(f.metric, f.baseline) + " -> " + HumanMetric(f.metric, f.candidate);
  if (std::isfinite(f.ratio)) s += " (" + HumanChange(f.ratio) + ")";
  return s;
}

std::string BlamedOpPhrase(const Finding& f) {
  if (f.blamed_ops.empty()) return "";
  const std::string op = BlamedOpText(f.blamed_ops.front());
  switch (f.kind) {
    case FindingKind::kLatency:
    case FindingKind::kModeledLatency:
      return "grew most: " + op;
    case FindingKind::kFallback:
      return "now falling back: " + op;
    default:
      return "first departing op: " + op;
  }
}

std::string FindingSummary(const Finding& f) {
  std::string s = FindingKindName(f.kind);
  if (f.kind == FindingKind::kStatus || f.kind == FindingKind::kGoldenDrift) {
    // The detail reads "passed -> failed: message" / names the digests.
    s += f.detail.empty() ? ": " + FindingFigures(f) : ": " + f.detail;
  } else {
    s += " " + f.metric + ": " + FindingFigures(f);
    if (!f.statistic.empty()) s += " [" + f.statistic + "]";
    if (!f.detail.empty()) s += ": " + f.detail;
  }
  // A failed case's message may already name the op its check saw depart.
  const std::string op = BlamedOpPhrase(f);
  if (!op.empty() && f.detail.find("first departing op: " + f.blamed_ops.front().op + " ") ==
                         std::string::npos) {
    s += (f.detail.empty() ? ": " : "; ") + op;
  }
  return s + (f.cause.empty() ? "" : "; bisect: " + f.cause);
}

std::string FormatComparison(const Comparison& c, size_t max_rows) {
  std::ostringstream out;
  out << "baseline run " << c.baseline_run.run_id << " -> candidate run " << c.candidate_run.run_id << "\n";
  if (c.env_diff.empty()) {
    out << "environment: unchanged\n";
  } else {
    out << "environment changes:\n";
    for (const EnvChange& e : c.env_diff) {
      const std::string kind = EnvChangeKind(e.component);
      out << "  " << (e.upstream ? "* " : "  ") << e.component << ": " << EnvValueText(e.baseline)
          << " -> " << EnvValueText(e.candidate) << (kind == "host" ? "" : " (" + kind + ")") << "\n";
    }
  }
  std::string why = Attribution(c);
  if (!c.regressions.empty() && !why.empty()) out << "regressions " << why << "\n";
  // What a bisect of the two runs established, counted by verdict.
  std::map<std::string, int> causes;
  for (const Finding& f : c.regressions) {
    if (!f.cause_verdict.empty()) ++causes[f.cause_verdict];
  }
  if (!causes.empty()) {
    out << "bisect:";
    const char* sep = " ";
    for (const auto& [verdict, n] : causes) {
      out << sep << n << " " << verdict;
      sep = ", ";
    }
    out << " (of " << c.regressions.size() << " regressions; each line says which component)\n";
  }
  // One line a finding, at most max_rows, then how many more.
  auto list = [&](const char* word, const std::vector<const Finding*>& findings) {
    for (size_t i = 0; i < findings.size(); ++i) {
      if (i == max_rows) {
        out << "  ... and " << (findings.size() - max_rows) << " more\n";
        break;
      }
      const Finding& f = *findings[i];
      out << "  " << word << " " << f.suite << "/" << f.case_id << " " << FindingSummary(f) << "\n";
    }
  };
  // Grouped by kind and op, the largest effect first (they come ranked).
  const std::vector<FindingGroup> groups = GroupFindings(c.regressions);
  if (!groups.empty()) {
    out << "regressions in " << Plural(static_cast<int64_t>(RegressedCases(c.regressions)), "case") << ", "
        << Plural(static_cast<int64_t>(groups.size()), "group") << ":\n";
  }
  size_t shown = 0;
  for (const FindingGroup& g : groups) {
    out << "  " << g.headline << "\n";
    for (size_t k = 0; k < g.members.size(); ++k) {
      if (shown == max_rows) break;
      const Finding& f = c.regressions[g.members[k]];
      out << "    REGRESSION " << f.suite << "/" << f.case_id << " " << FindingSummary(f) << "\n";
      ++shown;
    }
  }
  if (shown < c.regressions.size()) out << "  ... and " << (c.regressions.size() - shown) << " more\n";
  // Cases whose status got better are named (an upstream fix is news too);
  // better figures of cases that passed before are counted.
  std::vector<const Finding*> fixed;
  for (const Finding& f : c.improvements) {
    if (f.kind == FindingKind::kStatus) fixed.push_back(&f);
  }
  if (!c.improvements.empty()) {
    out << "improvements: " << c.improvements.size();
    if (!fixed.empty()) out << " (" << fixed.size() << " case(s) with a better status)";
    out << "\n";
  }
  list("FIXED", fixed);
  for (const std::string& n : c.notes) out << "  note: " << n << "\n";
  return out.str();
}

}  // namespace harness
