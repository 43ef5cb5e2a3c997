#include "detect/detect.h"
#include "detect/grouping.h"
#include "base/op_error.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "base/host_probe.h"

namespace {

using harness::CaseResult;
using harness::CaseStatus;
using harness::FindingKind;

CaseResult Case(const std::string& id, std::mt19937_64& rng, double wall = 100, double modeled = 10) {
  CaseResult r;
  r.suite = "smoke";
  r.case_id = id;
  r.status = CaseStatus::kPassed;
  r.max_abs_err = 1e-3;
  r.max_rel_err = 2e-3;
  r.rel_l2 = 1e-3;
  r.max_ulp = 1;
  r.cosine = 0.99999;
  std::lognormal_distribution<double> noise(0, 0.02);
  for (int i = 0; i < 20; ++i) r.wall_us.push_back(wall * noise(rng));
  r.modeled_us = modeled;
  r.peak_device_bytes = 262144;
  r.ops = {{"mm", 1, modeled * 0.8, wall * 0.8, 0}, {"add", 1, modeled * 0.2, wall * 0.2, 0}};
  return r;
}

harness::RunRecord MakeRun(int64_t id, std::vector<CaseResult> cases) {
  harness::RunRecord r;
  r.run_id = id;
  r.suite = "smoke";
  r.env = {{"libtorch", "1.13.0"}, {"profile", "inductor"}, {"cpu", "x"},
           {"blas", {{"name", "OpenBLAS"}, {"version", "0.3.21"}, {"path", "/a"}}}};
  r.cases = std::move(cases);
  return r;
}

// Round values (`run --rounds`): the samples carry the process-to-process
// variance, so the judge needs neither the prior nor the microsecond floor.
// Each sample is made one round of its own (its median is itself).
void MarkRounds(CaseResult* r) {
  r->extra["rounds"] = {{"count", r->wall_us.size()},
                        {"samples", std::vector<int>(r->wall_us.size(), 1)}};
}

// Confirmation rounds (runner/confirm.h): `n` fresh processes per side,
// interleaved with the baseline's configuration, at `base_us` and
// `cand_us`; the mm op carries `mm_factor` of the change, add none.
void Confirm(CaseResult* r, int64_t baseline_run, double base_us, double cand_us,
             double mm_factor = 1, int n = 7) {
  harness::WallConfirmation c;
  c.baseline_run_id = baseline_run;
  for (int i = 0; i < n; ++i) {
    const double jitter = 1 + 0.01 * (i - n / 2);
    c.baseline_values.push_back(base_us * jitter);
    c.values.push_back(cand_us * jitter);
    c.baseline_op_wall["mm"].push_back(0.8 * base_us * jitter);
    c.op_wall["mm"].push_back(0.8 * base_us * mm_factor * jitter);
    c.baseline_op_wall["add"].push_back(0.2 * base_us * (1 + 0.01 * i));
    c.op_wall["add"].push_back(0.2 * base_us * (1 + 0.01 * (n - i)));
  }
  r->extra["confirm"] = harness::WallConfirmationJson(c);
}

// The baseline's configuration cannot be re-created beside the candidate
// (a BLAS change): each case was re-timed in fresh processes at `cand_us`,
// with no baseline processes beside them, so only history can judge it.
void ConfirmAgainstHistoryOnly(harness::RunRecord* cand, const std::vector<double>& cand_us) {
  for (size_t i = 0; i < cand->cases.size(); ++i) {
    Confirm(&cand->cases[i], 1, 1000, cand_us[i]);
    cand->cases[i].extra["confirm"]["baseline_values"] = nlohmann::json::array();
  }
  cand->env["blas"]["name"] = "reference";
}

// Ten earlier run medians around 1000 us, spreading by about 10% (log sd).
std::vector<double> TenRunsAround1000() {
  std::vector<double> history;
  for (int i = 0; i < 10; ++i)
    history.push_back(1000 * std::exp(0.1 * (i % 2 == 0 ? 1 : -1) * (i / 2) / 2.0));
  return history;
}

// Two cases "a" and "b" at 1000 us in run 1 and at 1400 us in run 2, which
// ran with an injected mm:slow=2 (its configuration re-creatable beside it).
std::pair<harness::RunRecord, harness::RunRecord> InjectedRuns(std::mt19937_64& rng) {
  auto base = MakeRun(1, {Case("a", rng, 1000), Case("b", rng, 1000)});
  auto cand = MakeRun(2, {Case("a", rng, 1400), Case("b", rng, 1400)});
  cand.env["faults"] = "mm:slow=2";
  base.env["faults"] = "";
  return {base, cand};
}

std::vector<FindingKind> Kinds(const std::vector<harness::Finding>& f) {
  std::vector<FindingKind> k;
  for (const auto& x : f) k.push_back(x.kind);
  return k;
}

TEST(DetectTest, IdenticalRunsHaveNoFindings) {
  std::mt19937_64 rng(1);
  auto base = MakeRun(1, {Case("a", rng), Case("b", rng)});
  auto cand = MakeRun(2, {Case("a", rng), Case("b", rng)});
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  EXPECT_TRUE(c.improvements.empty());
  EXPECT_TRUE(c.env_diff.empty());
}

TEST(DetectTest, ACaseThatNowPassesIsNamedWithWhatItDidBefore) {
  std::mt19937_64 rng(3);
  auto base = MakeRun(1, {Case("fixed", rng), Case("same", rng)});
  base.cases[0].status = CaseStatus::kFailed;
  base.cases[0].message = "out0 failed element_bound: 12 of 5100 elements";
  auto cand = base;
  cand.run_id = 2;
  cand.cases[0].status = CaseStatus::kPassed;
  cand.cases[0].message = "";
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  ASSERT_EQ(Kinds(c.improvements), std::vector<FindingKind>{FindingKind::kStatus});
  const std::string text = harness::FormatComparison(c);
  EXPECT_NE(text.find("improvements: 1 (1 case(s) with a better status)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  FIXED smoke/fixed status: failed -> passed (was: out0 failed element_bound: "
                      "12 of 5100 elements)\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("same"), std::string::npos) << text;
}

// The shadow check's record of one execution: mm's and add's own local
// error (base/op_error.h), mm departing when above the DL16 level.
nlohmann::json OpErrors(double mm_rel_l2, double add_rel_l2 = 0.0003) {
  std::vector<harness::OpCall> calls;
  for (int i = 0; i < 3; ++i) {
    harness::OpCall mm{"mm", 2 * i + 1, 0, true, "", mm_rel_l2, mm_rel_l2, 0.0039, false};
    harness::OpCall add{"add", 2 * i + 2, 0, true, "", add_rel_l2, add_rel_l2, 0.0039, false};
    calls.push_back(mm);
    calls.push_back(add);
  }
  return harness::SummarizeOpCalls(calls);
}

TEST(DetectTest, AnAccuracyOrStatusBreakNamesTheOpWhoseOutputDeparted) {
  std::mt19937_64 rng(41);
  auto base = MakeRun(1, {Case("a", rng), Case("b", rng)});
  auto cand = MakeRun(2, {Case("a", rng), Case("b", rng)});
  for (CaseResult& r : base.cases) r.extra["op_error"] = OpErrors(0.0006);
  // a: mm's output departed (1% error, past the level): the case fails.
  cand.cases[0].status = CaseStatus::kFailed;
  cand.cases[0].message = "out0 failed rel_l2";
  cand.cases[0].rel_l2 = 0.01;
  cand.cases[0].extra["op_error"] = OpErrors(0.0098);
  // b: mm's own error tripled, still under the level; the case's accuracy
  // worsened, and mm is the op whose error grew.
  cand.cases[1].status = CaseStatus::kFailed;
  cand.cases[1].rel_l2 = 0.003;
  cand.cases[1].extra["op_error"] = OpErrors(0.0019);
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  int named = 0;
  for (const harness::Finding& f : c.regressions) {
    if (f.kind != FindingKind::kStatus && f.kind != FindingKind::kAccuracy) continue;
    ASSERT_EQ(f.blamed_ops.size(), 1u) << f.case_id << " " << harness::FindingSummary(f);
    EXPECT_EQ(f.blamed_ops[0].op, "mm");
    EXPECT_EQ(f.blamed_ops[0].unit, "local rel_l2");
    EXPECT_NEAR(f.blamed_ops[0].delta, f.case_id == "a" ? 0.0092 : 0.0013, 1e-9);
    EXPECT_NE(harness::FindingSummary(f).find("first departing op: mm ("), std::string::npos)
        << harness::FindingSummary(f);
    ++named;
  }
  EXPECT_EQ(named, 4) << "a status and an accuracy finding for each case";
  // The group says which op it went through.
  EXPECT_EQ(harness::FindingOp(c.regressions[0]), "mm");
  // Without the check's record on either side, no op is named.
  for (CaseResult& r : cand.cases) r.extra.erase("op_error");
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  for (const harness::Finding& f : c.regressions) EXPECT_TRUE(f.blamed_ops.empty()) << f.case_id;
}

TEST(DetectTest, EachKindIsFoundWithItsMetric) {
  std::mt19937_64 rng(2);
  auto base = MakeRun(1, {Case("status", rng), Case("acc", rng), Case("slow", rng), Case("fb", rng),
                      Case("mem", rng), Case("gold", rng)});
  auto cand = base;
  cand.run_id = 2;
  cand.cases[0].status = CaseStatus::kCrashed;
  cand.cases[0].message = "killed by SIGSEGV";
  cand.cases[1].max_ulp = 6;  // still maybe inside tolerance, but worse than before
  // slow: modeled +20% in mm, wall +50% (beyond the default 3 x 10% prior)
  cand.cases[2].modeled_us *= 1.2;
  cand.cases[2].ops[0].modeled_us += 2;
  for (double& w : cand.cases[2].wall_us) w *= 1.5;
  cand.cases[2].ops[0].wall_us *= 1.3;
  Confirm(&cand.cases[2], 1, 100, 150, 1.6);
  cand.cases[3].fallback_ops = 2;
  cand.cases[3].ops[1].fallbacks = 2;
  cand.cases[4].peak_device_bytes += 128;
  cand.cases[5].extra["golden_digest"] = "bbbb";
  base.cases[5].extra["golden_digest"] = "aaaa";
  // Accuracy drift inside tolerance is a regression only when asked for.
  auto strict = harness::Thresholds::FromJson({{"defaults", {{"accuracy_drift_fails", true}}}}, "test");
  ASSERT_TRUE(strict.ok()) << strict.status().message();
  auto c = harness::CompareRuns(base, cand, *strict);
  ASSERT_EQ(c.regressions.size(), 7u);
  std::map<std::string, std::vector<FindingKind>> by_case;
  for (const auto& f : c.regressions) by_case[f.case_id].push_back(f.kind);
  EXPECT_EQ(by_case["status"], std::vector<FindingKind>{FindingKind::kStatus});
  EXPECT_EQ(by_case["acc"], std::vector<FindingKind>{FindingKind::kAccuracy});
  EXPECT_EQ(by_case["slow"], (std::vector<FindingKind>{FindingKind::kLatency, FindingKind::kModeledLatency}));
  EXPECT_EQ(by_case["fb"], std::vector<FindingKind>{FindingKind::kFallback});
  EXPECT_EQ(by_case["mem"], std::vector<FindingKind>{FindingKind::kMemory});
  EXPECT_EQ(by_case["gold"], std::vector<FindingKind>{FindingKind::kGoldenDrift});
  for (const auto& f : c.regressions) {
    if (f.case_id == "slow") {
      ASSERT_FALSE(f.blamed_ops.empty());
      EXPECT_EQ(f.blamed_ops[0].op, "mm") << harness::BlamedOpText(f.blamed_ops[0]);
      EXPECT_EQ(f.blamed_ops[0].unit, "us");
      EXPECT_NE(harness::FindingSummary(f).find("grew most: mm ("), std::string::npos)
          << harness::FindingSummary(f);
    }
    if (f.case_id == "fb") {
      ASSERT_EQ(f.blamed_ops.size(), 1u);
      EXPECT_EQ(f.blamed_ops[0].op, "add");
      EXPECT_EQ(f.blamed_ops[0].unit, "calls");
      EXPECT_GT(f.blamed_ops[0].delta, 0);
    }
    if (f.case_id == "acc") {
      EXPECT_EQ(f.metric, "max_ulp");
      EXPECT_DOUBLE_EQ(f.ratio, 6);
    }
  }
}

// A serving trace's per-request modeled times ("<id>.modeled_ttft_us",
// "<id>.modeled_itl_us"): the request that moved most speaks for the case,
// naming its prefill step, and a request that moved while the trace's
// total did not is still found.
void AddRequest(CaseResult* r, const std::string& id, double ttft, double itl, int step) {
  r->metrics.push_back({"latency", id + ".modeled_ttft_us", ttft});
  r->metrics.push_back({"latency", id + ".modeled_itl_us", itl});
  r->metrics.push_back({"latency", id + ".ttft_us", ttft * 3});
  r->metrics.push_back({"latency", id + ".first_token_step", static_cast<double>(step)});
}

TEST(DetectTest, AServingRequestWhoseModeledTimeMovedIsNamedWithItsStep) {
  std::mt19937_64 rng(5);
  auto base = MakeRun(1, {Case("trace", rng, 1000, 500)});
  AddRequest(&base.cases[0], "r0", 40, 10, 0);
  AddRequest(&base.cases[0], "r1", 60, 12, 3);
  AddRequest(&base.cases[0], "r2", 50, std::nan(""), 5);  // one token: no ITL
  auto cand = base;
  cand.run_id = 2;
  cand.cases[0].metrics.clear();
  AddRequest(&cand.cases[0], "r0", 40, 13, 0);   // its ITL spans the slow step
  AddRequest(&cand.cases[0], "r1", 180, 12, 3);  // its prefill step took 3x
  AddRequest(&cand.cases[0], "r2", 50, std::nan(""), 5);
  cand.cases[0].modeled_us = 620;
  auto c = harness::CompareRuns(base, cand, harness::Thresholds{});
  ASSERT_EQ(c.regressions.size(), 1u);
  const harness::Finding& f = c.regressions[0];
  EXPECT_EQ(f.kind, FindingKind::kModeledLatency);
  EXPECT_EQ(f.metric, "latency/r1.modeled_ttft_us");
  EXPECT_DOUBLE_EQ(f.ratio, 3);
  EXPECT_NE(f.detail.find("request 'r1' (its prefill at step 3): modeled time to first token; "
                          "2 of 3 requests moved; the whole trace 500 us -> 620 us (+24.0%)"),
            std::string::npos)
      << f.detail;
  EXPECT_NE(f.detail.find("its wall time to first token 180 us -> 540 us"), std::string::npos)
      << f.detail;

  // The total unchanged (a scheduler that reorders): still found.
  cand.cases[0].modeled_us = 500;
  c = harness::CompareRuns(base, cand, harness::Thresholds{});
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].metric, "latency/r1.modeled_ttft_us");
  // Faster only: an improvement; unchanged requests: nothing.
  cand.cases[0].metrics.clear();
  AddRequest(&cand.cases[0], "r0", 20, 10, 0);
  AddRequest(&cand.cases[0], "r1", 60, 12, 3);
  AddRequest(&cand.cases[0], "r2", 50, std::nan(""), 5);
  c = harness::CompareRuns(base, cand, harness::Thresholds{});
  EXPECT_TRUE(c.regressions.empty());
  ASSERT_EQ(c.improvements.size(), 1u);
  EXPECT_EQ(c.improvements[0].metric, "latency/r0.modeled_ttft_us");
  c = harness::CompareRuns(base, base, harness::Thresholds{});
  EXPECT_TRUE(c.regressions.empty() && c.improvements.empty());
}

TEST(DetectTest, AServingTracesKvBlocksAreJudgedAsExactCountsOfMemory) {
  std::mt19937_64 rng(6);
  auto base = MakeRun(1, {Case("trace", rng, 1000, 500)});
  auto kv = [](CaseResult* r, double peak, double mean) {
    r->metrics.push_back({"kv", "kv_blocks_peak", peak});
    r->metrics.push_back({"kv", "kv_blocks_mean", mean});
    r->metrics.push_back({"kv", "kv_peak_bytes", peak * 4096});
  };
  kv(&base.cases[0], 7, 3.2);
  auto cand = base;
  cand.run_id = 2;
  cand.cases[0].metrics.clear();
  kv(&cand.cases[0], 8, 3.4);  // one block more at the peak: 14%, a memory regression
  auto c = harness::CompareRuns(base, cand, harness::Thresholds{});
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].kind, FindingKind::kMemory);
  EXPECT_EQ(c.regressions[0].metric, "kv/kv_blocks_peak");
  EXPECT_DOUBLE_EQ(c.regressions[0].baseline, 7);
  EXPECT_DOUBLE_EQ(c.regressions[0].candidate, 8);
  EXPECT_NE(c.regressions[0].statistic.find("exact count"), std::string::npos);
  // Not an accuracy drift note as well, and fewer blocks is an improvement.
  for (const std::string& n : c.notes) EXPECT_EQ(n.find("kv_blocks"), std::string::npos) << n;
  cand.cases[0].metrics.clear();
  kv(&cand.cases[0], 6, 3.2);
  c = harness::CompareRuns(base, cand, harness::Thresholds{});
  EXPECT_TRUE(c.regressions.empty());
  ASSERT_EQ(c.improvements.size(), 1u);
  EXPECT_EQ(c.improvements[0].metric, "kv/kv_blocks_peak");
  // The mean alone moving is the scheduler's timing, not memory held at the peak.
  cand.cases[0].metrics.clear();
  kv(&cand.cases[0], 7, 3.9);
  c = harness::CompareRuns(base, cand, harness::Thresholds{});
  EXPECT_TRUE(c.regressions.empty() && c.improvements.empty());
}

