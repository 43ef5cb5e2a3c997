#pragma once
// Small RAII helpers over the SQLite C API, private to the store: a prepared
// statement with parameter binding (every value goes in as a parameter), a
// transaction that rolls back unless committed, and the mapping from SQLite
// result codes to one clear Status line.
#include <sqlite3.h>

#include <cstdint>
#include <string>

#include "base/status.h"
#include "store/store.h"

namespace harness::store_internal {

// The store's connection, for the store's own files (and white-box tests of
// the store); everything else goes through Store's methods and queries.
struct Access {
  static sqlite3* Db(Store& store) { return store.db_; }
};

class Stmt {
 public:
  Stmt(sqlite3* db, const char* sql);
  // Borrows a statement prepared once and cached by the Store: on
  // destruction it is reset and unbound instead of finalized.
  Stmt(sqlite3_stmt* borrowed, int prepare_rc) : stmt_(borrowed), rc_(prepare_rc), owned_(false) {}
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // The first error from prepare or a bind, SQLITE_OK when none.
  int rc() const { return rc_; }
  Stmt& Bind(int index, int64_t value);
  Stmt& Bind(int index, double value);  // NaN is stored as NULL
  Stmt& Bind(int index, const std::string& value);
  Stmt& BindNull(int index);
  Stmt& BindBlob(int index, const std::string& bytes);
  Stmt& BindValue(int index, const sqlite3_value* value);  // a column of another statement
  // SQLITE_ROW, SQLITE_DONE or an error code (also an earlier bind error).
  int Step();
  // Steps until done; SQLITE_DONE on success.
  int Run();
  void Reset();  // ready to bind and step again

  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Real(int col) const;  // NULL -> NaN
  std::string Text(int col) const;
  std::string Blob(int col) const;  // the bytes of a BLOB column (NULL -> empty)
  int ColumnCount() const { return sqlite3_column_count(stmt_); }
  int Type(int col) const { return sqlite3_column_type(stmt_, col); }  // SQLITE_INTEGER...
  std::string Name(int col) const { return sqlite3_column_name(stmt_, col); }
  sqlite3_value* Value(int col) const { return sqlite3_column_value(stmt_, col); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  int rc_ = SQLITE_OK;
  bool owned_ = true;
};

// One line naming the store, what was being done and what to do about it.
Status SqlStatus(sqlite3* db, int rc, const std::string& path, const std::string& doing);

// BEGIN IMMEDIATE (takes the write lock up front, so a busy store waits in
// begin rather than failing half-way); rolls back on destruction unless
// Commit() succeeded.
class Transaction {
 public:
  explicit Transaction(sqlite3* db) : db_(db) {}
  ~Transaction();
  int Begin();
  int Commit();

 private:
  sqlite3* db_;
  bool open_ = false;
};

// UTC time as ISO 8601 with milliseconds: "2026-11-29T14:15:10.123Z".
std::string NowIso();

}  // namespace harness::store_internal
