// History, baselines and run loading over a fixture store built through the
// Store API in a temporary directory.
#include "detect/history.h"

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "base/host_probe.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace {

using harness::CaseResult;
using harness::Store;

CaseResult Result(const std::string& id, double modeled, double wall, double ulp = 1) {
  CaseResult r;
  r.suite = "smoke";
  r.case_id = id;
  r.status = harness::CaseStatus::kPassed;
  r.max_ulp = ulp;
  r.rel_l2 = 1e-3;
  r.modeled_us = modeled;
  r.wall_us = {wall, wall * 1.01, wall * 0.99};
  r.peak_device_bytes = 4096;
  r.metrics = {{"out0", "max_ulp", ulp, 4, false}};
  r.ops = {{"mm", 2, modeled * 0.75, wall * 0.5, 0}, {"add", 1, modeled * 0.25, wall * 0.1, 1}};
  r.extra = {{"golden_digest", "abc"}};
  return r;
}

class HistoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = Store::Open(dir_.File("h.db"));
    ASSERT_TRUE(s.ok()) << s.status().message();
    store_ = std::move(*s);
  }

  // Records a completed run; returns its id.
  int64_t AddRun(const std::string& profile, const std::string& cpu, std::vector<CaseResult> cases,
                 const std::string& label = "",
                 harness::RunStatus status = harness::RunStatus::kCompleted,
                 const std::string& faults = "", const std::string& options_json = "{}") {
    harness::NewRun run;
    run.suite = "smoke";
    run.label = label;
    run.options_json = options_json;
    nlohmann::json env = {
        {"profile", profile}, {"cpu", cpu}, {"libtorch", "1.13.0"}, {"faults", faults}};
    run.env_json = env.dump();
    run.fingerprint = profile + cpu;
    auto id = store_->BeginRun(run);
    EXPECT_TRUE(id.ok()) << id.status().message();
    for (const CaseResult& c : cases) EXPECT_TRUE(store_->RecordResult(*id, c).ok());
    EXPECT_TRUE(store_->FinishRun(*id, status).ok());
    return *id;
  }

  spyre_test::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(HistoryTest, RunRecordRoundTripsEverythingTheJudgeUses) {
  int64_t id = AddRun("inductor", "cpu-a", {Result("a", 10, 100, 2), Result("b", 20, 200)});
  auto run = harness::LoadRunRecord(*store_, id);
  ASSERT_TRUE(run.ok()) << run.status().message();
  ASSERT_EQ(run->cases.size(), 2u);
  const CaseResult& a = run->cases[0];
  EXPECT_EQ(a.case_id, "a");
  EXPECT_EQ(a.max_ulp, 2);
  EXPECT_EQ(a.wall_us.size(), 3u);
  EXPECT_DOUBLE_EQ(a.wall_us[1], 101);
  ASSERT_EQ(a.ops.size(), 2u);
  EXPECT_EQ(a.ops[1].op, "mm");
  EXPECT_EQ(a.ops[0].fallbacks, 1);
  ASSERT_EQ(a.metrics.size(), 1u);
  EXPECT_EQ(a.metrics[0].limit, 4);
  EXPECT_EQ(a.extra["golden_digest"], "abc");
  EXPECT_EQ(run->env["profile"], "inductor");
  EXPECT_FALSE(harness::LoadRunRecord(*store_, 999).ok());
}

TEST_F(HistoryTest, AutoBaselineIsTheLatestEarlierCompletedRunOnTheSameCpu) {
  int64_t r1 = AddRun("inductor", "cpu-a", {Result("a", 10, 100)}, "release");
  int64_t r2 = AddRun("inductor", "cpu-b", {Result("a", 10, 100)});
  AddRun("inductor", "cpu-a", {Result("a", 10, 100)}, "", harness::RunStatus::kAborted);
  int64_t r4 = AddRun("inductor", "cpu-z", {Result("other", 10, 100)});  // shares no case
  int64_t cand = AddRun("inductor", "cpu-a", {Result("a", 10, 100)});
  harness::Store& db = *store_;
  EXPECT_EQ(*harness::ResolveBaseline(db, "auto", cand), r1);  // same CPU beats newer r2
  EXPECT_EQ(*harness::ResolveBaseline(db, "auto", r2), r1);    // no same-CPU run: newest
  EXPECT_FALSE(harness::ResolveBaseline(db, "auto", r1)->has_value());
  EXPECT_FALSE(harness::ResolveBaseline(db, "auto", r4)->has_value());
  EXPECT_FALSE(harness::ResolveBaseline(db, "none", cand)->has_value());
  EXPECT_EQ(*harness::ResolveBaseline(db, std::to_string(r2), cand), r2);
  EXPECT_EQ(*harness::ResolveBaseline(db, "label:release", cand), r1);
  EXPECT_EQ(harness::ResolveBaseline(db, "label:nope", cand).status().code(),
            harness::ErrorCode::kNotFound);
  EXPECT_EQ(harness::ResolveBaseline(db, "999", cand).status().code(),
            harness::ErrorCode::kNotFound);
  EXPECT_EQ(harness::ResolveBaseline(db, "3", cand).status().code(),
            harness::ErrorCode::kInvalidInput);  // aborted
  EXPECT_EQ(harness::ResolveBaseline(db, "yesterday", cand).status().code(),
            harness::ErrorCode::kUsage);
}

