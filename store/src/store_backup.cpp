// An online copy of the store through SQLite's backup API: the copy is one
// consistent snapshot even while another process records a run (in WAL mode
// the snapshot is a read transaction, which never blocks the writer).
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <system_error>
#include <vector>

#include "base/exit_signals.h"
#include "base/output_file.h"
#include "store/store.h"
#include "sql.h"

namespace harness {
namespace {

struct Closer {
  sqlite3* db = nullptr;
  ~Closer() {
    if (db != nullptr) sqlite3_close(db);
  }
};

}  // namespace

Status Store::BackupTo(const std::string& dest) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dest, ec) && fs::equivalent(dest, path_, ec)) {
    return InvalidInput("backup: '" + dest + "' is the store itself: name another file");
  }
  if (fs::is_directory(dest, ec)) {
    return InvalidInput("backup: '" + dest + "' is a directory: name the file to write, e.g. " +
                        (fs::path(dest) / "spyre-regress.db").string());
  }
  // Written beside the destination and renamed over it once checked, so a
  // failed or interrupted backup never leaves a half-written file at `dest`;
  // the copy and its SQLite companions go when it fails or a signal ends
  // the program, and a copy left by a killed backup goes with the next one.
  RemoveStalePartials(dest);
  const std::string tmp = PartialPath(dest);
  std::vector<std::unique_ptr<TempFileGuard>> guards;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    guards.push_back(std::make_unique<TempFileGuard>(tmp + suffix));
    fs::remove(tmp + suffix, ec);
  }
  auto remove_copy = [&] {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(tmp + suffix, ec);
  };
  Closer out;
  int rc =
      sqlite3_open_v2(tmp.c_str(), &out.db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    remove_copy();
    return IoError("backup: cannot write '" + dest + "' (" +
                   (out.db != nullptr ? sqlite3_errmsg(out.db) : sqlite3_errstr(rc)) +
                   "): check that its directory exists and is writable");
  }
  auto fail = [&](const std::string& what) {
    sqlite3_close(out.db);
    out.db = nullptr;
    remove_copy();
    return IoError("backup of store '" + path_ + "' to '" + dest + "' failed: " + what +
                   "; the store is untouched and '" + dest + "' was not written");
  };
  sqlite3_busy_timeout(out.db, 15000);
  sqlite3_backup* backup = sqlite3_backup_init(out.db, "main", db_, "main");
  if (backup == nullptr) return fail(sqlite3_errmsg(out.db));
  // One step copies every page inside one read transaction: a snapshot.
  // A writer holding the source's lock (rollback-journal stores) makes it
  // busy; wait and retry within the busy timeout.
  for (int waited_ms = 0;;) {
    rc = sqlite3_backup_step(backup, -1);
    if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || waited_ms >= 15000) break;
    sqlite3_sleep(20);
    waited_ms += 20;
  }
  const int finish = sqlite3_backup_finish(backup);
  if (rc != SQLITE_DONE) return fail(sqlite3_errstr(rc));
  if (finish != SQLITE_OK) return fail(sqlite3_errmsg(out.db));
  {
    store_internal::Stmt check(out.db, "PRAGMA integrity_check(1)");
    if (int c = check.Step(); c != SQLITE_ROW) return fail(sqlite3_errstr(c));
    if (check.Text(0) != "ok")
      return fail("the copy does not pass integrity_check: " + check.Text(0));
  }
  // A self-contained file: nothing left in a -wal beside it.
  if (sqlite3_exec(out.db, "PRAGMA wal_checkpoint(TRUNCATE)", nullptr, nullptr, nullptr) !=
      SQLITE_OK)
    return fail(sqlite3_errmsg(out.db));
  if (sqlite3_close(out.db) != SQLITE_OK) return fail("closing the copy");
  out.db = nullptr;
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(dest + suffix, ec);
  fs::rename(tmp, dest, ec);
  if (ec) {
    remove_copy();
    return IoError("backup: cannot move the copy into place at '" + dest + "' (" + ec.message() +
                   "): check the permissions of its directory");
  }
  return Status::Ok();
}

}  // namespace harness
