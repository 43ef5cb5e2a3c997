#include <cmath>
#include <cstdio>
#include <sstream>

#include "harness/detect.h"

namespace harness {
namespace {

std::string Value(double v) {
  if (std::isnan(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

}  // namespace

std::string FormatComparison(const Comparison& c, size_t max_rows) {
  std::ostringstream out;
  out << "baseline run " << c.baseline_run.run_id << " -> candidate run " << c.candidate_run.run_id << "\n";
  if (c.env_diff.empty()) {
    out << "environment: unchanged\n";
  } else {
    out << "environment changes:\n";
    for (const EnvChange& e : c.env_diff) {
      out << "  " << (e.upstream ? "* " : "  ") << e.component << ": " << e.baseline << " -> " << e.candidate << "\n";
    }
  }
  std::string why = Attribution(c);
  if (!c.regressions.empty() && !why.empty()) out << "regressions " << why << "\n";
  size_t shown = 0;
  for (const Finding& f : c.regressions) {
    if (shown++ == max_rows) {
      out << "  ... and " << (c.regressions.size() - max_rows) << " more\n";
      break;
    }
    out << "  REGRESSION " << f.suite << "/" << f.case_id << " [" << FindingKindName(f.kind) << "] " << f.metric
        << " " << Value(f.baseline) << " -> " << Value(f.candidate);
    if (!std::isnan(f.ratio)) out << " (x" << Value(f.ratio) << ")";
    out << ": " << f.detail << "\n";
  }
  if (!c.improvements.empty()) out << "improvements: " << c.improvements.size() << "\n";
  for (const std::string& n : c.notes) out << "  note: " << n << "\n";
  return out.str();
}

}  // namespace harness
