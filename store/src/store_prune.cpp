// Retention in three tiers (docs/store.md, "Over years"). The newest runs
// keep every sample. Older runs give up their raw wall samples and keep one
// value per timing round, the values the latency judge compares when both
// sides were timed in rounds, packed into one blob per result
// (store/packed_rounds.h), without their per-round per-op wall times. The
// oldest runs keep only what history and the accuracy verdicts read: each
// result's run median, spread and unqueued median, its metrics and op
// summaries. A compacted result's metrics go into a metric set shared by
// every result with the very same metrics (schema version 6), and the
// members of its extra JSON that describe the case into an extra set shared
// the same way (schema version 7). Runs are never deleted.
#include <sys/stat.h>

#include <algorithm>
#include <cmath>

#include <cstring>
#include <map>
#include <set>
#include <unordered_map>

#include "base/case_result.h"
#include "base/stats.h"
#include "store/store.h"
#include "extra_sets.h"
#include "packed_rounds.h"
#include "sql.h"

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
// judge's own Median) without changing a verdict: the sizes the judge folds
// by (RoundSizes), two rounds or more, and at least one round holding more
// than one sample (otherwise there is nothing to save).
std::optional<std::vector<size_t>> FoldableRounds(const nlohmann::json& extra, size_t stored) {
  std::optional<std::vector<size_t>> sizes = RoundSizes(extra, stored);
  if (!sizes || sizes->size() < 2) return std::nullopt;
  for (size_t n : *sizes) {
    if (n > 1) return sizes;
  }
  return std::nullopt;
}

