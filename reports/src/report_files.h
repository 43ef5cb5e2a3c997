#pragma once
// Writing report files (private to spyre_reports): shared by the run report
// (reporter.h) and the stack matrix (stack_reporter.h).
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace reports::internal {

// Writes each (name, text) to dir/name, all or none: `dir` is created when
// missing (and removed again if the write fails), every file is written
// aside and checked before any is renamed into place. An IoError naming the
// directory or the file that could not be written.
harness::Status WriteReportFiles(const std::string& dir,
                                 const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace reports::internal
