// The lower sections of index.html: history charts, per-suite case tables,
// golden drift and CPU-fallback coverage.
#include <cmath>
#include <sstream>

#include "html_parts.h"
#include "reports/escape.h"

namespace reports::internal {
namespace {

std::string Esc(const std::string& s) { return EscapeHtml(s); }

std::string Figure(const Chart& c) {
  return "<figure>" + RenderSvgChart(c) + "<figcaption>" + Esc(c.title) + " &middot; " +
         std::to_string(c.points.size()) + " runs, " + std::to_string(c.shifts.size()) +
         " change point(s), " + std::to_string(c.versions.size()) +
         " version change(s)</figcaption></figure>";
}

// "12.3 (+4.5%)" against the baseline value, classed worse/better.
std::string VersusCell(double value, double base) {
  if (!std::isfinite(value)) return NumCell(value);
  if (!std::isfinite(base) || base == 0) return NumCell(value);
  const double ratio = value / base;
  const char* cls = ratio > 1.005 ? " worse" : ratio < 0.995 ? " better" : "";
  return "<td class=\"num" + std::string(cls) + "\" data-sort=\"" + FormatNumber(value) +
         "\" title=\"baseline " + FormatNumber(base) + "\">" + FormatNumber(value) + " (" +
         FormatChange(ratio) + ")</td>";
}

}  // namespace

std::string HtmlCharts(const ReportModel& m) {
  std::ostringstream out;
  out << "<section id=\"history\"><h2>History</h2><p class=\"legend\">"
      << "<span>&#9679; this run in red</span><span>red dashed: change point</span>"
      << "<span>purple dotted: upstream version change</span>"
      << "<span>hover for details</span></p>";
  if (!m.case_charts.empty()) {
    out << "<h3>Flagged cases</h3><div class=\"charts\">";
    for (const Chart& c : m.case_charts) out << Figure(c);
    out << "</div>";
  }
  out << "<h3>Suite geometric means</h3><div class=\"charts\">";
  for (const SuiteSection& s : m.suites) {
    for (const Chart& c : s.charts) out << Figure(c);
  }
  out << "</div></section>";
  return out.str();
}

std::string HtmlSuites(const ReportModel& m) {
  std::ostringstream out;
  out << "<section id=\"suites\"><h2>Cases</h2>";
  int n = 0;
  for (const SuiteSection& s : m.suites) {
    const std::string id = "cases-" + std::to_string(n++);
    const StatusCounts& c = s.counts;
    out << "<h3>" << Esc(s.name) << "</h3><p class=\"meta\">" << c.total() << " cases: " << c.passed
        << " passed, " << c.failed << " failed, " << c.error << " error, " << c.crashed
        << " crashed, " << c.timeout << " timeout, " << c.skipped << " skipped</p>"
        << "<input class=\"filter\" type=\"search\" data-table=\"" << id
        << "\" placeholder=\"filter cases\" aria-label=\"filter cases of " << Esc(s.name) << "\">"
        << "<table id=\"" << id << "\" class=\"sortable cases\"><thead><tr><th>case</th>"
        << "<th>status</th><th class=\"num\">max abs err</th><th class=\"num\">rel L2</th>"
        << "<th class=\"num\">max ULP</th><th class=\"num\">cosine</th>"
        << "<th class=\"num\">wall &micro;s (vs base)</th>"
        << "<th class=\"num\">modeled &micro;s (vs base)</th><th class=\"num\">fallbacks</th>"
        << "<th class=\"num\">regr.</th><th>message</th></tr></thead><tbody>";
    for (const CaseRow& row : s.cases) {
      const harness::CaseResult& r = row.result;
      const std::string st = harness::CaseStatusName(r.status);
      out << "<tr><td>" << Esc(r.case_id) << "</td><td><span class=\"tag s-" << st << "\">" << st
          << "</span></td>" << NumCell(r.max_abs_err) << NumCell(r.rel_l2) << NumCell(r.max_ulp)
          << NumCell(r.cosine) << VersusCell(row.wall_us, row.base_wall_us)
          << VersusCell(r.modeled_us, row.base_modeled_us)
          << NumCell(static_cast<double>(r.fallback_ops))
          << NumCell(row.regressions, row.regressions ? std::to_string(row.regressions) : "")
          << "<td class=\"msg\">" << Esc(r.message) << "</td></tr>";
    }
    out << "</tbody></table>";
  }
  out << "</section>";
  return out.str();
}

std::string HtmlGoldenDrift(const ReportModel& m) {
  std::ostringstream out;
  out << "<section id=\"golden-drift\"><h2>Golden drift</h2>";
  if (!m.comparison) {
    out << "<p>No baseline to compare golden outputs with.</p>";
  } else if (m.golden_drift.empty()) {
    out << "<p>Golden outputs unchanged since baseline run " << m.baseline->run_id << ".</p>";
  } else {
    out << "<table><thead><tr><th>suite</th><th>case</th><th>detail</th></tr></thead><tbody>";
    for (const harness::Finding& f : m.golden_drift) {
      out << "<tr><td>" << Esc(f.suite) << "</td><td>" << Esc(f.case_id) << "</td><td>"
          << Esc(f.detail) << "</td></tr>";
    }
    out << "</tbody></table>";
  }
  out << "</section>";
  return out.str();
}

std::string HtmlFallback(const ReportModel& m) {
  std::ostringstream out;
  out << "<section id=\"fallback\"><h2>CPU-fallback coverage</h2><table><thead><tr>"
      << "<th>suite</th><th class=\"num\">cases</th><th class=\"num\">cases on the fallback</th>"
      << "<th class=\"num\">fallback calls</th><th>ops on the fallback (fallback / all calls)</th>"
      << "</tr></thead><tbody>";
  for (const SuiteSection& s : m.suites) {
    std::string ops;
    for (const auto& [op, n] : s.fallbacks_by_op) {
      auto all = s.calls_by_op.find(op);
      ops += (ops.empty() ? "" : ", ") + op + " " + std::to_string(n) + "/" +
             std::to_string(all == s.calls_by_op.end() ? n : all->second);
    }
    out << "<tr><td>" << Esc(s.name) << "</td>" << NumCell(s.counts.total())
        << NumCell(s.cases_with_fallback) << NumCell(static_cast<double>(s.fallback_ops)) << "<td>"
        << (ops.empty() ? "none" : Esc(ops)) << "</td></tr>";
  }
  out << "</tbody></table></section>";
  return out.str();
}

}  // namespace reports::internal
