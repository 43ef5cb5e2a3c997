// stacks.md: the stack matrix short enough for a CI step summary: the
// stacks with their versions and counts, what changed against the baseline,
// then one compact row per case, the rows needing attention first.
#include <algorithm>
#include <sstream>

#include "reports/escape.h"
#include "reports/stack_reporter.h"
#include "stack_text.h"

namespace reports {
namespace stack_md {
namespace {

std::string Cell(const std::string& s) { return EscapeMarkdownCell(s); }

void StacksTable(const StackMatrix& m, std::ostringstream& out) {
  out << "| stack | libtorch | BLAS | compiler | libc | os | passed | failed | skipped | missing "
         "| regressions | runs |\n|---|---|---|---|---|---|---:|---:|---:|---:|---:|---|\n";
  for (const StackColumn& c : m.stacks) {
    out << "| " << Cell(c.name) << (c.name == m.baseline ? " (baseline)" : "");
    // libc only where the stack recorded it.
    for (const char* name : {"libtorch", "blas", "compiler", "libc", "os"}) {
      std::string value = "-";
      for (const StackComponent& comp : c.components) {
        if (comp.name == name) value = internal::ComponentText(comp);
      }
      out << " | " << Cell(value);
    }
    const StackCounts& n = c.counts;
    out << " | " << n.passed << " | " << n.failed << " | " << n.skipped << " | " << n.missing
        << " | " << n.regressions << " | ";
    for (size_t i = 0; i < c.runs.size(); ++i) out << (i ? ", " : "") << c.runs[i];
    out << " |\n";
  }
  out << "\n";
}

void Changes(const StackMatrix& m, std::ostringstream& out) {
  if (m.stacks.size() < 2) return;
  out << "### Changes against " << Cell(m.baseline) << "\n\n";
  for (const StackColumn& c : m.stacks) {
    if (c.name == m.baseline) continue;
    out << "- **" << Cell(c.name) << "**: ";
    if (c.changes.empty()) out << "same environment";
    for (size_t i = 0; i < c.changes.size(); ++i)
      out << (i ? "; " : "") << Cell(internal::ChangeText(c.changes[i]));
    out << "\n";
  }
  out << "\n";
}

// "passed · 1 ULP · +25.0%": status, max ULP, wall time (the baseline's own,
// the others' change against it).
std::string CaseCell(const StackCaseRow& row, const std::string& stack, bool baseline) {
  auto it = row.cells.find(stack);
  if (it == row.cells.end()) return internal::kNoCaseMark;
  std::string s = internal::StackStatusText(&it->second);
  for (const std::string& part :
       {internal::UlpText(it->second.max_ulp), internal::WallText(it->second, baseline)}) {
    if (!part.empty()) s += " \u00b7 " + part;
  }
  return Cell(s);
}

class StackMarkdownReporter : public StackReporter {
 public:
  explicit StackMarkdownReporter(size_t max_rows) : max_rows_(max_rows) {}
  std::string FileName() const override { return "stacks.md"; }
  std::string Render(const StackMatrix& m) const override {
    std::ostringstream out;
    out << "## spyre-regress stacks: " << m.stacks.size() << " stack"
        << (m.stacks.size() == 1 ? "" : "s") << ", baseline **" << Cell(m.baseline) << "**\n\n";
    StacksTable(m, out);
    Changes(m, out);
    Cases(m, out);
    return out.str();
  }

 private:
  void Cases(const StackMatrix& m, std::ostringstream& out) const {
    struct Line {
      const StackSuite* suite;
      const StackOpGroup* op;
      const StackCaseRow* row;
    };
    std::vector<Line> first, rest;
    for (const StackSuite& s : m.suites) {
      for (const StackOpGroup& g : s.ops) {
        for (const StackCaseRow& row : g.cases) {
          (row.attention ? first : rest).push_back({&s, &g, &row});
        }
      }
    }
    out << "### Cases\n\n"
        << first.size() << " of " << first.size() + rest.size()
        << " cases need a look (missing on a stack, not passed, or statuses differ). Cells: "
           "status · max ULP · wall time ("
        << Cell(m.baseline) << ") or its change against " << Cell(m.baseline) << ".\n\n";
    out << "| suite | op | case |";
    for (const StackColumn& c : m.stacks) out << " " << Cell(c.name) << " |";
    out << "\n|---|---|---|";
    for (size_t i = 0; i < m.stacks.size(); ++i) out << "---|";
    out << "\n";
    const size_t attention = first.size();
    first.insert(first.end(), rest.begin(), rest.end());
    const size_t shown = std::min(first.size(), max_rows_);
    for (size_t i = 0; i < shown; ++i) {
      const Line& l = first[i];
      out << "| " << Cell(l.suite->suite) << " | " << Cell(l.op->op) << " | "
          << Cell(l.row->case_id) << " |";
      for (const StackColumn& c : m.stacks)
        out << " " << CaseCell(*l.row, c.name, c.name == m.baseline) << " |";
      out << "\n";
    }
    if (first.size() > shown) {
      const size_t hidden_attention = attention > shown ? attention - shown : 0;
      out << "\n…and " << first.size() - shown << " more cases (" << hidden_attention
          << " of them needing a look; see stacks.html).\n";
    }
    out << "\n";
  }

  size_t max_rows_;
};

}  // namespace
}  // namespace stack_md

std::unique_ptr<StackReporter> MakeStackMarkdownReporter(size_t max_rows) {
  return std::make_unique<stack_md::StackMarkdownReporter>(max_rows);
}

}  // namespace reports
