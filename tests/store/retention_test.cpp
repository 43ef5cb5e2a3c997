// Retention (prune), online backup and export of the store, on temporary
// files: what prune keeps whole and why, that a compacted run gives the judge
// exactly what it gave before, a dry run that changes nothing, a backup
// taken while another connection writes, and export read back value by value.
#include <sqlite3.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "detect/detect.h"
#include "detect/history.h"
#include "detect/thresholds.h"
#include "store/store.h"
#include "store/store_history.h"
#include "store_test_util.h"
#include "packed_rounds.h"
#include "sql.h"
#include "support/temp_dir.h"

namespace harness {
namespace {

using spyre_test::TempDir;

sqlite3* Db(Store& store) { return store_internal::Access::Db(store); }

std::unique_ptr<Store> OpenStore(const std::string& path,
                                 Store::Mode mode = Store::Mode::kReadWrite) {
  auto store = Store::Open(path, mode);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(*store) : nullptr;
}

using test_util::QueryInt;

// A result's whole extra JSON as SQL sees it: its own members and, once
// pruned, its shared extra set's.
const std::string kExtraText =
    "(extra_json || coalesce((SELECT members FROM extra_sets e"
    " WHERE e.set_id = results.extra_set), ''))";

// One case timed in `rounds` rounds of `per_round` samples (rounds <= 1: one
// process, no round record), around `level` us.
CaseResult Timed(const std::string& id, int rounds, int per_round, double level) {
  CaseResult r;
  r.suite = "ops";
  r.case_id = id;
  r.status = CaseStatus::kPassed;
  r.max_abs_err = 1e-3;
  r.metrics.push_back({"out0", "max_abs_err", 1e-3, 1e-2, false});
  r.metrics.push_back({"out0", "fraction_outside", 0.0, 1e-3, false});
  r.modeled_us = level / 4;
  r.ops = {{"mm", 1, level / 5, level / 2, 0}};
  nlohmann::json sizes = nlohmann::json::array();
  nlohmann::json op_wall = nlohmann::json::array();
  for (int round = 0; round < std::max(rounds, 1); ++round) {
    // Each round its own level; the samples around it not symmetric, so a
    // round's median is not its mean.
    const double at = level * (1.0 + 0.01 * ((round * 7) % 5));
    for (int k = 0; k < per_round; ++k) {
      r.wall_us.push_back(at + (k * k) % 7);
      // A run-queue wait inside each sample, uneven, so the unqueued median
      // of a round is not its wall median less a constant.
      r.queue_us.push_back(0.1 * at * ((k * 3 + round) % 4) / 3.0 + 0.3);
    }
    sizes.push_back(per_round);
    op_wall.push_back(at / 2);
  }
  if (rounds > 1) {
    r.extra["rounds"] = {{"count", rounds},
                         {"planned", rounds},
                         {"samples", sizes},
                         {"op_wall_us", {{"mm", op_wall}}}};
  }
  return r;
}

// A store of `runs` completed runs (label "nightly" on all but the first, each
// naming the run before as its baseline), each with a rounds case, a
// one-process case and a case whose level doubles from run `shift_at`.
std::vector<int64_t> RecordRuns(Store& store, int runs, int shift_at,
                                const std::string& suite = "ops") {
  std::vector<int64_t> ids;
  for (int i = 0; i < runs; ++i) {
    NewRun run;
    run.suite = suite;
    run.label = i == 0 ? "" : "nightly";
    run.fingerprint = "fp";
    run.env_json = R"({"blas":{"name":"openblas"}})";
    run.options_json = ids.empty() ? "{}" : nlohmann::json{{"baseline_run_id", ids.back()}}.dump();
    StatusOr<int64_t> id = store.BeginRun(run);
    EXPECT_TRUE(id.ok());
    CaseResult a = Timed("rounds", 12, 5, 100), b = Timed("single", 1, 9, 50),
               c = Timed("shifted", 12, 5, i >= shift_at ? 400 : 200);
    for (CaseResult* r : {&a, &b, &c}) {
      r->suite = suite;
      EXPECT_TRUE(store.RecordResult(*id, *r).ok());
    }
    EXPECT_TRUE(store.FinishRun(*id, RunStatus::kCompleted).ok());
    ids.push_back(*id);
  }
  return ids;
}

std::map<std::string, std::vector<double>> RoundValuesOf(Store& store, int64_t run_id) {
  StatusOr<RunRecord> run = LoadRunRecord(store, run_id);
  EXPECT_TRUE(run.ok()) << run.status().message();
  std::map<std::string, std::vector<double>> out;
  for (const CaseResult& r : run->cases) {
    out[r.case_id] = WallRoundValues(r);
    // The judge's values where both sides kept the wait: wall less wait.
    EXPECT_TRUE(r.HasQueueWait()) << r.case_id;
    out[r.case_id + "/unqueued"] = RoundValuesOf(r, r.UnqueuedUs());
  }
  return out;
}

// How many wall values the judge reads for one case of a run.
size_t SamplesOf(Store& store, int64_t run_id, const std::string& case_id) {
  StatusOr<RunRecord> run = LoadRunRecord(store, run_id);
  EXPECT_TRUE(run.ok()) << run.status().message();
  for (const CaseResult& r : run->cases) {
    if (r.case_id == case_id) return r.wall_us.size();
  }
  ADD_FAILURE() << "no case " << case_id << " in run " << run_id;
  return 0;
}

std::string Findings(Store& store, int64_t base_id, int64_t cand_id) {
  StatusOr<RunRecord> base = LoadRunRecord(store, base_id), cand = LoadRunRecord(store, cand_id);
  EXPECT_TRUE(base.ok() && cand.ok());
  EXPECT_TRUE(AttachWallNoise(store, &*base).ok());
  Comparison c = CompareRuns(*base, *cand, Thresholds());
  nlohmann::json j = ToJson(c);
  return j.dump();
}

TEST(PruneTest, OldRunsKeepOneValuePerRoundAndTheJudgeSeesTheSameValues) {
  TempDir dir;
  auto store = OpenStore(dir.File("s.db"));
  const std::vector<int64_t> ids = RecordRuns(*store, 8, 6);
  std::map<int64_t, std::map<std::string, std::vector<double>>> before;
  for (int64_t id : ids) before[id] = RoundValuesOf(*store, id);
  const int64_t results = QueryInt(Db(*store), "SELECT count(*) FROM results");
  const int64_t metrics = QueryInt(Db(*store), "SELECT count(*) FROM metrics");
  const int64_t ops = QueryInt(Db(*store), "SELECT count(*) FROM op_summaries");
  // The findings of run 7 against run 6 (the shift is at run index 6).
  const std::string findings_before = Findings(*store, ids[5], ids[6]);

  PrunePolicy policy;
  policy.keep_runs = 2;
  StatusOr<PruneReport> report = store->Prune(policy);
  ASSERT_TRUE(report.ok()) << report.status().message();
  // Kept whole: the newest two, the baseline of each (ids[5]), and the newest
  // run labelled "nightly" (ids[7], already counted).
  std::set<int64_t> kept;
  for (const auto& [id, why] : report->kept) kept.insert(id);
  EXPECT_EQ(kept, (std::set<int64_t>{ids[5], ids[6], ids[7]}));
  EXPECT_EQ(report->runs_compacted, 5);
  EXPECT_EQ(report->results_compacted, 10);  // two rounds cases in each of five runs
  EXPECT_EQ(report->samples_before, 10 * 60);
  EXPECT_EQ(report->samples_after, 10 * 12);
  EXPECT_LE(report->bytes_after, report->bytes_before);

  for (int64_t id : ids) {
    EXPECT_EQ(RoundValuesOf(*store, id), before[id]) << "run " << id;
  }
  // The one-process case keeps its samples everywhere (no rounds to fold),
  // packed as recorded: 9 values read back in every run.
  for (int64_t id : ids) EXPECT_EQ(SamplesOf(*store, id, "single"), 9u) << "run " << id;
  // A compacted run: 12 values per rounds case; a kept one: all 60 samples.
  // Either way in one blob per result and no wall_samples row left.
  EXPECT_EQ(SamplesOf(*store, ids[0], "rounds"), 12u);
  EXPECT_EQ(SamplesOf(*store, ids[7], "rounds"), 60u);
  EXPECT_EQ(QueryInt(Db(*store), "SELECT count(*) FROM wall_samples"), 0);
  EXPECT_EQ(QueryInt(Db(*store), "SELECT count(*) FROM results WHERE rounds_packed IS NOT NULL"),
            8 * 3);
  EXPECT_EQ(report->results_packed_whole, 3 * 3 + 5);  // the kept runs' cases, 'single' elsewhere
  // Nothing else moved: no run, result or op summary deleted; every metric
  // is in a shared set (each case records the same metric every night: one
  // set for the three cases).
  EXPECT_EQ(QueryInt(Db(*store), "SELECT count(*) FROM runs"), 8);
  EXPECT_EQ(QueryInt(Db(*store), "SELECT count(*) FROM results"), results);
  EXPECT_EQ(QueryInt(Db(*store), "SELECT count(*) FROM metrics"), 0);
  EXPECT_EQ(report->metric_rows_shared, metrics);
  EXPECT_EQ(QueryInt(Db(*store), "SELECT count(DISTINCT set_id) FROM metric_set_rows"), 1);
  EXPECT_EQ(QueryInt(Db(*store), "SELECT count(*) FROM op_summaries"), ops);
  EXPECT_EQ(Findings(*store, ids[5], ids[6]), findings_before);
  // Comparing two compacted runs gives what it gave before as well.
  EXPECT_NE(findings_before.find("shifted"), std::string::npos) << findings_before;
  // A second prune has nothing left to do.
  StatusOr<PruneReport> again = store->Prune(policy);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->results_compacted, 0);
  EXPECT_EQ(again->results_packed_whole, 0);
  EXPECT_EQ(again->metric_rows_shared, 0);
  for (int64_t id : ids) EXPECT_EQ(RoundValuesOf(*store, id), before[id]) << "run " << id;
}

TEST(PruneTest, ACompareOfTwoCompactedRunsGivesTheSameFindings) {
  TempDir dir;
  auto store = OpenStore(dir.File("s.db"));
  const std::vector<int64_t> ids = RecordRuns(*store, 10, 3);
  const std::string before = Findings(*store, ids[2], ids[3]);
  ASSERT_NE(before.find("shifted"), std::string::npos) << before;
  PrunePolicy policy;
  policy.keep_runs = 1;
  ASSERT_TRUE(store->Prune(policy).ok());
  EXPECT_EQ(SamplesOf(*store, ids[3], "shifted"), 12u);
  // The same verdicts with the same values; only the op a finding names from
  // the rounds' per-op times is gone (those times are what prune drops).
  auto verdicts = [](const std::string& json) {
    nlohmann::json c = nlohmann::json::parse(json), out = nlohmann::json::array();
    for (const char* side : {"regressions", "improvements"}) {
      for (const nlohmann::json& f : c[side]) {
        out.push_back({side, f["suite"], f["case"], f["kind"], f["metric"], f["baseline"],
                       f["candidate"], f["ratio"]});
      }
    }
    return out;
  };
  const std::string after = Findings(*store, ids[2], ids[3]);
  EXPECT_EQ(verdicts(after), verdicts(before));
  auto wall_blame = [](const std::string& json) {
    const nlohmann::json c = nlohmann::json::parse(json);
    for (const nlohmann::json& f : c["regressions"]) {
      if (f["kind"] == "latency") return f["blamed_ops"];
    }
    return nlohmann::json();
  };
  ASSERT_FALSE(wall_blame(before).empty()) << before;
  EXPECT_EQ(wall_blame(before)[0]["op"], "mm") << before;
  EXPECT_EQ(wall_blame(before)[0]["unit"], "us") << before;
  EXPECT_EQ(wall_blame(after), nlohmann::json::array()) << after;
}

// A suite's history of one metric as (run, value) pairs per case.
std::map<std::string, std::vector<std::pair<int64_t, double>>> History(Store& store,
                                                                       const std::string& metric) {
  auto series = LoadSuiteSeries(store, "ops", "", metric, 0);
  EXPECT_TRUE(series.ok()) << series.status().message();
  std::map<std::string, std::vector<std::pair<int64_t, double>>> out;
  for (const auto& [name, points] : *series) {
    for (const SeriesPoint& p : points) out[name].emplace_back(p.run_id, p.value);
  }
  return out;
}

std::string ExportOf(Store& store, const std::string& table) {
  ExportRequest request;
  request.table = table;
  std::ostringstream out;
  EXPECT_TRUE(store.Export(request, out).ok());
  return out.str();
}

// The oldest tier: runs older than the newest --keep-rounds of their suite
// keep their run medians, spread, metrics and op summaries; history reads
// those and gives what it gave, and a compare of two such runs gives the
// accuracy verdicts and says their wall time was not judged.
TEST(PruneTest, TheOldestRunsKeepMediansAndMetricsAndHistoryIsUnchanged) {
  TempDir dir;
  auto store = OpenStore(dir.File("s.db"));
  const std::vector<int64_t> ids = RecordRuns(*store, 10, 2);
  // A finding recorded on run 4 against run 3: both keep their rounds.
  {
    store_internal::Stmt add(Db(*store),
                             "INSERT INTO regressions (run_id, baseline_run_id, suite, case_name,"
                             " kind, metric) VALUES (?, ?, 'ops', 'rounds', 'latency', 'wall_us')");
    add.Bind(1, ids[4]).Bind(2, ids[3]);
    ASSERT_EQ(add.Run(), SQLITE_DONE);
  }
  const auto medians = History(*store, "wall_us_median");
  const auto unqueued = History(*store, "unqueued_us_median");
  const auto metric = History(*store, "fraction_outside");
  ASSERT_FALSE(metric.empty());
  const std::string metrics_csv = ExportOf(*store, "metrics");
  const std::string results_csv = ExportOf(*store, "results");
  StatusOr<RunRecord> old_before = LoadRunRecord(*store, ids[0]);
  ASSERT_TRUE(old_before.ok());
  const std::string shift_before = Findings(*store, ids[1], ids[2]);
  ASSERT_NE(shift_before.find("shifted"), std::string::npos) << shift_before;

  PrunePolicy policy;
  policy.keep_runs = 2;
  policy.keep_rounds = 4;
  StatusOr<PruneReport> report = store->Prune(policy);
  ASSERT_TRUE(report.ok()) << report.status().message();
  // Round values: the newest four (ids 6-9) and the two a finding names
  // (ids 3, 4); the rest (ids 0, 1, 2, 5) keep none.
  EXPECT_EQ(report->results_rounds_dropped, 4 * 3);
  for (int i : {0, 1, 2, 5}) EXPECT_EQ(SamplesOf(*store, ids[i], "rounds"), 0u) << i;
  for (int i : {3, 4, 6}) EXPECT_EQ(SamplesOf(*store, ids[i], "rounds"), 12u) << i;
  EXPECT_EQ(SamplesOf(*store, ids[9], "rounds"), 60u);

  // What history reads is the same: medians, unqueued medians, metrics.
  EXPECT_EQ(History(*store, "wall_us_median"), medians);
  EXPECT_EQ(History(*store, "unqueued_us_median"), unqueued);
  EXPECT_EQ(History(*store, "fraction_outside"), metric);
  EXPECT_EQ(ExportOf(*store, "metrics"), metrics_csv);
  EXPECT_EQ(ExportOf(*store, "results"), results_csv);
  StatusOr<RunRecord> old_after = LoadRunRecord(*store, ids[0]);
  ASSERT_TRUE(old_after.ok());
  ASSERT_EQ(old_after->cases.size(), old_before->cases.size());
  for (size_t i = 0; i < old_after->cases.size(); ++i) {
    const CaseResult &a = old_after->cases[i], &b = old_before->cases[i];
    ASSERT_EQ(a.metrics.size(), b.metrics.size());
    for (size_t m = 0; m < a.metrics.size(); ++m) {
      EXPECT_EQ(a.metrics[m].name, b.metrics[m].name);
      EXPECT_EQ(a.metrics[m].value, b.metrics[m].value);
      EXPECT_EQ(a.metrics[m].limit, b.metrics[m].limit);
    }
    EXPECT_EQ(a.ops.size(), b.ops.size());
    EXPECT_TRUE(a.wall_us.empty());
    if (b.extra.contains("rounds")) {
      EXPECT_TRUE(a.extra.at("rounds").value("values_dropped", false)) << a.extra.dump();
    }
  }
  // The compare of two such runs: the same verdicts but the wall-time one
  // (the modeled time doubled too, and is still found), and it says why.
  auto kinds = [](const nlohmann::json& c) {
    std::set<std::string> out;
    for (const nlohmann::json& f : c["regressions"]) {
      out.insert(f["case"].get<std::string>() + "/" + f["kind"].get<std::string>());
    }
    return out;
  };
  EXPECT_EQ(kinds(nlohmann::json::parse(shift_before)),
            (std::set<std::string>{"shifted/latency", "shifted/modeled_latency"}))
      << shift_before;
  const nlohmann::json shift_after = nlohmann::json::parse(Findings(*store, ids[1], ids[2]));
  EXPECT_EQ(kinds(shift_after), std::set<std::string>{"shifted/modeled_latency"})
      << shift_after.dump();
  EXPECT_NE(shift_after.dump().find("timing rounds were pruned"), std::string::npos)
      << shift_after.dump();
  // A second prune leaves it as it is.
  StatusOr<PruneReport> again = store->Prune(policy);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->results_rounds_dropped, 0);
  EXPECT_EQ(again->results_compacted, 0);
}

