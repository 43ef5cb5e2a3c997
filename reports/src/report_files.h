#pragma once
// Writing report files (private to spyre_reports): shared by the run report
// (reporter.h) and the stack matrix (stack_reporter.h).
#include <string>

#include "harness/status.h"

namespace reports::internal {

// Creates `dir` (and parents) when missing; an IoError naming it otherwise.
harness::Status MakeReportDir(const std::string& dir);

// Writes `text` to dir/name through a temporary file renamed into place, so
// a CI job never picks up half a report. An IoError naming the file.
harness::Status WriteReportFile(const std::string& dir, const std::string& name,
                                const std::string& text);

}  // namespace reports::internal
