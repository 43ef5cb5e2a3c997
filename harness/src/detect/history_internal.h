#pragma once
// Shared by history_load.cpp and history_shifts.cpp (internal).
#include <map>
#include <string>
#include <vector>

#include "harness/detect/history.h"

namespace harness::history_internal {

// One line for a failed store query, naming what was being read.
Status QueryError(sqlite3* db, int rc, const std::string& doing);

// (case name -> series) for every case of `suite` (or only `case_name` when
// not empty), completed runs only, in run order; NULL/NaN values left out.
// `through_run_id` > 0: only runs up to that one in run order.
StatusOr<std::map<std::string, std::vector<SeriesPoint>>> LoadSuiteSeries(
    sqlite3* db, const std::string& suite, const std::string& case_name, const std::string& metric,
    int64_t through_run_id = 0);

}  // namespace harness::history_internal