TEST_F(HistoryTest, AutoBaselineSkipsRunsWithInjectedFaultsOrHarnessErrorsAndSaysWhy) {
  int64_t clean = AddRun("inductor", "cpu-a", {Result("a", 10, 100), Result("b", 10, 100)});
  int64_t faulted = AddRun("inductor", "cpu-a", {Result("a", 10, 100)}, "",
                           harness::RunStatus::kCompleted, "mm:slow=2");
  CaseResult errored = Result("b", 10, 100);
  errored.status = harness::CaseStatus::kError;
  int64_t broken = AddRun("inductor", "cpu-a", {Result("a", 10, 100), errored});
  CaseResult failed = Result("a", 10, 100);
  failed.status = harness::CaseStatus::kFailed;
  int64_t none_passed = AddRun("inductor", "cpu-a", {failed});
  int64_t cand = AddRun("inductor", "cpu-a", {Result("a", 10, 100)});
  auto choice = harness::ChooseBaseline(*store_, "auto", cand);
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_EQ(choice->run_id, clean);
  for (const std::string& why :
       std::vector<std::string>{"no injected faults and no harness errors",
                                "run " + std::to_string(faulted) + ": injected faults 'mm:slow=2'",
                                "run " + std::to_string(broken) + ": 1 case(s) errored",
                                "run " + std::to_string(none_passed) + ": no case passed"}) {
    EXPECT_NE(choice->reason.find(why), std::string::npos) << choice->reason;
  }
  // Named explicitly, a faulted run is still a baseline: the user asked for it.
  EXPECT_EQ(*harness::ResolveBaseline(*store_, std::to_string(faulted), cand), faulted);
}

// A store that records both compiler-stack profiles compares each run with
// its own profile's; the first run of a profile falls back to the other,
// and the reason says so.
TEST_F(HistoryTest, AutoBaselinePrefersTheCandidatesOwnProfile) {
  const int64_t first = AddRun("inductor", "cpu-a", {Result("a", 10, 100)});
  const int64_t other_first = AddRun("sendnn", "cpu-a", {Result("a", 10, 100)});
  auto choice = harness::ChooseBaseline(*store_, "auto", other_first);
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_EQ(choice->run_id, first);
  EXPECT_NE(choice->reason.find("under profile 'inductor' (none was run under 'sendnn')"),
            std::string::npos)
      << choice->reason;

  const int64_t second = AddRun("inductor", "cpu-a", {Result("a", 10, 100)});
  const int64_t other_second = AddRun("sendnn", "cpu-b", {Result("a", 10, 100)});
  // The newest earlier run is another profile's: passed over for the own
  // profile's, even on another CPU model.
  choice = harness::ChooseBaseline(*store_, "auto", second);
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_EQ(choice->run_id, first);
  EXPECT_NE(choice->reason.find(", under the same profile"), std::string::npos) << choice->reason;
  choice = harness::ChooseBaseline(*store_, "auto", other_second);
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_EQ(choice->run_id, other_first);
  EXPECT_EQ(choice->reason.find("under profile"), std::string::npos) << choice->reason;
}

// A run with faults is compared with the latest run with the very same
// faults, and the reason says so rather than "no injected faults".
TEST_F(HistoryTest, AFaultedCandidateNamesTheSameFaultsOfItsBaseline) {
  AddRun("inductor", "cpu-a", {Result("a", 10, 100)});
  const int64_t same = AddRun("inductor", "cpu-a", {Result("a", 10, 100)}, "",
                              harness::RunStatus::kCompleted, "mm:slow=2");
  const int64_t cand = AddRun("inductor", "cpu-a", {Result("a", 10, 100)}, "",
                              harness::RunStatus::kCompleted, "mm:slow=2");
  auto choice = harness::ChooseBaseline(*store_, "auto", cand);
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_EQ(choice->run_id, same);
  EXPECT_NE(choice->reason.find("with the same injected faults 'mm:slow=2' and no harness errors"),
            std::string::npos)
      << choice->reason;
  EXPECT_EQ(choice->reason.find("no injected faults"), std::string::npos) << choice->reason;
}

TEST_F(HistoryTest, ARunThatCompletedWithPlannedCasesMissingIsNeverABaseline) {
  const int64_t whole =
      AddRun("inductor", "cpu-a", {Result("a", 10, 100), Result("b", 10, 100)}, "release");
  // It set out to record five cases and recorded two (a store write that
  // failed, a supervisor that lost its workers' results).
  const int64_t partial =
      AddRun("inductor", "cpu-a", {Result("a", 10, 100), Result("b", 10, 100)}, "release",
             harness::RunStatus::kCompleted, "", R"({"cases": 5})");
  const int64_t cand = AddRun("inductor", "cpu-a", {Result("a", 10, 100), Result("b", 10, 100)});

  auto choice = harness::ChooseBaseline(*store_, "auto", cand);
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_EQ(choice->run_id, whole);
  EXPECT_NE(choice->reason.find("run " + std::to_string(partial) +
                                ": completed with cases missing: 2 of 5 planned cases recorded"),
            std::string::npos)
      << choice->reason;

  choice = harness::ChooseBaseline(*store_, "label:release", cand);
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  EXPECT_EQ(choice->run_id, whole);
  EXPECT_NE(choice->reason.find("passed over run " + std::to_string(partial)), std::string::npos)
      << choice->reason;

  auto named = harness::ChooseBaseline(*store_, std::to_string(partial), cand);
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().code(), harness::ErrorCode::kInvalidInput);
  EXPECT_NE(named.status().message().find("2 of 5 planned cases recorded"), std::string::npos)
      << named.status().message();
}

TEST_F(HistoryTest, ATwofoldWallShiftLastingFourRunsIsAChangePoint) {
  // ~350 us for ten runs (10% jitter), then ~3,000 us (20% jitter) for four.
  std::vector<harness::SeriesPoint> series;
  const double jitter[] = {1.0, 1.1, 0.92, 1.05, 0.97, 1.08, 0.9, 1.02, 0.95, 1.1};
  for (int i = 0; i < 14; ++i) {
    harness::SeriesPoint p;
    p.run_id = i + 1;
    p.value = i < 10 ? 350 * jitter[i] : 3000 * (i % 2 == 0 ? 1.2 : 0.8);
    series.push_back(p);
  }
  auto shifts = harness::FindShifts("s", "c", "wall_us_median", series);
  ASSERT_EQ(shifts.size(), 1u);
  EXPECT_EQ(shifts[0].first_run_id, 11);
  EXPECT_NEAR(shifts[0].point.after / shifts[0].point.before, 3000.0 / 350, 2.5);
  // A 2x shift for four runs in the middle of the series, then back.
  for (int i = 0; i < 4; ++i) series[static_cast<size_t>(10 + i)].value = 700 * jitter[i];
  for (int i = 0; i < 6; ++i) {
    harness::SeriesPoint p;
    p.run_id = 15 + i;
    p.value = 350 * jitter[i + 4];
    series.push_back(p);
  }
  shifts = harness::FindShifts("s", "c", "wall_us_median", series);
  ASSERT_EQ(shifts.size(), 2u);
  EXPECT_EQ(shifts[0].first_run_id, 11);
  EXPECT_EQ(shifts[1].first_run_id, 15);
}

