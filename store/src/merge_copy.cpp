#include "merge_copy.h"

#include <utility>
#include <vector>

#include "extra_sets.h"
#include "sql.h"

namespace harness::store_internal {
namespace {

constexpr const char* kResultColumns =
    "suite, case_name, status, message, max_abs_err, max_rel_err, rel_l2, max_ulp, cosine,"
    " wall_us_median, wall_us_mad, wall_samples, modeled_us, fallback_ops, peak_device_bytes,"
    " recorded_at, extra_json, unqueued_us_median, rounds_packed";
constexpr int kResultColumnCount = 19;
constexpr int kExtraColumn = 17;  // extra_json's position in kResultColumns, from 1

// Copies every row `select` yields into `insert`. The select's first column is
// the row's old id (not copied); the insert takes `parent` as its first
// parameter, then the remaining columns in order. Records old -> new ids.
int CopyRows(sqlite3* dst, Stmt& select, Stmt& insert, int64_t parent,
             std::vector<std::pair<int64_t, int64_t>>* ids) {
  int rc;
  while ((rc = select.Step()) == SQLITE_ROW) {
    insert.Reset();
    int param = 1;
    insert.Bind(param++, parent);
    for (int col = 1; col < select.ColumnCount(); ++col)
      insert.BindValue(param++, select.Value(col));
    if (int irc = insert.Run(); irc != SQLITE_DONE) return irc;
    if (ids != nullptr) ids->emplace_back(select.Int(0), sqlite3_last_insert_rowid(dst));
  }
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

}  // namespace

std::string Placeholders(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += i == 0 ? "?" : ", ?";
  return s;
}

int CopyRunResults(sqlite3* src, sqlite3* dst, int64_t old_run, int64_t new_run) {
  const std::string cols = kResultColumns;
  Stmt results(src, ("SELECT id, " + cols +
                     ", (SELECT members FROM extra_sets e WHERE e.set_id = results.extra_set)"
                     " FROM results WHERE run_id = ? ORDER BY id")
                        .c_str());
  Stmt insert_result(
      dst,
      ("INSERT INTO results (run_id, " + cols + ") VALUES (" + Placeholders(20) + ")").c_str());
  // A pruned result's metrics come from its shared set and arrive as rows.
  Stmt metrics(src,
               "SELECT 0, output, name, value, limit_value, failed FROM metrics WHERE result_id = ?1"
               " UNION ALL SELECT 0, output, name, value, limit_value, failed FROM ("
               "  SELECT s.seq, s.output, s.name, s.value, s.limit_value, s.failed FROM results r"
               "  JOIN metric_set_rows s ON s.set_id = r.metric_set WHERE r.id = ?1 ORDER BY s.seq)");
  Stmt insert_metric(dst,
                     "INSERT INTO metrics (result_id, output, name, value, limit_value, failed)"
                     " VALUES (?, ?, ?, ?, ?, ?)");
  Stmt samples(src, "SELECT 0, idx, wall_us, queue_us FROM wall_samples WHERE result_id = ?");
  Stmt insert_sample(
      dst, "INSERT INTO wall_samples (result_id, idx, wall_us, queue_us) VALUES (?, ?, ?, ?)");
  Stmt ops(
      src,
      "SELECT 0, op, calls, modeled_us, wall_us, fallbacks FROM op_summaries WHERE result_id = ?");
  Stmt insert_op(dst,
                 "INSERT INTO op_summaries (result_id, op, calls, modeled_us, wall_us, fallbacks)"
                 " VALUES (?, ?, ?, ?, ?, ?)");
  results.Bind(1, old_run);
  std::vector<std::pair<int64_t, int64_t>> result_ids;
  // A pruned result's extra JSON arrives whole (its own members joined with
  // its shared set's, store/extra_sets.h), as its metrics arrive as rows.
  int rc;
  while ((rc = results.Step()) == SQLITE_ROW) {
    insert_result.Reset();
    insert_result.Bind(1, new_run);
    for (int col = 1; col <= kResultColumnCount; ++col) {
      if (col == kExtraColumn && !results.IsNull(kResultColumnCount + 1)) {
        insert_result.Bind(col + 1, JoinExtraText(results.Text(col),
                                                  results.Text(kResultColumnCount + 1))
                                        .dump());
      } else {
        insert_result.BindValue(col + 1, results.Value(col));
      }
    }
    if (int irc = insert_result.Run(); irc != SQLITE_DONE) return irc;
    result_ids.emplace_back(results.Int(0), sqlite3_last_insert_rowid(dst));
  }
  if (rc != SQLITE_DONE) return rc;
  for (const auto& [old_result, new_result] : result_ids) {
    for (auto [select, insert] :
         {std::pair{&metrics, &insert_metric}, {&samples, &insert_sample}, {&ops, &insert_op}}) {
      select->Reset();
      select->Bind(1, old_result);
      if (int rc = CopyRows(dst, *select, *insert, new_result, nullptr); rc != SQLITE_OK) return rc;
    }
  }
  return SQLITE_OK;
}

}  // namespace harness::store_internal
