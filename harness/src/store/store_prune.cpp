// Retention: old runs give up their raw wall samples and keep one value per
// timing round, the values the latency judge compares when both sides were
// timed in rounds, packed into one blob per result (store/packed_rounds.h),
// and their per-round per-op wall times. Runs are never
// deleted; results, metrics, op summaries and confirmation samples stay as
// they are, so a verdict on an old run is the one it had: only the op a
// wall-time finding between two pruned runs names from its rounds is gone.
#include <sys/stat.h>

#include <cmath>

#include <map>
#include <set>

#include "harness/case_result.h"
#include "harness/detect/stats.h"
#include "harness/store/store.h"
#include "store/packed_rounds.h"
#include "store/sql.h"

namespace harness {
namespace {
using store_internal::Stmt;
using store_internal::Transaction;

int64_t FileBytes(const std::string& path) {
  struct stat st {};
  int64_t total = 0;
  for (const char* suffix : {"", "-wal"}) {
    if (::stat((path + suffix).c_str(), &st) == 0) total += static_cast<int64_t>(st.st_size);
  }
  return total;
}

// The sizes of a result's timing rounds when its samples can be folded to
// one value per round (the median the judge takes of each round, with the
// judge's own Median) without changing a verdict: two rounds or more, every
// size positive, the sizes adding up to the samples stored, and at least one
// round holding more than one sample (otherwise there is nothing to save).
std::optional<std::vector<int64_t>> FoldableRounds(const nlohmann::json& extra, int64_t stored) {
  auto rounds = extra.find("rounds");
  if (rounds == extra.end() || !rounds->is_object()) return std::nullopt;
  auto sizes = rounds->find("samples");
  if (sizes == rounds->end() || !sizes->is_array() || sizes->size() < 2) return std::nullopt;
  std::vector<int64_t> out;
  int64_t total = 0;
  bool any_many = false;
  for (const nlohmann::json& s : *sizes) {
    if (!s.is_number_integer() || s.get<int64_t>() <= 0) return std::nullopt;
    out.push_back(s.get<int64_t>());
    total += out.back();
    any_many = any_many || out.back() > 1;
  }
  if (total != stored || !any_many) return std::nullopt;
  return out;
}

// One (wall, queue) pair per round that gives the judge the values it took
// from the round's samples: the median wall time, and a wait such that wall
// less wait is exactly the median of the samples' unqueued times
// (CaseResult::UnqueuedUs). The wait is the difference of the two medians,
// moved by an ulp or two where the subtraction does not give the median
// back exactly; a round where no such wait exists leaves the result as it
// was (nullopt). Without recorded waits the second member is unused.
std::optional<std::vector<std::pair<double, double>>> FoldRounds(
    const CaseResult& raw, const std::vector<int64_t>& sizes) {
  const std::vector<double> unqueued = raw.UnqueuedUs();
  std::vector<std::pair<double, double>> out;
  size_t at = 0;
  for (int64_t n : sizes) {
    const auto begin = static_cast<long>(at), end = static_cast<long>(at + static_cast<size_t>(n));
    at += static_cast<size_t>(n);
    const double wall =
        Median(std::vector<double>(raw.wall_us.begin() + begin, raw.wall_us.begin() + end));
    if (!raw.HasQueueWait()) {
      out.emplace_back(wall, 0.0);
      continue;
    }
    const double target =
        Median(std::vector<double>(unqueued.begin() + begin, unqueued.begin() + end));
    double wait = wall - target;
    bool exact = false;
    for (int step = 0; step < 8 && !exact; ++step) {
      exact = wait >= 0 && wait <= wall && wall - wait == target;
      if (!exact) wait = std::nextafter(wait, wall - wait > target ? wall : 0.0);
    }
    if (!exact) return std::nullopt;
    out.emplace_back(wall, wait);
  }
  return out;
}

// A result an earlier prune folded to one wall_samples row per round (the
// round sizes all 1, what they were folded from recorded beside them).
bool AlreadyFolded(const nlohmann::json& extra, int64_t stored) {
  auto rounds = extra.find("rounds");
  if (rounds == extra.end() || !rounds->is_object() || !rounds->contains("compacted_from")) {
    return false;
  }
  auto sizes = rounds->find("samples");
  if (sizes == rounds->end() || !sizes->is_array() ||
      static_cast<int64_t>(sizes->size()) != stored || stored < 2) {
    return false;
  }
  for (const nlohmann::json& s : *sizes) {
    if (!s.is_number_integer() || s.get<int64_t>() != 1) return false;
  }
  return true;
}

}  // namespace

StatusOr<PruneReport> Store::Prune(const PrunePolicy& policy) {
  if (policy.keep_runs < 1) {
    return InvalidInput("--keep-runs " + std::to_string(policy.keep_runs) +
                        " keeps no run whole: give 1 or more (a baseline needs its samples)");
  }
  PruneReport report;
  report.bytes_before = FileBytes(path_);

  // Which runs keep every sample, and why (the first reason found).
  std::map<int64_t, std::string> keep;
  std::vector<int64_t> newest;  // the newest N per suite: their baselines are kept too
  {
    Stmt q(db_,
           "SELECT id, suite, status, label, options_json FROM runs ORDER BY suite, started_at "
           "DESC, id DESC");
    std::map<std::string, int> seen_per_suite;
    std::set<std::string> keep_labels(policy.keep_labels.begin(), policy.keep_labels.end());
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      const int64_t id = q.Int(0);
      const std::string suite = q.Text(1), status = q.Text(2), label = q.Text(3);
      ++report.runs_examined;
      if (status == "running") {
        keep.emplace(id, "still running");
      } else if (++seen_per_suite[suite] <= policy.keep_runs) {
        keep.emplace(id,
                     "one of the newest " + std::to_string(policy.keep_runs) + " runs of " + suite);
        newest.push_back(id);
        // The run this one was compared with.
        nlohmann::json options = nlohmann::json::parse(q.Text(4), nullptr, false);
        if (options.is_object() && options.contains("baseline_run_id") &&
            options["baseline_run_id"].is_number_integer()) {
          keep.emplace(options["baseline_run_id"].get<int64_t>(),
                       "the baseline of run " + std::to_string(id));
        }
      } else if (keep_labels.count(label) != 0) {
        keep.emplace(id, "labelled '" + label + "' (--keep-label)");
      }
    }
    if (rc != SQLITE_DONE) return Error(rc, "choosing the runs to keep");
  }
  // `label:NAME` names the newest run with that label, whatever its suite.
  {
    Stmt q(db_,
           "SELECT id, label FROM runs r WHERE label != '' AND status != 'running' AND NOT EXISTS"
           " (SELECT 1 FROM runs n WHERE n.label = r.label AND n.status != 'running' AND"
           "  (n.started_at > r.started_at OR (n.started_at = r.started_at AND n.id > r.id)))");
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      keep.emplace(q.Int(0), "the newest run labelled '" + q.Text(1) + "'");
    }
    if (rc != SQLITE_DONE) return Error(rc, "choosing the runs to keep");
  }
  {
    Stmt q(db_, "SELECT DISTINCT run_id, baseline_run_id FROM regressions");
    int rc;
    std::set<int64_t> newest_set(newest.begin(), newest.end());
    while ((rc = q.Step()) == SQLITE_ROW) {
      if (newest_set.count(q.Int(0)) != 0) {
        keep.emplace(q.Int(1), "the baseline of run " + std::to_string(q.Int(0)));
      }
    }
    if (rc != SQLITE_DONE) return Error(rc, "choosing the runs to keep");
  }
  report.runs_kept = static_cast<int64_t>(keep.size());
  for (const auto& [id, why] : keep) report.kept.push_back({id, why});

  Transaction tx(db_);
  if (int rc = tx.Begin(); rc != SQLITE_OK) return Error(rc, "starting the prune");
  {
    Stmt results(db_,
                 "SELECT r.id, r.run_id, r.wall_samples, r.extra_json FROM results r"
                 " JOIN runs u ON u.id = r.run_id WHERE u.status != 'running'"
                 " AND r.rounds_packed IS NULL"
                 " AND EXISTS (SELECT 1 FROM wall_samples w WHERE w.result_id = r.id)"
                 " ORDER BY r.id");
    Stmt samples(db_,
                 "SELECT wall_us, queue_us FROM wall_samples WHERE result_id = ? ORDER BY idx");
    Stmt drop(db_, "DELETE FROM wall_samples WHERE result_id = ?");
    Stmt pack(db_, "UPDATE results SET rounds_packed = ?, extra_json = ? WHERE id = ?");
    std::set<int64_t> compacted_runs;
    int rc;
    while ((rc = results.Step()) == SQLITE_ROW) {
      const int64_t result_id = results.Int(0), run_id = results.Int(1);
      if (keep.count(run_id) != 0) continue;
      nlohmann::json doc = nlohmann::json::parse(results.Text(3), nullptr, false);
      if (!doc.is_object()) continue;
      CaseResult raw;  // the samples as the judge reads them
      samples.Reset();
      samples.Bind(1, result_id);
      int src;
      bool all_queued = true;
      while ((src = samples.Step()) == SQLITE_ROW) {
        raw.wall_us.push_back(samples.Real(0));
        all_queued = all_queued && !samples.IsNull(1);
        raw.queue_us.push_back(samples.Real(1));
      }
      if (src != SQLITE_DONE) return Error(src, "reading wall samples to compact");
      if (!all_queued) raw.queue_us.clear();
      store_internal::PackedRounds packed;
      nlohmann::json& rounds = doc["rounds"];
      if (const auto sizes = FoldableRounds(doc, static_cast<int64_t>(raw.wall_us.size()))) {
        const std::optional<std::vector<std::pair<double, double>>> folded =
            FoldRounds(raw, *sizes);
        if (!folded) continue;
        for (const auto& [wall, wait] : *folded) {
          packed.wall_us.push_back(wall);
          if (raw.HasQueueWait()) packed.queue_us.push_back(wait);
        }
        rounds["compacted_from"] = *sizes;
      } else if (AlreadyFolded(doc, static_cast<int64_t>(raw.wall_us.size()))) {
        // Folded by an earlier prune into one row per round: packed as they are.
        packed.wall_us = raw.wall_us;
        packed.queue_us = raw.queue_us;
      } else {
        continue;
      }
      drop.Reset();
      drop.Bind(1, result_id);
      if (int d = drop.Run(); d != SQLITE_DONE) return Error(d, "compacting wall samples");
      // One value per round: the sizes follow from the blob when it is read.
      rounds.erase("samples");
      // Per-round per-op wall times are most of an old result's size; what
      // remains names an op through the op summaries and history.
      if (rounds.erase("op_wall_us") != 0) rounds["op_wall_dropped"] = true;
      pack.Reset();
      pack.BindBlob(1, store_internal::PackRounds(packed)).Bind(2, doc.dump()).Bind(3, result_id);
      if (int e = pack.Run(); e != SQLITE_DONE) return Error(e, "compacting wall samples");
      ++report.results_compacted;
      report.samples_before += static_cast<int64_t>(raw.wall_us.size());
      report.samples_after += static_cast<int64_t>(packed.wall_us.size());
      compacted_runs.insert(run_id);
    }
    if (rc != SQLITE_DONE) return Error(rc, "reading results to compact");
    report.runs_compacted = static_cast<int64_t>(compacted_runs.size());
  }
  // What VACUUM would give back: the pages the deletions freed.
  {
    Stmt pages(db_,
               "SELECT (SELECT freelist_count FROM pragma_freelist_count()) *"
               " (SELECT page_size FROM pragma_page_size())");
    if (int rc = pages.Step(); rc != SQLITE_ROW) return Error(rc, "measuring freed pages");
    report.bytes_freed = pages.Int(0);
  }
  if (policy.dry_run) {
    report.bytes_after = report.bytes_before - report.bytes_freed;
    return report;  // the transaction rolls back
  }
  if (int rc = tx.Commit(); rc != SQLITE_OK) return Error(rc, "committing the prune");
  if (policy.vacuum) {
    SPYRE_RETURN_IF_ERROR(Exec("VACUUM", "vacuuming the store"));
    SPYRE_RETURN_IF_ERROR(Exec("PRAGMA wal_checkpoint(TRUNCATE)", "checkpointing the store"));
  }
  report.bytes_after = FileBytes(path_);
  return report;
}

}  // namespace harness