// Twelve cases, each at its own level with a few percent of its own jitter,
// times the host's level in each run and times `moved(case, run)`.
class SuiteLevelTest : public HistoryTest {
 protected:
  static constexpr int kCases = 12;
  std::vector<int64_t> AddRuns(const std::vector<double>& host,
                               const std::function<double(int, int)>& moved) {
    std::vector<int64_t> ids;
    const double jitter[] = {1.0, 1.03, 0.98, 1.01, 0.97, 1.02, 0.99, 1.04, 0.96, 1.0, 1.02, 0.98, 1.01};
    for (size_t r = 0; r < host.size(); ++r) {
      std::vector<CaseResult> cases;
      for (int c = 0; c < kCases; ++c) {
        const double own = 100.0 * (c + 1) * jitter[(r + 3 * static_cast<size_t>(c)) % 13];
        cases.push_back(Result("c" + std::to_string(c), 10, own * host[r] * moved(c, static_cast<int>(r))));
      }
      ids.push_back(AddRun("inductor", "cpu-a", cases));
    }
    return ids;
  }
  std::vector<harness::HistoryShift> History() {
    auto shifts = harness::SuiteHistory(*store_, "smoke", "", {});
    EXPECT_TRUE(shifts.ok()) << shifts.status().message();
    return shifts.ok() ? *shifts : std::vector<harness::HistoryShift>{};
  }
};

// Runs 10-15 of 18 with the whole host 1.4x slower (a parallel build's phase).
const std::vector<double> kHostPhase = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1.4, 1.4, 1.4, 1.4, 1.4, 1.4, 1, 1, 1};

TEST_F(SuiteLevelTest, TheHostsLevelIsDividedOutAndAPulseOfAFewCasesIsStillFound) {
  // Cases c0-c2 ran 2x slower in runs 4-7.
  auto ids = AddRuns(kHostPhase, [](int c, int r) { return c < 3 && r >= 3 && r < 7 ? 2.0 : 1.0; });
  auto series = harness::LoadSuiteSeries(*store_, "smoke", "", "wall_us_median");
  ASSERT_TRUE(series.ok());
  const auto levels = harness::SuiteLogLevels(*series);
  ASSERT_EQ(levels.size(), ids.size());
  for (size_t r = 0; r < ids.size(); ++r) {
    EXPECT_NEAR(levels.at(ids[r]), std::log(kHostPhase[r]), 0.06) << "run " << r + 1;
  }
  // Without the level, the host's phase is a change point of every case.
  size_t raw = 0;
  for (const auto& [name, s] : *series) raw += harness::FindShifts("smoke", name, "wall_us_median", s).size();
  EXPECT_GE(raw, 9u * 2) << "the fixture's host phase must be visible without the level";

  std::map<std::string, std::set<int64_t>> per_case;
  std::set<int64_t> suite_edges;
  for (const auto& s : History()) {
    if (s.suite_level) {
      EXPECT_EQ(s.metric, "wall_level");
      EXPECT_TRUE(s.case_name.empty());
      EXPECT_EQ(s.level_cases, 12u);
      EXPECT_EQ(s.moved_with.size(), 12u) << "every case moved with the host";
      suite_edges.insert(s.first_run_id);
      continue;
    }
    ASSERT_EQ(s.metric, "wall_us_median") << s.case_name;
    EXPECT_TRUE(s.level_removed);
    per_case[s.case_name].insert(s.first_run_id);
  }
  const std::set<int64_t> pulse = {ids[3], ids[7]};
  EXPECT_EQ(per_case.size(), 3u) << "only the pulsed cases have change points";
  for (const char* c : {"c0", "c1", "c2"}) EXPECT_EQ(per_case[c], pulse) << c;
  EXPECT_EQ(suite_edges, (std::set<int64_t>{ids[9], ids[15]})) << "the host's phase, said once";
}

TEST_F(SuiteLevelTest, WhenMostCasesMoveTheLevelMovesAndTheOthersAreNotBlamed) {
  // c0-c6 (7 of 12) twice as slow from run 9 on; c7-c11 unchanged. Divided
  // by the level, the unchanged ones look twice as fast: their own medians
  // did not move, so they get no change point, and the suite's level does.
  auto ids = AddRuns(std::vector<double>(16, 1.0), [](int c, int r) { return c < 7 && r >= 8 ? 2.0 : 1.0; });
  int suite = 0;
  for (const auto& s : History()) {
    if (s.suite_level) {
      ++suite;
      EXPECT_EQ(s.first_run_id, ids[8]);
      EXPECT_NEAR(s.point.relative, 1.0, 0.1);
      EXPECT_EQ(s.moved_with, (std::vector<std::string>{"c0", "c1", "c2", "c3", "c4", "c5", "c6"}));
      EXPECT_EQ(s.level_cases, 12u);
      continue;
    }
    ADD_FAILURE() << s.case_name << " at run " << s.first_run_id << " " << s.point.relative;
  }
  EXPECT_EQ(suite, 1);
  // Asked about one case: the level's shift when the case moved with it.
  auto moved = harness::SuiteHistory(*store_, "smoke", "c3", {});
  ASSERT_TRUE(moved.ok());
  ASSERT_EQ(moved->size(), 1u);
  EXPECT_TRUE(moved->front().suite_level);
  EXPECT_EQ(moved->front().first_run_id, ids[8]);
  auto still = harness::SuiteHistory(*store_, "smoke", "c9", {});
  ASSERT_TRUE(still.ok());
  EXPECT_TRUE(still->empty()) << "c9 did not move";
  // The same with the metric named.
  moved = harness::SuiteHistory(*store_, "smoke", "c3", {"wall_us_median"});
  ASSERT_TRUE(moved.ok());
  ASSERT_EQ(moved->size(), 1u);
  EXPECT_TRUE(moved->front().suite_level);
}

