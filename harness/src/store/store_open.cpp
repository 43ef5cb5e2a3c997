// Opening a store: pragmas, the read-only and "not a database" checks done
// before anything is written, and forward migrations.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "harness/store.h"
#include "store/schema.h"
#include "store/sql.h"

namespace harness {
using store_internal::SqlStatus;
using store_internal::Stmt;
using store_internal::Transaction;

const char* RunStatusName(RunStatus s) {
  switch (s) {
    case RunStatus::kRunning: return "running";
    case RunStatus::kCompleted: return "completed";
    case RunStatus::kAborted: return "aborted";
  }
  return "aborted";
}

int Store::LatestSchemaVersion() { return static_cast<int>(store_internal::Migrations().size()); }

StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& path, Mode mode, int busy_timeout_ms) {
  const bool write = mode == Mode::kReadWrite;
  struct stat st {};
  if (!write && ::stat(path.c_str(), &st) != 0) {
    return NotFound("store '" + path + "' does not exist: run `spyre-regress run` first or pass --db");
  }
  sqlite3* raw = nullptr;
  int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags | SQLITE_OPEN_NOMUTEX, nullptr);
  std::unique_ptr<Store> store(new Store(raw, path));  // closes `raw` on every early return
  if (rc != SQLITE_OK) return SqlStatus(raw, rc, path, "opening it");
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, busy_timeout_ms);
  // SQLite silently opens a read-only file read-only; a writer must know now,
  // not at its first result.
  if (write && sqlite3_db_readonly(raw, "main") == 1) {
    return SqlStatus(raw, SQLITE_READONLY, path, "opening it for writing");
  }
  // Reading the schema first fails cleanly on a file that is not a database,
  // before the WAL switch could touch it.
  if (Status s = store->Exec("SELECT count(*) FROM sqlite_master", "reading its schema"); !s.ok()) {
    return s;
  }
  if (write) {
    SPYRE_RETURN_IF_ERROR(store->SwitchToWal(busy_timeout_ms));
    SPYRE_RETURN_IF_ERROR(store->Exec("PRAGMA synchronous=NORMAL", "setting synchronous"));
  }
  SPYRE_RETURN_IF_ERROR(store->Exec("PRAGMA foreign_keys=ON", "enabling foreign keys"));
  if (write) {
    SPYRE_RETURN_IF_ERROR(store->Migrate());
    StatusOr<int> marked = store->MarkAbandonedRuns();
    if (!marked.ok()) return marked.status();
  } else {
    StatusOr<int> version = store->SchemaVersion();
    if (!version.ok()) return version.status();
    if (*version != LatestSchemaVersion()) {
      return IoError("store '" + path + "' has schema version " + std::to_string(*version) +
                     ", this spyre-regress reads version " + std::to_string(LatestSchemaVersion()) +
                     ": open it read-write once to migrate it");
    }
  }
  return store;
}

Store::~Store() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

sqlite3_stmt* Store::Cached(const char* sql, int* rc) {
  auto it = cache_.find(sql);
  if (it != cache_.end()) {
    *rc = SQLITE_OK;
    return it->second;
  }
  sqlite3_stmt* stmt = nullptr;
  *rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (*rc == SQLITE_OK) cache_[sql] = stmt;
  return stmt;
}

Status Store::Exec(const char* sql, const char* doing) {
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return Error(rc, doing);
  return Status::Ok();
}

// Switching a store to WAL needs the only lock on the file, and SQLite
// answers SQLITE_BUSY at once, without the busy handler, while another
// connection holds any lock: eight `run`s started together on a new store
// saw it (one in 160). The switch is retried here, with growing pauses, for
// as long as a busy store is waited for elsewhere.
Status Store::SwitchToWal(int busy_timeout_ms) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  std::chrono::milliseconds pause(1);
  for (;;) {
    Stmt wal(db_, "PRAGMA journal_mode=WAL");
    const int rc = wal.Step();
    // The pragma answers with the mode in force; one it could not change
    // is answered with the old mode rather than an error.
    if (rc == SQLITE_ROW && wal.Text(0) == "wal") return Status::Ok();
    const bool busy = rc == SQLITE_ROW || (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
    if (busy && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(pause);
      pause = std::min(pause * 2, std::chrono::milliseconds(50));
      continue;
    }
    if (rc != SQLITE_ROW) return Error(rc, "switching it to WAL");
    return IoError("store '" + path_ + "' stays in journal mode '" + wal.Text(0) +
                   "': SQLite could not switch it to WAL; put --db on a local file system");
  }
}
Status Store::Error(int rc, const std::string& doing) { return SqlStatus(db_, rc, path_, doing); }

StatusOr<int> Store::SchemaVersion() {
  Stmt has(db_, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
  if (int rc = has.Step(); rc != SQLITE_ROW) return Error(rc, "reading the schema version");
  if (has.Int(0) == 0) return 0;
  Stmt get(db_, "SELECT coalesce(max(version), 0) FROM schema_version");
  if (int rc = get.Step(); rc != SQLITE_ROW) return Error(rc, "reading the schema version");
  return static_cast<int>(get.Int(0));
}

Status Store::Migrate() {
  const auto& migrations = store_internal::Migrations();
  for (;;) {
    // Each step re-reads the version inside its write transaction, so two
    // processes creating one store at once apply every migration once.
    Transaction tx(db_);
    if (int rc = tx.Begin(); rc != SQLITE_OK) return Error(rc, "starting a migration");
    SPYRE_RETURN_IF_ERROR(Exec("CREATE TABLE IF NOT EXISTS schema_version ("
                               " version INTEGER NOT NULL, applied_at TEXT NOT NULL)",
                               "creating the version table"));
    StatusOr<int> version = SchemaVersion();
    if (!version.ok()) return version.status();
    if (*version > static_cast<int>(migrations.size())) {
      return IoError("store '" + path_ + "' has schema version " + std::to_string(*version) +
                     ", newer than this spyre-regress knows (" + std::to_string(migrations.size()) +
                     "): use a newer spyre-regress or another --db");
    }
    if (*version == static_cast<int>(migrations.size())) return Status::Ok();  // rolls back the no-op
    const std::string doing = "migrating to schema version " + std::to_string(*version + 1);
    SPYRE_RETURN_IF_ERROR(Exec(migrations[*version], doing.c_str()));
    Stmt mark(db_, "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)");
    mark.Bind(1, int64_t{*version + 1}).Bind(2, store_internal::NowIso());
    if (int rc = mark.Run(); rc != SQLITE_DONE) return Error(rc, doing);
    if (int rc = tx.Commit(); rc != SQLITE_OK) return Error(rc, doing);
  }
}

}  // namespace harness
