#pragma once
// The SQLite store: every run, case result, metric, wall-time sample and
// per-op trace summary (docs/store.md). The runner's supervisor
// is the only writer during a run. All SQL of the project runs here: readers
// (detect, reports, the CLI) use the read queries of store_history.h and
// store_queries.h; other programs read the stable views v_runs, v_results
// and v_regressions.
//
//   SPYRE_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open("spyre-regress.db"));
//   SPYRE_ASSIGN_OR_RETURN(int64_t run, store->BeginRun(info));
//   SPYRE_RETURN_IF_ERROR(store->RecordResult(run, result));  // one transaction
//   SPYRE_RETURN_IF_ERROR(store->FinishRun(run, RunStatus::kCompleted));
//
// Guarantees and edge cases:
// - Open creates the file when missing, sets WAL and a busy timeout, and
//   applies forward migrations (each in its own transaction). A store written
//   by a newer schema, a file that is not a database, a corrupt file, an
//   unwritable file or directory, a lock held past the busy timeout and a full
//   disk are each one clear IoError; the file is never modified on failure.
// - Opening read-write checks the store's integrity (quick_check) before it
//   writes anything; a read-only open of a WAL store on read-only media (no
//   -shm or -wal can be created) falls back to an immutable open when the
//   store has no unmerged -wal.
// - Opening read-write marks `aborted` every run left `running` on this host
//   whose supervisor process (pid + start time) is gone.
// - NaN values are stored as NULL (SQLite's own rule); infinities as REAL.
// - Every SQL value is bound as a parameter.
//
// SQLite is the store's private matter: this header names its handles only
// by declaration, and nothing that includes it sees the SQLite API.
#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/case_result.h"
#include "base/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace harness {

class Store;
namespace store_internal {
struct Access;  // the connection, for the store's own files (store/sql.h)
}  // namespace store_internal

enum class RunStatus { kRunning, kCompleted, kAborted };
const char* RunStatusName(RunStatus s);  // "running", "completed", "aborted"

// What a run records about itself when it starts.
struct NewRun {
  std::string suite;        // suite name, or "a,b" when several ran together
  std::string label;        // --label, may be empty
  std::string fingerprint;  // FingerprintHash(env)
  std::string env_json;     // the fingerprint document
  std::string shard;        // "I/N", empty when unsharded
  std::string options_json = "{}";  // filter, warmup, repeat, jobs, timeout...
  int jobs = 1;
  int threads = 1;          // libtorch threads per worker
};

// A run row as read back (for baselines, merge and tests).
struct RunRow {
  int64_t id = 0;
  std::string uuid, suite, label, status, started_at, finished_at, fingerprint, env_json, shard;
  std::string host, note;
  std::string shard_group;  // merge --group KEY; empty for a plain run
  std::string options_json = "{}";  // the run's options (NewRun::options_json)
  int threads = 1;
  int64_t pid = 0;
};

// One run of a shard group after `MergeGroupFrom` (the night as one run).
struct GroupRun {
  int64_t run_id = 0;
  std::string group, suite;
  int parts = 0;        // shard runs folded in so far, this merge and earlier ones
  int shard_count = 1;  // N of the parts' "I/N"
  std::string shards;   // the parts' shards, in order: "1/3,2/3"
  std::string status;   // "completed" (every shard present and completed) or "aborted"
  std::string note;     // why aborted: missing shards, a part that did not complete
};

// One row of the regressions table (filled by regression detection).
struct RegressionRow {
  std::string suite, case_name, kind, metric, detail;
  double baseline_value = 0, candidate_value = 0, ratio = 0;
  // The whole finding as the judge gave it (detect/recorded_findings.h);
  // empty in rows recorded before schema version 9.
  std::string finding_json;
};

// What one `bisect` found about one finding of a comparison (the
// `attributions` table; detect/attribution.h says how it is reached).
struct AttributionRow {
  int64_t bisect_id = 0;
  int64_t run_id = 0, baseline_run_id = 0;
  std::string suite, case_name, kind, metric;
  std::string verdict;     // caused, together, each, not_separable, not_reproduced, undecided
  std::string components;  // the cause, or what it appeared with: comma-separated
  std::string text;        // the sentence shown with the finding
  std::string evidence_json = "{}";
};

