// Writing every format into the report directory.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "reports/reporter.h"

namespace reports {

std::vector<std::unique_ptr<Reporter>> AllReporters() {
  std::vector<std::unique_ptr<Reporter>> all;
  all.push_back(MakeHtmlReporter());
  all.push_back(MakeJunitReporter());
  all.push_back(MakeMarkdownReporter());
  all.push_back(MakeJsonReporter());
  return all;
}

harness::Status WriteReportFiles(const ReportModel& model, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    return harness::IoError("cannot create report directory '" + dir +
                            "': " + (ec ? ec.message() : "not a directory") +
                            "; pass a writable --out DIR");
  }
  for (const auto& reporter : AllReporters()) {
    const std::string path = (fs::path(dir) / reporter->FileName()).string();
    const std::string tmp = path + ".tmp";
    const std::string text = reporter->Render(model);
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
  }
  return harness::Status::Ok();
}

harness::Status WriteReports(harness::Store& store, int64_t run_id, const std::string& dir,
                             const ReportOptions& options) {
  SPYRE_ASSIGN_OR_RETURN(auto model, BuildReportModel(store, run_id, options));
  return WriteReportFiles(model, dir);
}

}  // namespace reports