// One (wall, queue) pair per round that gives the judge the values it took
// from the round's samples: the median wall time, and a wait such that wall
// less wait is exactly the median of the samples' unqueued times
// (CaseResult::UnqueuedUs). The wait is the difference of the two medians
// in whole nanoseconds when that gives the median back exactly, else the
// difference moved by an ulp or two where the subtraction does not; a round
// where no such wait exists leaves the result as it was (nullopt). Without
// recorded waits the second member is unused.
std::optional<std::vector<std::pair<double, double>>> FoldRounds(
    const CaseResult& raw, const std::vector<size_t>& sizes) {
  const std::vector<double> unqueued = raw.UnqueuedUs();
  std::vector<std::pair<double, double>> out;
  size_t at = 0;
  for (size_t n : sizes) {
    const auto begin = static_cast<long>(at), end = static_cast<long>(at + n);
    at += n;
    const double wall =
        Median(std::vector<double>(raw.wall_us.begin() + begin, raw.wall_us.begin() + end));
    if (!raw.HasQueueWait()) {
      out.emplace_back(wall, 0.0);
      continue;
    }
    const double target =
        Median(std::vector<double>(unqueued.begin() + begin, unqueued.begin() + end));
    // A wait in whole nanoseconds packs into a few bytes; use it when it
    // gives the median back exactly, else search near the difference.
    double wait = std::nearbyint((wall - target) * 1000.0) / 1000.0;
    bool exact = wait >= 0 && wait <= wall && wall - wait == target;
    if (!exact) wait = wall - target;
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

// Members of a result's extra JSON that only record how the run went
// (worker timings, a decode case's per-step detail): no verdict, history or
// report reads them, and the oldest tier drops them.
constexpr const char* kBookkeeping[] = {"harness", "per_step"};

// The oldest tier: no samples, no round values; what rounds there were is
// said in extra["rounds"] (count and planned stay).
void DropRounds(nlohmann::json* doc) {
  for (const char* key : kBookkeeping) doc->erase(key);
  auto rounds = doc->find("rounds");
  if (rounds == doc->end() || !rounds->is_object()) return;
  for (const char* key : {"samples", "op_wall_us", "op_wall_dropped", "compacted_from"}) {
    rounds->erase(key);
  }
  (*rounds)["values_dropped"] = true;
}

// extra["rounds"]["op_wall_us"] as the blob holds it, when it reads back the
// same: an object of arrays of non-integer JSON numbers (what the runner
// writes); anything else stays in the JSON.
std::optional<std::map<std::string, std::vector<double>>> PackableOpWall(
    const nlohmann::json& rounds) {
  auto it = rounds.find("op_wall_us");
  if (it == rounds.end() || !it->is_object() || it->empty()) return std::nullopt;
  std::map<std::string, std::vector<double>> out;
  for (const auto& [op, values] : it->items()) {
    if (!values.is_array()) return std::nullopt;
    std::vector<double>& v = out[op];
    for (const nlohmann::json& x : values) {
      if (!x.is_number_float()) return std::nullopt;
      v.push_back(x.get<double>());
    }
  }
  return out;
}

// One metric set as a key: every row's fields, doubles by their bits.
std::string MetricKey(const std::vector<Metric>& metrics) {
  std::string key;
  auto put_real = [&key](double v) {
    if (std::isnan(v)) {
      key.push_back('n');
      return;
    }
    char bits[sizeof v];
    std::memcpy(bits, &v, sizeof v);
    key.push_back('r');
    key.append(bits, sizeof bits);
  };
  for (const Metric& m : metrics) {
    key += m.output;
    key.push_back('\0');
    key += m.name;
    key.push_back('\0');
    put_real(m.value);
    put_real(m.limit);
    key.push_back(m.failed ? '1' : '0');
  }
  return key;
}

// The steps of Store::Prune over one open store, in the order it takes them.
class PruneSteps {
 public:
  PruneSteps(sqlite3* db, std::string path, const PrunePolicy& policy, PruneReport* report)
      : db_(db), path_(std::move(path)), policy_(policy), report_(report) {}
  Status ChooseRunsKeptWhole();
  Status ChooseRunsKeepingRounds();
  Status CompactWallSamples();
  Status ShareMetrics();
  Status ShareExtraJson();
  Status MeasureFreedPages();
  int64_t EstimateVacuumedBytes() const;

 private:
  // One result CompactWallSamples may compact, its samples as the judge
  // reads them.
  struct SampledResult {
    int64_t result_id = 0, run_id = 0;
    bool kept = false;    // its run keeps every sample
    bool oldest = false;  // its run keeps no round values either
    bool from_rows = false;  // the samples were wall_samples rows, not a blob
    nlohmann::json doc;   // its extra JSON, whole
    CaseResult raw;       // wall_us and queue_us
  };
  Status Error(int rc, const std::string& doing) const { return SqlStatus(db_, rc, path_, doing); }
  StatusOr<std::optional<SampledResult>> ReadSampledResult(const Stmt& row, Stmt& samples) const;
  bool PackSampledResult(SampledResult* r, store_internal::PackedRounds* packed);
  void CountCompacted(const SampledResult& r, size_t values_after);

  sqlite3* db_;
  std::string path_;
  const PrunePolicy& policy_;
  PruneReport* report_;
  std::map<int64_t, std::string> kept_whole_;  // run -> why it keeps every sample
  std::vector<int64_t> newest_;  // the newest --keep-runs per suite: their baselines are kept too
  std::set<int64_t> keep_rounds_;      // runs that keep their round values
  std::set<int64_t> compacted_runs_;   // runs that lost samples
};

// Which runs keep every sample, and why (the first reason found): the
// newest --keep-runs of each suite and their baselines, runs still running,
// --keep-label runs, and the newest run of each label.
Status PruneSteps::ChooseRunsKeptWhole() {
  {
    Stmt q(db_,
           "SELECT id, suite, status, label, options_json FROM runs ORDER BY suite, started_at "
           "DESC, id DESC");
    std::map<std::string, int> seen_per_suite;
    std::set<std::string> keep_labels(policy_.keep_labels.begin(), policy_.keep_labels.end());
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      const int64_t id = q.Int(0);
      const std::string suite = q.Text(1), status = q.Text(2), label = q.Text(3);
      ++report_->runs_examined;
      if (status == "running") {
        kept_whole_.emplace(id, "still running");
      } else if (++seen_per_suite[suite] <= policy_.keep_runs) {
        kept_whole_.emplace(id,
                     "one of the newest " + std::to_string(policy_.keep_runs) + " runs of " + suite);
        newest_.push_back(id);
        // The run this one was compared with.
        nlohmann::json options = nlohmann::json::parse(q.Text(4), nullptr, false);
        if (options.is_object() && options.contains("baseline_run_id") &&
            options["baseline_run_id"].is_number_integer()) {
          kept_whole_.emplace(options["baseline_run_id"].get<int64_t>(),
                       "the baseline of run " + std::to_string(id));
        }
      } else if (keep_labels.count(label) != 0) {
        kept_whole_.emplace(id, "labelled '" + label + "' (--keep-label)");
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
      kept_whole_.emplace(q.Int(0), "the newest run labelled '" + q.Text(1) + "'");
    }
    if (rc != SQLITE_DONE) return Error(rc, "choosing the runs to keep");
  }
  {
    Stmt q(db_, "SELECT DISTINCT run_id, baseline_run_id FROM regressions");
    int rc;
    std::set<int64_t> newest_set(newest_.begin(), newest_.end());
    while ((rc = q.Step()) == SQLITE_ROW) {
      if (newest_set.count(q.Int(0)) != 0) {
        kept_whole_.emplace(q.Int(1), "the baseline of run " + std::to_string(q.Int(0)));
      }
    }
    if (rc != SQLITE_DONE) return Error(rc, "choosing the runs to keep");
  }
  report_->runs_kept = static_cast<int64_t>(kept_whole_.size());
  for (const auto& [id, why] : kept_whole_) report_->kept.push_back({id, why});
  return Status::Ok();
}

// Runs that keep their round values (and so every latency verdict): the
// newest --keep-rounds of each suite, every run kept whole, and every run
// a recorded finding names (as the run or its baseline).
Status PruneSteps::ChooseRunsKeepingRounds() {
  for (const auto& [id, why] : kept_whole_) keep_rounds_.insert(id);
  {
    Stmt q(db_,
           "SELECT id, suite FROM runs WHERE status != 'running' ORDER BY suite, started_at DESC,"
           " id DESC");
    std::map<std::string, int> seen_per_suite;
    int rc;
    while ((rc = q.Step()) == SQLITE_ROW) {
      if (++seen_per_suite[q.Text(1)] <= policy_.keep_rounds) keep_rounds_.insert(q.Int(0));
    }
    if (rc != SQLITE_DONE) return Error(rc, "choosing the runs that keep their rounds");
    Stmt f(db_, "SELECT run_id, baseline_run_id FROM regressions");
    while ((rc = f.Step()) == SQLITE_ROW) {
      keep_rounds_.insert(f.Int(0));
      keep_rounds_.insert(f.Int(1));
    }
    if (rc != SQLITE_DONE) return Error(rc, "choosing the runs that keep their rounds");
  }
  return Status::Ok();
}

// Wall samples: the oldest tier loses them (the result's median, MAD and
// unqueued median stay), the middle tier keeps one value per timing round,
// and runs kept whole keep every sample, packed as recorded.
// The next result of CompactWallSamples' query, with its samples: from
// wall_samples rows, or from a blob holding them raw; a blob of round
// values is left as it is (nullopt) unless its run reached the oldest tier,
// and so is a result whose extra JSON or blob this build cannot read.
StatusOr<std::optional<PruneSteps::SampledResult>> PruneSteps::ReadSampledResult(
    const Stmt& row, Stmt& samples) const {
  SampledResult r;
  r.result_id = row.Int(0);
  r.run_id = row.Int(1);
  r.kept = kept_whole_.count(r.run_id) != 0;
  r.oldest = keep_rounds_.count(r.run_id) == 0;
  r.doc = nlohmann::json::parse(row.Text(2), nullptr, false);
  if (!r.doc.is_object()) return std::optional<SampledResult>();
  if (!row.IsNull(4)) {
    r.doc = store_internal::JoinExtra(std::move(r.doc),
                                      nlohmann::json::parse(row.Text(4), nullptr, false));
  }
  r.from_rows = row.IsNull(3);
  if (!r.from_rows) {
    std::optional<store_internal::PackedRounds> blob = store_internal::UnpackRounds(row.Blob(3));
    if (!blob) return std::optional<SampledResult>();  // a format this build does not read
    if ((!blob->raw && !r.oldest) || (blob->raw && r.kept)) return std::optional<SampledResult>();
    r.raw.wall_us = std::move(blob->wall_us);
    r.raw.queue_us = std::move(blob->queue_us);
    if (!blob->op_wall_us.empty()) r.doc["rounds"]["op_wall_us"] = blob->op_wall_us;
    return std::optional<SampledResult>(std::move(r));
  }
  samples.Reset();
  samples.Bind(1, r.result_id);
  int src;
  bool all_queued = true;
  while ((src = samples.Step()) == SQLITE_ROW) {
    r.raw.wall_us.push_back(samples.Real(0));
    all_queued = all_queued && !samples.IsNull(1);
    r.raw.queue_us.push_back(samples.Real(1));
  }
  if (src != SQLITE_DONE) return Error(src, "reading wall samples to compact");
  if (!all_queued) r.raw.queue_us.clear();
  return std::optional<SampledResult>(std::move(r));
}

void PruneSteps::CountCompacted(const SampledResult& r, size_t values_after) {
  ++report_->results_compacted;
  report_->samples_before += static_cast<int64_t>(r.raw.wall_us.size());
  report_->samples_after += static_cast<int64_t>(values_after);
  compacted_runs_.insert(r.run_id);
}

// What a result that keeps its rounds packs into its blob: one value per
// round when its samples fold, its rows as they are when an earlier prune
// folded them, or every sample raw (a run kept whole, or samples that do
// not fold). False: the result is left as it is.
bool PruneSteps::PackSampledResult(SampledResult* r, store_internal::PackedRounds* packed) {
  nlohmann::json& doc = r->doc;
  CaseResult& raw = r->raw;
  auto rounds = doc.find("rounds");
  const auto sizes = r->kept ? std::nullopt : FoldableRounds(doc, raw.wall_us.size());
  if (sizes) {
    const std::optional<std::vector<std::pair<double, double>>> folded = FoldRounds(raw, *sizes);
    if (!folded) return false;
    for (const auto& [wall, wait] : *folded) {
      packed->wall_us.push_back(wall);
      if (raw.HasQueueWait()) packed->queue_us.push_back(wait);
    }
    (*rounds)["compacted_from"] = *sizes;
    // One value per round: the sizes follow from the blob when it is read.
    rounds->erase("samples");
    // Per-round per-op wall times are most of an old result's size; what
    // remains names an op through the op summaries and history.
    if (rounds->erase("op_wall_us") != 0) (*rounds)["op_wall_dropped"] = true;
    CountCompacted(*r, packed->wall_us.size());
    return true;
  }
  if (r->from_rows && !r->kept && AlreadyFolded(doc, static_cast<int64_t>(raw.wall_us.size()))) {
    // Folded by an earlier prune into one row per round: packed as they are.
    packed->wall_us = raw.wall_us;
    packed->queue_us = raw.queue_us;
    rounds->erase("samples");
    CountCompacted(*r, packed->wall_us.size());
    return true;
  }
  if (!r->from_rows) return false;  // raw in a blob already, and nothing to fold
  packed->raw = true;
  packed->wall_us = std::move(raw.wall_us);
  packed->queue_us = std::move(raw.queue_us);
  if (rounds != doc.end() && rounds->is_object()) {
    if (std::optional<std::map<std::string, std::vector<double>>> ops = PackableOpWall(*rounds)) {
      packed->op_wall_us = std::move(*ops);
      rounds->erase("op_wall_us");
    }
  }
  ++report_->results_packed_whole;
  return true;
}

Status PruneSteps::CompactWallSamples() {
  {
    Stmt results(db_,
                 "SELECT r.id, r.run_id, r.extra_json, r.rounds_packed,"
                 " (SELECT members FROM extra_sets e WHERE e.set_id = r.extra_set) FROM results r"
                 " JOIN runs u ON u.id = r.run_id WHERE u.status != 'running'"
                 " AND (r.rounds_packed IS NOT NULL"
                 "  OR EXISTS (SELECT 1 FROM wall_samples w WHERE w.result_id = r.id))"
                 " ORDER BY r.id");
    Stmt samples(db_,
                 "SELECT wall_us, queue_us FROM wall_samples WHERE result_id = ? ORDER BY idx");
    Stmt drop(db_, "DELETE FROM wall_samples WHERE result_id = ?");
    // The extra JSON is written whole; the step below shares it again.
    Stmt pack(db_,
              "UPDATE results SET rounds_packed = ?, extra_json = ?, extra_set = NULL WHERE id = ?");
    Stmt unpack(db_,
                "UPDATE results SET rounds_packed = NULL, extra_json = ?, extra_set = NULL"
                " WHERE id = ?");
    auto write = [&](int64_t result_id, const nlohmann::json& doc,
                     const std::optional<store_internal::PackedRounds>& packed) -> Status {
      drop.Reset();
      drop.Bind(1, result_id);
      if (int d = drop.Run(); d != SQLITE_DONE) return Error(d, "compacting wall samples");
      Stmt& w = packed ? pack : unpack;
      w.Reset();
      if (packed) {
        w.BindBlob(1, store_internal::PackRounds(*packed)).Bind(2, doc.dump()).Bind(3, result_id);
      } else {
        w.Bind(1, doc.dump()).Bind(2, result_id);
      }
      if (int e = w.Run(); e != SQLITE_DONE) return Error(e, "compacting wall samples");
      return Status::Ok();
    };
    int rc;
    while ((rc = results.Step()) == SQLITE_ROW) {
      SPYRE_ASSIGN_OR_RETURN(std::optional<SampledResult> r, ReadSampledResult(results, samples));
      if (!r) continue;
      if (r->oldest && !r->kept) {
        // Samples, round values and bookkeeping go; the result's median,
        // MAD and unqueued median (its columns) stay.
        DropRounds(&r->doc);
        SPYRE_RETURN_IF_ERROR(write(r->result_id, r->doc, std::nullopt));
        ++report_->results_rounds_dropped;
        report_->samples_before += static_cast<int64_t>(r->raw.wall_us.size());
        compacted_runs_.insert(r->run_id);
        continue;
      }
      store_internal::PackedRounds packed;
      if (!PackSampledResult(&*r, &packed)) continue;
      SPYRE_RETURN_IF_ERROR(write(r->result_id, r->doc, packed));
    }
    if (rc != SQLITE_DONE) return Error(rc, "reading results to compact");
  }
  report_->runs_compacted = static_cast<int64_t>(compacted_runs_.size());
  return Status::Ok();
}

// Metrics of every finished run's results go into shared metric sets: one
// set per distinct list of metrics, in recorded order (nothing is lost; a
// case's accuracy metrics repeat night after night).
Status PruneSteps::ShareMetrics() {
  {
    std::unordered_map<std::string, int64_t> sets;  // MetricKey -> set id
    int64_t next_set = 1;
    {
      Stmt q(db_,
             "SELECT set_id, output, name, value, limit_value, failed FROM metric_set_rows"
             " ORDER BY set_id, seq");
      int64_t current = -1;
      std::vector<Metric> rows;
      auto flush = [&] {
        if (current >= 0) sets.emplace(MetricKey(rows), current);
        rows.clear();
      };
      int rc;
      while ((rc = q.Step()) == SQLITE_ROW) {
        if (q.Int(0) != current) {
          flush();
          current = q.Int(0);
          next_set = std::max(next_set, current + 1);
        }
        rows.push_back({q.Text(1), q.Text(2), q.Real(3), q.Real(4), q.Int(5) != 0});
      }
      if (rc != SQLITE_DONE) return Error(rc, "reading the metric sets");
      flush();
    }
    Stmt results(db_,
                 "SELECT r.id, r.run_id FROM results r JOIN runs u ON u.id = r.run_id"
                 " WHERE u.status != 'running' AND r.metric_set IS NULL"
                 " AND EXISTS (SELECT 1 FROM metrics m WHERE m.result_id = r.id) ORDER BY r.id");
    Stmt rows(db_,
              "SELECT output, name, value, limit_value, failed FROM metrics WHERE result_id = ?"
              " ORDER BY rowid");
    Stmt add(db_,
             "INSERT INTO metric_set_rows (set_id, seq, output, name, value, limit_value, failed)"
             " VALUES (?, ?, ?, ?, ?, ?, ?)");
    Stmt point(db_, "UPDATE results SET metric_set = ? WHERE id = ?");
    Stmt drop(db_, "DELETE FROM metrics WHERE result_id = ?");
    int rc;
    while ((rc = results.Step()) == SQLITE_ROW) {
      const int64_t result_id = results.Int(0);
      std::vector<Metric> metrics;
      rows.Reset();
      rows.Bind(1, result_id);
      int mrc;
      while ((mrc = rows.Step()) == SQLITE_ROW) {
        metrics.push_back({rows.Text(0), rows.Text(1), rows.Real(2), rows.Real(3), rows.Int(4) != 0});
      }
      if (mrc != SQLITE_DONE) return Error(mrc, "reading metrics to share");
      auto [at, added] = sets.emplace(MetricKey(metrics), next_set);
      if (added) {
        for (size_t i = 0; i < metrics.size(); ++i) {
          const Metric& m = metrics[i];
          add.Reset();
          add.Bind(1, next_set)
              .Bind(2, static_cast<int64_t>(i))
              .Bind(3, m.output)
              .Bind(4, m.name)
              .Bind(5, m.value)
              .Bind(6, m.limit)
              .Bind(7, static_cast<int64_t>(m.failed ? 1 : 0));
          if (int e = add.Run(); e != SQLITE_DONE) return Error(e, "writing a metric set");
        }
        ++next_set;
        ++report_->metric_sets_added;
      }
      point.Reset();
      point.Bind(1, at->second).Bind(2, result_id);
      if (int e = point.Run(); e != SQLITE_DONE) return Error(e, "sharing metrics");
      drop.Reset();
      drop.Bind(1, result_id);
      if (int e = drop.Run(); e != SQLITE_DONE) return Error(e, "sharing metrics");
      report_->metric_rows_shared += static_cast<int64_t>(metrics.size());
    }
    if (rc != SQLITE_DONE) return Error(rc, "reading results whose metrics to share");
  }
  return Status::Ok();
}

// The extra JSON of every finished run's results: the members that
// describe the case go into a set shared by every result with the very
// same members (store/extra_sets.h); what changes from run to run stays.
Status PruneSteps::ShareExtraJson() {
  {
    std::unordered_map<std::string, int64_t> sets;  // members as stored -> set id
    int64_t next_set = 1;
    {
      Stmt q(db_, "SELECT set_id, members FROM extra_sets");
      int rc;
      while ((rc = q.Step()) == SQLITE_ROW) {
        sets.emplace(q.Text(1), q.Int(0));
        next_set = std::max(next_set, q.Int(0) + 1);
      }
      if (rc != SQLITE_DONE) return Error(rc, "reading the extra sets");
    }
    Stmt results(db_,
                 "SELECT r.id, r.extra_json FROM results r JOIN runs u ON u.id = r.run_id"
                 " WHERE u.status != 'running' AND r.extra_set IS NULL ORDER BY r.id");
    Stmt add(db_, "INSERT INTO extra_sets (set_id, members) VALUES (?, ?)");
    Stmt point(db_, "UPDATE results SET extra_set = ?, extra_json = ? WHERE id = ?");
    int rc;
    while ((rc = results.Step()) == SQLITE_ROW) {
      const nlohmann::json doc = nlohmann::json::parse(results.Text(1), nullptr, false);
      if (!doc.is_object()) continue;
      const store_internal::SplitExtra split = store_internal::Split(doc);
      if (split.shared.empty()) continue;
      auto [at, added] = sets.emplace(split.shared.dump(), next_set);
      if (added) {
        add.Reset();
        add.Bind(1, next_set).Bind(2, at->first);
        if (int e = add.Run(); e != SQLITE_DONE) return Error(e, "writing an extra set");
        ++next_set;
      }
      point.Reset();
      point.Bind(1, at->second).Bind(2, split.own.dump()).Bind(3, results.Int(0));
      if (int e = point.Run(); e != SQLITE_DONE) return Error(e, "sharing extra JSON");
    }
    if (rc != SQLITE_DONE) return Error(rc, "reading results whose extra JSON to share");
  }
  return Status::Ok();
}

// What VACUUM would give back: the pages the deletions freed.
Status PruneSteps::MeasureFreedPages() {
  {
    Stmt pages(db_,
               "SELECT (SELECT freelist_count FROM pragma_freelist_count()) *"
               " (SELECT page_size FROM pragma_page_size())");
    if (int rc = pages.Step(); rc != SQLITE_ROW) return Error(rc, "measuring freed pages");
    report_->bytes_freed = pages.Int(0);
  }
  return Status::Ok();
}

// What VACUUM would leave, for a dry run. The freed pages alone say too
// little: the compaction leaves many pages part empty, and VACUUM packs
// them. Per table and index (SQLite's dbstat), the bytes its pages still
// use, packed into whole pages that each leave half an average cell
// unused, as a freshly built B-tree's do. -1 where SQLite was built
// without dbstat.
int64_t PruneSteps::EstimateVacuumedBytes() const {
  Stmt est(db_,
           "WITH t AS (SELECT name, SUM(pgsize - unused) AS used, MAX(pgsize) AS pg,"
           "                  CAST(SUM(payload) AS REAL) / MAX(SUM(ncell), 1) AS cell"
           "           FROM dbstat GROUP BY name)"
           " SELECT SUM(CAST((used + pg - cell / 2 - 1) / (pg - cell / 2) AS INTEGER) * pg)"
           " FROM t");
  if (est.rc() != SQLITE_OK || est.Step() != SQLITE_ROW || est.IsNull(0)) return -1;
  return est.Int(0);
}

}  // namespace

StatusOr<PruneReport> Store::Prune(const PrunePolicy& policy) {
  if (policy.keep_rounds < 1) {
    return InvalidInput("--keep-rounds " + std::to_string(policy.keep_rounds) +
                        " keeps no run's round values: give 1 or more");
  }
  if (policy.keep_runs < 1) {
    return InvalidInput("--keep-runs " + std::to_string(policy.keep_runs) +
                        " keeps no run whole: give 1 or more (a baseline needs its samples)");
  }
  PruneReport report;
  report.bytes_before = FileBytes(path_);
  PruneSteps steps(db_, path_, policy, &report);
  SPYRE_RETURN_IF_ERROR(steps.ChooseRunsKeptWhole());
  SPYRE_RETURN_IF_ERROR(steps.ChooseRunsKeepingRounds());
  Transaction tx(db_);
  if (int rc = tx.Begin(); rc != SQLITE_OK) return Error(rc, "starting the prune");
  SPYRE_RETURN_IF_ERROR(steps.CompactWallSamples());
  SPYRE_RETURN_IF_ERROR(steps.ShareMetrics());
  SPYRE_RETURN_IF_ERROR(steps.ShareExtraJson());
  SPYRE_RETURN_IF_ERROR(steps.MeasureFreedPages());
  if (policy.dry_run) {
    const int64_t packed = steps.EstimateVacuumedBytes();
    report.bytes_after = packed >= 0 ? packed : report.bytes_before - report.bytes_freed;
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