// One `bisect` of a comparison (the `bisects` table): when, at what cost,
// and what it could swap (summary_json: components swapped and not, the
// configurations, the seconds each component took).
struct BisectRecord {
  int64_t run_id = 0, baseline_run_id = 0;
  double elapsed_s = 0, budget_s = 0;
  int rounds = 0;
  std::string summary_json = "{}";
  std::vector<AttributionRow> attributions;
};

// Where a recorded run stands. A verdict counts only the cases a run
// recorded, so a run that is aborted, still `running` (live, or abandoned by
// a supervisor that was killed) or completed with fewer results than it
// planned is not a pass, whatever its recorded cases say.
struct RunState {
  int64_t run_id = 0;
  std::string status;      // running, completed, aborted
  std::string note;        // why it was aborted, when it says
  std::string host;        // where its supervisor ran
  int64_t planned = -1;    // the cases it set out to record (-1: not recorded)
  int64_t recorded = 0;    // the results in the store
  bool abandoned = false;  // running, on this host, and its supervisor is gone

  // Completed with every planned case recorded.
  bool Complete() const;
  // "aborted", "running" or "partial" (completed, cases missing); "" when complete.
  std::string Verdict() const;
  // One phrase for messages: "run 4 was aborted (interrupted by signal 15):
  // 2 of 18 planned cases recorded".
  std::string Describe() const;
};
// Reads run `run_id`'s state (a read-only store is enough). NotFound for a
// missing run.
StatusOr<RunState> ReadRunState(Store& store, int64_t run_id);

// Retention (`prune`): which runs keep every wall sample. The others keep
// one value per timing round (the value the latency judge compares when both
// sides were timed in rounds) and everything else they recorded; no run is
// ever deleted.
struct PrunePolicy {
  int keep_runs = 30;                    // per suite: the newest N runs, and their baselines
  // Per suite: the newest N runs keep one value per timing round; older runs
  // (unless kept whole or named by a recorded finding) keep their run
  // medians, spread, metrics and op summaries only.
  int keep_rounds = 90;
  std::vector<std::string> keep_labels;  // every run with one of these labels
  bool dry_run = false;                  // do it in a transaction, measure, roll back
  bool vacuum = true;                    // VACUUM afterwards so the file shrinks
};
// What a prune did (or, on a dry run, would do).
struct PruneReport {
  int64_t runs_examined = 0, runs_kept = 0, runs_compacted = 0;
  int64_t results_compacted = 0;       // folded to one value per round
  int64_t results_rounds_dropped = 0;  // the oldest tier: round values dropped
  int64_t results_packed_whole = 0;    // every sample kept, packed as recorded
  int64_t metric_rows_shared = 0;      // metrics rows moved into shared metric sets
  int64_t metric_sets_added = 0;       // distinct metric sets written
  int64_t samples_before = 0, samples_after = 0;  // wall_samples rows of the compacted results
  int64_t bytes_before = 0;                       // the file (and its -wal) before
  int64_t bytes_freed = 0;                        // pages the compaction freed
  int64_t bytes_after = 0;                        // after VACUUM; estimated on a dry run
  std::vector<std::pair<int64_t, std::string>> kept;  // run id, why it keeps every sample
};

// `export`: one flat table as CSV (a header row) or JSON Lines (one object
// per row); the same columns either way. NULL is an empty field / null;
// infinities are "inf" / "-inf"; reals are written so they read back exactly.
enum class ExportFormat { kCsv, kJsonl };
struct ExportRequest {
  std::string table = "results";  // one of ExportTableNames()
  ExportFormat format = ExportFormat::kCsv;
  std::optional<int64_t> run_id;  // only this run
  std::string suite;              // only this suite (runs: runs that recorded it)
};
// runs, results, metrics, findings.
const std::vector<std::string>& ExportTableNames();

class Store {
 public:
  enum class Mode { kReadWrite, kReadOnly };
  // The schema version this build writes (the number of migrations).
  static int LatestSchemaVersion();

  // Opens (creating when missing, in kReadWrite) and migrates the store at
  // `path`. `busy_timeout_ms` bounds how long a locked store is waited for.
  static StatusOr<std::unique_ptr<Store>> Open(const std::string& path, Mode mode = Mode::kReadWrite,
                                               int busy_timeout_ms = 15000);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  const std::string& path() const { return path_; }
  // PRAGMA quick_check: a corrupt store is an IoError naming it, saying it
  // was left untouched. Open runs it before its first write.
  Status CheckIntegrity();
  StatusOr<int> SchemaVersion();