TEST_F(SuiteLevelTest, AFourRunPulseOfEveryCaseIsFoundAtBothEdgesForTheSuiteAndEachCase) {
  // Every case 2x slower in runs 9-12 of 20 (a slower build for four
  // nights): the per-run level moves with all of them, and dividing it out
  // must not absorb the change. The suite's level has both edges, each
  // naming every case as having moved with it, and each case asked for alone
  // reports the same two edges.
  auto ids = AddRuns(std::vector<double>(20, 1.0), [](int, int r) { return r >= 8 && r < 12 ? 2.0 : 1.0; });
  std::set<int64_t> edges;
  for (const auto& s : History()) {
    ASSERT_TRUE(s.suite_level) << s.case_name << " at run " << s.first_run_id;
    EXPECT_EQ(s.moved_with.size(), 12u) << "every case moved with the suite at run " << s.first_run_id;
    EXPECT_NEAR(std::fabs(s.point.relative), s.first_run_id == ids[8] ? 1.0 : 0.5, 0.1);
    edges.insert(s.first_run_id);
  }
  EXPECT_EQ(edges, (std::set<int64_t>{ids[8], ids[12]})) << "both edges of the pulse";
  for (int c = 0; c < kCases; ++c) {
    auto own = harness::SuiteHistory(*store_, "smoke", "c" + std::to_string(c), {});
    ASSERT_TRUE(own.ok());
    std::set<int64_t> case_edges;
    for (const auto& s : *own) case_edges.insert(s.first_run_id);
    EXPECT_EQ(case_edges, (std::set<int64_t>{ids[8], ids[12]})) << "c" << c;
  }
}

// Runs of twelve cases as recorded by `run` on a shared host: each case's
// wall time less run-queue wait (unqueued_us_median, the default wall series),
// its wall time and the host probe beside it. host[r] moves every case and
// the probe (`probe_follows` of its log move), build[r] every case only, and
// queue[r] (when given) is the run's wall time over its wall time less
// run-queue wait; each case and each probe has a few percent of its own
// jitter, in a cycle that holds no step of its own (the search's chance
// findings in random noise are changepoint_test's and pulse_rates' subject,
// not this one's).
class ProbedLevelTest : public HistoryTest {
 protected:
  static constexpr int kCases = 12;
  std::vector<int64_t> AddRuns(const std::vector<double>& host, const std::vector<double>& build,
                               double probe_follows = 1.0, const std::vector<double>& queue = {},
                               const std::vector<double>& busy = {}) {
    const double jitter[] = {1.0, 1.03, 0.98, 1.01, 0.97, 1.02, 0.99, 1.04, 0.96, 1.0, 1.02, 0.98, 1.01};
    std::vector<int64_t> ids;
    for (size_t r = 0; r < host.size(); ++r) {
      std::vector<CaseResult> cases;
      const double waited = queue.empty() ? 1.0 : queue[r];
      for (size_t c = 0; c < kCases; ++c) {
        const double own = 100.0 * static_cast<double>(c + 1) * jitter[(r + 3 * c) % 13];
        CaseResult res = Result("c" + std::to_string(c), 10, own * host[r] * build[r] * waited);
        for (double w : res.wall_us) res.queue_us.push_back(w * (1 - 1 / waited));
        res.extra["host_probe_us"] = 12.0 * std::pow(host[r], probe_follows) * jitter[(5 * r + c) % 13];
        if (!busy.empty()) {
          // Ten ticks a case, pooled over the run's twelve.
          const auto others = static_cast<int64_t>(std::lround(10 * busy[r] * jitter[(7 * r + c) % 13]));
          res.extra["host_busy"] = {{"others", std::min<int64_t>(others, 10)}, {"ticks", 10}};
        }
        cases.push_back(std::move(res));
      }
      ids.push_back(AddRun("inductor", "cpu-a", cases));
    }
    return ids;
  }
  std::vector<harness::HistoryShift> History(const std::string& case_name = "",
                                             std::vector<harness::SuiteLevelPoint>* levels = nullptr) {
    auto shifts = harness::SuiteHistory(*store_, "smoke", case_name, {}, levels);
    EXPECT_TRUE(shifts.ok()) << shifts.status().message();
    return shifts.ok() ? *shifts : std::vector<harness::HistoryShift>{};
  }
  // The history of a host that slowed for runs ids[8]-ids[11]: only the
  // suite's level moves, at both edges, each put down to the host; no case
  // has a change point of its own. Returns the level's change points.
  std::vector<harness::HistoryShift> HostOnlyShifts(const std::vector<int64_t>& ids) {
    std::vector<harness::HistoryShift> level;
    std::set<int64_t> edges;
    for (const auto& s : History()) {
      if (!s.suite_level) {
        ADD_FAILURE() << s.case_name << " at run " << s.first_run_id << " " << s.point.relative;
        continue;
      }
      edges.insert(s.first_run_id);
      EXPECT_EQ(s.level_cause, harness::LevelCause::kHost) << "run " << s.first_run_id;
      level.push_back(s);
    }
    EXPECT_EQ(edges, (std::set<int64_t>{ids[8], ids[12]}));
    return level;
  }
};

// Runs 9-12 of 20.
std::vector<double> FourRunPulse(double factor) {
  std::vector<double> v(20, 1.0);
  for (size_t r = 8; r < 12; ++r) v[r] = factor;
  return v;
}