// merge copies a pruned store's shared metrics as rows of its own.
TEST(PruneTest, MergeFromAPrunedStoreCopiesItsMetrics) {
  TempDir dir;
  {
    auto src = OpenStore(dir.File("src.db"));
    RecordRuns(*src, 4, 100);
    PrunePolicy policy;
    policy.keep_runs = 1;
    ASSERT_TRUE(src->Prune(policy).ok());
    ASSERT_EQ(QueryInt(Db(*src), "SELECT count(*) FROM metrics"), 0);
  }
  auto dst = OpenStore(dir.File("dst.db"));
  ASSERT_TRUE(dst->MergeFrom(dir.File("src.db")).ok());
  EXPECT_EQ(QueryInt(Db(*dst), "SELECT count(*) FROM metrics"), 4 * 3 * 2);
  auto src = OpenStore(dir.File("src.db"), Store::Mode::kReadOnly);
  EXPECT_EQ(ExportOf(*dst, "metrics"), ExportOf(*src, "metrics"));
}

TEST(PruneTest, DryRunChangesNothingAndEstimatesTheSaving) {
  TempDir dir;
  auto store = OpenStore(dir.File("s.db"));
  RecordRuns(*store, 6, 100);
  const int64_t samples = QueryInt(Db(*store), "SELECT count(*) FROM wall_samples");
  PrunePolicy policy;
  policy.keep_runs = 1;
  policy.dry_run = true;
  StatusOr<PruneReport> report = store->Prune(policy);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_GT(report->results_compacted, 0);
  EXPECT_EQ(QueryInt(Db(*store), "SELECT count(*) FROM wall_samples"), samples);
  EXPECT_EQ(
      QueryInt(Db(*store), "SELECT count(*) FROM results WHERE " + kExtraText +
                               " LIKE '%compacted_from%'"),
      0);
  EXPECT_GT(report->bytes_freed, 0);
  EXPECT_LT(report->bytes_after, report->bytes_before);
  // The estimate is of the file VACUUM leaves, part-empty pages packed, not
  // the file less the freed pages (several times the result): within 10%
  // of what the prune then gives.
  policy.dry_run = false;
  StatusOr<PruneReport> done = store->Prune(policy);
  ASSERT_TRUE(done.ok()) << done.status().message();
  const double actual = static_cast<double>(done->bytes_after);
  EXPECT_NEAR(static_cast<double>(report->bytes_after), actual, 0.1 * actual)
      << "before " << report->bytes_before << ", freed pages " << report->bytes_freed;
}