  // Starts a run (status running, this host and pid recorded). Returns its id.
  StatusOr<int64_t> BeginRun(const NewRun& run);
  // Stores one case result, its metrics, wall samples and op summaries in one
  // transaction. A second result for the same (run, suite, case) is an error.
  Status RecordResult(int64_t run_id, const CaseResult& result);
  // Replaces the extra JSON of a recorded result (the run's confirmation
  // rounds add to it after the main pass). NotFound when there is no such result.
  Status SetResultExtra(int64_t run_id, const std::string& suite, const std::string& case_name,
                        const nlohmann::json& extra);
  // Sets the final status (completed / aborted) and finished_at; `note` says why.
  Status FinishRun(int64_t run_id, RunStatus status, const std::string& note = "");
  // Marks abandoned runs aborted (see above); returns how many. Open calls it.
  StatusOr<int> MarkAbandonedRuns();

  StatusOr<std::optional<RunRow>> FindRun(int64_t run_id);
  // Notes in the run's options which baseline detection judged it against.
  Status RecordBaselineChoice(int64_t run_id, int64_t baseline_run_id);
  // Replaces the regressions stored for `run_id` (detection writes these).
  Status RecordRegressions(int64_t run_id, int64_t baseline_run_id,
                           const std::vector<RegressionRow>& rows);

  // Records a bisect and its attributions in one transaction; returns its id.
  StatusOr<int64_t> RecordBisect(const BisectRecord& bisect);

  // Compacts old runs' wall samples by `policy` (see PrunePolicy), in one
  // transaction; then VACUUM unless told not to.
  StatusOr<PruneReport> Prune(const PrunePolicy& policy);
  // Writes a consistent copy of the store to `dest` with SQLite's online
  // backup API (safe while another process records a run), checks it with
  // integrity_check and only then moves it into place. A read-only store is
  // enough.
  Status BackupTo(const std::string& dest);
  // Writes one table (see ExportRequest) to `out`; returns the rows written.
  StatusOr<int64_t> Export(const ExportRequest& request, std::ostream& out);

  // Copies every run of the store at `src_path` (opened read-only, never
  // modified) into this one, with new ids. A run already present (same uuid)
  // makes the whole merge fail before anything is copied. Returns the number
  // of runs copied.
  StatusOr<int> MergeFrom(const std::string& src_path);
  // The same for several stores in one transaction: a run present here or in
  // an earlier source makes the whole merge fail with nothing copied. Returns
  // the number of runs copied from each source, in order.
  StatusOr<std::vector<int>> MergeFrom(const std::vector<std::string>& src_paths);

  // Folds every run of the store at `src_path` (opened read-only) into ONE
  // run per (group, suite): the first shard run creates it (a new uuid, its
  // env and label), later ones add their results. In one transaction, all or
  // nothing. Refused (nothing merged): a run merged before (same uuid), a
  // shard index already in the group, parts with different shard counts, and
  // parts recorded under a different environment (upstream components; host
  // facts cpu, os, threads, jobs may differ). The group run is `completed`
  // once shards 1..N are all present and completed, else `aborted` with a
  // note naming what is missing; started_at / finished_at span its parts.
  // The shard runs' own findings are not copied: detection runs on the group
  // run. Returns the group runs this source touched.
  StatusOr<std::vector<GroupRun>> MergeGroupFrom(const std::string& src_path, const std::string& group);

 private:
  friend struct store_internal::Access;
  Store(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  Status Migrate();
  Status SwitchToWal(int busy_timeout_ms);
  Status Exec(const char* sql, const char* doing);
  Status Error(int rc, const std::string& doing);
  // MergeFrom's copy of one source, inside the caller's transaction.
  StatusOr<int> CopyRunsFrom(const std::string& src_path);
  // A statement prepared once per store and reused (the per-result inserts);
  // `sql` must be a string constant: it is the cache key by address.
  sqlite3_stmt* Cached(const char* sql, int* rc);

  sqlite3* db_ = nullptr;
  std::string path_;
  std::map<const char*, sqlite3_stmt*> cache_;
};

}  // namespace harness
