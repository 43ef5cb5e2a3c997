#pragma once
// One reporter interface, one small class per output format (after
// google/benchmark's BenchmarkReporter). A reporter renders the report
// model into one file's text; WriteReports renders every format into a
// directory.
//
//   SPYRE_RETURN_IF_ERROR(reports::WriteReports(*store, run_id, "out/", {}));
//   // -> out/index.html, out/junit.xml, out/summary.md, out/report.json
#include <memory>
#include <string>
#include <vector>

#include "reports/report_model.h"

namespace reports {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // The file written in the report directory, e.g. "junit.xml".
  virtual std::string FileName() const = 0;
  // The whole file. Deterministic for a given model.
  virtual std::string Render(const ReportModel& model) const = 0;
};

std::unique_ptr<Reporter> MakeHtmlReporter();      // index.html
std::unique_ptr<Reporter> MakeJunitReporter();     // junit.xml
std::unique_ptr<Reporter> MakeMarkdownReporter();  // summary.md
std::unique_ptr<Reporter> MakeJsonReporter();      // report.json

// Every format, in the order above.
std::vector<std::unique_ptr<Reporter>> AllReporters();

// Creates `dir` (and parents) when missing and writes every reporter's file
// into it, each through a temporary file renamed into place. An unwritable
// directory is one IoError naming it.
harness::Status WriteReportFiles(const ReportModel& model, const std::string& dir);

// BuildReportModel + WriteReportFiles: what `report` and `run --report` call.
harness::Status WriteReports(harness::Store& store, int64_t run_id, const std::string& dir,
                             const ReportOptions& options = {});

}  // namespace reports