// The members of a result's extra JSON that describe the case go into a set
// shared by every result with the same ones; what changes from run to run
// stays with the result. Every reader sees the extra JSON as recorded.
TEST(PruneTest, ExtraJsonIsSharedAndReadsBackAsRecorded) {
  TempDir dir;
  std::map<int64_t, std::map<std::string, nlohmann::json>> before;
  std::map<std::string, std::vector<std::pair<int64_t, double>>> normalized;
  {
    auto store = OpenStore(dir.File("src.db"));
    for (int i = 0; i < 5; ++i) {
      NewRun run;
      run.suite = "ops";
      run.fingerprint = "fp";
      run.env_json = "{}";
      StatusOr<int64_t> id = store->BeginRun(run);
      ASSERT_TRUE(id.ok());
      for (int c = 0; c < 3; ++c) {
        CaseResult r = Timed("case" + std::to_string(c), 4, 3, 100 + 10 * c);
        r.extra["op"] = c == 2 ? "add" : "mm";
        r.extra["device"] = "privateuseone:0";
        r.extra["harness"] = {{"worker_pid", 1000 + 3 * i + c}, {"elapsed_us", 0.1 + i}};
        r.extra["host_probe_us"] = 100.0 + 0.37 * i + 0.01 * c;
        r.extra["wall_batch"] = 7 + i % 2;
        r.extra["confirm"] = {{"values", {1.5, 2.5 + i}}};
        ASSERT_TRUE(store->RecordResult(*id, r).ok());
      }
      ASSERT_TRUE(store->FinishRun(*id, RunStatus::kCompleted).ok());
      StatusOr<RunRecord> rec = LoadRunRecord(*store, *id);
      ASSERT_TRUE(rec.ok());
      for (const CaseResult& r : rec->cases) before[*id][r.case_id] = r.extra;
    }
    normalized = History(*store, "wall_us_normalized");
    ASSERT_EQ(normalized.size(), 3u);
    PrunePolicy policy;
    policy.keep_runs = 10;  // every run whole: the extra JSON is all that moves
    ASSERT_TRUE(store->Prune(policy).ok());
    sqlite3* db = Db(*store);
    // Two sets (the mm cases share one; the add case has its own), and no
    // result keeps a member that describes its case.
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM extra_sets"), 2);
    EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM results WHERE extra_set IS NULL"), 0);
    EXPECT_EQ(QueryInt(db,
                       "SELECT count(*) FROM results, json_each(results.extra_json) WHERE"
                       " json_each.key NOT IN ('harness', 'host_probe_us', 'wall_batch', 'confirm')"),
              0);
    for (const auto& [id, cases] : before) {
      StatusOr<RunRecord> rec = LoadRunRecord(*store, id);
      ASSERT_TRUE(rec.ok());
      ASSERT_EQ(rec->cases.size(), cases.size());
      for (const CaseResult& r : rec->cases) {
        EXPECT_EQ(r.extra, cases.at(r.case_id)) << "run " << id << " " << r.case_id;
      }
    }
    EXPECT_EQ(History(*store, "wall_us_normalized"), normalized);
    // A second prune changes nothing.
    const std::string sets = test_util::QueryText(db, "SELECT group_concat(members, '|') FROM extra_sets");
    ASSERT_TRUE(store->Prune(policy).ok());
    EXPECT_EQ(test_util::QueryText(db, "SELECT group_concat(members, '|') FROM extra_sets"), sets);
  }
  // merge copies each result's extra JSON whole.
  {
    auto dst = OpenStore(dir.File("dst.db"));
    ASSERT_TRUE(dst->MergeFrom(dir.File("src.db")).ok());
    EXPECT_EQ(QueryInt(Db(*dst), "SELECT count(*) FROM extra_sets"), 0);
    std::vector<nlohmann::json> merged, recorded;
    for (int64_t id = 1; id <= 5; ++id) {
      StatusOr<RunRecord> rec = LoadRunRecord(*dst, id);
      ASSERT_TRUE(rec.ok());
      for (const CaseResult& r : rec->cases) merged.push_back(r.extra);
    }
    for (const auto& [id, cases] : before) {
      for (const auto& [name, extra] : cases) recorded.push_back(extra);
    }
    EXPECT_EQ(merged, recorded);
  }
  // Replacing a pruned result's extra JSON replaces all of it.
  auto store = OpenStore(dir.File("src.db"));
  const nlohmann::json replaced = {{"note", 1}};
  ASSERT_TRUE(store->SetResultExtra(1, "ops", "case0", replaced).ok());
  StatusOr<RunRecord> rec = LoadRunRecord(*store, 1);
  ASSERT_TRUE(rec.ok());
  // (Its samples' per-op times stay in its packed samples and read back.)
  EXPECT_EQ(rec->cases[0].extra.value("note", 0), 1);
  for (const char* gone : {"op", "device", "host_probe_us", "harness"}) {
    EXPECT_FALSE(rec->cases[0].extra.contains(gone)) << gone << " " << rec->cases[0].extra;
  }
  EXPECT_EQ(rec->cases[1].extra, before[1]["case1"]);
}