TEST_F(ProbedLevelTest, EveryCaseSlowerWithTheProbeSteadyIsABuildChangeOfEachCase) {
  // A slower build for four nights: every case 2x, the host as fast as ever.
  auto ids = AddRuns(std::vector<double>(20, 1.0), FourRunPulse(2.0));
  const std::set<int64_t> edges = {ids[8], ids[12]};
  std::map<std::string, std::set<int64_t>> per_case;
  std::set<int64_t> suite_edges;
  std::vector<harness::SuiteLevelPoint> levels;
  for (const auto& s : History("", &levels)) {
    if (s.suite_level) {
      suite_edges.insert(s.first_run_id);
      EXPECT_EQ(s.level_cause, harness::LevelCause::kNotHost) << "run " << s.first_run_id;
      ASSERT_TRUE(std::isfinite(s.probe_relative));
      EXPECT_LT(std::fabs(s.probe_relative), 0.05) << "the probe did not move";
      EXPECT_NEAR(s.queue_relative, 0.0, 1e-9) << "nor did the run-queue wait";
      EXPECT_EQ(s.moved_with.size(), 12u);
      continue;
    }
    EXPECT_EQ(s.metric, "unqueued_us_median") << s.case_name;
    EXPECT_TRUE(s.level_removed) << s.case_name;
    EXPECT_NEAR(std::fabs(s.point.relative), s.first_run_id == ids[8] ? 1.0 : 0.5, 0.15) << s.case_name;
    per_case[s.case_name].insert(s.first_run_id);
  }
  EXPECT_EQ(suite_edges, edges) << "the suite's own change points stay";
  ASSERT_EQ(per_case.size(), 12u) << "every case has change points of its own";
  for (const auto& [name, runs] : per_case) EXPECT_EQ(runs, edges) << name;
  // What was divided out: the level but for the build's pulse.
  ASSERT_EQ(levels.size(), ids.size());
  for (size_t r = 0; r < ids.size(); ++r) {
    EXPECT_EQ(levels[r].run_id, ids[r]);
    EXPECT_NEAR(levels[r].level, r >= 8 && r < 12 ? 2.0 : 1.0, 0.1) << "run " << r + 1;
    EXPECT_NEAR(levels[r].divided, 1.0, 0.1) << "run " << r + 1;
    EXPECT_NEAR(levels[r].probe, 1.0, 0.05) << "run " << r + 1;
    EXPECT_NEAR(levels[r].queue, 1.0, 1e-9) << "run " << r + 1;
  }
  // Asked for one case: its own two change points and the suite's two.
  const auto own = History("c5");
  size_t case_points = 0, suite_points = 0;
  for (const auto& s : own) {
    (s.suite_level ? suite_points : case_points) += 1;
    EXPECT_TRUE(edges.count(s.first_run_id)) << s.first_run_id;
  }
  EXPECT_EQ(case_points, 2u);
  EXPECT_EQ(suite_points, 2u);
}

TEST_F(ProbedLevelTest, EveryCaseSlowerWithTheProbeSlowerTooIsTheHost) {
  // The host at half speed for four runs: the cases and the probe slow alike
  // (the probe a little less: it is not the cases' arithmetic).
  auto ids = AddRuns(FourRunPulse(2.0), std::vector<double>(20, 1.0), 0.85);
  for (const auto& s : HostOnlyShifts(ids)) {
    EXPECT_NEAR(s.probe_relative, s.first_run_id == ids[8] ? 0.8 : -0.45, 0.1);
    EXPECT_EQ(s.moved_with.size(), 12u);
  }
}

TEST_F(ProbedLevelTest, EveryCaseSlowerWithRunQueueWaitsRisingIsTheHost) {
  // Busy processes beside four runs: the cases waited for a CPU three times
  // as long as they ran, and even without the waits they ran 12% slower
  // (caches refilled after each preemption); the probe, a short loop whose
  // median leaves the preempted ones out, did not move.
  std::vector<double> busy = FourRunPulse(1.12), waits = FourRunPulse(3.0);
  auto ids = AddRuns(busy, std::vector<double>(20, 1.0), 0.0, waits);
  for (const auto& s : HostOnlyShifts(ids)) {
    EXPECT_NEAR(s.probe_relative, 0.0, 0.05) << "the probe did not move";
    EXPECT_NEAR(s.queue_relative, s.first_run_id == ids[8] ? 2.0 : -2.0 / 3, 0.1);
  }
}

TEST_F(ProbedLevelTest, UnchangedRunsOnANoisyHostHaveNoChangePoint) {
  // Twenty unchanged runs; the host's speed wanders by up to +-25% from run
  // to run (log-uniform; mt19937's output is fixed by the standard), the
  // probe follows it only in part, and the run-queue waits add 0-100%.
  std::mt19937 gen(7);
  auto uniform = [&gen] { return (gen() >> 8) / 16777216.0; };
  std::vector<double> host, waits;
  for (int r = 0; r < 20; ++r) {
    host.push_back(std::exp(0.25 * (2.0 * uniform() - 1.0)));
    waits.push_back(1.0 + uniform());
  }
  AddRuns(host, std::vector<double>(20, 1.0), 0.5, waits);
  for (const auto& s : History()) {
    ADD_FAILURE() << (s.suite_level ? "suite level" : s.case_name) << " at run " << s.first_run_id;
  }
}

// Every case 12% faster from run 12 on, as the rest of the machine went
// from idle to a third busy, with neither the probe nor the waits moving:
// the host's, divided out, no change point of a case. The same step without
// a neighbour stays in the cases, as a build change must.
TEST_F(ProbedLevelTest, ALevelStepThatCameWithANeighbourIsTheHosts) {
  std::vector<double> build(20, 1.0), busy(20, 0.02);
  for (size_t r = 12; r < 20; ++r) {
    build[r] = 0.88;
    busy[r] = 0.33;
  }
  const std::vector<int64_t> ids = AddRuns(std::vector<double>(20, 1.0), build, 1.0, {}, busy);
  std::vector<harness::SuiteLevelPoint> levels;
  int level_points = 0;
  for (const auto& s : History("", &levels)) {
    if (!s.suite_level) {
      ADD_FAILURE() << s.case_name << " at run " << s.first_run_id << " " << s.point.relative;
      continue;
    }
    ++level_points;
    EXPECT_EQ(s.first_run_id, ids[12]);
    EXPECT_EQ(s.level_cause, harness::LevelCause::kHost);
    EXPECT_NEAR(s.busy_before, 0.0, 0.03);
    EXPECT_NEAR(s.busy_after, 0.33, 0.05);
  }
  EXPECT_EQ(level_points, 1);
  ASSERT_EQ(levels.size(), 20u);
  EXPECT_NEAR(levels.back().busy, 0.33, 0.05);
}