TEST(DetectTest, ATimedTracesRequestIsJudgedTheSameWay) {
  // A trace timed on the cost model alone records its requests under
  // output "time", without wall figures or steps.
  std::mt19937_64 rng(6);
  auto base = MakeRun(1, {Case("granite_8b", rng, 1000, 5e6)});
  base.cases[0].metrics = {{"time", "r00.modeled_ttft_us", 4e5}, {"time", "r00.modeled_itl_us", 3e5},
                           {"time", "r01.modeled_ttft_us", 5e5}, {"time", "r01.modeled_itl_us", 2e5}};
  auto cand = base;
  cand.run_id = 2;
  cand.cases[0].metrics[3].value = 2.5e5;  // r01's inter-token latency +25%
  const auto c = harness::CompareRuns(base, cand, harness::Thresholds{});
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].metric, "time/r01.modeled_itl_us");
  EXPECT_NE(c.regressions[0].detail.find("request 'r01': modeled inter-token latency; 1 of 2"),
            std::string::npos)
      << c.regressions[0].detail;
}

TEST(DetectTest, TheCpuReferencesOwnErrorIsNotTheDevicesAccuracy) {
  EXPECT_FALSE(harness::IsAccuracyMetric("out0", "cpu_max_abs_err"));
  EXPECT_FALSE(harness::IsAccuracyMetric("out0", "cpu_rel_l2"));
  EXPECT_TRUE(harness::IsAccuracyMetric("out0", "max_abs_err"));
  std::mt19937_64 rng(4);
  auto base = MakeRun(1, {Case("mm", rng)});
  base.cases[0].metrics = {{"out0", "cpu_max_abs_err", 1e-6, NAN, false}, {"out0", "max_abs_err", 1e-3, NAN, false}};
  auto cand = base;
  cand.run_id = 2;
  cand.cases[0].status = CaseStatus::kFailed;  // so that a drift would be a regression, not a note
  base.cases[0].status = CaseStatus::kFailed;
  cand.cases[0].metrics[0].value = 1e-3;  // the CPU reference moved (another BLAS): 1000x
  const auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty()) << harness::FormatComparison(c);
  EXPECT_TRUE(c.notes.empty()) << harness::FormatComparison(c);
}

