#include "schema.h"

namespace harness::store_internal {
namespace {

// Version 1. Results keep the headline numbers in columns (the views read
// them, history queries filter on them); every metric, every wall sample and
// the per-op trace summary go to child tables so "which op got slower" and
// statistical tests on wall time work from the store alone.
constexpr const char* kV1 = R"sql(
CREATE TABLE runs (
  id           INTEGER PRIMARY KEY,
  uuid         TEXT NOT NULL UNIQUE,
  suite        TEXT NOT NULL,
  label        TEXT NOT NULL DEFAULT '',
  status       TEXT NOT NULL CHECK (status IN ('running', 'completed', 'aborted')),
  started_at   TEXT NOT NULL,
  finished_at  TEXT,
  fingerprint  TEXT NOT NULL,
  env_json     TEXT NOT NULL,
  shard        TEXT NOT NULL DEFAULT '',
  jobs         INTEGER NOT NULL DEFAULT 1,
  threads      INTEGER NOT NULL DEFAULT 1,
  options_json TEXT NOT NULL DEFAULT '{}',
  host         TEXT NOT NULL DEFAULT '',
  pid          INTEGER NOT NULL DEFAULT 0,
  pid_start    INTEGER NOT NULL DEFAULT 0,
  note         TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_by_suite ON runs (suite, status, started_at);

CREATE TABLE results (
  id                INTEGER PRIMARY KEY,
  run_id            INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  suite             TEXT NOT NULL,
  case_name         TEXT NOT NULL,
  status            TEXT NOT NULL,
  message           TEXT NOT NULL DEFAULT '',
  max_abs_err       REAL,
  max_rel_err       REAL,
  rel_l2            REAL,
  max_ulp           REAL,
  cosine            REAL,
  wall_us_median    REAL,
  wall_us_mad       REAL,
  wall_samples      INTEGER NOT NULL DEFAULT 0,
  modeled_us        REAL,
  fallback_ops      INTEGER NOT NULL DEFAULT 0,
  peak_device_bytes INTEGER NOT NULL DEFAULT 0,
  recorded_at       TEXT NOT NULL,
  extra_json        TEXT NOT NULL DEFAULT '{}',
  UNIQUE (run_id, suite, case_name)
);
CREATE INDEX results_by_case ON results (suite, case_name, run_id);

CREATE TABLE metrics (
  result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
  output    TEXT NOT NULL,
  name      TEXT NOT NULL,
  value     REAL,
  limit_value REAL,
  failed    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX metrics_by_result ON metrics (result_id);

CREATE TABLE wall_samples (
  result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
  idx       INTEGER NOT NULL,
  wall_us   REAL,
  PRIMARY KEY (result_id, idx)
) WITHOUT ROWID;

CREATE TABLE op_summaries (
  result_id  INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
  op         TEXT NOT NULL,
  calls      INTEGER NOT NULL,
  modeled_us REAL,
  wall_us    REAL,
  fallbacks  INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (result_id, op)
) WITHOUT ROWID;

CREATE TABLE regressions (
  id              INTEGER PRIMARY KEY,
  run_id          INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  baseline_run_id INTEGER NOT NULL,
  suite           TEXT NOT NULL,
  case_name       TEXT NOT NULL,
  kind            TEXT NOT NULL,
  metric          TEXT NOT NULL,
  baseline_value  REAL,
  candidate_value REAL,
  ratio           REAL,
  detail          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX regressions_by_run ON regressions (run_id);

CREATE VIEW v_runs AS
  SELECT id AS run_id, suite, label, status, started_at, finished_at, fingerprint, env_json
  FROM runs;
CREATE VIEW v_results AS
  SELECT run_id, suite, case_name, status, max_abs_err, rel_l2, max_ulp, cosine,
         wall_us_median, modeled_us, fallback_ops, peak_device_bytes
  FROM results;
CREATE VIEW v_regressions AS
  SELECT run_id, baseline_run_id, suite, case_name, kind, metric, baseline_value,
         candidate_value, ratio
  FROM regressions;
)sql";

// Version 2: shard groups. The shard runs of one night are folded by
// `merge --group KEY` into ONE run (runs.shard_group = KEY), so baselines,
// compare, history, reports and v_regressions see a night as one run;
// run_parts remembers every shard run folded in (its uuid, so merging a shard
// twice is refused, and its own status and times). Runs recorded before
// version 2 get an empty group: a plain run, as before. The views are
// unchanged.
constexpr const char* kV2 = R"sql(
ALTER TABLE runs ADD COLUMN shard_group TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_by_group ON runs (shard_group, suite);

CREATE TABLE run_parts (
  run_id      INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  uuid        TEXT NOT NULL UNIQUE,
  shard       TEXT NOT NULL DEFAULT '',
  status      TEXT NOT NULL,
  started_at  TEXT NOT NULL,
  finished_at TEXT,
  host        TEXT NOT NULL DEFAULT '',
  fingerprint TEXT NOT NULL DEFAULT '',
  note        TEXT NOT NULL DEFAULT ''
);
CREATE INDEX run_parts_by_run ON run_parts (run_id);
)sql";

// Version 3: run-queue wait. Each wall sample keeps beside it the time the
// timing thread waited on a run queue for a CPU (queue_us), and each result
// the median of wall time less that wait (unqueued_us_median), which the
// latency judge and history follow. Results recorded before version 3 have
// NULL in both and are judged on wall time, as before. The views are
// unchanged.
constexpr const char* kV3 = R"sql(
ALTER TABLE wall_samples ADD COLUMN queue_us REAL;
ALTER TABLE results ADD COLUMN unqueued_us_median REAL;
)sql";

// Version 4: the device under test. Each run's fingerprint names the device
// (env_json's "device": kind, name, version, library path and SHA-256);
// v_runs shows it, and a run recorded before version 4 (no "device" key)
// reads as the emulator it ran on. In v_results a count the device does not
// provide (stored as -1) reads as NULL, never as zero.
constexpr const char* kV4 = R"sql(
DROP VIEW v_runs;
CREATE VIEW v_runs AS
  SELECT id AS run_id, suite, label, status, started_at, finished_at, fingerprint, env_json,
         CASE WHEN json_valid(env_json) THEN
           coalesce(json_extract(env_json, '$.device.kind'), 'emulator') END AS device,
         CASE WHEN json_valid(env_json) THEN
           coalesce(json_extract(env_json, '$.device.name'), 'spyre_emu') END AS device_name,
         CASE WHEN json_valid(env_json) THEN
           coalesce(json_extract(env_json, '$.device.version'),
                    json_extract(env_json, '$.spyre_emu')) END AS device_version,
         CASE WHEN json_valid(env_json) THEN json_extract(env_json, '$.device.path') END
           AS device_path,
         CASE WHEN json_valid(env_json) THEN json_extract(env_json, '$.device.sha256') END
           AS device_sha256
  FROM runs;
DROP VIEW v_results;
CREATE VIEW v_results AS
  SELECT run_id, suite, case_name, status, max_abs_err, rel_l2, max_ulp, cosine,
         wall_us_median, modeled_us,
         CASE WHEN fallback_ops < 0 THEN NULL ELSE fallback_ops END AS fallback_ops,
         CASE WHEN peak_device_bytes < 0 THEN NULL ELSE peak_device_bytes END AS peak_device_bytes
  FROM results;
)sql";

// Version 5: compacted rounds packed. `prune` folds an old result's samples
// to one wall value (and run-queue wait) per timing round; those values now
// go into one blob beside the result (store/packed_rounds.h) instead of one
// wall_samples row each, and the result keeps no wall_samples rows. A NULL
// blob: the samples are in wall_samples, as before. Results compacted under
// version 4 (one row per round) read as they are until the next prune packs
// them. The views are unchanged.
constexpr const char* kV5 = R"sql(
ALTER TABLE results ADD COLUMN rounds_packed BLOB;
)sql";