TEST_F(ProbedLevelTest, TheSameStepWithTheMachineAsBusyAsBeforeIsTheBuilds) {
  std::vector<double> build(20, 1.0);
  for (size_t r = 12; r < 20; ++r) build[r] = 0.88;
  const std::vector<int64_t> ids =
      AddRuns(std::vector<double>(20, 1.0), build, 1.0, {}, std::vector<double>(20, 0.3));
  int cases_moved = 0;
  for (const auto& s : History()) {
    if (s.suite_level) {
      EXPECT_EQ(s.level_cause, harness::LevelCause::kNotHost);
      continue;
    }
    // A 12% step against a few percent of jitter: found at run 12 or next to it.
    EXPECT_GE(s.first_run_id, ids[11]) << s.case_name;
    EXPECT_LE(s.first_run_id, ids[13]) << s.case_name;
    EXPECT_LT(s.point.relative, 0) << s.case_name;
    ++cases_moved;
  }
  EXPECT_GE(cases_moved, kCases / 2);
}

TEST(LevelAttributionTest, AStepUnderTenPercentThatNoWitnessExplainsIsSaidForTheSuite) {
  using harness::LevelCause;
  using harness::WitnessRuns;
  const WitnessRuns still{{0, 0.01, -0.01, 0}, {0, 0.01, -0.01}};
  harness::WitnessChange change;
  for (const double step : {0.95, 1.07, 0.915, 1.095}) {
    EXPECT_EQ(harness::AttributeLevelShift(std::log(step), {still, still, {}}, &change),
              LevelCause::kSmall)
        << step;
  }
  for (const double step : {0.9, 1.11, 2.0, 0.5}) {
    EXPECT_EQ(harness::AttributeLevelShift(std::log(step), {still, still, {}}, &change),
              LevelCause::kNotHost)
        << step;
  }
  EXPECT_STREQ(harness::LevelCauseName(LevelCause::kSmall), "small");
}

// A whole suite 6% slower from run 12 on, no witness moving: one suite-level
// change point, no change point of any case.
TEST_F(ProbedLevelTest, ASmallUnexplainedStepOfEveryCaseIsSaidOnceForTheSuite) {
  std::vector<double> build(20, 1.0);
  for (size_t r = 12; r < 20; ++r) build[r] = 1.06;
  const std::vector<int64_t> ids = AddRuns(std::vector<double>(20, 1.0), build);
  int level_points = 0;
  for (const auto& s : History()) {
    if (!s.suite_level) {
      ADD_FAILURE() << s.case_name << " at run " << s.first_run_id << " " << s.point.relative;
      continue;
    }
    ++level_points;
    EXPECT_EQ(s.level_cause, harness::LevelCause::kSmall);
    EXPECT_EQ(s.first_run_id, ids[12]);
  }
  EXPECT_EQ(level_points, 1);
}

TEST(LevelAttributionTest, AWitnessMustMoveAtLeastHalfAsFarTheSameWay) {
  using harness::LevelCause;
  using harness::WitnessRuns;
  const double level = std::log(2.0);
  auto moved = [](double shift) {
    return WitnessRuns{{0, 0.01, -0.01, 0}, {shift, shift + 0.01, shift - 0.01}};
  };
  const WitnessRuns still = moved(0.0);
  double probe = 0, queue = 0;
  auto attribute = [&](double shift, const WitnessRuns& p, const WitnessRuns& q) {
    harness::WitnessChange change;
    const LevelCause cause = harness::AttributeLevelShift(shift, {p, q, {}}, &change);
    probe = change.probe_relative;
    queue = change.queue_relative;
    return cause;
  };
  EXPECT_EQ(attribute(level, still, still), LevelCause::kNotHost);
  EXPECT_NEAR(probe, 0.0, 1e-12);
  EXPECT_NEAR(queue, 0.0, 1e-12);
  EXPECT_EQ(attribute(level, moved(0.49 * level), still), LevelCause::kNotHost);
  EXPECT_EQ(attribute(level, moved(0.51 * level), still), LevelCause::kHost);
  EXPECT_NEAR(probe, std::expm1(0.51 * level), 1e-9);
  EXPECT_EQ(attribute(level, still, moved(0.49 * level)), LevelCause::kNotHost);
  EXPECT_EQ(attribute(level, still, moved(0.51 * level)), LevelCause::kHost)
      << "a busier host: the waits rose, the probe did not";
  EXPECT_NEAR(queue, std::expm1(0.51 * level), 1e-9);
  EXPECT_EQ(attribute(level, moved(-level), still), LevelCause::kNotHost)
      << "a probe that went the other way did not make the level rise";
  EXPECT_EQ(attribute(-level, moved(-0.6 * level), still), LevelCause::kHost);
  // Too few runs with a witness: unknown, unless the other one saw the host.
  const WitnessRuns few{{0.0, 0.0}, {0.0, 0.0, 0.0}};
  EXPECT_EQ(attribute(level, few, still), LevelCause::kUnknown);
  EXPECT_TRUE(std::isnan(probe));
  EXPECT_EQ(attribute(level, still, few), LevelCause::kUnknown);
  EXPECT_TRUE(std::isnan(queue));
  EXPECT_EQ(attribute(level, few, moved(level)), LevelCause::kHost);
}

