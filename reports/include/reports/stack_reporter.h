#pragma once
// The stack matrix's output formats, one small class per format, as
// reporter.h does for one run's report. Each renders the StackMatrix into
// one file's text; WriteStackReportFiles writes them all into a directory.
//
//   SPYRE_ASSIGN_OR_RETURN(auto matrix, reports::BuildStackMatrix(*store, {}));
//   SPYRE_RETURN_IF_ERROR(reports::WriteStackReportFiles(matrix, "out/"));
//   // -> out/stacks.html, out/stacks.md, out/stacks.json (and nothing else)
#include <memory>
#include <string>
#include <vector>

#include "reports/stack_model.h"

namespace reports {

class StackReporter {
 public:
  virtual ~StackReporter() = default;
  // The file written in the report directory, e.g. "stacks.json".
  virtual std::string FileName() const = 0;
  // The whole file. Deterministic for a given matrix.
  virtual std::string Render(const StackMatrix& matrix) const = 0;
};

// stacks.html: one self-contained page; every user-controlled string
// (stack names, case ids, environment values, messages) escaped.
std::unique_ptr<StackReporter> MakeStackHtmlReporter();
// stacks.md: for a CI step summary: the stacks with their versions and
// counts, the changes against the baseline, then a compact case table,
// rows needing attention first; past `max_rows` rows, a count of the rest.
std::unique_ptr<StackReporter> MakeStackMarkdownReporter(size_t max_rows = 40);
// stacks.json: the documented shape (docs/reports.md, "Stack matrix").
std::unique_ptr<StackReporter> MakeStackJsonReporter();

// Every format, in the order above.
std::vector<std::unique_ptr<StackReporter>> AllStackReporters();

// Creates `dir` when missing and writes every format into it, each through a
// temporary file renamed into place. An unwritable directory is one IoError.
harness::Status WriteStackReportFiles(const StackMatrix& matrix, const std::string& dir);

}  // namespace reports