// Version 6: shared metric sets. `prune` moves a compacted result's metrics
// into a metric set (metric_set_rows: its metrics in the order they were
// recorded) that every result with the very same metrics shares, and points
// the result at it (results.metric_set); the result keeps no metrics rows.
// A case's accuracy metrics are the same night after night, so a year of
// them is stored about once per case. NULL: the metrics are in `metrics`,
// as before. The views are unchanged.
constexpr const char* kV6 = R"sql(
ALTER TABLE results ADD COLUMN metric_set INTEGER;
CREATE TABLE metric_set_rows (
  set_id      INTEGER NOT NULL,
  seq         INTEGER NOT NULL,
  output      TEXT NOT NULL,
  name        TEXT NOT NULL,
  value       REAL,
  limit_value REAL,
  failed      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (set_id, seq)
) WITHOUT ROWID;
)sql";

// Version 7: shared extra JSON. `prune` splits a finished result's extra
// JSON in two: the members that change from run to run (the worker's
// timings, the host probe, the calls per sample, the confirmation rounds)
// stay in results.extra_json; the rest, which describes the case (its op,
// device or model, its round sizes), goes into an extra set (extra_sets:
// one JSON object) that every result with the very same members shares,
// through results.extra_set. The result's extra JSON is the union of the
// two (store/extra_sets.h). NULL: extra_json holds it all, as before. The
// views are unchanged.
constexpr const char* kV7 = R"sql(
ALTER TABLE results ADD COLUMN extra_set INTEGER;
CREATE TABLE extra_sets (
  set_id  INTEGER PRIMARY KEY,
  members TEXT NOT NULL
);
)sql";