TEST(LevelAttributionTest, ANeighbourThatStartedOrStoppedMakesItTheHostsEitherWay) {
  using harness::LevelCause;
  using harness::WitnessRuns;
  const WitnessRuns still{{0, 0.01, -0.01, 0}, {0, 0.01, -0.01}};
  // The cases ran 12% faster from the run where the rest of the machine got
  // busier (a neighbour kept the other CPU, so the case stayed on its
  // own), with neither the probe nor the waits moving.
  const double level = std::log(0.88);
  harness::WitnessChange change;
  const WitnessRuns busier{{0.02, 0.05, 0.03, 0.04}, {0.31, 0.28, 0.35}};
  EXPECT_EQ(harness::AttributeLevelShift(level, {still, still, busier}, &change), LevelCause::kHost);
  EXPECT_NEAR(change.busy_before, 0.035, 1e-12);
  EXPECT_NEAR(change.busy_after, 0.31, 1e-12);
  // The other way round, and slower: the host's as well.
  const WitnessRuns quieter{busier.after, busier.before};
  EXPECT_EQ(harness::AttributeLevelShift(-level, {still, still, quieter}, &change),
            LevelCause::kHost);
  // Less than kHostBusyShift of the machine: the build's.
  const WitnessRuns wander{{0.02, 0.05, 0.03, 0.04}, {0.09, 0.12, 0.08}};
  EXPECT_EQ(harness::AttributeLevelShift(level, {still, still, wander}, &change),
            LevelCause::kNotHost);
  EXPECT_NEAR(change.busy_after - change.busy_before, 0.055, 1e-12);
  // A step far beyond what a neighbour that leaves a CPU free does: not
  // put down to it (the end of a 2x slower build that came as a neighbour
  // stopped).
  EXPECT_EQ(harness::AttributeLevelShift(std::log(0.5), {still, still, quieter}, &change),
            LevelCause::kNotHost);
  // Too few runs that recorded it (older runs): it says nothing, and the
  // other two decide as before.
  const WitnessRuns few{{0.0, 0.0}, {0.5, 0.5, 0.5}};
  EXPECT_EQ(harness::AttributeLevelShift(level, {still, still, few}, &change), LevelCause::kNotHost);
  EXPECT_TRUE(std::isnan(change.busy_before));
}

TEST(LevelAttributionTest, TheWitnessesAreTheRunsMediansRelativeToTheUsual) {
  harness::SeriesTable probes, wall, unqueued;
  for (int r = 1; r <= 5; ++r) {
    for (auto* t : {&probes, &wall, &unqueued}) t->runs.push_back({r, "", "", {}});
  }
  for (size_t c = 0; c < 9; ++c) {
    const std::string name = "c" + std::to_string(c);
    for (size_t r = 0; r < 5; ++r) {
      // One case's probe is wild in every run: the median does not see it.
      probes.cases[name].emplace_back(r, c == 0 ? 1000.0 : (r == 3 ? 15.0 : 10.0) * (1 + 0.001 * c));
      // Wall time is 1.1x the time less waits, twice that in the fifth run.
      unqueued.cases[name].emplace_back(r, 100.0 * (c + 1));
      wall.cases[name].emplace_back(r, 100.0 * (c + 1) * (r == 4 ? 2.2 : 1.1));
    }
  }
  auto levels = harness::HostProbeLogLevels(probes);
  ASSERT_EQ(levels.size(), 5u);
  EXPECT_NEAR(levels[1], 0.0, 1e-9);
  EXPECT_NEAR(std::exp(levels[4]), 1.5, 1e-9);
  EXPECT_TRUE(harness::HostProbeLogLevels(probes, 10).empty()) << "nine cases are too few for ten";
  auto queue = harness::RunQueueLogLevels(wall, unqueued);
  ASSERT_EQ(queue.size(), 5u);
  EXPECT_NEAR(queue[1], 0.0, 1e-9);
  EXPECT_NEAR(std::exp(queue[5]), 2.0, 1e-9);
}

TEST_F(SuiteLevelTest, AFewCasesAreNotASuiteLevel) {
  // Seven cases are too few for a level: a host phase stays in the cases.
  auto series = harness::LoadSuiteSeries(*store_, "smoke", "", "wall_us_median");
  ASSERT_TRUE(series.ok());
  EXPECT_TRUE(harness::SuiteLogLevels(*series).empty());
  std::vector<int64_t> ids;
  for (size_t r = 0; r < kHostPhase.size(); ++r) {
    std::vector<CaseResult> cases;
    for (int c = 0; c < 7; ++c) cases.push_back(Result("c" + std::to_string(c), 10, 100.0 * (c + 1) * kHostPhase[r] * (r % 2 ? 1.02 : 0.98)));
    ids.push_back(AddRun("inductor", "cpu-a", cases));
  }
  series = harness::LoadSuiteSeries(*store_, "smoke", "", "wall_us_median");
  ASSERT_TRUE(series.ok());
  EXPECT_TRUE(harness::SuiteLogLevels(*series).empty());
  EXPECT_EQ(harness::SuiteLogLevels(*series, 7).size(), ids.size());
  size_t found = 0;
  for (const auto& s : History()) {
    EXPECT_FALSE(s.suite_level);
    EXPECT_FALSE(s.level_removed);
    found += s.first_run_id == ids[9] ? 1 : 0;
  }
  EXPECT_EQ(found, 7u);
}

TEST_F(HistoryTest, WallHistoryKeepsOnlyRunsAtTheBaselinesEnvironment) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 6; ++i)
    ids.push_back(AddRun("inductor", "cpu-a", {Result("a", 10, 100 + i)}));
  ids.push_back(AddRun("inductor", "cpu-b", {Result("a", 10, 500)}));  // another host
  // The profile only changes the cost model: its runs' wall times count.
  ids.push_back(AddRun("sendnn", "cpu-a", {Result("a", 10, 106)}));
  auto last = harness::LoadRunRecord(*store_, ids.back());
  ASSERT_TRUE(last.ok());
  ASSERT_TRUE(harness::AttachWallNoise(*store_, &*last).ok());
  const auto& medians = last->wall_run_medians["smoke/a"];
  ASSERT_EQ(medians.size(), 7u) << "the cpu-b run is another environment";
  EXPECT_DOUBLE_EQ(medians.front(), 106);
  for (double m : medians) EXPECT_LT(m, 200);
  ASSERT_EQ(last->op_run_wall["smoke/a"]["mm"].size(), 7u);
  EXPECT_DOUBLE_EQ(last->op_run_wall["smoke/a"]["mm"].front(), 53);
}

