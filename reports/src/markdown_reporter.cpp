// summary.md: short enough for a GitHub Actions step summary or a PR comment:
// the verdict, the upstream changes, the top regressions and failures.
#include <sstream>

#include "detect/grouping.h"
#include "decode_text.h"
#include "finding_text.h"
#include "reports/escape.h"
#include "reports/reporter.h"

namespace reports {
namespace {

constexpr size_t kTopRows = 20;
using harness::CaseStatus;

std::string Cell(const std::string& s) { return EscapeMarkdownCell(s); }

std::string Blamed(const harness::Finding& f) {
  const std::string s = internal::BlamedOps(f);
  return s.empty() ? "-" : s;
}

void VerdictSection(const ReportModel& m, std::ostringstream& out) {
  const StatusCounts& c = m.counts;
  const int failing = c.failed + c.error + c.crashed + c.timeout;
  out << "## spyre-regress " << Cell(m.run.suite) << ": **" << VerdictName(m.verdict) << "**\n\n";
  out << "Run " << m.run.run_id;
  if (!m.run.label.empty()) out << " (" << Cell(m.run.label) << ")";
  out << ", " << Cell(m.run.status) << ": " << c.passed << " passed, " << failing << " failed";
  if (failing > c.failed) {
    out << " (" << c.failed << " failed, " << c.error << " error, " << c.crashed << " crashed, "
        << c.timeout << " timeout)";
  }
  if (c.skipped > 0) out << ", " << c.skipped << " skipped";
  out << ".  \n";
  if (!m.incomplete.empty()) {
    out << "**Not a verdict:** " << Cell(m.incomplete)
        << "; the counts cover the recorded cases only.  \n";
  }
  if (!m.comparison) {
    out << "Regressions: none (no baseline).\n\n";
    return;
  }
  const size_t cases = harness::RegressedCases(m.comparison->regressions);
  out << "Regressions: " << cases;
  if (cases != m.comparison->regressions.size()) out << " cases (" << m.comparison->regressions.size() << " findings)";
  out << ", improvements: " << m.comparison->improvements.size() << " (baseline run "
      << m.baseline->run_id << ").\n\n";
}

void UpstreamChanges(const ReportModel& m, std::ostringstream& out) {
  if (!m.comparison) return;
  std::ostringstream rows;
  int n = 0;
  for (const harness::EnvChange& e : m.comparison->env_diff) {
    if (!e.upstream) continue;
    rows << "| " << Cell(e.component) << " | " << Cell(internal::EnvValue(e.baseline)) << " | "
         << Cell(internal::EnvValue(e.candidate)) << " | " << harness::EnvChangeKind(e.component) << " |\n";
    ++n;
  }
  out << "### What changed\n\n";
  if (n == 0) {
    out << "Nothing upstream, in the device, its settings or the test's inputs since the baseline.\n\n";
    return;
  }
  out << "| component | baseline | candidate | kind |\n|---|---|---|---|\n" << rows.str() << "\n";
  if (!m.attribution.empty()) out << Cell(m.attribution) << ".\n\n";
}

void TopRegressions(const ReportModel& m, std::ostringstream& out) {
  if (!m.comparison || m.comparison->regressions.empty()) return;
  const auto& regs = m.comparison->regressions;
  out << "### Top regressions\n\n";
  // The groups, largest effect first, then the rows ranked the same way.
  for (const harness::FindingGroup& g : harness::GroupFindings(regs)) out << "- **" << Cell(g.headline) << "**\n";
  out << "\n"
      << "| suite | case | kind | metric | baseline | candidate | change | op blamed |\n"
      << "|---|---|---|---|---:|---:|---:|---|\n";
  for (size_t i = 0; i < regs.size() && i < kTopRows; ++i) {
    const harness::Finding& f = regs[i];
    out << "| " << Cell(f.suite) << " | " << Cell(f.case_id) << " | "
        << harness::FindingKindName(f.kind) << " | " << Cell(f.metric) << " | "
        << internal::FindingValue(m, f, true) << " | " << internal::FindingValue(m, f, false)
        << " | " << FormatChange(f.ratio) << " | " << Cell(Blamed(f)) << " |\n";
  }
  if (regs.size() > kTopRows)
    out << "\n…and " << regs.size() - kTopRows << " more (see index.html).\n";
  out << "\n";
  // What a bisect established about these findings, one line each.
  bool heading = false;
  for (size_t i = 0; i < regs.size() && i < kTopRows; ++i) {
    const harness::Finding& f = regs[i];
    if (f.cause.empty()) continue;
    if (!heading) out << "Causes found by `bisect`:\n\n";
    heading = true;
    out << "- " << Cell(f.suite + "/" + f.case_id) << " " << harness::FindingKindName(f.kind) << ": "
        << Cell(f.cause) << "\n";
  }
  if (heading) out << "\n";
}

void Failures(const ReportModel& m, std::ostringstream& out) {
  std::ostringstream rows;
  size_t n = 0, shown = 0;
  for (const SuiteSection& s : m.suites) {
    for (const CaseRow& row : s.cases) {
      const CaseStatus st = row.result.status;
      if (st == CaseStatus::kPassed || st == CaseStatus::kSkipped) continue;
      if (++n > kTopRows) continue;
      ++shown;
      rows << "| " << Cell(s.name) << " | " << Cell(row.result.case_id) << " | "
           << harness::CaseStatusName(st) << " | " << Cell(row.result.message) << " |\n";
    }
  }
  if (n == 0) return;
  out << "### Failures\n\n| suite | case | status | message |\n|---|---|---|---|\n" << rows.str();
  if (n > shown) out << "\n…and " << n - shown << " more (see junit.xml).\n";
  out << "\n";
}

class MarkdownReporter : public Reporter {
 public:
  std::string FileName() const override { return "summary.md"; }
  std::string Render(const ReportModel& m) const override {
    std::ostringstream out;
    VerdictSection(m, out);
    for (const std::string& w : m.run.warnings) out << "**Warning:** " << Cell(w) << "\n\n";
    UpstreamChanges(m, out);
    TopRegressions(m, out);
    Failures(m, out);
    out << internal::MarkdownDecodeText(m);
    out << "<sub>fingerprint " << Cell(m.run.fingerprint) << "</sub>\n";
    return out.str();
  }
};

}  // namespace

std::unique_ptr<Reporter> MakeMarkdownReporter() { return std::make_unique<MarkdownReporter>(); }

}  // namespace reports
