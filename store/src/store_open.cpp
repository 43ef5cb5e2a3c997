// Opening a store: pragmas, the read-only and "not a database" checks done
// before anything is written, and forward migrations.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "base/input_file.h"
#include "store/store.h"
#include "process_identity.h"
#include "schema.h"
#include "sql.h"

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

namespace {

// A run's status as every reader sees it: temp.run_status (run_id, status,
// note), defined on each connection when the store is opened. A writer has
// just marked the runs whose supervisor is gone aborted (MarkAbandonedRuns);
// a read-only reader cannot write that, so it lists them in a temporary
// table and the view reports them aborted, with the note a writer would
// record. Where there are some, a temporary v_runs shadows the stored view
// for this connection only. Nothing is written to the store.
Status DefineRunStatus(sqlite3* db, const std::string& path, bool write) {
  std::vector<std::pair<int64_t, int64_t>> gone;  // (run id, pid)
  if (!write) {
    Stmt running(db, "SELECT id, pid, pid_start FROM runs WHERE status = 'running' AND host = ?");
    running.Bind(1, store_internal::HostName());
    int rc;
    while ((rc = running.Step()) == SQLITE_ROW) {
      if (!store_internal::ProcessAlive(running.Int(1), running.Int(2)))
        gone.emplace_back(running.Int(0), running.Int(1));
    }
    if (rc != SQLITE_DONE) return SqlStatus(db, rc, path, "looking for abandoned runs");
  }
  const char* kStatus[] = {
      "CREATE TEMP TABLE IF NOT EXISTS abandoned_runs (id INTEGER PRIMARY KEY, note TEXT NOT NULL)",
      "CREATE TEMP VIEW IF NOT EXISTS run_status AS"
      " SELECT r.id AS run_id, CASE WHEN a.id IS NULL THEN r.status ELSE 'aborted' END AS status,"
      " CASE WHEN a.id IS NULL THEN r.note ELSE a.note END AS note"
      " FROM main.runs r LEFT JOIN temp.abandoned_runs a ON a.id = r.id"};
  for (const char* sql : kStatus) {
    const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) return SqlStatus(db, rc, path, "defining the runs' status");
  }
  if (gone.empty()) return Status::Ok();
  for (const auto& [id, pid] : gone) {
    Stmt add(db, "INSERT INTO temp.abandoned_runs (id, note) VALUES (?, ?)");
    add.Bind(1, id).Bind(2, store_internal::AbandonedNote(pid));
    if (int rc = add.Run(); rc != SQLITE_DONE)
      return SqlStatus(db, rc, path, "listing abandoned runs");
  }
  // The stored view's columns, the status and note taken from run_status
  // (a read-only open sees the latest schema only).
  const int rc = sqlite3_exec(
      db,
      "CREATE TEMP VIEW v_runs AS"
      " SELECT v.run_id, v.suite, v.label, s.status,"
      " v.started_at, v.finished_at, v.fingerprint, v.env_json, v.device,"
      " v.device_name, v.device_version, v.device_path, v.device_sha256,"
      " v.uuid, v.shard, v.shard_group, v.jobs, v.threads, v.host, s.note, v.options_json"
      " FROM main.v_runs v JOIN temp.run_status s ON s.run_id = v.run_id",
      nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return SqlStatus(db, rc, path, "listing abandoned runs");
  return Status::Ok();
}

}  // namespace

int Store::LatestSchemaVersion() { return static_cast<int>(store_internal::Migrations().size()); }