TEST(PackedRoundsTest, EveryValueReadsBackBitForBit) {
  store_internal::PackedRounds in;
  // Whole nanoseconds (a few bytes each), and values that are not: a sum, a
  // tiny, huge, negative and non-finite value, negative zero.
  in.wall_us = {1234.567,        0.0, 0.001, 88000000.125, 0.1 + 0.2, 1e-300, 1e300,
                -3.5,            -0.0, std::numeric_limits<double>::infinity(),
                std::nan(""),    5e12};
  in.queue_us.assign(in.wall_us.rbegin(), in.wall_us.rend());
  const std::string blob = store_internal::PackRounds(in);
  std::optional<store_internal::PackedRounds> out = store_internal::UnpackRounds(blob);
  ASSERT_TRUE(out.has_value());
  auto bits = [](const std::vector<double>& v) {
    std::vector<uint64_t> b(v.size());
    std::memcpy(b.data(), v.data(), v.size() * sizeof(double));
    return b;
  };
  EXPECT_EQ(bits(out->wall_us), bits(in.wall_us));
  EXPECT_EQ(bits(out->queue_us), bits(in.queue_us));
  // Without waits: none read back.
  in.queue_us.clear();
  out = store_internal::UnpackRounds(store_internal::PackRounds(in));
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(bits(out->wall_us), bits(in.wall_us));
  EXPECT_TRUE(out->queue_us.empty());
  // Whole nanoseconds take at most 8 bytes where the raw double takes 9.
  in.wall_us.assign(20, 1234.567);
  EXPECT_LE(store_internal::PackRounds(in).size(), 3u + 20u * 4u);
  // Raw samples with per-op times read back with both.
  in.raw = true;
  in.op_wall_us = {{"mm", {1.5, 0.1 + 0.2}}, {"add", {}}};
  out = store_internal::UnpackRounds(store_internal::PackRounds(in));
  ASSERT_TRUE(out.has_value());
  EXPECT_TRUE(out->raw);
  EXPECT_EQ(out->op_wall_us.size(), 2u);
  EXPECT_EQ(bits(out->op_wall_us["mm"]), bits(in.op_wall_us["mm"]));
  EXPECT_TRUE(out->op_wall_us["add"].empty());
  // A blob cut short, or of a format this build does not know, is refused.
  EXPECT_FALSE(store_internal::UnpackRounds(blob.substr(0, blob.size() - 1)).has_value());
  EXPECT_FALSE(store_internal::UnpackRounds("\x02" + blob.substr(1)).has_value());
  EXPECT_FALSE(store_internal::UnpackRounds("").has_value());
}

