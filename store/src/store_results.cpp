// One case result -> results + metrics + wall_samples + op_summaries, in one
// transaction (a crash between cases never leaves half a result).
#include <algorithm>
#include <cmath>

#include "base/stats.h"
#include "store/store.h"
#include "sql.h"

namespace harness {
namespace {
using store_internal::Stmt;

// The median of the samples that are numbers; NaN when none is.
double MedianOfNumbers(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
  return Median(std::move(v));
}

// Median absolute deviation: the spread stored beside the median (robust to
// the odd slow sample a loaded machine produces).
double MedianAbsDeviation(const std::vector<double>& v, double median) {
  std::vector<double> dev;
  for (double x : v) dev.push_back(std::fabs(x - median));
  return MedianOfNumbers(dev);
}

constexpr const char* kInsertResult =
    "INSERT INTO results (run_id, suite, case_name, status, message, max_abs_err,"
    " max_rel_err, rel_l2, max_ulp, cosine, wall_us_median, wall_us_mad, wall_samples,"
    " modeled_us, fallback_ops, peak_device_bytes, recorded_at, extra_json, unqueued_us_median)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
constexpr const char* kInsertMetric =
    "INSERT INTO metrics (result_id, output, name, value, limit_value, failed) VALUES (?, ?, ?, ?, ?, ?)";
constexpr const char* kInsertSample =
    "INSERT INTO wall_samples (result_id, idx, wall_us, queue_us) VALUES (?, ?, ?, ?)";
// A summary listing one op twice is folded into one row rather than failing
// the whole result.
constexpr const char* kInsertOp =
    "INSERT INTO op_summaries (result_id, op, calls, modeled_us, wall_us, fallbacks)"
    " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (result_id, op) DO UPDATE SET"
    " calls = calls + excluded.calls, modeled_us = modeled_us + excluded.modeled_us,"
    " wall_us = wall_us + excluded.wall_us, fallbacks = fallbacks + excluded.fallbacks";

}  // namespace

Status Store::RecordResult(int64_t run_id, const CaseResult& r) {
  const std::string doing = "recording case " + r.suite + "/" + r.case_id;
  store_internal::Transaction tx(db_);
  if (int rc = tx.Begin(); rc != SQLITE_OK) return Error(rc, doing);

  const double median = MedianOfNumbers(r.wall_us);
  int prepared = SQLITE_OK;
  Stmt result(Cached(kInsertResult, &prepared), prepared);
  result.Bind(1, run_id).Bind(2, r.suite).Bind(3, r.case_id)
      .Bind(4, std::string(CaseStatusName(r.status))).Bind(5, r.message).Bind(6, r.max_abs_err)
      .Bind(7, r.max_rel_err).Bind(8, r.rel_l2).Bind(9, r.max_ulp).Bind(10, r.cosine)
      .Bind(11, median).Bind(12, MedianAbsDeviation(r.wall_us, median))
      .Bind(13, static_cast<int64_t>(r.wall_us.size())).Bind(14, r.modeled_us)
      .Bind(15, r.fallback_ops).Bind(16, r.peak_device_bytes).Bind(17, store_internal::NowIso())
      .Bind(18, r.extra.dump()).Bind(19, r.UnqueuedMedianUs());
  if (int rc = result.Run(); rc != SQLITE_DONE) return Error(rc, doing);
  const int64_t result_id = sqlite3_last_insert_rowid(db_);

  Stmt metric(Cached(kInsertMetric, &prepared), prepared);
  for (const Metric& m : r.metrics) {
    metric.Reset();
    metric.Bind(1, result_id).Bind(2, m.output).Bind(3, m.name).Bind(4, m.value).Bind(5, m.limit)
        .Bind(6, int64_t{m.failed ? 1 : 0});
    if (int rc = metric.Run(); rc != SQLITE_DONE) return Error(rc, doing);
  }
  Stmt sample(Cached(kInsertSample, &prepared), prepared);
  for (size_t i = 0; i < r.wall_us.size(); ++i) {
    sample.Reset();
    sample.Bind(1, result_id).Bind(2, static_cast<int64_t>(i)).Bind(3, r.wall_us[i])
        .Bind(4, r.HasQueueWait() ? r.queue_us[i] : std::nan(""));
    if (int rc = sample.Run(); rc != SQLITE_DONE) return Error(rc, doing);
  }
  Stmt op(Cached(kInsertOp, &prepared), prepared);
  for (const OpSummary& o : r.ops) {
    op.Reset();
    op.Bind(1, result_id).Bind(2, o.op).Bind(3, o.calls).Bind(4, o.modeled_us).Bind(5, o.wall_us)
        .Bind(6, o.fallbacks);
    if (int rc = op.Run(); rc != SQLITE_DONE) return Error(rc, doing);
  }
  if (int rc = tx.Commit(); rc != SQLITE_OK) return Error(rc, doing);
  return Status::Ok();
}

Status Store::SetResultExtra(int64_t run_id, const std::string& suite, const std::string& case_name,
                             const nlohmann::json& extra) {
  Stmt update(db_,
              "UPDATE results SET extra_json = ?, extra_set = NULL"
              " WHERE run_id = ? AND suite = ? AND case_name = ?");
  update.Bind(1, extra.dump()).Bind(2, run_id).Bind(3, suite).Bind(4, case_name);
  if (int rc = update.Run(); rc != SQLITE_DONE)
    return Error(rc, "updating case " + suite + "/" + case_name);
  if (sqlite3_changes(db_) == 0) {
    return NotFound("no result of " + suite + "/" + case_name + " in run " +
                    std::to_string(run_id));
  }
  return Status::Ok();
}

}  // namespace harness
