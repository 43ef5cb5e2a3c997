// stacks.html: the stack matrix as one self-contained page (the same inline
// style and script as index.html). Every user-controlled string (stack
// names, case ids, ops, environment values, messages) goes through
// EscapeHtml, and the embedded JSON through EscapeJsonForScript.
#include <cmath>
#include <sstream>

#include "base/human_format.h"
#include "html_parts.h"
#include "reports/escape.h"
#include "reports/stack_reporter.h"
#include "stack_text.h"

namespace reports {
namespace stack_html {
namespace {

using internal::Esc;

constexpr const char* kStackStyle = R"css(
td.cell .fig { display: block; color: var(--muted); font-size: 0.9em; white-space: nowrap; }
td.missing { color: var(--muted); text-align: center; }
th.base, td.base { background: #f6f8fa; }
)css";

std::string StacksTable(const StackMatrix& m) {
  std::ostringstream out;
  out << "<section id=\"stack-list\"><h2>Stacks</h2><table id=\"stacks\" class=\"sortable\">"
      << "<thead><tr><th>stack</th><th>libtorch</th><th>BLAS</th><th>compiler</th><th>libc</th>"
      << "<th>os</th><th class=\"num\">passed</th><th class=\"num\">failed</th>"
      << "<th class=\"num\">skipped</th><th class=\"num\">missing</th>"
      << "<th class=\"num\">regressions</th><th>runs</th></tr></thead><tbody>";
  for (const StackColumn& c : m.stacks) {
    out << "<tr><td><b>" << Esc(c.name) << "</b>" << (c.name == m.baseline ? " (baseline)" : "")
        << "</td>";
    for (const char* name : {"libtorch", "blas", "compiler", "libc", "os"}) {
      std::string value = "-";  // libc: only where the stack recorded it
      for (const StackComponent& comp : c.components) {
        if (comp.name == name) value = internal::ComponentText(comp);
      }
      out << "<td>" << Esc(value) << "</td>";
    }
    const StackCounts& n = c.counts;
    for (int64_t v : {int64_t{n.passed}, int64_t{n.failed}, int64_t{n.skipped}, int64_t{n.missing},
                      n.regressions}) {
      out << "<td class=\"num\">" << v << "</td>";
    }
    out << "<td>";
    for (size_t i = 0; i < c.runs.size(); ++i) out << (i ? ", " : "") << c.runs[i];
    out << "</td></tr>";
  }
  out << "</tbody></table></section>";
  return out.str();
}

std::string Changes(const StackMatrix& m) {
  if (m.stacks.size() < 2) return "";
  std::ostringstream out;
  out << "<section id=\"changes\"><h2>Changes against " << Esc(m.baseline) << "</h2>";
  for (const StackColumn& c : m.stacks) {
    if (c.name == m.baseline) continue;
    out << "<h3>" << Esc(c.name) << "</h3>";
    if (c.changes.empty()) {
      out << "<p>Same environment as " << Esc(m.baseline) << ".</p>";
      continue;
    }
    out << "<table><thead><tr><th>component</th><th>" << Esc(m.baseline) << "</th><th>"
        << Esc(c.name) << "</th><th></th></tr></thead><tbody>";
    for (const harness::EnvChange& e : c.changes) {
      out << "<tr" << (e.upstream ? " class=\"upstream\"" : "") << "><td>" << Esc(e.component)
          << "</td><td>" << Esc(harness::EnvValueText(e.baseline)) << "</td><td>"
          << Esc(harness::EnvValueText(e.candidate)) << "</td><td>"
          << harness::EnvChangeKind(e.component) << "</td></tr>";
    }
    out << "</tbody></table>";
  }
  out << "</section>";
  return out.str();
}

// Status, accuracy and latency of one case on one stack; the tooltip names
// the run and the message.
std::string CaseCell(const StackCaseRow& row, const std::string& stack, bool baseline) {
  const std::string base_class = baseline ? " base" : "";
  auto it = row.cells.find(stack);
  if (it == row.cells.end()) {
    return "<td class=\"missing" + base_class + "\" title=\"not recorded on this stack\">" +
           internal::kNoCaseMark + "</td>";
  }
  const StackCell& c = it->second;
  std::ostringstream out;
  std::string title = "run " + std::to_string(c.run_id);
  if (!c.message.empty()) title += ": " + c.message;
  out << "<td class=\"cell" << base_class << "\" data-sort=\""
      << internal::SortKey(baseline ? c.wall_us : c.wall_ratio) << "\" title=\"" << Esc(title)
      << "\"><span class=\"tag s-" << harness::CaseStatusName(c.status) << "\">"
      << harness::CaseStatusName(c.status) << "</span>";
  std::string accuracy = internal::UlpText(c.max_ulp);
  if (std::isfinite(c.rel_l2))
    accuracy += (accuracy.empty() ? "" : " \u00b7 ") + ("rel L2 " + FormatNumber(c.rel_l2));
  if (!accuracy.empty()) out << "<span class=\"fig\">" << Esc(accuracy) << "</span>";
  auto latency = [&](const char* what, double us, double ratio) {
    if (!std::isfinite(us)) return;
    out << "<span class=\"fig\">" << what << " " << Esc(harness::HumanDuration(us));
    if (!baseline && std::isfinite(ratio))
      out << " <span class=\"chg\">(" << Esc(FormatChange(ratio)) << ")</span>";
    out << "</span>";
  };
  latency("wall", c.wall_us, c.wall_ratio);
  latency("modeled", c.modeled_us, c.modeled_ratio);
  out << "</td>";
  return out.str();
}

std::string Cases(const StackMatrix& m) {
  std::ostringstream out;
  out << "<section id=\"cases\"><h2>Cases</h2><p class=\"note\">Each cell: the case's status on "
         "that stack, its max ULP in the output's device format and rel L2, its median wall "
         "time and modeled device time; on the other stacks, in brackets, the change against "
      << Esc(m.baseline) << ". " << internal::kNoCaseMark
      << ": the stack did not record the case. Hover a cell for its run and message.</p>";
  int n = 0;
  for (const StackSuite& s : m.suites) {
    const std::string id = "stack-cases-" + std::to_string(n++);
    out << "<h3>" << Esc(s.suite) << "</h3><input class=\"filter\" type=\"search\" data-table=\""
        << id << "\" placeholder=\"filter cases\" aria-label=\"filter cases of " << Esc(s.suite)
        << "\"><table id=\"" << id << "\" class=\"sortable\"><thead><tr><th>op</th><th>case</th>";
    for (const StackColumn& c : m.stacks) {
      out << "<th class=\"" << (c.name == m.baseline ? "base" : "") << "\">" << Esc(c.name)
          << "</th>";
    }
    out << "</tr></thead><tbody>";
    for (const StackOpGroup& g : s.ops) {
      for (const StackCaseRow& row : g.cases) {
        out << "<tr" << (row.attention ? " data-attention=\"yes\"" : "") << "><td>"
            << Esc(g.op.empty() ? "-" : g.op) << "</td><td>" << Esc(row.case_id) << "</td>";
        for (const StackColumn& c : m.stacks) out << CaseCell(row, c.name, c.name == m.baseline);
        out << "</tr>";
      }
    }
    out << "</tbody></table>";
  }
  out << "</section>";
  return out.str();
}

class StackHtmlReporter : public StackReporter {
 public:
  std::string FileName() const override { return "stacks.html"; }
  std::string Render(const StackMatrix& m) const override {
    const nlohmann::json data = {{"page", "stacks"},
                                 {"baseline_stack", m.baseline},
                                 {"stacks", m.stacks.size()},
                                 {"cases", m.CaseCount()}};
    std::ostringstream out;
    out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        << "<title>spyre-regress stacks: baseline " << Esc(m.baseline) << "</title><style>"
        << internal::kHtmlStyle << kStackStyle << "</style><script>" << internal::kHtmlErrorTrap
        << "</script></head><body><h1>spyre-regress stack matrix</h1><p class=\"meta\">"
        << harness::Plural(static_cast<int64_t>(m.stacks.size()), "stack") << ", "
        << harness::Plural(m.CaseCount(), "case") << "; each stack's latest completed run of "
        << "each suite. Baseline <b>" << Esc(m.baseline) << "</b> ("
        << (m.baseline_chosen ? "given with --baseline-stack"
                              : "the stack whose runs are the oldest")
        << ").</p><div id=\"js-errors\"></div>" << StacksTable(m) << Changes(m) << Cases(m)
        << "<footer>spyre-regress &middot; stack matrix &middot; baseline " << Esc(m.baseline)
        << "</footer><script type=\"application/json\" id=\"report-data\">"
        << EscapeJsonForScript(data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
        << "</script><script>" << internal::kHtmlScript << "</script></body></html>\n";
    return out.str();
  }
};

}  // namespace
}  // namespace stack_html

std::unique_ptr<StackReporter> MakeStackHtmlReporter() {
  return std::make_unique<stack_html::StackHtmlReporter>();
}

}  // namespace reports