// Stores pruned before the values were packed kept one wall_samples row per
// round; the next prune packs those rows as they are.
TEST(PruneTest, RowsPerRoundFromAnEarlierPruneArePackedWithTheSameValues) {
  TempDir dir;
  auto store = OpenStore(dir.File("s.db"));
  const std::vector<int64_t> ids = RecordRuns(*store, 5, 3);
  PrunePolicy policy;
  policy.keep_runs = 1;
  ASSERT_TRUE(store->Prune(policy).ok());
  // Put the compacted results back the way the earlier prune left them.
  sqlite3* db = Db(*store);
  int64_t unpacked = 0;
  for (int64_t id : ids) {
    StatusOr<RunRecord> run = LoadRunRecord(*store, id);
    ASSERT_TRUE(run.ok());
    for (const CaseResult& r : run->cases) {
      if (QueryInt(db, "SELECT count(*) FROM results WHERE rounds_packed IS NOT NULL AND run_id = " +
                           std::to_string(id) + " AND case_name = '" + r.case_id +
                           "' AND " + kExtraText + " LIKE '%compacted_from%'") == 0) {
        continue;  // not folded (samples packed as recorded)
      }
      const int64_t result_id =
          QueryInt(db, "SELECT id FROM results WHERE run_id = " + std::to_string(id) +
                           " AND case_name = '" + r.case_id + "'");
      for (size_t i = 0; i < r.wall_us.size(); ++i) {
        store_internal::Stmt add(
            db, "INSERT INTO wall_samples (result_id, idx, wall_us, queue_us) VALUES (?, ?, ?, ?)");
        add.Bind(1, result_id).Bind(2, static_cast<int64_t>(i)).Bind(3, r.wall_us[i])
            .Bind(4, r.queue_us[i]);
        ASSERT_EQ(add.Run(), SQLITE_DONE);
      }
      store_internal::Stmt undo(db,
                                "UPDATE results SET rounds_packed = NULL, extra_json = ? WHERE id = ?");
      undo.Bind(1, r.extra.dump()).Bind(2, result_id);
      ASSERT_EQ(undo.Run(), SQLITE_DONE);
      ++unpacked;
    }
  }
  ASSERT_GT(unpacked, 0);
  const std::string folded = "SELECT count(*) FROM results WHERE rounds_packed IS NOT NULL AND " +
                             kExtraText + " LIKE '%compacted_from%'";
  ASSERT_EQ(QueryInt(db, folded), 0);
  std::map<int64_t, std::map<std::string, std::vector<double>>> before;
  for (int64_t id : ids) before[id] = RoundValuesOf(*store, id);
  const std::string findings_before = Findings(*store, ids[2], ids[3]);

  StatusOr<PruneReport> again = store->Prune(policy);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->results_compacted, unpacked);
  EXPECT_EQ(again->samples_before, again->samples_after);
  EXPECT_EQ(QueryInt(db, folded), unpacked);
  for (int64_t id : ids) EXPECT_EQ(RoundValuesOf(*store, id), before[id]) << "run " << id;
  EXPECT_EQ(Findings(*store, ids[2], ids[3]), findings_before);
}

