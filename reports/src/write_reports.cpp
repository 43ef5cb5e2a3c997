// Writing every format into the report directory: one run's report and the
// stack matrix.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "report_files.h"
#include "reports/reporter.h"
#include "reports/stack_reporter.h"

namespace reports {
namespace internal {

harness::Status MakeReportDir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return harness::IoError("cannot create report directory '" + dir +
                            "': " + (ec ? ec.message() : "not a directory") +
                            "; pass a writable --out DIR");
  }
  return harness::Status::Ok();
}

harness::Status WriteReportFile(const std::string& dir, const std::string& name,
                                const std::string& text) {
  const std::string path = (std::filesystem::path(dir) / name).string();
  const std::string tmp = path + ".tmp";
  // Written aside and renamed, so a CI job never picks up half a report.
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return harness::IoError("cannot write report file '" + path + "': " + std::strerror(errno) +
                              "; pass a writable --out DIR");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return harness::IoError("cannot write report file '" + path + "': " + why);
  }
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
  SPYRE_RETURN_IF_ERROR(internal::MakeReportDir(dir));
  for (const auto& reporter : AllReporters()) {
    SPYRE_RETURN_IF_ERROR(
        internal::WriteReportFile(dir, reporter->FileName(), reporter->Render(model)));
  }
  return harness::Status::Ok();
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
  SPYRE_RETURN_IF_ERROR(internal::MakeReportDir(dir));
  for (const auto& reporter : AllStackReporters()) {
    SPYRE_RETURN_IF_ERROR(
        internal::WriteReportFile(dir, reporter->FileName(), reporter->Render(matrix)));
  }
  return harness::Status::Ok();
}

}  // namespace reports