TEST(DetectTest, AccuracyDriftInsideToleranceIsANoteUnlessAskedToFail) {
  std::mt19937_64 rng(3);
  auto base = MakeRun(1, {Case("acc", rng), Case("broken", rng)});
  auto cand = base;
  cand.run_id = 2;
  cand.cases[0].max_ulp = 6;  // worse, and the case still passes
  cand.cases[1].max_ulp = 9;  // worse, and the case failed
  cand.cases[1].status = CaseStatus::kFailed;
  const auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  std::map<std::string, std::vector<FindingKind>> by_case;
  for (const auto& f : c.regressions) by_case[f.case_id].push_back(f.kind);
  EXPECT_EQ(by_case.count("acc"), 0u) << harness::FormatComparison(c);
  EXPECT_EQ(by_case["broken"], (std::vector<FindingKind>{FindingKind::kStatus, FindingKind::kAccuracy}));
  ASSERT_EQ(c.notes.size(), 1u) << harness::FormatComparison(c);
  EXPECT_NE(c.notes[0].find("acc: max_ulp worsened"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[0].find("still inside tolerance"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[0].find("accuracy_drift_fails"), std::string::npos) << c.notes[0];
  // A wrong type for the switch is an error naming the key.
  auto bad = harness::Thresholds::FromJson({{"defaults", {{"accuracy_drift_fails", 1}}}}, "t.json");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("t.json: /defaults/accuracy_drift_fails: expected true or false"),
            std::string::npos)
      << bad.status().message();
}

TEST(DetectTest, SmallAccuracyAndModeledChangesAreNotFindings) {
  std::mt19937_64 rng(3);
  auto base = MakeRun(1, {Case("a", rng)});
  auto cand = base;
  cand.cases[0].max_ulp = 1.5;           // below the 1-ULP margin
  cand.cases[0].rel_l2 *= 1.1;           // below the 25% margin
  cand.cases[0].modeled_us *= 1.004;     // below 0.5%
  EXPECT_TRUE(harness::CompareRuns(base, cand, harness::Thresholds()).regressions.empty());
}

TEST(DetectTest, ImprovementsAreReported) {
  std::mt19937_64 rng(4);
  auto base = MakeRun(1, {Case("a", rng)});
  auto cand = MakeRun(2, {Case("a", rng, 70, 7)});
  Confirm(&cand.cases[0], 1, 100, 70);
  base.cases[0].status = CaseStatus::kFailed;
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  auto kinds = Kinds(c.improvements);
  EXPECT_EQ(kinds, (std::vector<FindingKind>{FindingKind::kStatus, FindingKind::kLatency, FindingKind::kModeledLatency}));
}

// Suspects (runner/confirm.h re-times them): samples as recorded on a
// loaded 2-core host, two in five of them preempted on each side.
TEST(DetectTest, ASuspectIsSeenThroughPreemptedSamples) {
  const harness::ThresholdValues v;
  CaseResult base, cand;
  base.wall_us = {35.05, 168.32, 33.13, 32.49, 164.07};
  cand.wall_us = {75.36, 1326.18, 78.41, 78.4, 4076.65};  // mm doubled
  EXPECT_TRUE(harness::WallSuspect(base, cand, v));
  EXPECT_TRUE(harness::WallSuspect(cand, base, v));  // and the other way
  // Unchanged, with the same outliers: the fastest halves overlap.
  cand.wall_us = {33.9, 171.2, 34.6, 32.8, 158.4};
  EXPECT_FALSE(harness::WallSuspect(base, cand, v));
  // A few percent slower, fastest halves overlapping, the slowest samples
  // mixed in: not a suspect either.
  cand.wall_us = {35.6, 36.2, 34.9, 170.0, 150.0};
  EXPECT_FALSE(harness::WallSuspect(base, cand, v));
  // Fewer than wall_min_samples: never.
  base.wall_us = {35, 33, 32};
  cand.wall_us = {78, 75, 79};
  EXPECT_FALSE(harness::WallSuspect(base, cand, v));
}

// A case whose modeled device time moved by the minimum effect is re-timed
// whatever its main pass showed; a smaller move, or none recorded, is not
// a reason.
TEST(DetectTest, AModeledMoveOfTheMinimumEffectIsAReasonToRetime) {
  const harness::ThresholdValues v;  // wall_min_effect 5%
  CaseResult base, cand;
  base.modeled_us = 100;
  cand.modeled_us = 150;
  EXPECT_TRUE(harness::ModeledMoved(base, cand, v));
  EXPECT_TRUE(harness::ModeledMoved(cand, base, v));  // faster as well
  cand.modeled_us = 104;
  EXPECT_FALSE(harness::ModeledMoved(base, cand, v));
  cand.modeled_us = 105.2;
  EXPECT_TRUE(harness::ModeledMoved(base, cand, v));
  cand.modeled_us = std::numeric_limits<double>::quiet_NaN();  // a device without a model
  EXPECT_FALSE(harness::ModeledMoved(base, cand, v));
  cand.modeled_us = 0;
  EXPECT_FALSE(harness::ModeledMoved(base, cand, v));
}

TEST(DetectTest, AWallShiftSeenInsideOneProcessIsANoteNeverAVerdict) {
  std::mt19937_64 rng(8);
  auto base = MakeRun(1, {Case("a", rng, 1000), Case("b", rng, 1000)});
  auto cand = MakeRun(2, {Case("a", rng, 1400), Case("b", rng, 5000)});
  // Twenty samples a side, p tiny, x5: still one process each, which shows
  // nothing of how far separate processes land apart.
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  EXPECT_TRUE(c.improvements.empty());
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_NE(c.notes[1].find("no verdict without process-level evidence"), std::string::npos)
      << c.notes[1];
}

TEST(DetectTest, ConfirmationRoundsDecideAndNameOnlyAnOpWhoseOwnChangeIsSignificant) {
  std::mt19937_64 rng(13);
  auto [base, cand] = InjectedRuns(rng);
  Confirm(&cand.cases[0], 1, 1000, 2000, 2.25);  // the fault doubled mm
  Confirm(&cand.cases[1], 1, 1000, 1000);        // the fresh processes agree: no change
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  const auto& f = c.regressions[0];
  EXPECT_EQ(f.case_id, "a");
  EXPECT_EQ(f.kind, FindingKind::kLatency);
  EXPECT_TRUE(f.env_cause) << "interleaved processes differ only by the fault";
  ASSERT_FALSE(f.blamed_ops.empty());
  EXPECT_EQ(f.blamed_ops[0].op, "mm") << harness::BlamedOpText(f.blamed_ops[0]);
  EXPECT_EQ(f.blamed_ops.size(), 1u) << "add moved by noise only";
  EXPECT_NE(harness::Attribution(c).find("faults (none) -> mm:slow=2"), std::string::npos)
      << harness::Attribution(c);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("not confirmed"), std::string::npos) << c.notes[0];
  // No op changed significantly by itself: the case is flagged, no op named.
  Confirm(&cand.cases[0], 1, 1000, 2000, 1.0);
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_TRUE(c.regressions[0].blamed_ops.empty());
  EXPECT_NE(c.regressions[0].detail.find("no single op's own change is significant"),
            std::string::npos);
  // Rounds timed against another baseline are not evidence against this one.
  Confirm(&cand.cases[0], 7, 1000, 2000, 2.25);
  EXPECT_TRUE(harness::CompareRuns(base, cand, harness::Thresholds()).regressions.empty());
  // Five processes a side, completely separated, cannot reach the
  // confirmation's level (p = 0.0079 > 0.001): a note, not a finding.
  Confirm(&cand.cases[0], 1, 1000, 2000, 2.25, 5);
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  ASSERT_EQ(c.notes.size(), 2u);
  EXPECT_NE(c.notes[0].find("not confirmed"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[0].find("p = 0.0079"), std::string::npos) << c.notes[0];
}

// Paired confirmation (both fault specs timed in each process): value i of
// the two sides is one process's pair. Process levels swinging 0.5-2x make
// the two sets overlap, yet a steady ratio is a finding; pairs whose ratios
// scatter around one are not, whatever the sets look like.
TEST(DetectTest, PairedConfirmationJudgesTheRatioOfEachProcess) {
  std::mt19937_64 rng(21);
  auto [base, cand] = InjectedRuns(rng);
  const std::vector<double> level = {1.0, 2.0, 0.5, 1.6, 0.8, 1.2, 1.9, 0.6, 1.1};
  const auto paired = [&](CaseResult* r, double ratio, double mm_ratio, double scatter) {
    harness::WallConfirmation c;
    c.baseline_run_id = 1;
    c.paired = true;
    for (size_t i = 0; i < level.size(); ++i) {
      const double wobble = 1 + scatter * (i % 2 == 0 ? 1 : -1) * (1 + 0.1 * i);
      c.baseline_values.push_back(1000 * level[i]);
      c.values.push_back(1000 * level[i] * ratio * wobble);
      c.baseline_op_wall["mm"].push_back(500 * level[i]);
      c.op_wall["mm"].push_back(500 * level[i] * mm_ratio * wobble);
      c.baseline_op_wall["add"].push_back(200 * level[i]);
      c.op_wall["add"].push_back(200 * level[i] * wobble);
    }
    r->extra["confirm"] = harness::WallConfirmationJson(c);
  };
  paired(&cand.cases[0], 1.4, 1.8, 0.02);
  paired(&cand.cases[1], 1.0, 1.0, 0.03);
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  const auto& f = c.regressions[0];
  EXPECT_EQ(f.case_id, "a");
  // One set of figures: the medians of the processes, and their ratio.
  EXPECT_DOUBLE_EQ(f.ratio, f.candidate / f.baseline);
  EXPECT_NEAR(f.ratio, 1.4, 0.1);
  EXPECT_EQ(f.statistic, "median of 9 and 9 fresh processes, paired, wall time") << f.statistic;
  EXPECT_EQ(f.detail.rfind("paired t-test p", 0), 0u) << f.detail;
  EXPECT_TRUE(f.env_cause);
  ASSERT_EQ(f.blamed_ops.size(), 1u) << "add's ratios scatter around one";
  EXPECT_EQ(f.blamed_ops[0].op, "mm") << harness::BlamedOpText(f.blamed_ops[0]);
  // The same values judged as two unpaired sets overlap: not confirmed.
  cand.cases[0].extra["confirm"]["paired"] = false;
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  // A steady ratio below the minimum effect (+3%) is no finding.
  paired(&cand.cases[0], 1.03, 1.06, 0.002);
  EXPECT_TRUE(harness::CompareRuns(base, cand, harness::Thresholds()).regressions.empty());
}

// The detection power each compared case had: paired processes that
// scatter less, or more of them, find a smaller change; the figure never
// falls below the minimum effect; a case that was only screened says so.
TEST(DetectTest, PowerSaysWhatChangeEachCaseWouldHaveBeenFoundAt) {
  std::mt19937_64 rng(22);
  auto [base, cand] = InjectedRuns(rng);
  const auto paired = [&](CaseResult* r, double scatter, int n, int max_rounds) {
    harness::WallConfirmation c;
    c.baseline_run_id = 1;
    c.paired = true;
    c.max_rounds = max_rounds;
    for (int i = 0; i < n; ++i) {
      const double wobble = std::exp(scatter * (i % 2 == 0 ? 1 : -1) * (1 + 0.1 * i));
      c.baseline_values.push_back(1000);
      c.values.push_back(1000 * wobble);
    }
    r->extra["confirm"] = harness::WallConfirmationJson(c);
  };
  const auto power_of = [](const harness::Comparison& c, const std::string& id) {
    for (const harness::WallPower& p : c.power) {
      if (p.case_id == id) return p;
    }
    ADD_FAILURE() << "no power for case " << id;
    return harness::WallPower{};
  };
  paired(&cand.cases[0], 0.05, 7, 7);
  paired(&cand.cases[1], 0.05, 7, 21);
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  const harness::WallPower seven = power_of(c, "a"), design = power_of(c, "b");
  EXPECT_EQ(seven.basis, "paired");
  EXPECT_EQ(seven.values, 7);
  // Stopped at seven of a possible 21: judged as the 21 it would have taken.
  EXPECT_EQ(design.values, 21);
  EXPECT_GT(seven.detectable, 0.10) << "five per cent scatter over seven pairs";
  EXPECT_LT(design.detectable, seven.detectable);
  // Twice the scatter: twice the change, roughly.
  paired(&cand.cases[0], 0.10, 7, 7);
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_NEAR(std::log1p(power_of(c, "a").detectable) / std::log1p(seven.detectable), 2, 0.05);
  // Almost no scatter: the minimum effect is the floor.
  paired(&cand.cases[0], 1e-6, 7, 7);
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_DOUBLE_EQ(power_of(c, "a").detectable, harness::Thresholds().For("smoke", "a").wall_min_effect);
  // In the JSON the report and `compare --json` write.
  const nlohmann::json j = harness::ToJson(c);
  ASSERT_TRUE(j.contains("power"));
  EXPECT_EQ(j["power"].size(), c.power.size());
  EXPECT_EQ(j["power"][0]["basis"], c.power[0].basis);
}

// A case nothing re-timed was judged by the screen for suspects alone.
TEST(DetectTest, PowerOfACaseOnlyScreenedIsTheScreens) {
  std::mt19937_64 rng(23);
  CaseResult b = Case("a", rng), k = Case("a", rng);
  const auto c = harness::CompareRuns(MakeRun(1, {b}), MakeRun(2, {k}), harness::Thresholds());
  ASSERT_EQ(c.power.size(), 1u);
  EXPECT_EQ(c.power[0].basis, "screen");
  EXPECT_EQ(c.power[0].values, 20);
  EXPECT_GE(c.power[0].detectable, harness::Thresholds().For("smoke", "a").wall_min_effect);
  EXPECT_TRUE(std::isfinite(c.power[0].detectable));
}

// The confirmed cases of one run share one level: a run that re-times
// every case must not exit 1 by chance because it tested many, and when
// many of them changed the level rises with their number. The ratios below
// are an unchanged run's (+14.6%, p = 0.00036 at seven processes): a finding
// when it is the only paired case, a note among 31 unchanged ones, and a
// finding again among 31 of which 20 plainly changed.
TEST(DetectTest, ConfirmedCasesOfOneRunShareTheConfirmationLevel) {
  const double never = std::numeric_limits<double>::infinity();
  EXPECT_DOUBLE_EQ(harness::SharedConfirmScale({}), 1);
  EXPECT_DOUBLE_EQ(harness::SharedConfirmScale(std::vector<double>(10, 0.5)), 1);
  // Nothing changed: a tenth of Bonferroni's correction.
  EXPECT_DOUBLE_EQ(harness::SharedConfirmScale(std::vector<double>(250, never)), 0.04);
  EXPECT_DOUBLE_EQ(harness::SharedConfirmScale(std::vector<double>(250, 2.0)), 0.04);
  // Forty far below: the level rises to 40 / 250, and a case at that level
  // is taken in with them (step-up), one just above it is not.
  std::vector<double> rel(250, never);
  for (int i = 0; i < 40; ++i) rel[i] = 1e-4;
  EXPECT_DOUBLE_EQ(harness::SharedConfirmScale(rel), 0.16);
  rel[40] = 0.164;
  EXPECT_DOUBLE_EQ(harness::SharedConfirmScale(rel), 41.0 / 250);
  rel[40] = 0.1641;
  EXPECT_DOUBLE_EQ(harness::SharedConfirmScale(rel), 0.16);
  // Step-up, not step-down: the 12th smallest below 12 / 250 takes in the
  // eleven before it, whichever of them lies above their own rank's line.
  std::vector<double> up(250, never);
  for (int i = 0; i < 12; ++i) up[i] = 0.047;
  EXPECT_DOUBLE_EQ(harness::SharedConfirmScale(up), 12.0 / 250);
  const std::vector<double> d = {0.165, 0.098, 0.093, 0.203, 0.136, 0.18, 0.072};
  const auto paired = [](CaseResult* r, const std::vector<double>& logs) {
    harness::WallConfirmation c;
    c.baseline_run_id = 1;
    c.paired = true;
    for (size_t i = 0; i < logs.size(); ++i) {
      c.baseline_values.push_back(100.0 + 10 * i);
      c.values.push_back((100.0 + 10 * i) * std::exp(logs[i]));
    }
    r->extra["confirm"] = harness::WallConfirmationJson(c);
  };
  std::mt19937_64 rng(24);
  std::vector<CaseResult> base_cases, cand_cases;
  for (int i = 0; i < 31; ++i) {
    base_cases.push_back(Case("c" + std::to_string(i), rng, 100));
    // c0 looks slower in the main pass: a suspect, whose verdict is a note.
    cand_cases.push_back(Case("c" + std::to_string(i), rng, i == 0 ? 115 : 100));
  }
  auto base = MakeRun(1, {base_cases[0]});
  auto cand = MakeRun(2, {cand_cases[0]});
  paired(&cand.cases[0], d);
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].detail.find("level shared"), std::string::npos);
  base = MakeRun(1, base_cases);
  cand = MakeRun(2, cand_cases);
  paired(&cand.cases[0], d);
  for (int i = 1; i < 31; ++i) paired(&cand.cases[i], {0.02, -0.01, 0.0, -0.02, 0.01, 0.0, -0.01});
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty()) << c.regressions[0].detail;
  bool noted = false;
  for (const std::string& n : c.notes) {
    noted = noted || (n.rfind("smoke/c0:", 0) == 0 &&
                      n.find("the level shared by the run's 31 confirmed cases") != std::string::npos);
  }
  EXPECT_TRUE(noted);
  // Twenty of the others slowed plainly by a third: the level rises to
  // 0.001 x 21 / 31, and c0's evidence is a finding again.
  for (int i = 1; i <= 20; ++i) {
    paired(&cand.cases[i], {0.29, 0.31, 0.28, 0.3, 0.32, 0.27, 0.3});
  }
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 21u);
  // Ranked by effect, c0 (the smaller shift) is not first: find it by name.
  const auto c0 = std::find_if(c.regressions.begin(), c.regressions.end(),
                               [](const harness::Finding& f) { return f.case_id == "c0"; });
  ASSERT_NE(c0, c.regressions.end());
  EXPECT_NE(c0->detail.find("at p < 0.00068, the level shared by the run's 31 "
                            "confirmed cases"),
            std::string::npos)
      << c0->detail;
}