TEST(PruneTest, RunningRunsLabelsAndKeepLabelsAreLeftWhole) {
  TempDir dir;
  auto store = OpenStore(dir.File("s.db"));
  std::vector<int64_t> ids = RecordRuns(*store, 4, 100);  // run 0 unlabelled, 1-3 "nightly"
  // A run labelled "release" among the old ones and a run still running.
  NewRun release;
  release.suite = "ops";
  release.label = "release-1.0";
  release.fingerprint = "fp";
  release.env_json = "{}";
  StatusOr<int64_t> rel = store->BeginRun(release);
  ASSERT_TRUE(rel.ok());
  ASSERT_TRUE(store->RecordResult(*rel, Timed("rounds", 12, 5, 100)).ok());
  ASSERT_TRUE(store->FinishRun(*rel, RunStatus::kCompleted).ok());
  std::vector<int64_t> newer = RecordRuns(*store, 3, 100, "ops");
  NewRun live = release;
  live.label = "";
  StatusOr<int64_t> running = store->BeginRun(live);
  ASSERT_TRUE(running.ok());
  ASSERT_TRUE(store->RecordResult(*running, Timed("rounds", 12, 5, 100)).ok());

  PrunePolicy policy;
  policy.keep_runs = 1;
  policy.keep_labels = {"nightly"};
  StatusOr<PruneReport> report = store->Prune(policy);
  ASSERT_TRUE(report.ok()) << report.status().message();
  std::map<int64_t, std::string> why(report->kept.begin(), report->kept.end());
  EXPECT_NE(why[*running].find("running"), std::string::npos);
  EXPECT_NE(why[*rel].find("newest run labelled 'release-1.0'"), std::string::npos) << why[*rel];
  for (int64_t id : {ids[1], ids[2], ids[3]}) {
    EXPECT_FALSE(why[id].empty()) << "run " << id << " is labelled nightly (--keep-label)";
  }
  EXPECT_TRUE(why.count(ids[0]) == 0 || why[ids[0]].empty());
  EXPECT_EQ(report->runs_compacted, 2);  // ids[0] and newer[0] (unlabelled, not newest)
  EXPECT_EQ(QueryInt(Db(*store),
                     "SELECT count(*) FROM wall_samples w JOIN results r ON r.id = w.result_id"
                     " WHERE r.run_id = " +
                         std::to_string(*running)),
            60);
  (void)newer;
}