StatusOr<std::unique_ptr<Store>> Store::Open(const std::string& path, Mode mode, int busy_timeout_ms) {
  const bool write = mode == Mode::kReadWrite;
  struct stat st {};
  if (!write && ::stat(path.c_str(), &st) != 0) {
    return NotFound("store '" + path + "' does not exist: run `spyre-regress run` first or pass --db");
  }
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return InvalidInput("store '" + path +
                        "' is a directory, not a store file: pass --db with a file name, e.g. " +
                        path + "/spyre-regress.db");
  }
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return InvalidInput("store '" + path + "' is " + NotRegularFileKind(path) +
                        ", not a regular file: pass --db with a store file");
  }
  // A store's companion opened as a store of its own would be rewritten,
  // and with it the changes the store has not yet merged.
  for (const char* suffix : {"-wal", "-shm", "-journal"}) {
    const std::string s = suffix;
    struct stat base {};
    if (path.size() > s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0 &&
        ::stat(path.substr(0, path.size() - s.size()).c_str(), &base) == 0 && S_ISREG(base.st_mode)) {
      return InvalidInput("store '" + path + "' is the " +
                          (s == "-wal" ? "write-ahead log" : s == "-shm" ? "shared-memory index" : "journal") +
                          " of the store '" + path.substr(0, path.size() - s.size()) +
                          "', not a store: pass --db with the store file itself");
    }
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
  rc = sqlite3_exec(raw, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
  if (!write && ((rc & 0xff) == SQLITE_CANTOPEN || (rc & 0xff) == SQLITE_READONLY)) {
    // A WAL store on a read-only directory or mount: its -shm cannot be
    // created. Without unmerged changes in a -wal file, the database file
    // alone is the whole store and can be read as immutable.
    struct stat wal {};
    if (::stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0) {
      return IoError("store '" + path + "' is in WAL mode with changes not yet merged into it (" +
                     path +
                     "-wal), and its directory is read-only, so it cannot be read here: run any "
                     "spyre-regress command that writes it once where it is writable, or copy it");
    }
    store.reset();
    raw = nullptr;
    std::string uri = "file:";
    for (char c : path) {
      if (c == '?' || c == '#' || c == '%') {
        char buf[4];
        std::snprintf(buf, sizeof(buf), "%%%02X", static_cast<unsigned char>(c));
        uri += buf;
      } else {
        uri += c;
      }
    }
    uri += "?immutable=1";
    rc = sqlite3_open_v2(uri.c_str(), &raw,
                         SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, nullptr);
    store.reset(new Store(raw, path));
    if (rc != SQLITE_OK) return SqlStatus(raw, rc, path, "opening it read-only");
    sqlite3_extended_result_codes(raw, 1);
    rc = sqlite3_exec(raw, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
  }
  if (rc != SQLITE_OK) return store->Error(rc, "reading its schema");
  if (write) SPYRE_RETURN_IF_ERROR(store->CheckIntegrity());
  if (write) {
    SPYRE_RETURN_IF_ERROR(store->SwitchToWal(busy_timeout_ms));
    SPYRE_RETURN_IF_ERROR(store->Exec("PRAGMA synchronous=NORMAL", "setting synchronous"));
  }
  SPYRE_RETURN_IF_ERROR(store->Exec("PRAGMA foreign_keys=ON", "enabling foreign keys"));
  // A page cache that holds a year of history (SQLite's default is 2 MB):
  // reports and history read the same pages many times over.
  SPYRE_RETURN_IF_ERROR(store->Exec("PRAGMA cache_size=-65536", "sizing the page cache"));
  if (write) {
    SPYRE_RETURN_IF_ERROR(store->Migrate());
    SPYRE_RETURN_IF_ERROR(store->MarkAbandonedRuns().status());
    SPYRE_RETURN_IF_ERROR(DefineRunStatus(store->db_, path, true));
  } else {
    SPYRE_ASSIGN_OR_RETURN(auto version, store->SchemaVersion());
    if (version != LatestSchemaVersion()) {
      if (version > LatestSchemaVersion()) {
        return IoError("store '" + path + "' has schema version " + std::to_string(version) +
                       ", newer than this spyre-regress reads (" +
                       std::to_string(LatestSchemaVersion()) +
                       "): use the newer spyre-regress that wrote it");
      }
      return IoError("store '" + path + "' has schema version " + std::to_string(version) +
                     ", older than this spyre-regress reads (" +
                     std::to_string(LatestSchemaVersion()) +
                     "): open it read-write once to migrate it (`run`, or `merge --into` "
                     "this store, where it is writable)");
    }
    SPYRE_RETURN_IF_ERROR(DefineRunStatus(store->db_, path, false));
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

Status Store::CheckIntegrity() {
  Stmt check(db_, "PRAGMA quick_check(1)");
  const int rc = check.Step();
  if (rc == SQLITE_ROW && check.Text(0) == "ok") return Status::Ok();
  std::string detail = rc == SQLITE_ROW ? check.Text(0) : std::string(sqlite3_errmsg(db_));
  // SQLite's report spans lines ("*** in database main ***\nPage 5: ...").
  for (size_t at; (at = detail.find('\n')) != std::string::npos;) detail.replace(at, 1, "; ");
  if (rc != SQLITE_ROW && (rc & 0xff) != SQLITE_CORRUPT && (rc & 0xff) != SQLITE_NOTADB) {
    return Error(rc, "checking its integrity");
  }
  return IoError("store '" + path_ + "' is corrupt (" + detail +
                 "): it was left untouched; move it aside or use another --db (`sqlite3 " + path_ +
                 " .recover` may save its rows)");
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
    SPYRE_ASSIGN_OR_RETURN(const int version, SchemaVersion());
    if (version > static_cast<int>(migrations.size())) {
      return IoError("store '" + path_ + "' has schema version " + std::to_string(version) +
                     ", newer than this spyre-regress knows (" + std::to_string(migrations.size()) +
                     "): use a newer spyre-regress or another --db");
    }
    if (version == static_cast<int>(migrations.size()))
      return Status::Ok();  // rolls back the no-op
    const std::string doing = "migrating to schema version " + std::to_string(version + 1);
    SPYRE_RETURN_IF_ERROR(Exec(migrations[version], doing.c_str()));
    Stmt mark(db_, "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)");
    mark.Bind(1, int64_t{version + 1}).Bind(2, store_internal::NowIso());
    if (int rc = mark.Run(); rc != SQLITE_DONE) return Error(rc, doing);
    if (int rc = tx.Commit(); rc != SQLITE_OK) return Error(rc, doing);
  }
}

}  // namespace harness
