// merge: copies whole runs from a shard store into this one. Identity is the
// run's uuid, so merging the same shard twice is refused instead of doubling
// its results; every source is copied in one transaction (all or nothing).
// (Folding the shards of one night into one run: store_group.cpp.)
#include <map>

#include "store/store.h"
#include "merge_copy.h"
#include "sql.h"

namespace harness {
namespace {
using store_internal::Placeholders;
using store_internal::Stmt;

constexpr const char* kRunColumns =
    "uuid, suite, label, status, started_at, finished_at, fingerprint, env_json, shard, jobs,"
    " threads, options_json, host, pid, pid_start, note, shard_group";
constexpr int kRunColumnCount = 17;

}  // namespace

StatusOr<int> Store::MergeFrom(const std::string& src_path) {
  SPYRE_ASSIGN_OR_RETURN(const std::vector<int> copied,
                         MergeFrom(std::vector<std::string>{src_path}));
  return copied.front();
}

StatusOr<std::vector<int>> Store::MergeFrom(const std::vector<std::string>& src_paths) {
  store_internal::Transaction tx(db_);
  if (int rc = tx.Begin(); rc != SQLITE_OK) return Error(rc, "starting a merge");
  std::vector<int> copied;
  for (const std::string& src : src_paths) {
    SPYRE_ASSIGN_OR_RETURN(const int n, CopyRunsFrom(src));
    copied.push_back(n);
  }
  if (int rc = tx.Commit(); rc != SQLITE_OK) return Error(rc, "merging");
  return copied;
}

StatusOr<int> Store::CopyRunsFrom(const std::string& src_path) {
  SPYRE_ASSIGN_OR_RETURN(auto opened, Open(src_path, Mode::kReadOnly));
  Store& src = *opened;
  SPYRE_RETURN_IF_ERROR(src.CheckIntegrity());
  const std::string doing = "merging '" + src_path + "'";

  // Refuse before copying anything when any run is already here.
  Stmt uuids(src.db_, "SELECT uuid, suite, started_at FROM runs");
  Stmt exists(db_,
              "SELECT id FROM runs WHERE uuid = ?1"
              " UNION ALL SELECT run_id FROM run_parts WHERE uuid = ?1");
  int rc;
  while ((rc = uuids.Step()) == SQLITE_ROW) {
    exists.Reset();
    exists.Bind(1, uuids.Text(0));
    if (int erc = exists.Step(); erc == SQLITE_ROW) {
      return InvalidInput("run " + uuids.Text(0) + " (suite " + uuids.Text(1) + ", started " +
                          uuids.Text(2) + ") from '" + src_path + "' is already in '" + path_ +
                          "' as run " + std::to_string(exists.Int(0)) +
                          " (merged before? or by an earlier source of this merge): nothing was"
                          " merged");
    } else if (erc != SQLITE_DONE) {
      return Error(erc, doing);
    }
  }
  if (rc != SQLITE_DONE) return src.Error(rc, doing);

  const std::string run_cols = kRunColumns;
  Stmt runs(src.db_, ("SELECT id, " + run_cols + " FROM runs ORDER BY id").c_str());
  Stmt insert_run(
      db_, ("INSERT INTO runs (" + run_cols + ") VALUES (" + Placeholders(kRunColumnCount) + ")")
               .c_str());
  std::map<int64_t, int64_t> run_map;  // source run id -> id here
  while ((rc = runs.Step()) == SQLITE_ROW) {
    insert_run.Reset();
    for (int col = 1; col <= kRunColumnCount; ++col) insert_run.BindValue(col, runs.Value(col));
    if (int irc = insert_run.Run(); irc != SQLITE_DONE) return Error(irc, doing);
    const int64_t new_run = sqlite3_last_insert_rowid(db_);
    run_map[runs.Int(0)] = new_run;
    if (int crc = store_internal::CopyRunResults(src.db_, db_, runs.Int(0), new_run);
        crc != SQLITE_OK) {
      return Error(crc, doing);
    }
  }
  if (rc != SQLITE_DONE) return src.Error(rc, doing);
  // A group run of the source keeps the record of its parts.
  Stmt parts(src.db_,
             "SELECT run_id, uuid, shard, status, started_at, finished_at, host, fingerprint, note"
             " FROM run_parts");
  Stmt insert_part(
      db_,
      "INSERT INTO run_parts (run_id, uuid, shard, status, started_at, finished_at, host,"
      " fingerprint, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  while ((rc = parts.Step()) == SQLITE_ROW) {
    insert_part.Reset();
    insert_part.Bind(1, run_map[parts.Int(0)]);
    for (int col = 1; col < 9; ++col) insert_part.BindValue(col + 1, parts.Value(col));
    if (int irc = insert_part.Run(); irc != SQLITE_DONE) return Error(irc, doing);
  }
  if (rc != SQLITE_DONE) return src.Error(rc, doing);
  // Regressions point at two runs of the source store; both were copied.
  Stmt regressions(src.db_,
                   "SELECT run_id, baseline_run_id, suite, case_name, kind, metric,"
                   " baseline_value, candidate_value, ratio, detail, finding_json FROM regressions");
  Stmt insert_regression(db_,
                         "INSERT INTO regressions (run_id, baseline_run_id, suite, case_name,"
                         " kind, metric, baseline_value, candidate_value, ratio, detail, finding_json)"
                         " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  while ((rc = regressions.Step()) == SQLITE_ROW) {
    insert_regression.Reset();
    auto mapped = [&](int col) {
      auto it = run_map.find(regressions.Int(col));
      return it == run_map.end() ? int64_t{0} : it->second;
    };
    insert_regression.Bind(1, mapped(0)).Bind(2, mapped(1));
    for (int col = 2; col < 11; ++col) insert_regression.BindValue(col + 1, regressions.Value(col));
    if (int irc = insert_regression.Run(); irc != SQLITE_DONE) return Error(irc, doing);
  }
  if (rc != SQLITE_DONE) return src.Error(rc, doing);
  return static_cast<int>(run_map.size());
}

}  // namespace harness
