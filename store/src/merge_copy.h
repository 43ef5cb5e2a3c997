#pragma once
// Copying a run's results between two stores, shared by the plain merge
// (every run copied as it is) and the shard-group merge (runs folded into one).
#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace harness::store_internal {

// "?, ?, ..." with n placeholders.
std::string Placeholders(int n);

// Copies every result of run `old_run` in `src`, with its metrics, wall
// samples and op summaries, under run `new_run` in `dst` (new row ids).
// Returns SQLITE_OK, or the first SQLite error (a result already present for
// the same (run, suite, case) is SQLITE_CONSTRAINT_UNIQUE).
int CopyRunResults(sqlite3* src, sqlite3* dst, int64_t old_run, int64_t new_run);

}  // namespace harness::store_internal