// Version 8: attribution by experiment. Each `bisect` of a comparison is a
// row of `bisects` (its cost and what it could swap); each finding it
// judged, a row of `attributions` keyed as the finding is in `regressions`
// (run, baseline run, suite, case, kind, metric), with the verdict, the
// components named and the sentence shown with the finding. v_attributions
// is the newest bisect's word on each finding.
constexpr const char* kV8 = R"sql(
CREATE TABLE bisects (
  id              INTEGER PRIMARY KEY,
  run_id          INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  baseline_run_id INTEGER NOT NULL,
  started_at      TEXT NOT NULL,
  elapsed_s       REAL,
  budget_s        REAL,
  rounds          INTEGER NOT NULL DEFAULT 0,
  summary_json    TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX bisects_by_run ON bisects (run_id);
CREATE TABLE attributions (
  bisect_id  INTEGER NOT NULL REFERENCES bisects (id) ON DELETE CASCADE,
  suite      TEXT NOT NULL,
  case_name  TEXT NOT NULL,
  kind       TEXT NOT NULL,
  metric     TEXT NOT NULL,
  verdict    TEXT NOT NULL CHECK (verdict IN ('caused', 'together', 'each', 'not_separable',
                                              'not_reproduced', 'undecided')),
  components TEXT NOT NULL DEFAULT '',
  text       TEXT NOT NULL,
  evidence_json TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX attributions_by_bisect ON attributions (bisect_id);
CREATE VIEW v_attributions AS
  SELECT b.run_id, b.baseline_run_id, a.suite, a.case_name, a.kind, a.metric, a.verdict,
         a.components, a.text, b.id AS bisect_id
  FROM attributions a JOIN bisects b ON b.id = a.bisect_id
  WHERE b.id = (SELECT max(b2.id) FROM bisects b2 JOIN attributions a2 ON a2.bisect_id = b2.id
                WHERE b2.run_id = b.run_id AND b2.baseline_run_id = b.baseline_run_id
                  AND a2.suite = a.suite AND a2.case_name = a.case_name AND a2.kind = a.kind);
)sql";

// Version 9: each finding is kept whole as the run's judge gave it, so a
// report shows the run's verdict and figures rather than judging again.
constexpr const char* kV9 = R"sql(
ALTER TABLE regressions ADD COLUMN finding_json TEXT NOT NULL DEFAULT '';
)sql";

// Version 10: the views show what readers outside the store used to take
// from the tables: v_runs adds the run's identity, shard and shard group,
// jobs, threads, host, note and options; v_results the message, the
// relative error, wall-time MAD, sample count, unqueued median, recording
// time and the whole extra JSON (a pruned result's own members joined with
// its extra set, as the store reads it). v_op_summaries is each result's
// per-op summary, v_run_parts the shard runs folded into a group's run.
// Existing columns keep their names and order; the new ones come after.
constexpr const char* kV10 = R"sql(
DROP VIEW v_runs;
CREATE VIEW v_runs AS
  SELECT id AS run_id, suite, label, status, started_at, finished_at, fingerprint, env_json,
         CASE WHEN json_valid(env_json) THEN
           coalesce(json_extract(env_json, '$.device.kind'), 'emulator') END AS device,
         CASE WHEN json_valid(env_json) THEN
           coalesce(json_extract(env_json, '$.device.name'), 'spyre_emu') END AS device_name,
         CASE WHEN json_valid(env_json) THEN
           coalesce(json_extract(env_json, '$.device.version'),
                    json_extract(env_json, '$.spyre_emu')) END AS device_version,
         CASE WHEN json_valid(env_json) THEN json_extract(env_json, '$.device.path') END
           AS device_path,
         CASE WHEN json_valid(env_json) THEN json_extract(env_json, '$.device.sha256') END
           AS device_sha256,
         uuid, shard, shard_group, jobs, threads, host, note, options_json
  FROM runs;
DROP VIEW v_results;
CREATE VIEW v_results AS
  SELECT r.run_id, r.suite, r.case_name, r.status, r.max_abs_err, r.rel_l2, r.max_ulp, r.cosine,
         r.wall_us_median, r.modeled_us,
         CASE WHEN r.fallback_ops < 0 THEN NULL ELSE r.fallback_ops END AS fallback_ops,
         CASE WHEN r.peak_device_bytes < 0 THEN NULL ELSE r.peak_device_bytes END
           AS peak_device_bytes,
         r.message, r.max_rel_err, r.wall_us_mad, r.wall_samples, r.unqueued_us_median,
         r.recorded_at,
         coalesce((SELECT json_patch(x.members, r.extra_json) FROM extra_sets x
                   WHERE x.set_id = r.extra_set AND json_valid(x.members)
                     AND json_valid(r.extra_json)),
                  r.extra_json) AS extra_json
  FROM results r;
CREATE VIEW v_op_summaries AS
  SELECT r.run_id, r.suite, r.case_name, o.op, o.calls, o.modeled_us, o.wall_us, o.fallbacks
  FROM op_summaries o JOIN results r ON r.id = o.result_id;
CREATE VIEW v_run_parts AS
  SELECT run_id, uuid, shard, status, started_at, finished_at, host, fingerprint, note
  FROM run_parts;
)sql";

}  // namespace

const std::vector<const char*>& Migrations() {
  static const std::vector<const char*> kMigrations = {kV1, kV2, kV3, kV4, kV5,
                                                       kV6, kV7, kV8, kV9, kV10};
  return kMigrations;
}

}  // namespace harness::store_internal