TEST(PruneTest, KeepRunsBelowOneIsRefused) {
  TempDir dir;
  auto store = OpenStore(dir.File("s.db"));
  PrunePolicy policy;
  policy.keep_runs = 0;
  StatusOr<PruneReport> report = store->Prune(policy);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("--keep-runs 0"), std::string::npos);
  policy.keep_runs = 1;
  policy.keep_rounds = 0;
  report = store->Prune(policy);
  ASSERT_FALSE(report.ok());
  EXPECT_NE(report.status().message().find("--keep-rounds 0"), std::string::npos);
}

TEST(BackupTest, CopyTakenWhileAnotherConnectionWritesHoldsEveryCommittedRun) {
  TempDir dir;
  const std::string path = dir.File("s.db");
  {
    auto store = OpenStore(path);
    RecordRuns(*store, 3, 100);
  }
  std::atomic<bool> stop{false};
  std::atomic<int> written{0};
  std::thread writer([&] {
    auto store = OpenStore(path);
    NewRun run;
    run.suite = "ops";
    run.fingerprint = "fp";
    run.env_json = "{}";
    StatusOr<int64_t> id = store->BeginRun(run);
    ASSERT_TRUE(id.ok());
    for (int i = 0; !stop && i < 100000; ++i) {
      CaseResult r = Timed("case" + std::to_string(i), 12, 5, 100);
      ASSERT_TRUE(store->RecordResult(*id, r).ok());
      ++written;
    }
  });
  while (written < 20) std::this_thread::yield();
  auto reader = OpenStore(path, Store::Mode::kReadOnly);
  const std::string copy = dir.File("copy.db");
  Status s = reader->BackupTo(copy);
  const int after = written;
  stop = true;
  writer.join();
  ASSERT_TRUE(s.ok()) << s.message();
  auto restored = OpenStore(copy);
  ASSERT_NE(restored, nullptr);
  EXPECT_TRUE(restored->CheckIntegrity().ok());
  sqlite3* db = Db(*restored);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM runs WHERE status = 'completed'"), 3);
  // The run being written: some of its results, each one whole.
  const int64_t copied = QueryInt(db,
                                  "SELECT count(*) FROM results r JOIN runs u ON u.id = r.run_id"
                                  " WHERE u.status = 'running' OR u.status = 'aborted'");
  EXPECT_GE(copied, 20);
  EXPECT_LE(copied, after);
  EXPECT_EQ(QueryInt(db,
                     "SELECT count(*) FROM results r WHERE r.wall_samples !="
                     " (SELECT count(*) FROM wall_samples w WHERE w.result_id = r.id)"),
            0);
}

