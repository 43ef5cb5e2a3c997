#pragma once
// What a bad-input case must leave unchanged in an existing store: the row
// counts of the contract views and a digest of every row, read with SQLite
// directly (not through the harness), plus SQLite's own integrity check.
#include <cstdint>
#include <string>

namespace badinput {

struct StoreSnapshot {
  int64_t runs = -1, results = -1, regressions = -1;
  std::string digest;     // SHA-256 over every row of v_runs, v_results, v_regressions
  std::string integrity;  // "ok" when PRAGMA integrity_check passes
  std::string error;      // non-empty when the store could not be read
  bool operator==(const StoreSnapshot& o) const {
    return runs == o.runs && results == o.results && regressions == o.regressions &&
           digest == o.digest && integrity == o.integrity && error == o.error;
  }
};

StoreSnapshot TakeSnapshot(const std::string& db_path);
std::string Describe(const StoreSnapshot& s);

}  // namespace badinput
