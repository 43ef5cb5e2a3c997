// Writing every format into the report directory: one run's report and the
// stack matrix.
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "base/output_file.h"
#include "report_files.h"
#include "reports/reporter.h"
#include "reports/stack_reporter.h"

namespace reports {
namespace internal {

harness::Status WriteReportFiles(const std::string& dir,
                                 const std::vector<std::pair<std::string, std::string>>& files) {
  // Each written aside and all of them checked before any is renamed into
  // place, so a CI job never picks up half a report, nor a new index.html
  // beside an old report.json.
  harness::OutputDirectory made;
  if (harness::Status s = made.Create(dir); !s.ok()) {
    return harness::IoError("cannot create report directory '" + dir + "': " + s.message() +
                            "; pass a writable --out DIR");
  }
  std::vector<std::unique_ptr<harness::OutputFile>> outs;
  for (const auto& [name, text] : files) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    SPYRE_ASSIGN_OR_RETURN(auto out, harness::OutputFile::Create(path, "report"));
    out->stream() << text;
    if (harness::Status done = out->Finish(); !done.ok()) {
      return harness::IoError(done.message() + " (pass a writable --out DIR)");
    }
    outs.push_back(std::move(out));
  }
  for (auto& out : outs) SPYRE_RETURN_IF_ERROR(out->Commit());
  made.Keep();
  return harness::Status::Ok();
}

}  // namespace internal

std::vector<std::unique_ptr<Reporter>> AllReporters() {
  std::vector<std::unique_ptr<Reporter>> all;
  all.push_back(MakeHtmlReporter());
  all.push_back(MakeJunitReporter());
  all.push_back(MakeMarkdownReporter());
  all.push_back(MakeJsonReporter());
  return all;
}

harness::Status WriteReportFiles(const ReportModel& model, const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& reporter : AllReporters()) {
    files.emplace_back(reporter->FileName(), reporter->Render(model));
  }
  return internal::WriteReportFiles(dir, files);
}

harness::Status WriteReports(harness::Store& store, int64_t run_id, const std::string& dir,
                             const ReportOptions& options) {
  SPYRE_ASSIGN_OR_RETURN(auto model, BuildReportModel(store, run_id, options));
  return WriteReportFiles(model, dir);
}

std::vector<std::unique_ptr<StackReporter>> AllStackReporters() {
  std::vector<std::unique_ptr<StackReporter>> all;
  all.push_back(MakeStackHtmlReporter());
  all.push_back(MakeStackMarkdownReporter());
  all.push_back(MakeStackJsonReporter());
  return all;
}

harness::Status WriteStackReportFiles(const StackMatrix& matrix, const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& reporter : AllStackReporters()) {
    files.emplace_back(reporter->FileName(), reporter->Render(matrix));
  }
  return internal::WriteReportFiles(dir, files);
}

}  // namespace reports