TEST(BackupTest, TheStoreItselfOrADirectoryIsRefused) {
  TempDir dir;
  const std::string path = dir.File("s.db");
  auto store = OpenStore(path);
  Status self = store->BackupTo(path);
  EXPECT_FALSE(self.ok());
  EXPECT_NE(self.message().find("is the store itself"), std::string::npos) << self.message();
  Status to_dir = store->BackupTo(dir.path());
  EXPECT_FALSE(to_dir.ok());
  EXPECT_NE(to_dir.message().find("is a directory"), std::string::npos) << to_dir.message();
  Status missing = store->BackupTo(dir.File("no/such/dir/copy.db"));
  EXPECT_FALSE(missing.ok());
  EXPECT_NE(missing.message().find("cannot write"), std::string::npos) << missing.message();
}

// CSV as written by Export: RFC 4180 fields.
std::vector<std::vector<std::string>> ParseCsv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false, any = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field);
      field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field);
      field.clear();
      rows.emplace_back();
    } else {
      field += c;
    }
    any = true;
  }
  if (any && rows.back().empty()) rows.pop_back();
  return rows;
}

TEST(ExportTest, CsvAndJsonlReadBackToTheStoredValues) {
  TempDir dir;
  auto store = OpenStore(dir.File("s.db"));
  std::vector<int64_t> ids = RecordRuns(*store, 2, 100);
  // Awkward values: text with a comma, quotes and a line break; an
  // infinity; a value that needs 17 digits; NULL (NaN is stored as NULL).
  CaseResult odd = Timed("odd", 1, 3, 10);
  odd.message = "line one, \"quoted\"\nline two";
  odd.max_abs_err = std::numeric_limits<double>::infinity();
  odd.max_rel_err = 0.1 + 0.2;
  odd.rel_l2 = std::nan("");
  NewRun run;
  run.suite = "ops";
  run.fingerprint = "fp";
  run.env_json = R"({"k": "a,b"})";
  StatusOr<int64_t> id = store->BeginRun(run);
  ASSERT_TRUE(id.ok());
  ASSERT_TRUE(store->RecordResult(*id, odd).ok());
  ASSERT_TRUE(store->FinishRun(*id, RunStatus::kCompleted).ok());

  for (const std::string& table : ExportTableNames()) {
    for (ExportFormat format : {ExportFormat::kCsv, ExportFormat::kJsonl}) {
      ExportRequest req;
      req.table = table;
      req.format = format;
      std::ostringstream out;
      StatusOr<int64_t> rows = store->Export(req, out);
      ASSERT_TRUE(rows.ok()) << rows.status().message();
      if (table == "results") {
        EXPECT_EQ(*rows, 7);
      }
      if (table == "runs") {
        EXPECT_EQ(*rows, 3);
      }
      if (table == "metrics") {
        EXPECT_EQ(*rows, 7 * 2);
      }
      if (format == ExportFormat::kCsv) {
        auto parsed = ParseCsv(out.str());
        ASSERT_EQ(static_cast<int64_t>(parsed.size()), *rows + 1) << out.str();
        for (const auto& row : parsed) EXPECT_EQ(row.size(), parsed[0].size());
        if (table == "results") {
          const auto& header = parsed[0];
          auto col = [&](const std::string& name) {
            return std::find(header.begin(), header.end(), name) - header.begin();
          };
          const auto& last = parsed.back();
          EXPECT_EQ(last[col("case_name")], "odd");
          EXPECT_EQ(last[col("message")], odd.message);
          EXPECT_EQ(last[col("max_abs_err")], "inf");
          EXPECT_EQ(std::stod(last[col("max_rel_err")]), 0.1 + 0.2);
          EXPECT_EQ(last[col("rel_l2")], "");
        }
        if (table == "runs") {
          EXPECT_EQ(parsed.back()[std::find(parsed[0].begin(), parsed[0].end(), "env_json") -
                                  parsed[0].begin()],
                    run.env_json);
        }
      } else {
        std::istringstream in(out.str());
        std::string line;
        int64_t n = 0;
        nlohmann::json last;
        while (std::getline(in, line)) {
          last = nlohmann::json::parse(line);
          ++n;
        }
        EXPECT_EQ(n, *rows);
        if (table == "results") {
          EXPECT_EQ(last["message"], odd.message);
          EXPECT_EQ(last["max_abs_err"], "inf");
          EXPECT_EQ(last["max_rel_err"].get<double>(), 0.1 + 0.2);
          EXPECT_TRUE(last["rel_l2"].is_null());
          EXPECT_EQ(last["run_id"], *id);
        }
      }
    }
  }
  // Filters: one run, one suite.
  ExportRequest one;
  one.run_id = ids[0];
  std::ostringstream out;
  StatusOr<int64_t> rows = store->Export(one, out);
  ASSERT_TRUE(rows.ok());
  EXPECT_EQ(*rows, 3);
  one.run_id.reset();
  one.suite = "nosuch";
  EXPECT_EQ(*store->Export(one, out), 0);
  one.table = "nosuch";
  StatusOr<int64_t> bad = store->Export(one, out);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("use one of runs, results, metrics, findings"),
            std::string::npos);
}

}  // namespace
}  // namespace harness
