// Shard groups: `merge --group KEY` folds the shard runs of one night into ONE
// run, so that baselines, compare, history, reports and v_regressions see the
// night as one run. The group run's parts (run_parts) say which shard runs
// went in; the group run is completed once all N shards are in and completed.
#include <algorithm>
#include <cstdio>
#include <set>

#include <nlohmann/json.hpp>

#include "store/store.h"
#include "merge_copy.h"
#include "process_identity.h"
#include "sql.h"

namespace harness {
namespace {
using store_internal::Stmt;

struct ShardSpec {
  int index = 1, count = 1;
};

// "" (an unsharded run) is 1/1; otherwise "I/N" as `run --shard` records it.
bool ParseShardText(const std::string& text, ShardSpec* out) {
  if (text.empty()) {
    *out = {1, 1};
    return true;
  }
  int i = 0, n = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%d/%d%c", &i, &n, &tail) != 2 || n < 1 || i < 1 || i > n)
    return false;
  *out = {i, n};
  return true;
}

std::string ShardText(int index, int count) {
  return std::to_string(index) + "/" + std::to_string(count);
}

// The fingerprint without the host facts in which shards on different
// machines may differ; what is left (libtorch, BLAS, compiler, emulator
// settings, harness, tags) must match, or findings could not be attributed.
nlohmann::json UpstreamEnv(const std::string& env_json) {
  nlohmann::json j = nlohmann::json::parse(env_json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return nlohmann::json::object();
  for (const char* host_fact : {"cpu", "os", "threads", "jobs", "fingerprint"}) j.erase(host_fact);
  if (j.contains("blas") && j["blas"].is_object()) j["blas"].erase("threads");
  return j;
}

// The first component where two environments differ, with both values; "" when
// they agree.
std::string FirstDifference(const nlohmann::json& a, const nlohmann::json& b) {
  for (auto it = a.begin(); it != a.end(); ++it) {
    auto other = b.find(it.key());
    if (other == b.end()) return it.key() + " " + it.value().dump() + " vs (absent)";
    if (*other != it.value()) return it.key() + " " + it.value().dump() + " vs " + other->dump();
  }
  for (auto it = b.begin(); it != b.end(); ++it) {
    if (!a.contains(it.key())) return it.key() + " (absent) vs " + it.value().dump();
  }
  return "";
}

// Why a shard run (its env and shard) cannot join the group run `target`;
// "" when it can. *rc is set on a query error.
std::string JoinRefusal(sqlite3* db, int64_t target, const std::string& target_env,
                        const std::string& env, const ShardSpec& spec, const std::string& group,
                        int* rc) {
  const std::string diff = FirstDifference(UpstreamEnv(target_env), UpstreamEnv(env));
  if (!diff.empty()) {
    return " ran under another environment than shard group " + group + " (run " +
           std::to_string(target) + "): " + diff +
           "; the shards of one group must run the same upstream versions";
  }
  Stmt parts(db, "SELECT shard, uuid FROM run_parts WHERE run_id = ?");
  parts.Bind(1, target);
  int step;
  while ((step = parts.Step()) == SQLITE_ROW) {
    ShardSpec other;
    ParseShardText(parts.Text(0), &other);  // checked when that part was merged
    if (other.count != spec.count) {
      return " splits the suite into " + std::to_string(spec.count) + " shards, shard group " +
             group + " into " + std::to_string(other.count) +
             ": use one --shard I/N count per group";
    }
    if (other.index == spec.index) {
      return ": shard " + ShardText(spec.index, spec.count) + " of shard group " + group +
             " is already merged (run " + parts.Text(1) + "); a re-run shard needs a new group";
    }
  }
  if (step != SQLITE_DONE) *rc = step;
  return "";
}

// Recomputes a group run's status, span and note from its parts. Returns an
// SQLite code (SQLITE_OK) and fills `out`.
int RefreshGroupRun(sqlite3* db, int64_t run_id, GroupRun* out) {
  Stmt parts(
      db,
      "SELECT p.shard, p.status, p.started_at, coalesce(p.finished_at, ''), r.suite, r.shard_group"
      " FROM run_parts p JOIN runs r ON r.id = p.run_id WHERE p.run_id = ?");
  parts.Bind(1, run_id);
  std::set<int> present;
  std::vector<std::string> not_completed;
  std::string started, finished;
  out->run_id = run_id;
  out->parts = 0;
  int rc;
  while ((rc = parts.Step()) == SQLITE_ROW) {
    ShardSpec spec;
    ParseShardText(parts.Text(0), &spec);  // checked when the part was merged
    present.insert(spec.index);
    out->shard_count = spec.count;
    if (parts.Text(1) != "completed")
      not_completed.push_back(ShardText(spec.index, spec.count) + " " + parts.Text(1));
    if (started.empty() || parts.Text(2) < started) started = parts.Text(2);
    if (parts.Text(3) > finished) finished = parts.Text(3);
    out->suite = parts.Text(4);
    out->group = parts.Text(5);
    ++out->parts;
  }
  if (rc != SQLITE_DONE) return rc;
  out->shards.clear();
  for (int i : present)
    out->shards += (out->shards.empty() ? "" : ",") + ShardText(i, out->shard_count);
  std::string missing;
  for (int i = 1; i <= out->shard_count; ++i) {
    if (present.count(i) == 0)
      missing += (missing.empty() ? "" : ", ") + ShardText(i, out->shard_count);
  }
  out->note.clear();
  if (!missing.empty())
    out->note = "shard group " + out->group + " is incomplete: missing shard(s) " + missing;
  for (const std::string& part : not_completed) {
    out->note += (out->note.empty() ? "shard group " + out->group + ": shard " : "; shard ") + part;
  }
  out->status = out->note.empty() ? "completed" : "aborted";
  Stmt update(db,
              "UPDATE runs SET status = ?, started_at = ?, finished_at = ?, shard = ?, note = ? "
              "WHERE id = ?");
  update.Bind(1, out->status)
      .Bind(2, started)
      .Bind(3, finished)
      .Bind(4, out->shards)
      .Bind(5, out->note)
      .Bind(6, run_id);
  if (finished.empty()) update.BindNull(3);
  rc = update.Run();
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

}  // namespace

StatusOr<std::vector<GroupRun>> Store::MergeGroupFrom(const std::string& src_path,
                                                      const std::string& group) {
  if (group.empty())
    return UsageError("the shard group key is empty: give one, e.g. --group nightly-2026-11-29");
  SPYRE_ASSIGN_OR_RETURN(auto opened, Open(src_path, Mode::kReadOnly));
  Store& src = *opened;
  SPYRE_RETURN_IF_ERROR(src.CheckIntegrity());
  const std::string doing = "merging '" + src_path + "' into shard group " + group;

  store_internal::Transaction tx(db_);
  if (int rc = tx.Begin(); rc != SQLITE_OK) return Error(rc, doing);
  Stmt runs(src.db_,
            "SELECT id, uuid, suite, label, status, started_at, finished_at, fingerprint, env_json,"
            " shard, jobs, threads, options_json, host, note FROM runs ORDER BY id");
  Stmt seen(
      db_,
      "SELECT id FROM runs WHERE uuid = ?1 UNION ALL SELECT run_id FROM run_parts WHERE uuid = ?1");
  Stmt find(db_, "SELECT id, env_json FROM runs WHERE shard_group = ? AND suite = ?");
  Stmt insert_run(
      db_,
      "INSERT INTO runs (uuid, suite, label, status, started_at, finished_at, fingerprint,"
      " env_json, shard, jobs, threads, options_json, host, pid, pid_start, note, shard_group)"
      " VALUES (?, ?, ?, 'aborted', ?, ?, ?, ?, '', ?, ?, ?, ?, 0, 0, '', ?)");
  Stmt insert_part(
      db_,
      "INSERT INTO run_parts (run_id, uuid, shard, status, started_at, finished_at, host,"
      " fingerprint, note) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
  std::vector<int64_t> touched;
  int rc;
  while ((rc = runs.Step()) == SQLITE_ROW) {
    const std::string uuid = runs.Text(1), suite = runs.Text(2), shard = runs.Text(9);
    const std::string what = "run " + uuid + " (suite " + suite + ", shard " +
                             (shard.empty() ? "1/1" : shard) + ") from '" + src_path + "'";
    seen.Reset();
    seen.Bind(1, uuid);
    if (int src_rc = seen.Step(); src_rc == SQLITE_ROW) {
      return InvalidInput(what + " is already in '" + path_ + "' as run " +
                          std::to_string(seen.Int(0)) + " (merged before?): nothing was merged");
    } else if (src_rc != SQLITE_DONE) {
      return Error(src_rc, doing);
    }
    ShardSpec spec;
    if (!ParseShardText(shard, &spec)) {
      return InvalidInput(what + ": its shard '" + shard + "' is not I/N: nothing was merged");
    }
    find.Reset();
    find.Bind(1, group).Bind(2, suite);
    int64_t target = 0;
    if (int frc = find.Step(); frc == SQLITE_ROW) {
      target = find.Int(0);
      int jrc = SQLITE_OK;
      const std::string refusal =
          JoinRefusal(db_, target, find.Text(1), runs.Text(8), spec, group, &jrc);
      if (jrc != SQLITE_OK) return Error(jrc, doing);
      if (!refusal.empty()) return InvalidInput(what + refusal + ": nothing was merged");
    } else if (frc == SQLITE_DONE) {
      insert_run.Reset();
      insert_run.Bind(1, store_internal::NewUuid())
          .Bind(2, suite)
          .BindValue(3, runs.Value(3))
          .BindValue(4, runs.Value(5))
          .BindValue(5, runs.Value(6))
          .BindValue(6, runs.Value(7))
          .BindValue(7, runs.Value(8))
          .BindValue(8, runs.Value(10))
          .BindValue(9, runs.Value(11))
          .BindValue(10, runs.Value(12))
          .BindValue(11, runs.Value(13))
          .Bind(12, group);
      if (int irc = insert_run.Run(); irc != SQLITE_DONE) return Error(irc, doing);
      target = sqlite3_last_insert_rowid(db_);
    } else {
      return Error(frc, doing);
    }
    insert_part.Reset();
    insert_part.Bind(1, target)
        .Bind(2, uuid)
        .Bind(3, shard)
        .BindValue(4, runs.Value(4))
        .BindValue(5, runs.Value(5))
        .BindValue(6, runs.Value(6))
        .BindValue(7, runs.Value(13))
        .BindValue(8, runs.Value(7))
        .BindValue(9, runs.Value(14));
    if (int irc = insert_part.Run(); irc != SQLITE_DONE) return Error(irc, doing);
    if (int crc = store_internal::CopyRunResults(src.db_, db_, runs.Int(0), target);
        crc != SQLITE_OK) {
      if (crc == SQLITE_CONSTRAINT_UNIQUE) {
        return InvalidInput(what + ": one of its cases is already in shard group " + group +
                            " (run " + std::to_string(target) +
                            "); do two shards overlap?: nothing was merged");
      }
      return Error(crc, doing);
    }
    if (std::find(touched.begin(), touched.end(), target) == touched.end())
      touched.push_back(target);
  }
  if (rc != SQLITE_DONE) return src.Error(rc, doing);
  std::vector<GroupRun> out;
  for (int64_t id : touched) {
    GroupRun g;
    if (int grc = RefreshGroupRun(db_, id, &g); grc != SQLITE_OK) return Error(grc, doing);
    out.push_back(std::move(g));
  }
  if ((rc = tx.Commit()) != SQLITE_OK) return Error(rc, doing);
  return out;
}

}  // namespace harness