// Rounds of two runs are judged against how far whole runs move; when the
// baseline's configuration was also re-timed beside the candidate's (it
// differs only in what this binary can set), that evidence decides.
// Two runs of one case "a", each timed in rounds (one value per process).
std::pair<harness::RunRecord, harness::RunRecord> RoundsRuns(std::mt19937_64& rng, double base_us,
                                                             double cand_us) {
  auto base = MakeRun(1, {Case("a", rng, base_us)});
  auto cand = MakeRun(2, {Case("a", rng, cand_us)});
  MarkRounds(&base.cases[0]);
  MarkRounds(&cand.cases[0]);
  return {base, cand};
}

TEST(DetectTest, AFindingFromRoundsThatAConfirmationAgreesWithStatesOnePValue) {
  // Rounds put the case 2x slower; three processes a side beside the
  // baseline's configuration moved it the same way but cannot reach the
  // confirmation's level: the rounds' verdict stands, and the line states
  // the rounds' p-value only.
  std::mt19937_64 rng(29);
  auto [base, cand] = RoundsRuns(rng, 1000, 2000);
  base.env["blas"]["path"] = "/b";
  Confirm(&cand.cases[0], 1, 1000, 2000, 2.0, 3);
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  const std::string line = harness::FindingSummary(c.regressions[0]);
  EXPECT_NE(line.find("moved the same way"), std::string::npos) << line;
  size_t p_values = 0;
  for (size_t at = line.find(" p "); at != std::string::npos; at = line.find(" p ", at + 1)) ++p_values;
  EXPECT_EQ(p_values, 1u) << line;
}

