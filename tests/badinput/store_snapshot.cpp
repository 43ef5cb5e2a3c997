#include "store_snapshot.h"

#include <sqlite3.h>

#include "base/sha256.h"

namespace badinput {
namespace {

// Appends every row of `sql` to *text (columns separated by \x1f, rows by
// \x1e, NULL distinct from ''); returns the row count or -1.
int64_t Dump(sqlite3* db, const std::string& sql, std::string* text, std::string* error) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    *error = sql + ": " + sqlite3_errmsg(db);
    return -1;
  }
  int64_t rows = 0;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    ++rows;
    for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
      const unsigned char* v = sqlite3_column_text(stmt, c);
      *text += v == nullptr ? std::string("\x01NULL") : reinterpret_cast<const char*>(v);
      *text += '\x1f';
    }
    *text += '\x1e';
  }
  if (rc != SQLITE_DONE) *error = sql + ": " + sqlite3_errmsg(db);
  sqlite3_finalize(stmt);
  return rows;
}

}  // namespace

StoreSnapshot TakeSnapshot(const std::string& db_path) {
  StoreSnapshot s;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    s.error = db_path + ": " + (db != nullptr ? sqlite3_errmsg(db) : "cannot open");
    sqlite3_close(db);
    return s;
  }
  sqlite3_busy_timeout(db, 20000);
  std::string text;
  s.runs = Dump(db, "SELECT * FROM v_runs ORDER BY run_id", &text, &s.error);
  s.results = Dump(db, "SELECT * FROM v_results ORDER BY run_id, suite, case_name", &text, &s.error);
  s.regressions = Dump(db,
                       "SELECT * FROM v_regressions ORDER BY run_id, suite, case_name, kind, metric",
                       &text, &s.error);
  std::string integrity;
  Dump(db, "PRAGMA integrity_check", &integrity, &s.error);
  s.integrity = integrity.substr(0, integrity.find('\x1f'));
  s.digest = harness::Sha256Hex(text);
  sqlite3_close(db);
  return s;
}

std::string Describe(const StoreSnapshot& s) {
  return std::to_string(s.runs) + " runs, " + std::to_string(s.results) + " results, " +
         std::to_string(s.regressions) + " regressions, digest " + s.digest.substr(0, 12) +
         ", integrity " + s.integrity + (s.error.empty() ? "" : ", error: " + s.error);
}

}  // namespace badinput