TEST_F(HistoryTest, ProfileSwitchIsOneChangePointAttributedToProfile) {
  std::vector<int64_t> ids;
  for (int i = 0; i < 12; ++i) {
    bool sendnn = i >= 6;
    ids.push_back(
        AddRun(sendnn ? "sendnn" : "inductor", "cpu-a",
               {Result("a", sendnn ? 32.5 : 23.7, 100 + (i % 3)), Result("b", 5, 50 + (i % 2))}));
  }
  auto shifts = harness::SuiteHistory(*store_, "smoke", "", {});
  ASSERT_TRUE(shifts.ok()) << shifts.status().message();
  ASSERT_EQ(shifts->size(), 1u);
  const auto& s = (*shifts)[0];
  EXPECT_EQ(s.case_name, "a");
  EXPECT_EQ(s.metric, "modeled_us");
  EXPECT_EQ(s.first_run_id, ids[6]);
  EXPECT_EQ(s.previous_run_id, ids[5]);
  ASSERT_EQ(s.env_change.size(), 1u);
  EXPECT_EQ(s.env_change[0].component, "profile");
  EXPECT_EQ(s.env_change[0].candidate, "sendnn");
}

TEST_F(HistoryTest, WallNoiseIsLearnedFromEarlierRunsOnly) {
  std::vector<int64_t> ids;
  for (double wall : {100.0, 110.0, 90.0, 100.0, 1000.0}) {
    ids.push_back(AddRun("inductor", "cpu-a", {Result("a", 10, wall), Result("b", 5, 50)}));
  }
  auto third = harness::LoadRunRecord(*store_, ids[2]);
  ASSERT_TRUE(third.ok());
  ASSERT_TRUE(harness::AttachWallNoise(*store_, &*third).ok());
  // Runs 1-3: medians 100, 110, 90 -> sd of logs ~0.10; b never moved -> 0.
  ASSERT_EQ(third->wall_run_sigma.count("smoke/a"), 1u);
  EXPECT_NEAR(third->wall_run_sigma["smoke/a"], 0.1003, 0.002);
  EXPECT_NEAR(third->wall_run_sigma["smoke/b"], 0.0, 1e-12);
  auto second = harness::LoadRunRecord(*store_, ids[1]);
  ASSERT_TRUE(harness::AttachWallNoise(*store_, &*second).ok());
  EXPECT_TRUE(second->wall_run_sigma.empty()) << "two runs are too few to learn a spread";
  // With five runs the wild one (1000) is left out.
  auto fifth = harness::LoadRunRecord(*store_, ids[4]);
  ASSERT_TRUE(harness::AttachWallNoise(*store_, &*fifth).ok());
  EXPECT_LT(fifth->wall_run_sigma["smoke/a"], 0.1);
}

TEST_F(HistoryTest, WallNoiseAndHistoryUseHostNormalisedMediansWhereProbed) {
  // The host ran at half speed in runs 2 and 4; the probe saw it, so the
  // case's own spread is zero and history finds no shift.
  std::vector<int64_t> ids;
  for (double speed : {1.0, 2.0, 1.0, 2.0, 1.0, 1.0}) {
    CaseResult a = Result("a", 10, 400 * speed);
    a.extra["host_probe_us"] = 10 * speed;
    ids.push_back(AddRun("inductor", "cpu-a", {a}));
  }
  auto last = harness::LoadRunRecord(*store_, ids.back());
  ASSERT_TRUE(last.ok());
  ASSERT_TRUE(harness::AttachWallNoise(*store_, &*last).ok());
  EXPECT_NEAR(last->wall_run_sigma["smoke/a"], 0.0, 1e-12);
  auto normalized = harness::LoadSeries(*store_, "smoke", "a", "wall_us_normalized");
  ASSERT_TRUE(normalized.ok());
  ASSERT_EQ(normalized->size(), ids.size());
  for (const auto& p : *normalized)
    EXPECT_NEAR(p.value, 400 * harness::kHostProbeReferenceUs / 10, 1e-9);
  auto raw = harness::LoadSeries(*store_, "smoke", "a", "wall_us_median");
  ASSERT_TRUE(raw.ok());
  EXPECT_NEAR(raw->at(1).value, 800, 1e-9) << "the raw series keeps what was measured";
  EXPECT_TRUE(harness::IsHistoryMetric("wall_us_normalized"));
  auto shifts = harness::SuiteHistory(*store_, "smoke", "a", {});
  ASSERT_TRUE(shifts.ok());
  for (const auto& s : *shifts) ADD_FAILURE() << "unexpected shift in " << s.metric;
}

TEST_F(HistoryTest, SeriesAndGeomean) {
  AddRun("inductor", "cpu-a", {Result("a", 4, 100), Result("b", 9, 100)});
  AddRun("inductor", "cpu-a", {Result("a", 4, 100), Result("b", 9, 100), Result("new", 1000, 1)});
  auto series = harness::LoadSeries(*store_, "smoke", "b", "modeled_us");
  ASSERT_TRUE(series.ok());
  ASSERT_EQ(series->size(), 2u);
  EXPECT_EQ((*series)[1].value, 9);
  auto ulp = harness::LoadSeries(*store_, "smoke", "a", "max_ulp");
  ASSERT_TRUE(ulp.ok());
  EXPECT_EQ(ulp->size(), 2u);
  auto geo = harness::LoadSuiteGeomeanSeries(*store_, "smoke", "modeled_us");
  ASSERT_TRUE(geo.ok());
  ASSERT_EQ(geo->size(), 2u);
  // The case added in the second run does not move the mean: sqrt(4 * 9) = 6.
  EXPECT_DOUBLE_EQ((*geo)[0].value, 6);
  EXPECT_DOUBLE_EQ((*geo)[1].value, 6);
}

}  // namespace
