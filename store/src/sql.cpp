#include "sql.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace harness::store_internal {

Stmt::Stmt(sqlite3* db, const char* sql) {
  rc_ = sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr);
}

Stmt::~Stmt() {
  if (owned_) {
    sqlite3_finalize(stmt_);
  } else if (stmt_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
}

Stmt& Stmt::Bind(int index, int64_t value) {
  if (rc_ == SQLITE_OK) rc_ = sqlite3_bind_int64(stmt_, index, value);
  return *this;
}

Stmt& Stmt::Bind(int index, double value) {
  if (rc_ != SQLITE_OK) return *this;
  rc_ = std::isnan(value) ? sqlite3_bind_null(stmt_, index) : sqlite3_bind_double(stmt_, index, value);
  return *this;
}

Stmt& Stmt::Bind(int index, const std::string& value) {
  if (rc_ == SQLITE_OK) {
    rc_ = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
  }
  return *this;
}

Stmt& Stmt::BindBlob(int index, const std::string& bytes) {
  if (rc_ == SQLITE_OK) {
    rc_ = sqlite3_bind_blob(stmt_, index, bytes.data(), static_cast<int>(bytes.size()),
                            SQLITE_TRANSIENT);
  }
  return *this;
}

Stmt& Stmt::BindNull(int index) {
  if (rc_ == SQLITE_OK) rc_ = sqlite3_bind_null(stmt_, index);
  return *this;
}

Stmt& Stmt::BindValue(int index, const sqlite3_value* value) {
  if (rc_ == SQLITE_OK) rc_ = sqlite3_bind_value(stmt_, index, value);
  return *this;
}

int Stmt::Step() {
  if (rc_ != SQLITE_OK) return rc_;
  return sqlite3_step(stmt_);
}

int Stmt::Run() {
  int rc = Step();
  while (rc == SQLITE_ROW) rc = sqlite3_step(stmt_);
  return rc;
}

void Stmt::Reset() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

double Stmt::Real(int col) const {
  return IsNull(col) ? std::nan("") : sqlite3_column_double(stmt_, col);
}

std::string Stmt::Blob(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  const int n = sqlite3_column_bytes(stmt_, col);
  return p == nullptr ? std::string() : std::string(static_cast<const char*>(p), static_cast<size_t>(n));
}

std::string Stmt::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  return p == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(p));
}

Status SqlStatus(sqlite3* db, int rc, const std::string& path, const std::string& doing) {
  // The handle's message describes its last call, which may not be the one
  // that gave `rc` ("not an error"): then the code's own text.
  std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  if (db != nullptr && sqlite3_errcode(db) == SQLITE_OK) detail = sqlite3_errstr(rc);
  const std::string where = "store '" + path + "'";
  switch (rc & 0xff) {  // primary code; extended codes share its meaning here
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return IoError(where + " is locked by another process (" + doing + "): wait for it to " +
                     "finish, or use another --db");
    case SQLITE_FULL:
      return IoError("disk full while " + doing + " in " + where +
                     ": free some space and run again; what was recorded so far is kept");
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
      return IoError(where + " is not a SQLite database or is corrupt (" + detail +
                     "): it was left untouched; move it aside or use another --db");
    case SQLITE_READONLY:
    case SQLITE_PERM:
      return IoError(where + " is not writable (" + detail +
                     "): check the permissions of the file and its directory, or use another --db");
    case SQLITE_CANTOPEN:
      return IoError("cannot open " + where + " (" + detail +
                     "): check that its directory exists and is writable, or use another --db");
    case SQLITE_IOERR:
      return IoError("I/O error while " + doing + " in " + where + " (" + detail +
                     "): check the disk; what was recorded so far is kept");
    default:
      return IoError(where + ": " + doing + " failed: " + detail);
  }
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
}

int Transaction::Begin() {
  int rc = sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr);
  open_ = rc == SQLITE_OK;
  return rc;
}

int Transaction::Commit() {
  int rc = sqlite3_exec(db_, "COMMIT", nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) open_ = false;
  return rc;
}

std::string NowIso() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t t = system_clock::to_time_t(now);
  int ms = static_cast<int>(duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof(out), "%s.%03dZ", buf, ms);
  return out;
}

}  // namespace harness::store_internal
