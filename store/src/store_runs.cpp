// Runs: begin, finish, abandoned-run recovery, lookups.
#include <unistd.h>

#include "store/store.h"
#include "process_identity.h"
#include "sql.h"

namespace harness {
namespace store_internal {

std::string AbandonedNote(int64_t pid) {
  return "supervisor is gone: pid " + std::to_string(pid) + " ended without finishing the run";
}

}  // namespace store_internal
using store_internal::AbandonedNote;
using store_internal::Stmt;
using store_internal::Transaction;

StatusOr<int64_t> Store::BeginRun(const NewRun& run) {
  Stmt insert(db_,
              "INSERT INTO runs (uuid, suite, label, status, started_at, fingerprint, env_json, shard,"
              " jobs, threads, options_json, host, pid, pid_start)"
              " VALUES (?, ?, ?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  const int64_t pid = ::getpid();
  insert.Bind(1, store_internal::NewUuid()).Bind(2, run.suite).Bind(3, run.label)
      .Bind(4, store_internal::NowIso()).Bind(5, run.fingerprint).Bind(6, run.env_json)
      .Bind(7, run.shard).Bind(8, int64_t{run.jobs}).Bind(9, int64_t{run.threads})
      .Bind(10, run.options_json).Bind(11, store_internal::HostName()).Bind(12, pid)
      .Bind(13, store_internal::ProcessStartTime(pid));
  if (int rc = insert.Run(); rc != SQLITE_DONE) return Error(rc, "recording the run");
  return static_cast<int64_t>(sqlite3_last_insert_rowid(db_));
}

Status Store::FinishRun(int64_t run_id, RunStatus status, const std::string& note) {
  Stmt update(db_, "UPDATE runs SET status = ?, finished_at = ?, note = ? WHERE id = ?");
  update.Bind(1, std::string(RunStatusName(status))).Bind(2, store_internal::NowIso())
      .Bind(3, note).Bind(4, run_id);
  if (int rc = update.Run(); rc != SQLITE_DONE) return Error(rc, "finishing the run");
  return Status::Ok();
}

// The baseline a run was judged against, kept with its options (`runs`
// lists it), whether or not the comparison found anything.
Status Store::RecordBaselineChoice(int64_t run_id, int64_t baseline_run_id) {
  Stmt update(db_,
              "UPDATE runs SET options_json = json_set(coalesce(options_json, '{}'),"
              " '$.baseline_run_id', ?) WHERE id = ?");
  update.Bind(1, baseline_run_id).Bind(2, run_id);
  const int rc = update.Run();
  if (rc != SQLITE_DONE && rc != SQLITE_OK) {
    return IoError(std::string("recording the baseline of run ") + std::to_string(run_id) + ": " +
                   sqlite3_errmsg(db_));
  }
  return Status::Ok();
}

StatusOr<int> Store::MarkAbandonedRuns() {
  Stmt running(db_, "SELECT id, pid, pid_start FROM runs WHERE status = 'running' AND host = ?");
  running.Bind(1, store_internal::HostName());
  std::vector<std::pair<int64_t, int64_t>> gone;  // (run id, pid)
  int rc;
  while ((rc = running.Step()) == SQLITE_ROW) {
    if (!store_internal::ProcessAlive(running.Int(1), running.Int(2))) {
      gone.emplace_back(running.Int(0), running.Int(1));
    }
  }
  if (rc != SQLITE_DONE) return Error(rc, "looking for abandoned runs");
  for (const auto& [id, pid] : gone) {
    // status = 'running' again in the update: another process may have
    // finished it meanwhile.
    Stmt mark(db_, "UPDATE runs SET status = 'aborted', finished_at = ?, note = ?"
                   " WHERE id = ? AND status = 'running'");
    mark.Bind(1, store_internal::NowIso()).Bind(2, AbandonedNote(pid)).Bind(3, id);
    if (int rc2 = mark.Run(); rc2 != SQLITE_DONE) return Error(rc2, "marking an abandoned run aborted");
  }
  return static_cast<int>(gone.size());
}

StatusOr<std::optional<RunRow>> Store::FindRun(int64_t run_id) {
  // Status and note as every reader sees them (temp.run_status, Store::Open).
  Stmt q(db_, "SELECT id, uuid, suite, label, s.status, started_at, coalesce(finished_at, ''),"
              " fingerprint, env_json, shard, host, s.note, pid, shard_group, options_json, threads"
              " FROM runs JOIN temp.run_status s ON s.run_id = runs.id WHERE id = ?");
  q.Bind(1, run_id);
  int rc = q.Step();
  if (rc == SQLITE_DONE) return std::optional<RunRow>();
  if (rc != SQLITE_ROW) return Error(rc, "reading run " + std::to_string(run_id));
  RunRow r;
  r.id = q.Int(0);
  r.uuid = q.Text(1);
  r.suite = q.Text(2);
  r.label = q.Text(3);
  r.status = q.Text(4);
  r.started_at = q.Text(5);
  r.finished_at = q.Text(6);
  r.fingerprint = q.Text(7);
  r.env_json = q.Text(8);
  r.shard = q.Text(9);
  r.host = q.Text(10);
  r.note = q.Text(11);
  r.pid = q.Int(12);
  r.shard_group = q.Text(13);
  r.options_json = q.Text(14);
  r.threads = static_cast<int>(q.Int(15));
  return std::optional<RunRow>(r);
}

Status Store::RecordRegressions(int64_t run_id, int64_t baseline_run_id,
                                const std::vector<RegressionRow>& rows) {
  Transaction tx(db_);
  if (int rc = tx.Begin(); rc != SQLITE_OK) return Error(rc, "recording regressions");
  Stmt clear(db_, "DELETE FROM regressions WHERE run_id = ?");
  clear.Bind(1, run_id);
  if (int rc = clear.Run(); rc != SQLITE_DONE) return Error(rc, "recording regressions");
  Stmt insert(db_, "INSERT INTO regressions (run_id, baseline_run_id, suite, case_name, kind, metric,"
                   " baseline_value, candidate_value, ratio, detail, finding_json)"
                   " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const RegressionRow& r : rows) {
    insert.Reset();
    insert.Bind(1, run_id).Bind(2, baseline_run_id).Bind(3, r.suite).Bind(4, r.case_name)
        .Bind(5, r.kind).Bind(6, r.metric).Bind(7, r.baseline_value).Bind(8, r.candidate_value)
        .Bind(9, r.ratio).Bind(10, r.detail).Bind(11, r.finding_json);
    if (int rc = insert.Run(); rc != SQLITE_DONE) return Error(rc, "recording regressions");
  }
  if (int rc = tx.Commit(); rc != SQLITE_OK) return Error(rc, "recording regressions");
  return Status::Ok();
}

}  // namespace harness

namespace harness {

bool RunState::Complete() const {
  return status == "completed" && (planned < 0 || recorded >= planned);
}

std::string RunState::Verdict() const {
  if (status == "running") return "running";
  if (status != "completed") return "aborted";
  return Complete() ? "" : "partial";
}

std::string RunState::Describe() const {
  std::string s = "run " + std::to_string(run_id);
  if (status == "running") {
    s += abandoned
             ? " is still marked running, but its supervisor is gone (killed?)"
             : " is still running" + (host.empty() ? std::string() : " on host '" + host + "'");
  } else if (status == "completed") {
    s += " completed with cases missing";
  } else {
    s += " was " + status + (note.empty() ? std::string() : " (" + note + ")");
  }
  s += ": " + std::to_string(recorded);
  if (planned >= 0) s += " of " + std::to_string(planned) + " planned";
  return s + " case" + (recorded == 1 && planned < 0 ? "" : "s") + " recorded";
}

StatusOr<RunState> ReadRunState(Store& store, int64_t run_id) {
  sqlite3* db = store_internal::Access::Db(store);
  Stmt q(db,
         "SELECT status, note, host, pid, pid_start, options_json,"
         " (SELECT count(*) FROM results WHERE run_id = runs.id) FROM runs WHERE id = ?");
  q.Bind(1, run_id);
  const int rc = q.Step();
  if (rc == SQLITE_DONE) {
    return NotFound("run " + std::to_string(run_id) +
                    " is not in the store (see v_runs for the run ids)");
  }
  if (rc != SQLITE_ROW) {
    return IoError(std::string("reading run ") + std::to_string(run_id) + ": " +
                   sqlite3_errmsg(db));
  }
  RunState st;
  st.run_id = run_id;
  st.status = q.Text(0);
  st.note = q.Text(1);
  st.host = q.Text(2);
  st.recorded = q.Int(6);
  const nlohmann::json options = nlohmann::json::parse(q.Text(5), nullptr, false);
  if (options.is_object() && options.contains("cases") && options["cases"].is_number_unsigned()) {
    st.planned = options["cases"].get<int64_t>();
  }
  // A read-only reader cannot mark an abandoned run aborted, but it reports
  // it as the next writer will record it.
  st.abandoned = st.status == "running" && st.host == store_internal::HostName() &&
                 !store_internal::ProcessAlive(q.Int(3), q.Int(4));
  if (st.abandoned) {
    st.status = "aborted";
    st.note = AbandonedNote(q.Int(3));
  }
  return st;
}

}  // namespace harness

namespace harness {

StatusOr<int64_t> Store::RecordBisect(const BisectRecord& b) {
  constexpr const char* kDoing = "recording a bisect";
  store_internal::Transaction tx(db_);
  if (int rc = tx.Begin(); rc != SQLITE_OK) return Error(rc, kDoing);
  store_internal::Stmt insert(db_, "INSERT INTO bisects (run_id, baseline_run_id, started_at, elapsed_s, budget_s,"
                   " rounds, summary_json) VALUES (?, ?, ?, ?, ?, ?, ?)");
  insert.Bind(1, b.run_id).Bind(2, b.baseline_run_id).Bind(3, store_internal::NowIso())
      .Bind(4, b.elapsed_s).Bind(5, b.budget_s).Bind(6, static_cast<int64_t>(b.rounds))
      .Bind(7, b.summary_json);
  if (int rc = insert.Run(); rc != SQLITE_DONE) return Error(rc, kDoing);
  const int64_t id = sqlite3_last_insert_rowid(db_);
  store_internal::Stmt row(db_, "INSERT INTO attributions (bisect_id, suite, case_name, kind, metric, verdict,"
                " components, text, evidence_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const AttributionRow& a : b.attributions) {
    row.Reset();
    row.Bind(1, id).Bind(2, a.suite).Bind(3, a.case_name).Bind(4, a.kind).Bind(5, a.metric)
        .Bind(6, a.verdict).Bind(7, a.components).Bind(8, a.text).Bind(9, a.evidence_json);
    if (int rc = row.Run(); rc != SQLITE_DONE) return Error(rc, kDoing);
  }
  if (int rc = tx.Commit(); rc != SQLITE_OK) return Error(rc, kDoing);
  return id;
}

}  // namespace harness
