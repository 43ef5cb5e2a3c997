// index.html: one self-contained page (inline CSS, JS and SVG; no network).
// Every user-controlled string goes through EscapeHtml, and the embedded
// JSON through EscapeJsonForScript, so a case named "<script>..." is text.
#include <charconv>
#include <cmath>
#include <sstream>

#include "detect/grouping.h"
#include "decode_text.h"
#include "finding_text.h"
#include "html_parts.h"
#include "reports/escape.h"
#include "reports/reporter.h"

namespace reports {
namespace internal {
namespace {

// One row per finding: its values in the metric's unit, the change
// (candidate / baseline), the op blamed, and the statistic the values are
// above the evidence.
std::string FindingsTable(const ReportModel& m, const std::string& id,
                          const std::vector<harness::Finding>& findings, bool regression,
                          bool hidden = false) {
  std::ostringstream out;
  out << "<table id=\"" << id << "\" class=\"sortable\"" << (hidden ? " hidden" : "")
      << "><thead><tr><th>suite</th><th>case</th>"
      << "<th>kind</th><th>metric</th><th class=\"num\">baseline</th>"
      << "<th class=\"num\">candidate</th><th class=\"num\">change</th><th>op blamed</th>"
      << "<th>detail</th></tr></thead><tbody>";
  for (const harness::Finding& f : findings) {
    out << "<tr><td>" << Esc(f.suite) << "</td><td>" << Esc(f.case_id) << "</td><td>"
        << harness::FindingKindName(f.kind) << "</td><td>" << Esc(f.metric) << "</td>"
        << NumCell(f.baseline, FindingValue(m, f, true))
        << NumCell(f.candidate, FindingValue(m, f, false)) << "<td class=\"num"
        << (std::isfinite(f.ratio) ? (regression ? " worse" : " better") : "") << "\" data-sort=\""
        << SortKey(f.ratio) << "\">" << FormatChange(f.ratio) << "</td><td>" << Esc(BlamedOps(f))
        << "</td><td class=\"msg\">"
        << (f.statistic.empty() ? std::string() : "<i>" + Esc(f.statistic) + "</i><br>") << Esc(f.detail)
        << (f.cause.empty() ? std::string() : "<br><b>bisect:</b> " + Esc(f.cause)) << "</td></tr>";
  }
  out << "</tbody></table>";
  return out.str();
}

}  // namespace

std::string SortKey(double v) {
  if (!std::isfinite(v)) return "";
  char buf[400];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed);
  return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string();
}

std::string NumCell(double v, const std::string& text) {
  return "<td class=\"num\" data-sort=\"" + SortKey(v) + "\">" + Esc(text) + "</td>";
}
std::string NumCell(double v) { return NumCell(v, FormatNumber(v)); }

std::string HtmlVerdict(const ReportModel& m) {
  const StatusCounts& c = m.counts;
  std::ostringstream out;
  out << "<div id=\"verdict\" class=\"verdict verdict-" << VerdictName(m.verdict) << "\"><b>"
      << VerdictName(m.verdict) << "</b>" << c.passed << " passed, "
      << c.failed + c.error + c.crashed + c.timeout << " failed";
  if (c.error + c.crashed + c.timeout > 0) {
    out << " (" << c.error << " error, " << c.crashed << " crashed, " << c.timeout << " timeout)";
  }
  if (c.skipped) out << ", " << c.skipped << " skipped";
  out << " &middot; regressions: ";
  if (m.comparison) {
    // Cases, not rows: a failed case is one regression however many
    // findings (status, accuracy) it gave.
    const size_t cases = harness::RegressedCases(m.comparison->regressions);
    out << cases << " (baseline run " << m.baseline->run_id;
    if (cases != m.comparison->regressions.size()) out << "; " << m.comparison->regressions.size() << " findings";
    out << ")";
  } else {
    out << "none (no baseline)";
  }
  out << "</div>";
  if (!m.incomplete.empty()) {
    out << "<p id=\"incomplete\"><b>Not a verdict:</b> " << Esc(m.incomplete)
        << "; the counts cover the recorded cases only.</p>";
  }
  out << "<p class=\"meta\">Run " << m.run.run_id;
  if (!m.run.label.empty()) out << " &ldquo;" << Esc(m.run.label) << "&rdquo;";
  out << " of " << Esc(m.run.suite) << ", " << Esc(m.run.status) << ", started "
      << Esc(m.run.started_at);
  if (!m.run.finished_at.empty()) out << ", finished " << Esc(m.run.finished_at);
  if (m.comparison) out << ". Improvements: " << m.comparison->improvements.size();
  out << ".</p>";
  for (const std::string& w : m.run.warnings)
    out << "<p class=\"meta\">Warning: " << Esc(w) << "</p>";
  return out.str();
}

std::string HtmlEnvironment(const ReportModel& m) {
  std::ostringstream out;
  out << "<section id=\"environment\"><h2>Environment</h2>";
  if (!m.comparison) {
    out << "<p>No baseline to compare with.</p>";
  } else if (m.comparison->env_diff.empty()) {
    out << "<p>Same environment as baseline run " << m.baseline->run_id << ".</p>";
  } else {
    if (!m.attribution.empty()) out << "<p><strong>" << Esc(m.attribution) << "</strong></p>";
    out << "<table id=\"env-diff\"><thead><tr><th>component</th><th>baseline (run "
        << m.baseline->run_id << ")</th><th>this run</th><th></th></tr></thead><tbody>";
    for (const harness::EnvChange& e : m.comparison->env_diff) {
      out << "<tr" << (e.upstream ? " class=\"upstream\"" : "") << "><td>" << Esc(e.component)
          << "</td><td>" << Esc(EnvValue(e.baseline)) << "</td><td>" << Esc(EnvValue(e.candidate))
          << "</td><td>" << harness::EnvChangeKind(e.component) << "</td></tr>";
    }
    out << "</tbody></table>";
  }
  out << "<details><summary>Full environment of this run</summary><table><tbody>";
  for (const auto& [key, value] : m.run.env.items()) {
    out << "<tr><td>" << Esc(key) << "</td><td>"
        << Esc(value.is_string()
                   ? value.get<std::string>()
                   : value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        << "</td></tr>";
  }
  out << "</tbody></table></details></section>";
  return out.str();
}

std::string HtmlRegressions(const ReportModel& m) {
  std::ostringstream out;
  out << "<section><h2>Regressions</h2>";
  static const std::vector<harness::Finding> kNone;
  const auto& regs = m.comparison ? m.comparison->regressions : kNone;
  if (!m.comparison)
    out << "<p>No baseline, so nothing to compare.</p>";
  else if (regs.empty())
    out << "<p>None against baseline run " << m.baseline->run_id << ".</p>";
  // The groups first, largest effect first: what a person acts on, then
  // the rows (ranked the same way) to look one up.
  if (!regs.empty()) {
    out << "<ol id=\"groups\">";
    for (const harness::FindingGroup& g : harness::GroupFindings(regs)) {
      out << "<li><b>" << Esc(g.headline) << "</b>";
      // One finding per case and kind, so a group's members are its cases.
      std::string names;
      size_t listed = 0;
      for (; listed < g.members.size() && listed < 6; ++listed) {
        const harness::Finding& f = regs[g.members[listed]];
        names += (listed > 0 ? ", " : "") + f.suite + "/" + f.case_id;
      }
      if (g.cases > listed) names += " and " + std::to_string(g.cases - listed) + " more";
      out << ": " << Esc(names) << "</li>";
    }
    out << "</ol>";
  }
  // An empty table stays in the page (hidden) for the script's row check.
  out << "<input class=\"filter\" type=\"search\" data-table=\"regressions\" "
         "placeholder=\"filter regressions\" aria-label=\"filter regressions\""
      << (regs.empty() ? " hidden" : "") << ">"
      << FindingsTable(m, "regressions", regs, true, regs.empty());
  if (m.comparison && !m.comparison->improvements.empty()) {
    out << "<h3>Improvements</h3>"
        << FindingsTable(m, "improvements", m.comparison->improvements, false);
  }
  if (m.comparison && !m.comparison->notes.empty()) {
    out << "<h3>Notes</h3><ul>";
    for (const std::string& n : m.comparison->notes) out << "<li>" << Esc(n) << "</li>";
    out << "</ul>";
  }
  out << "</section>";
  return out.str();
}

class HtmlReporter : public Reporter {
 public:
  std::string FileName() const override { return "index.html"; }
  std::string Render(const ReportModel& m) const override {
    nlohmann::json data = {{"run_id", m.run.run_id},
                           {"suite", m.run.suite},
                           {"label", m.run.label},
                           {"verdict", VerdictName(m.verdict)},
                           {"regressions", m.comparison ? m.comparison->regressions.size() : 0}};
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        << "<title>spyre-regress " << VerdictName(m.verdict) << ": " << Esc(m.run.suite) << " run "
        << m.run.run_id << "</title><style>" << kHtmlStyle << "</style>"
        << "<script>" << kHtmlErrorTrap << "</script></head><body>"
        << "<h1>spyre-regress report: " << Esc(m.run.suite) << "</h1>" << HtmlVerdict(m)
        << "<div id=\"js-errors\"></div>" << HtmlEnvironment(m) << HtmlRegressions(m)
        << HtmlCharts(m) << HtmlSuites(m) << HtmlDecodeText(m) << HtmlGoldenDrift(m)
        << HtmlFallback(m) << "<footer>spyre-regress &middot; run " << m.run.run_id
        << " &middot; fingerprint " << Esc(m.run.fingerprint) << "</footer>"
        << "<script type=\"application/json\" id=\"report-data\">"
        << EscapeJsonForScript(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        << "</script><script>" << kHtmlScript << "</script></body></html>\n";
    return out.str();
  }
};

}  // namespace internal

std::unique_ptr<Reporter> MakeHtmlReporter() { return std::make_unique<internal::HtmlReporter>(); }

}  // namespace reports