TEST(DetectTest, AConfirmationBesideTheBaselinesConfigurationOutranksRounds) {
  std::mt19937_64 rng(23);
  auto [base, cand] = RoundsRuns(rng, 1000, 1150);
  base.env["blas"]["path"] = "/b";
  // Rounds alone: +15% is within what whole runs move without history.
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  ASSERT_FALSE(c.notes.empty());
  EXPECT_NE(c.notes[0].find("within what whole runs move"), std::string::npos) << c.notes[0];
  // Seven processes a side, interleaved with the baseline's BLAS: a finding.
  Confirm(&cand.cases[0], 1, 1000, 1150, 1.3);
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].statistic,
            "median of 7 and 7 fresh processes, interleaved, wall time");
  EXPECT_EQ(c.regressions[0].detail.rfind("Mann-Whitney p", 0), 0u) << c.regressions[0].detail;
  EXPECT_TRUE(c.regressions[0].env_cause);
  // Values timed against another baseline are no evidence against this one.
  Confirm(&cand.cases[0], 9, 1000, 1150, 1.3);
  EXPECT_TRUE(harness::CompareRuns(base, cand, harness::Thresholds()).regressions.empty());
}

// An op's time per process is one traced call, and now and then a call
// takes milliseconds instead of tens of microseconds, on either side. One
// such process a side does not keep the op that grew from being named.
TEST(DetectTest, OneWildTracedCallASideDoesNotHideTheOpThatGrew) {
  std::mt19937_64 rng(22);
  auto base = MakeRun(1, {Case("a", rng, 1000)});
  auto cand = MakeRun(2, {Case("a", rng, 9000)});
  cand.env["faults"] = "mm:slow=9";
  base.env["faults"] = "";
  Confirm(&cand.cases[0], 1, 1000, 9000, 11.0);
  nlohmann::json& conf = cand.cases[0].extra["confirm"];
  conf["baseline_op_wall_us"]["mm"][3] = 4105.0;  // a wild baseline process
  conf["op_wall_us"]["mm"][5] = 95000.0;          // and a wild candidate one
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  ASSERT_FALSE(c.regressions[0].blamed_ops.empty()) << c.regressions[0].detail;
  EXPECT_EQ(c.regressions[0].blamed_ops[0].op, "mm");
  // Two baseline processes slower than every candidate one are more than is
  // left out: mm's own test fails, and it is named only because it is
  // nearly all of the case (98% of the candidate's traced time).
  conf["baseline_op_wall_us"]["mm"][1] = 20000.0;
  conf["baseline_op_wall_us"]["mm"][3] = 12000.0;
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  ASSERT_EQ(c.regressions[0].blamed_ops.size(), 1u);
  EXPECT_EQ(c.regressions[0].blamed_ops[0].op, "mm");
  // With add as large as mm, neither is named on such evidence.
  conf["op_wall_us"]["add"] = conf["op_wall_us"]["mm"];
  conf["baseline_op_wall_us"]["add"] = conf["baseline_op_wall_us"]["mm"];
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_TRUE(c.regressions[0].blamed_ops.empty())
      << harness::BlamedOpText(c.regressions[0].blamed_ops[0]);
}

TEST(DetectTest, ACaseThatIsNearlyOneOpNamesItWhenItsTracedCallsAreTooNoisyToTest) {
  // Paired processes whose one traced mm call per process scatters by 3x
  // (a first call's cost), as under mm:slow=2 on a busy host: mm's own
  // paired test cannot tell, but the case is nothing but mm.
  std::mt19937_64 rng(31);
  auto base = MakeRun(1, {Case("a", rng, 1000)});
  auto cand = MakeRun(2, {Case("a", rng, 2000)});
  cand.env["faults"] = "mm:slow=2";
  base.env["faults"] = "";
  harness::WallConfirmation conf;
  conf.baseline_run_id = 1;
  conf.paired = true;
  const double base_mm[] = {21.8, 60.5, 36.3, 23.1, 34.6, 53.0, 42.1};
  const double cand_mm[] = {41.8, 39.6, 40.5, 118.4, 107.4, 83.0, 88.9};
  for (int i = 0; i < 7; ++i) {
    conf.baseline_values.push_back(17.0 * (1 + 0.05 * i));
    conf.values.push_back(38.6 * (1 + 0.05 * i));
    conf.baseline_op_wall["mm"].push_back(base_mm[i]);
    conf.op_wall["mm"].push_back(cand_mm[i]);
  }
  cand.cases[0].extra["confirm"] = harness::WallConfirmationJson(conf);
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  const harness::Finding& f = c.regressions[0];
  ASSERT_EQ(f.blamed_ops.size(), 1u) << f.detail;
  EXPECT_EQ(f.blamed_ops[0].op, "mm");
  // Its share is the case's whole change, never more.
  EXPECT_NEAR(f.blamed_ops[0].delta, f.candidate - f.baseline, 1e-9);
}

TEST(DetectTest, FreshProcessesAreJudgedAgainstTheCasesBetweenRunHistory) {
  std::mt19937_64 rng(14);
  auto base = MakeRun(1, {Case("a", rng, 1000), Case("b", rng, 1000)});
  auto cand = MakeRun(2, {Case("a", rng, 1150), Case("b", rng, 1700)});
  ConfirmAgainstHistoryOnly(&cand, {1150, 1700});
  // Without five runs of history there is no verdict, only a note.
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  // Ten earlier runs spreading by 10% (log sd): +15% is inside, +70% is not.
  const std::vector<double> history = TenRunsAround1000();
  base.wall_run_medians = {{"smoke/a", history}, {"smoke/b", history}};
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].case_id, "b");
  EXPECT_TRUE(c.regressions[0].env_cause);
  EXPECT_NE(c.regressions[0].detail.find("last 10 runs"), std::string::npos)
      << c.regressions[0].detail;
  EXPECT_NE(harness::Attribution(c).find("blas"), std::string::npos);
}

