// merge: copies whole runs from a shard store into this one. Identity is the
// run's uuid, so merging the same shard twice is refused instead of doubling
// its results; everything is copied in one transaction (all or nothing).
#include <map>

#include "harness/store.h"
#include "store/sql.h"

namespace harness {
namespace {
using store_internal::Stmt;

constexpr const char* kRunColumns =
    "uuid, suite, label, status, started_at, finished_at, fingerprint, env_json, shard, jobs,"
    " threads, options_json, host, pid, pid_start, note";
constexpr const char* kResultColumns =
    "suite, case_name, status, message, max_abs_err, max_rel_err, rel_l2, max_ulp, cosine,"
    " wall_us_median, wall_us_mad, wall_samples, modeled_us, fallback_ops, peak_device_bytes,"
    " recorded_at, extra_json";

std::string Placeholders(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i == 0 ? "?" : ", ?";
  return s;
}

// Copies every row `select` yields into `insert`. The select's first column is
// the row's old id (not copied); the insert takes `parent` (when >= 0) as its
// first parameter, then the remaining columns in order. Records old -> new ids.
int CopyRows(sqlite3* dst, Stmt& select, Stmt& insert, int64_t parent,
             std::vector<std::pair<int64_t, int64_t>>* ids) {
  int rc;
  while ((rc = select.Step()) == SQLITE_ROW) {
    insert.Reset();
    int param = 1;
    if (parent >= 0) insert.Bind(param++, parent);
    for (int col = 1; col < select.ColumnCount(); ++col) insert.BindValue(param++, select.Value(col));
    if (int irc = insert.Run(); irc != SQLITE_DONE) return irc;
    if (ids != nullptr) ids->emplace_back(select.Int(0), sqlite3_last_insert_rowid(dst));
  }
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

}  // namespace

StatusOr<int> Store::MergeFrom(const std::string& src_path) {
  StatusOr<std::unique_ptr<Store>> opened = Open(src_path, Mode::kReadOnly);
  if (!opened.ok()) return opened.status();
  Store& src = **opened;
  const std::string doing = "merging '" + src_path + "'";

  store_internal::Transaction tx(db_);
  if (int rc = tx.Begin(); rc != SQLITE_OK) return Error(rc, doing);
  // Refuse before copying anything when any run is already here.
  Stmt uuids(src.db_, "SELECT uuid, suite, started_at FROM runs");
  Stmt exists(db_, "SELECT id FROM runs WHERE uuid = ?");
  int rc;
  while ((rc = uuids.Step()) == SQLITE_ROW) {
    exists.Reset();
    exists.Bind(1, uuids.Text(0));
    if (int erc = exists.Step(); erc == SQLITE_ROW) {
      return InvalidInput("run " + uuids.Text(0) + " (suite " + uuids.Text(1) + ", started " +
                          uuids.Text(2) + ") from '" + src_path + "' is already in '" + path_ +
                          "' as run " + std::to_string(exists.Int(0)) +
                          " (merged before?): nothing was merged");
    } else if (erc != SQLITE_DONE) {
      return Error(erc, doing);
    }
  }
  if (rc != SQLITE_DONE) return src.Error(rc, doing);

  const std::string run_cols = kRunColumns, result_cols = kResultColumns;
  Stmt runs(src.db_, ("SELECT id, " + run_cols + " FROM runs ORDER BY id").c_str());
  Stmt insert_run(db_, ("INSERT INTO runs (" + run_cols + ") VALUES (" + Placeholders(16) + ")").c_str());
  std::vector<std::pair<int64_t, int64_t>> run_ids;
  if ((rc = CopyRows(db_, runs, insert_run, -1, &run_ids)) != SQLITE_OK) return Error(rc, doing);
  std::map<int64_t, int64_t> run_map(run_ids.begin(), run_ids.end());

  Stmt results(src.db_, ("SELECT id, " + result_cols + " FROM results WHERE run_id = ?").c_str());
  Stmt insert_result(db_, ("INSERT INTO results (run_id, " + result_cols + ") VALUES (" +
                           Placeholders(18) + ")").c_str());
  Stmt metrics(src.db_, "SELECT 0, output, name, value, limit_value, failed FROM metrics WHERE result_id = ?");
  Stmt insert_metric(db_, "INSERT INTO metrics (result_id, output, name, value, limit_value, failed)"
                          " VALUES (?, ?, ?, ?, ?, ?)");
  Stmt samples(src.db_, "SELECT 0, idx, wall_us FROM wall_samples WHERE result_id = ?");
  Stmt insert_sample(db_, "INSERT INTO wall_samples (result_id, idx, wall_us) VALUES (?, ?, ?)");
  Stmt ops(src.db_, "SELECT 0, op, calls, modeled_us, wall_us, fallbacks FROM op_summaries WHERE result_id = ?");
  Stmt insert_op(db_, "INSERT INTO op_summaries (result_id, op, calls, modeled_us, wall_us, fallbacks)"
                      " VALUES (?, ?, ?, ?, ?, ?)");
  for (const auto& [old_run, new_run] : run_ids) {
    results.Reset();
    results.Bind(1, old_run);
    std::vector<std::pair<int64_t, int64_t>> result_ids;
    if ((rc = CopyRows(db_, results, insert_result, new_run, &result_ids)) != SQLITE_OK) {
      return Error(rc, doing);
    }
    for (const auto& [old_result, new_result] : result_ids) {
      for (auto [select, insert] : {std::pair{&metrics, &insert_metric}, {&samples, &insert_sample},
                                    {&ops, &insert_op}}) {
        select->Reset();
        select->Bind(1, old_result);
        if ((rc = CopyRows(db_, *select, *insert, new_result, nullptr)) != SQLITE_OK) {
          return Error(rc, doing);
        }
      }
    }
  }
  // Regressions point at two runs of the source store; both were copied.
  Stmt regressions(src.db_, "SELECT run_id, baseline_run_id, suite, case_name, kind, metric,"
                            " baseline_value, candidate_value, ratio, detail FROM regressions");
  Stmt insert_regression(db_, "INSERT INTO regressions (run_id, baseline_run_id, suite, case_name,"
                              " kind, metric, baseline_value, candidate_value, ratio, detail)"
                              " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  while ((rc = regressions.Step()) == SQLITE_ROW) {
    insert_regression.Reset();
    auto mapped = [&](int col) {
      auto it = run_map.find(regressions.Int(col));
      return it == run_map.end() ? int64_t{0} : it->second;
    };
    insert_regression.Bind(1, mapped(0)).Bind(2, mapped(1));
    for (int col = 2; col < 10; ++col) insert_regression.BindValue(col + 1, regressions.Value(col));
    if (int irc = insert_regression.Run(); irc != SQLITE_DONE) return Error(irc, doing);
  }
  if (rc != SQLITE_DONE) return src.Error(rc, doing);
  if ((rc = tx.Commit()) != SQLITE_OK) return Error(rc, doing);
  return static_cast<int>(run_ids.size());
}

}  // namespace harness
