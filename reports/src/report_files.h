#pragma once
// Writing report files (private to spyre_reports): shared by the run report
// (reporter.h) and the stack matrix (stack_reporter.h).
#include <string>
#include <utility>
#include <vector>

#include "harness/status.h"

namespace reports::internal {

// Creates `dir` (and parents) when missing; an IoError naming it otherwise.
harness::Status MakeReportDir(const std::string& dir);

// Writes each (name, text) to dir/name, all or none: every file is written
// aside and checked before any is renamed into place. An IoError naming the
// file that could not be written.
harness::Status WriteReportFiles(const std::string& dir,
                                 const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace reports::internal