TEST(DetectTest, FreshProcessesAgainstHistoryNeedTheRunsOwnMedianToAgree) {
  std::mt19937_64 rng(16);
  // Case a: 20x slower in its fresh processes only (a process that timed a
  // few suspects sat in another state), unchanged in the run's own pass.
  // Case b: slower in both.
  auto base = MakeRun(1, {Case("a", rng, 1000), Case("b", rng, 1000)});
  auto cand = MakeRun(2, {Case("a", rng, 1000), Case("b", rng, 1700)});
  ConfirmAgainstHistoryOnly(&cand, {20000, 1700});
  const std::vector<double> history = TenRunsAround1000();
  base.wall_run_medians = {{"smoke/a", history}, {"smoke/b", history}};
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].case_id, "b");
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("smoke/a"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[0].find("the run's own median did not move so"), std::string::npos)
      << c.notes[0];
}

TEST(DetectTest, AnEnvironmentChangeIsNotNamedForAWallShiftHistorySeesWithoutIt) {
  std::mt19937_64 rng(15);
  auto base = MakeRun(1, {Case("a", rng, 1000)});
  auto cand = MakeRun(2, {Case("a", rng, 2000)});
  cand.env["profile"] = "sendnn";
  MarkRounds(&base.cases[0]);
  MarkRounds(&cand.cases[0]);
  // 2x between two sets of rounds, and no history of how far the case
  // moves between runs: beyond what whole runs drift by default, so found,
  // but not blamed on the profile.
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_FALSE(c.regressions[0].env_cause);
  EXPECT_NE(c.regressions[0].detail.find("not attributed to the environment change"),
            std::string::npos);
  EXPECT_EQ(harness::Attribution(c), "") << "the only finding's cause is not established";
  // History says the case moves ~1% between runs: 2x is the change's doing.
  base.wall_run_sigma = {{"smoke/a", 0.01}};
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_TRUE(c.regressions[0].env_cause);
  EXPECT_NE(harness::Attribution(c).find("profile inductor -> sendnn"), std::string::npos);
  // History says it moves by 30% between runs: 2x is within that, a note.
  base.wall_run_sigma = {{"smoke/a", 0.3}};
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("within what whole runs move"), std::string::npos) << c.notes[0];
}

TEST(DetectTest, AHostSlowerByItsProbeIsNotARegression) {
  std::mt19937_64 rng(10);
  auto base = MakeRun(1, {Case("a", rng, 1000), Case("b", rng, 1000)});
  auto cand = MakeRun(2, {Case("a", rng, 1400), Case("b", rng, 1400)});
  for (auto* c : {&base.cases[0], &base.cases[1]}) c->extra["host_probe_us"] = 10.0;
  cand.cases[0].extra["host_probe_us"] = 14.0;  // the whole host is 40% slower: a is fine
  cand.cases[1].extra["host_probe_us"] = 10.0;  // the host is as fast as before: b got slower
  for (auto* r : {&base.cases[0], &base.cases[1], &cand.cases[0], &cand.cases[1]}) MarkRounds(r);
  base.wall_run_sigma = {{"smoke/a", 0.01}, {"smoke/b", 0.01}};  // both steady between runs
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].case_id, "b");
  // The probe also uncovers a regression a faster host would hide.
  cand.cases[0].extra["host_probe_us"] = 7.0;
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 2u);
  // The candidate's figure is the one judged, at the baseline's host speed,
  // and the statistic says so.
  for (const auto& f : c.regressions) {
    EXPECT_DOUBLE_EQ(f.ratio, f.candidate / f.baseline);
    if (f.case_id != "a") continue;
    EXPECT_NE(f.statistic.find("candidate corrected for host speed (probe -30.0%)"), std::string::npos)
        << f.statistic;
    EXPECT_EQ(f.detail.find("probe"), std::string::npos) << f.detail;
  }
}

TEST(DetectTest, HostProbeRecordsItsMedianAndReadsBackOnlyValidValues) {
  harness::HostProbe probe;
  CaseResult r;
  probe.Record(&r);
  EXPECT_TRUE(std::isnan(harness::HostProbeUs(r))) << "no sample, nothing recorded";
  for (int i = 0; i < 5; ++i) probe.Sample();
  probe.Record(&r);
  EXPECT_GT(harness::HostProbeUs(r), 0);
  r.extra["host_probe_us"] = "fast";
  EXPECT_TRUE(std::isnan(harness::HostProbeUs(r)));
  r.extra["host_probe_us"] = -1.0;
  EXPECT_TRUE(std::isnan(harness::HostProbeUs(r)));
}

TEST(DetectTest, RunQueueWaitIsTakenOutOfTheSamplesTheJudgeSees) {
  const harness::ThresholdValues v;
  // Unchanged case, candidate preempted: 3-5x the wall time, all of it spent
  // waiting on a run queue. Wall time alone makes a suspect of it.
  CaseResult base, cand;
  base.wall_us = {100, 102, 99, 101, 100};
  cand.wall_us = {400, 310, 502, 350, 460};
  EXPECT_TRUE(harness::WallSuspect(base, cand, v));
  base.queue_us = {0, 1, 0, 0, 1};
  cand.queue_us = {299, 210, 401, 249, 361};
  ASSERT_TRUE(cand.HasQueueWait());
  EXPECT_TRUE(harness::JudgeUnqueued(base, cand));
  EXPECT_EQ(cand.UnqueuedUs(), (std::vector<double>{101, 100, 101, 101, 99}));
  EXPECT_FALSE(harness::WallSuspect(base, cand, v));
  // A real doubling hidden under the same waits is still seen; a wait
  // longer than its sample was not read inside it, and the sample keeps its
  // wall time.
  cand.wall_us = {500, 410, 602, 450, 560};
  EXPECT_TRUE(harness::WallSuspect(base, cand, v));
  cand.queue_us = {900, 210, 401, 249, 361};
  EXPECT_EQ(cand.UnqueuedUs()[0], 500);
  // Only one side with waits: both are judged on wall time.
  base.queue_us.clear();
  EXPECT_FALSE(harness::JudgeUnqueued(base, cand));
  EXPECT_EQ(harness::LatencySamples(cand, false), cand.wall_us);
}

TEST(DetectTest, AFindingOnUnqueuedTimeNamesItsMetricAndShowsWallTime) {
  std::mt19937_64 rng(21);
  auto base = MakeRun(1, {Case("a", rng, 1000)});
  auto cand = MakeRun(2, {Case("a", rng, 1000)});
  cand.env["faults"] = "mm:slow=2";
  base.env["faults"] = "";
  // The candidate's wall samples match the baseline's, but half of them is
  // run-queue wait: its own time doubled while waiting less.
  for (CaseResult* r : {&base.cases[0], &cand.cases[0]}) {
    r->queue_us.assign(r->wall_us.size(), 0.0);
    MarkRounds(r);
  }
  for (size_t i = 0; i < cand.cases[0].wall_us.size(); ++i) {
    cand.cases[0].wall_us[i] *= 2;
    base.cases[0].wall_us[i] *= 2;
    base.cases[0].queue_us[i] = base.cases[0].wall_us[i] / 2;
  }
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  const auto& f = c.regressions[0];
  EXPECT_EQ(f.metric, "unqueued_us_median");
  EXPECT_NEAR(f.ratio, 2.0, 0.1);
  EXPECT_DOUBLE_EQ(f.ratio, f.candidate / f.baseline);
  // The statistic names the quantity; the detail holds only the evidence.
  EXPECT_EQ(f.statistic,
            "median of 20 and 20 timing rounds (one process each), wall time less run-queue wait");
  EXPECT_EQ(f.detail.rfind("Mann-Whitney p < 0.001 over 20 and 20 processes", 0), 0u) << f.detail;
  EXPECT_EQ(f.detail.find(" us"), std::string::npos) << "no second set of figures: " << f.detail;
  // Confirmation values carry their quantity through the JSON.
  harness::WallConfirmation conf;
  conf.unqueued = true;
  conf.values = {1, 2, 3};
  CaseResult r;
  r.extra["confirm"] = harness::WallConfirmationJson(conf);
  ASSERT_TRUE(harness::ReadWallConfirmation(r).has_value());
  EXPECT_TRUE(harness::ReadWallConfirmation(r)->unqueued);
  r.extra["confirm"].erase("metric");  // recorded before the wait was kept
  EXPECT_FALSE(harness::ReadWallConfirmation(r)->unqueued);
}

TEST(DetectTest, RunQueueWaitIsReadPerSampleAndPerCall) {
  // Cumulative readings at each sample's start and end, 4 calls a sample.
  EXPECT_EQ(harness::QueueWaitPerCallUs({0, 10000, 50000}, {8000, 10000, 90000}, 4),
            (std::vector<double>{2, 0, 10}));
  EXPECT_TRUE(harness::QueueWaitPerCallUs({-1, 0}, {5, 5}, 1).empty()) << "no reading";
  EXPECT_TRUE(harness::QueueWaitPerCallUs({10}, {5}, 1).empty()) << "went backwards";
  EXPECT_TRUE(harness::QueueWaitPerCallUs({0}, {5, 6}, 1).empty());
  // The probe fills queue_us only with one wait per wall sample.
  harness::HostProbe probe;
  CaseResult r;
  for (int i = 0; i < 3; ++i) {
    probe.Sample();
    r.wall_us.push_back(50);
  }
  probe.Record(&r);
  if (harness::ThreadRunQueueWaitNs() >= 0) {
    ASSERT_EQ(r.queue_us.size(), 3u);
    for (double q : r.queue_us) EXPECT_GE(q, 0);
  } else {
    EXPECT_TRUE(r.queue_us.empty());
  }
  harness::HostProbe other;
  CaseResult two;
  other.Sample();
  two.wall_us = {1, 2};
  other.Record(&two);
  EXPECT_TRUE(two.queue_us.empty());
}

TEST(DetectTest, TimingsAndCountsAmongTheMetricsAreNotAccuracy) {
  std::mt19937_64 rng(12);
  auto base = MakeRun(1, {Case("decode", rng)});
  base.cases[0].metrics = {{"tokens", "top1_agreement", 1.0},       {"tokens", "first_divergence_step", -1},
                           {"tokens", "near_ties", 0},              {"logprobs", "min_top_k_overlap", 1.0},
                           {"latency", "tokens_per_s", 1000},       {"latency", "itl_us", 500},
                           {"time", "modeled_us", 10},              {"figure", "speedup", 2.4}};
  auto cand = base;
  cand.run_id = 2;
  auto& m = cand.cases[0].metrics;
  m[1].value = 3;      // diverged at step 3: a near tie, described, not judged
  m[2].value = 1;
  m[4].value = 1300;   // faster
  m[5].value = 900;    // slower: wall time is judged from the samples, not here
  m[6].value = 20;
  m[7].value = 1.7;
  EXPECT_TRUE(harness::CompareRuns(base, cand, harness::Thresholds()).regressions.empty());
  // Top-k overlap is higher-is-better: a drop is a regression (the case
  // failed: a drop inside tolerance would be a note).
  m[3].value = 0.6;
  cand.cases[0].status = CaseStatus::kFailed;
  base.cases[0].status = CaseStatus::kFailed;
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].metric, "logprobs/min_top_k_overlap");
}

TEST(DetectTest, MicrosecondJitterIsNeverAFinding) {
  std::mt19937_64 rng(9);
  auto base = MakeRun(1, {Case("tiny", rng, 2)});
  auto cand = MakeRun(2, {Case("tiny", rng, 8)});  // +300%, but 6 us: below wall_min_abs_us
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
}

TEST(DetectTest, RoundValuesAreJudgedWithoutThePriorOrTheMicrosecondFloor) {
  std::mt19937_64 rng(21);
  auto base = MakeRun(1, {Case("a", rng, 1000), Case("tiny", rng, 20)});
  auto cand = MakeRun(2, {Case("a", rng, 1080), Case("tiny", rng, 22)});
  // From one process each: +8% is within the prior's 3 x 10%, +2 us is jitter.
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  for (auto* r : {&base.cases[0], &base.cases[1], &cand.cases[0], &cand.cases[1]}) MarkRounds(r);
  // Both cases steady between runs (history): the rounds decide.
  base.wall_run_sigma = {{"smoke/a", 0.005}, {"smoke/tiny", 0.005}};
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 2u);
  for (const auto& f : c.regressions) EXPECT_EQ(f.kind, FindingKind::kLatency);
  // Fewer rounds than wall_min_rounds on one side: judged as one process.
  base.cases[0].extra["rounds"]["samples"] = {12, 1, 1, 1, 1, 1, 1, 1, 1};  // 9 rounds
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_EQ(c.regressions[0].case_id, "tiny");
}

// Paired confirmation values: process i at `level[i]` x 1000 us, the
// candidate's at exp(d[i]) times its baseline's.
void ConfirmPaired(CaseResult* r, const std::vector<double>& d) {
  harness::WallConfirmation c;
  c.baseline_run_id = 1;
  c.paired = true;
  for (size_t i = 0; i < d.size(); ++i) {
    const double level = 1000 * (1 + 0.3 * static_cast<double>(i % 3));
    c.baseline_values.push_back(level);
    c.values.push_back(level * std::exp(d[i]));
  }
  r->extra["confirm"] = harness::WallConfirmationJson(c);
}

// A confirmation beside the baseline's configuration that cannot tell at its
// level, but moved the case the way the rounds did by at least the minimum
// effect, leaves the rounds' verdict standing; one that puts the change
// inside the minimum effect overrules it.
TEST(DetectTest, AnInconclusiveConfirmationLeavesTheRoundsVerdictStanding) {
  std::mt19937_64 rng(22);
  auto [base, cand] = RoundsRuns(rng, 1000, 1080);
  base.wall_run_sigma = {{"smoke/a", 0.005}};
  ASSERT_EQ(harness::CompareRuns(base, cand, harness::Thresholds()).regressions.size(), 1u);
  // Seven pairs averaging +8%, scattered: the paired t-test's p is about 0.2.
  ConfirmPaired(&cand.cases[0], {0.25, -0.10, 0.20, -0.05, 0.15, -0.08, 0.22});
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_NE(c.regressions[0].detail.find("beyond what whole runs move"), std::string::npos)
      << c.regressions[0].detail;
  EXPECT_NE(c.regressions[0].detail.find("re-timed beside the baseline's configuration it moved "
                                         "the same way"),
            std::string::npos)
      << c.regressions[0].detail;
  // Pairs within 2% of each other: the rounds' +8% was the whole run moving.
  ConfirmPaired(&cand.cases[0], {0.01, -0.01, 0.02, -0.02, 0.0, 0.01, -0.01});
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty()) << c.regressions[0].detail;
  // And pairs that moved the other way do not carry it either.
  ConfirmPaired(&cand.cases[0], {-0.25, 0.10, -0.20, 0.05, -0.15, 0.08, -0.22});
  EXPECT_TRUE(harness::CompareRuns(base, cand, harness::Thresholds()).regressions.empty());
}

TEST(DetectTest, WithRoundsAShiftMustExceedWhatWholeRunsMove) {
  std::mt19937_64 rng(22);
  auto [base, cand] = RoundsRuns(rng, 1000, 1080);
  // The rounds of each run agree within 2%, so +8% between them is plain
  // (Mann-Whitney), but without history the runs' own drift is unknown: a
  // note that says so, never a regression.
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("over the rounds (Mann-Whitney"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[0].find("no history of this case"), std::string::npos) << c.notes[0];
  EXPECT_NE(c.notes[0].find("not a verdict"), std::string::npos) << c.notes[0];
  // Ten runs of history moving 0.5% (taken as the least, 1%): +8% is a finding.
  base.wall_run_sigma = {{"smoke/a", 0.005}};
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_NE(c.regressions[0].detail.find("beyond what whole runs move"), std::string::npos)
      << c.regressions[0].detail;
  // The same spread learned from three runs only: Student t's quantile for
  // two degrees of freedom (about 19 at this level) instead of 3.
  base.wall_run_count = {{"smoke/a", 3}};
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  // Nights that drift by 4%: +8% is within what whole runs move.
  base.wall_run_count.clear();
  base.wall_run_sigma = {{"smoke/a", 0.04}};
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty());
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("its run-to-run spread 4.0% over 10 runs"), std::string::npos)
      << c.notes[0];
  // A history noisier than the default is believed even when short.
  base.wall_run_sigma = {{"smoke/a", 0.3}};
  base.wall_run_count = {{"smoke/a", 3}};
  cand.cases[0] = Case("a", rng, 2000);
  MarkRounds(&cand.cases[0]);
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(c.regressions.empty()) << "2x is within 19 x 1.41 x 30%";
  // The same 2x against a case with no history: beyond the default
  // (3 x 1.41 x 10%, +52.8%), a regression.
  base.wall_run_sigma.clear();
  base.wall_run_count.clear();
  c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  EXPECT_NE(c.regressions[0].detail.find("(52.8%; no history of this case"), std::string::npos)
      << c.regressions[0].detail;
}

TEST(DetectTest, RoundValuesAreTheMediansOfEachRoundsSamples) {
  CaseResult r;
  r.wall_us = {5, 1, 3, 10, 20, 7};
  EXPECT_TRUE(harness::WallRoundValues(r).empty()) << "no rounds recorded";
  r.extra["rounds"] = {{"count", 3}, {"samples", {3, 2, 1}}};
  EXPECT_EQ(harness::WallRoundValues(r), (std::vector<double>{3, 15, 7}));
  // A record that does not add up is not trusted.
  for (const nlohmann::json& bad : {nlohmann::json{3, 2}, nlohmann::json{3, 2, 2}, nlohmann::json{3, 0, 3},
                                    nlohmann::json{3, -2, 5}, nlohmann::json("3,2,1")}) {
    r.extra["rounds"]["samples"] = bad;
    EXPECT_TRUE(harness::WallRoundValues(r).empty()) << bad;
  }
}

TEST(DetectTest, TooFewSamplesGiveANoteNotAVerdict) {
  std::mt19937_64 rng(5);
  auto base = MakeRun(1, {Case("a", rng)});
  auto cand = MakeRun(2, {Case("a", rng, 150)});
  base.cases[0].wall_us.resize(3);
  cand.cases[0].wall_us.resize(3);
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  EXPECT_TRUE(Kinds(c.regressions).empty());
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("not enough samples"), std::string::npos);
}

// Which baseline configurations a fresh worker can be given: emulator
// settings by their variables, another BLAS by preloading its file (while
// it is there) and OpenBLAS's kernel set by name; nothing else.
TEST(DetectTest, BaselineWorkerSettingsPutBackEmulatorSettingsAndABlasFileThatIsThere) {
  const std::string here = ::testing::TempDir() + "/libblas_baseline.so.3";
  { std::ofstream(here) << "not really a library"; }
  const nlohmann::json emulator = {{"profile", "inductor"}, {"rounding", "nearest-away"},
                                   {"cores", 32}, {"faults", ""}};
  nlohmann::json base = MakeRun(1, {}).env, cand = base;
  base.update(emulator);
  cand.update(emulator);
  base["blas"]["path"] = here;
  base["blas"]["core"] = "Zen";
  cand["blas"] = {{"name", "reference"}, {"version", ""}, {"path", "/elsewhere/libblas.so.3"}};
  auto s = harness::BaselineWorkerSettings(base, cand);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->at("LD_PRELOAD"), here);
  EXPECT_EQ(s->at("OPENBLAS_CORETYPE"), "Zen");
  EXPECT_EQ(s->at("SPYRE_EMU_PROFILE"), "inductor");
  EXPECT_EQ(s->at("SPYRE_EMU_CORES"), "32");
  // The same library with another kernel set: only the kernel set.
  cand["blas"] = base["blas"];
  cand["blas"]["core"] = "Prescott";
  s = harness::BaselineWorkerSettings(base, cand);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->count("LD_PRELOAD"), 0u);
  EXPECT_EQ(s->at("OPENBLAS_CORETYPE"), "Zen");
  // Nothing differs: the emulator's settings only.
  s = harness::BaselineWorkerSettings(base, base);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->count("LD_PRELOAD") + s->count("OPENBLAS_CORETYPE"), 0u);
  // A baseline with the reference BLAS against a candidate with OpenBLAS:
  // its file preloaded, no kernel set to choose.
  cand["blas"]["path"] = "/elsewhere/libopenblas.so.0";
  base["blas"] = {{"name", "reference"}, {"path", here}};
  s = harness::BaselineWorkerSettings(base, cand);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->at("LD_PRELOAD"), here);
  EXPECT_EQ(s->count("OPENBLAS_CORETYPE"), 0u);
  // The baseline's BLAS file is gone, or the same file had a kernel set on
  // one side only: it cannot be put back.
  base["blas"]["path"] = ::testing::TempDir() + "/no_such_libblas.so.3";
  EXPECT_FALSE(harness::BaselineWorkerSettings(base, cand).has_value());
  base["blas"]["path"] = cand["blas"]["path"];
  EXPECT_FALSE(harness::BaselineWorkerSettings(base, cand).has_value());
  // Another libtorch is not a setting.
  base = cand;
  base["libtorch"] = "1.12.0";
  EXPECT_FALSE(harness::BaselineWorkerSettings(base, cand).has_value());
  std::remove(here.c_str());
}

TEST(DetectTest, EnvironmentDiffNamesUpstreamChanges) {
  std::mt19937_64 rng(6);
  auto base = MakeRun(1, {Case("a", rng)});
  auto cand = MakeRun(2, {Case("a", rng)});
  cand.env["blas"]["name"] = "reference";
  cand.env["blas"]["version"] = "";
  cand.env["cpu"] = "y";
  cand.env["tags"] = {{"vllm", "0.9"}};
  auto c = harness::CompareRuns(base, cand, harness::Thresholds());
  ASSERT_EQ(c.env_diff.size(), 3u);
  EXPECT_EQ(c.env_diff[0].component, "blas");
  EXPECT_TRUE(c.env_diff[0].upstream);
  EXPECT_EQ(c.env_diff[1].component, "cpu");
  EXPECT_FALSE(c.env_diff[1].upstream);
  EXPECT_EQ(c.env_diff[2].component, "tag:vllm");
  std::string a = harness::Attribution(c);
  EXPECT_NE(a.find("blas OpenBLAS 0.3.21 (/a) -> reference (/a)"), std::string::npos) << a;
  EXPECT_NE(a.find("vllm (none) -> 0.9"), std::string::npos) << a;
  EXPECT_EQ(a.find("cpu"), std::string::npos) << a;
}

TEST(DetectTest, AStackChangeNamesEachComponentOnceWithItsVersions) {
  nlohmann::json base = {{"libtorch", "1.13.1"}, {"libtorch_package", "libtorch1.13 1.13.1+dfsg-4"},
                         {"compiler", "GCC 12.2.0"}, {"libc", "glibc 2.36"}};
  nlohmann::json cand = {{"libtorch", "2.6.0"}, {"libtorch_package", "libtorch2.6 2.6.0+dfsg-7"},
                         {"compiler", "GCC 14.2.0"}, {"libc", "glibc 2.41"}};
  auto diff = harness::DiffEnvironments(base, cand);
  std::vector<std::string> names;
  for (const auto& e : diff) names.push_back(e.component + " " + e.baseline + " -> " + e.candidate);
  EXPECT_EQ(names, (std::vector<std::string>{"compiler GCC 12.2.0 -> GCC 14.2.0",
                                             "libc glibc 2.36 -> glibc 2.41",
                                             "libtorch 1.13.1 -> 2.6.0"}));
  for (const auto& e : diff) EXPECT_TRUE(e.upstream) << e.component;
  // A Debian rebuild of the same libtorch release is named by its package.
  cand = base;
  cand["libtorch_package"] = "libtorch1.13 1.13.1+dfsg-5";
  diff = harness::DiffEnvironments(base, cand);
  ASSERT_EQ(diff.size(), 1u);
  EXPECT_EQ(diff[0].component, "libtorch_package");
  EXPECT_EQ(diff[0].candidate, "libtorch1.13 1.13.1+dfsg-5");
}

TEST(DetectTest, JsonFollowsTheContract) {
  std::mt19937_64 rng(7);
  auto base = MakeRun(1, {Case("a", rng)});
  auto cand = base;
  cand.run_id = 2;
  cand.cases[0].status = CaseStatus::kFailed;
  auto j = harness::ToJson(harness::CompareRuns(base, cand, harness::Thresholds()));
  EXPECT_EQ(j["baseline"]["run_id"], 1);
  EXPECT_EQ(j["candidate"]["run_id"], 2);
  ASSERT_EQ(j["regressions"].size(), 1u);
  for (const char* k : {"suite", "case", "kind", "metric", "baseline", "candidate", "ratio", "detail"}) {
    EXPECT_TRUE(j["regressions"][0].contains(k)) << k;
  }
  EXPECT_EQ(j["regressions"][0]["kind"], "status");
  EXPECT_TRUE(j["env_diff"].is_array());
  EXPECT_TRUE(j["improvements"].is_array());
}

TEST(ThresholdsTest, OverridesApplyBySuiteAndCase) {
  auto t = harness::Thresholds::FromJson(nlohmann::json::parse(R"({
    "defaults": {"modeled_latency": 0.01},
    "suites": {"decode": {"wall_min_effect": 0.08}},
    "cases": [{"suite": "ops", "match": "softmax/.*", "accuracy_rel_margin": 0.5}]})"), "t.json");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->For("ops", "mm/x").modeled_latency, 0.01);
  EXPECT_EQ(t->For("decode", "x").wall_min_effect, 0.08);
  EXPECT_EQ(t->For("ops", "mm/x").wall_min_effect, 0.05);
  EXPECT_EQ(t->For("ops", "softmax/fp16").accuracy_rel_margin, 0.5);
  EXPECT_EQ(t->For("smoke", "softmax/fp16").accuracy_rel_margin, 0.25);
}

TEST(ThresholdsTest, WallMinRoundsIsAWholeNumberOfAtLeastTwo) {
  auto ok = harness::Thresholds::FromJson({{"defaults", {{"wall_min_rounds", 4}}}}, "t.json");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->For("ops", "x").wall_min_rounds, 4);
  EXPECT_EQ(harness::Thresholds().For("ops", "x").wall_min_rounds, 10);
  for (const nlohmann::json& bad : {nlohmann::json(1), nlohmann::json(2.5), nlohmann::json("10")}) {
    auto t = harness::Thresholds::FromJson({{"defaults", {{"wall_min_rounds", bad}}}}, "t.json");
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_NE(t.status().message().find("/defaults/wall_min_rounds"), std::string::npos) << t.status().message();
  }
}

TEST(ThresholdsTest, MistakesNameTheKey) {
  for (const char* bad : {R"({"defaults": {"modeled_latncy": 0.01}})", R"({"defaults": {"wall_alpha": 2}})",
                          R"({"cases": [{"match": "("}]})", R"({"suites": {"x": {"memory": "lots"}}})",
                          R"({"extra": {}})", R"({"defaults": {"wall_min_samples": 1.5}})"}) {
    auto t = harness::Thresholds::FromJson(nlohmann::json::parse(bad), "t.json");
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(t.status().message().rfind("t.json: /", 0), 0u) << t.status().message();
  }
}

}  // namespace
