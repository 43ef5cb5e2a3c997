// Serving traces timed without computing: the serving scheduler walked
// through the cost model at Granite 3.3 8B size. Each figure is set against
// one worked out by hand from ModelDecoderTime's passes and the one kernel
// the paged cache adds; the calibration suite's published figures are read
// back through a one-request trace; the timing kind's "serving" member is
// checked when the suite loads and recorded request by request.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include <spyre_emu/cost_model.h>
#include <spyre_emu/padding.h>

#include "base/stats.h"
#include "harness/case_kinds/case_kinds.h"
#include "serving_timing.h"
#include "suites/models/timing_model.h"
#include "support/temp_dir.h"

namespace {

using spyre_emu::CostProfile;
using spyre_test::TempDir;
using suites::Phase;
using suites::SchedulerLimits;
using suites::ServingRequest;
using suites::ServingTiming;

const CostProfile& Inductor() { return spyre_emu::CostProfileFor(spyre_emu::Profile::kInductor); }
const CostProfile& Sendnn() { return spyre_emu::CostProfileFor(spyre_emu::Profile::kSendnn); }

suites::ModelConfig Granite8b() {
  auto cfg = suites::BuiltinConfig("granite-3.3-8b");
  EXPECT_TRUE(cfg.ok());
  return cfg.ok() ? *cfg : suites::ModelConfig();
}

// {id, arrival step, prompt length, max_new_tokens}
ServingRequest Request(std::string id, int64_t arrival, int64_t prompt, int64_t max_new) {
  return {std::move(id), arrival, prompt, max_new};
}

SchedulerLimits Limits() {
  SchedulerLimits l;
  l.token_budget = 2048;
  l.max_running = 8;
  l.block_size = 64;
  l.kv_blocks = 160;
  return l;
}

ServingTiming Walk(const std::vector<ServingRequest>& trace, const CostProfile& p) {
  return suites::TimeServingTrace(Granite8b(), trace, Limits(), p, 32);
}

double PassUs(int64_t seq, Phase phase, const CostProfile& p) {
  return suites::ModelDecoderTime(Granite8b(), {1, seq, phase}, p, 32).total_us;
}

// What the serving walk adds to the pass of one sequence: in each of the 40
// layers, the store of its n new keys and values into its cache blocks, an
// element-wise kernel over 2 (keys, values) x 8 KV heads x n rows of 128,
// each element read once and written once, plus its launch.
double KvWriteUs(int64_t n, const CostProfile& p) {
  spyre_emu::VectorShape v;
  v.kind = spyre_emu::VectorKind::kElementwise;
  v.rows = 2 * 8 * n;
  v.cols = 128;
  v.elem_bytes = 2;
  v.io_bytes = 2 * static_cast<int64_t>(spyre_emu::PaddedDeviceBytes({v.rows, v.cols}, 2));
  v.steps_per_element = 1;
  return 40 * (spyre_emu::ModelVector(v, p, 32).total_ns + p.launch_ns) / 1000.0;
}

// One request alone: its first token is the prefill pass of its prompt, and
// its k-th gap the batch-1 decode pass with prompt + k - 1 cached positions
// (the new token attends to those and itself), each plus the cache write.
TEST(ServingTimingTest, OneRequestIsThePrefillPassThenDecodePassesAtItsContext) {
  for (const CostProfile* p : {&Inductor(), &Sendnn()}) {
    const ServingTiming t = Walk({Request("solo", 0, 1000, 4)}, *p);
    ASSERT_EQ(t.step_end_us.size(), 4u) << p->name;  // one prefill, three decodes
    const double ttft = PassUs(1000, Phase::kPrefill, *p) + KvWriteUs(1000, *p);
    std::vector<double> gaps;
    for (int64_t k = 1; k <= 3; ++k) {
      gaps.push_back(PassUs(1000 + k - 1, Phase::kDecode, *p) + KvWriteUs(1, *p));
    }
    EXPECT_NEAR(t.times[0].ttft_us, ttft, 1e-9 * ttft) << p->name;
    EXPECT_NEAR(t.times[0].itl_us, (gaps[0] + gaps[1] + gaps[2]) / 3, 1e-9 * ttft) << p->name;
    EXPECT_NEAR(t.times[0].itl_p50_us, gaps[1], 1e-9 * ttft) << p->name;
    EXPECT_NEAR(t.times[0].itl_max_us, gaps[2], 1e-9 * ttft) << p->name;  // the longest context
    EXPECT_LT(gaps[0], gaps[2]) << p->name;
    EXPECT_NEAR(t.steps.total_us, ttft + gaps[0] + gaps[1] + gaps[2], 1e-9 * ttft) << p->name;
    EXPECT_EQ(t.tokens, 4);
    EXPECT_NEAR(t.tokens_per_s, 4 / (t.steps.total_us * 1e-6), 1e-9 * t.tokens_per_s);
    // Arriving later on an idle engine changes nothing: empty steps take no time.
    const ServingTiming late = Walk({Request("solo", 5, 1000, 4)}, *p);
    EXPECT_NEAR(late.times[0].ttft_us, ttft, 1e-9 * ttft) << p->name;
    EXPECT_EQ(late.step_end_us.size(), 9u);
  }
}

// B arrives at step 3 while A decodes: step 3 decodes A and prefills B in
// one pass, and B's first token waits for that whole shared step.
TEST(ServingTimingTest, ARequestArrivingMidRunWaitsForTheStepItShares) {
  const suites::ModelConfig c = Granite8b();
  for (const CostProfile* p : {&Inductor(), &Sendnn()}) {
    const ServingTiming t = Walk({Request("A", 0, 512, 8), Request("B", 3, 256, 4)}, *p);
    ASSERT_EQ(t.records[1].admitted_step, 3) << p->name;
    // A's fourth token comes from step 3: its cache holds 512 + 2 positions.
    const double shared = suites::ServingStepTime(c, {{514, 1}, {0, 256}}, *p, 32).total_us;
    EXPECT_NEAR(t.step_end_us[3] - t.step_end_us[2], shared, 1e-9 * shared) << p->name;
    EXPECT_NEAR(t.times[1].ttft_us, shared, 1e-9 * shared) << p->name;
    const double b_alone = PassUs(256, Phase::kPrefill, *p) + KvWriteUs(256, *p);
    const double a_alone = PassUs(514, Phase::kDecode, *p) + KvWriteUs(1, *p);
    // The shared step costs more than B's prefill alone, but less than the
    // two passes apart: the weights are read once for both.
    EXPECT_GT(t.times[1].ttft_us, b_alone) << p->name;
    EXPECT_LT(shared, a_alone + b_alone) << p->name;
    // A's gap over step 3 is that step; its others are decodes of A alone,
    // or of A and B together once B runs.
    const std::vector<double> gaps = suites::TokenGaps(t.records[0], t.step_end_us);
    ASSERT_EQ(gaps.size(), 7u);
    EXPECT_NEAR(gaps[2], shared, 1e-9 * shared) << p->name;
    EXPECT_DOUBLE_EQ(t.times[0].itl_max_us, gaps[2]) << p->name;
    const double a_first_gap = PassUs(512, Phase::kDecode, *p) + KvWriteUs(1, *p);
    EXPECT_NEAR(gaps[0], a_first_gap, 1e-9 * a_first_gap) << p->name;
    // Trace figures: the median of two times to first token, the median of
    // all ten gaps.
    EXPECT_DOUBLE_EQ(t.ttft_p50_us, (t.times[0].ttft_us + t.times[1].ttft_us) / 2);
    std::vector<double> all = gaps;
    for (double g : suites::TokenGaps(t.records[1], t.step_end_us)) all.push_back(g);
    EXPECT_DOUBLE_EQ(t.itl_p50_us, harness::Median(all));
  }
}

double ExtraOf(const harness::CaseResult& r, const char* key) {
  return r.extra.contains(key) ? r.extra[key].get<double>() : std::nan("");
}

// At batch 1, sequence 1024 the trace's profile ratios are the calibration
// suite's published pair, moved only by the cache writes the walk adds.
TEST(ServingTimingTest, ProfileRatiosOfOneRequestAgreeWithTheCalibrationCases) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "calibration");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  double prefill_s = std::nan(""), prefill_i = prefill_s, decode_s = prefill_s,
         decode_i = prefill_s;
  for (const auto& c : suite->cases) {
    if (c.id != "granite_8b.prefill.speedup" && c.id != "granite_8b.decode.speedup") continue;
    const harness::CaseResult r = harness::ExecuteCase(*suite, c, harness::ExecOptions());
    ASSERT_EQ(r.status, harness::CaseStatus::kPassed) << c.id << ": " << r.message;
    const bool prefill = c.id == "granite_8b.prefill.speedup";
    (prefill ? prefill_s : decode_s) = ExtraOf(r, "sendnn_us");
    (prefill ? prefill_i : decode_i) = ExtraOf(r, "inductor_us");
  }
  ASSERT_FALSE(std::isnan(prefill_s) || std::isnan(decode_s));
  // One request of 1024 tokens and two new ones: one gap, decoding at 1024.
  const ServingTiming s = Walk({Request("r", 0, 1024, 2)}, Sendnn());
  const ServingTiming i = Walk({Request("r", 0, 1024, 2)}, Inductor());
  const double ttft_ratio = s.ttft_p50_us / i.ttft_p50_us;
  const double itl_ratio = s.itl_p50_us / i.itl_p50_us;
  EXPECT_NEAR(ttft_ratio,
              (prefill_s + KvWriteUs(1024, Sendnn())) / (prefill_i + KvWriteUs(1024, Inductor())),
              1e-9);
  EXPECT_NEAR(itl_ratio,
              (decode_s + KvWriteUs(1, Sendnn())) / (decode_i + KvWriteUs(1, Inductor())), 1e-9);
  // Still within the calibration's 5% of the published 1.7x and 2.4x; the
  // writes (launched on inductor only) pull both ratios down a little.
  EXPECT_LT(std::abs(ttft_ratio / 1.7 - 1), 0.05) << ttft_ratio;
  EXPECT_LT(std::abs(itl_ratio / 2.4 - 1), 0.05) << itl_ratio;
  EXPECT_LT(ttft_ratio, prefill_s / prefill_i);
  EXPECT_LT(itl_ratio, decode_s / decode_i);
}

// Batching shares the weight reads that dominate decode and adds launches
// per request (inductor pays each), so under a busy trace inductor's lead in
// time between tokens shrinks below its batch-1 2.4x.
TEST(ServingTimingTest, BatchedDecodeNarrowsInductorsLead) {
  std::vector<ServingRequest> eight;
  for (int r = 0; r < 8; ++r) eight.push_back(Request("r" + std::to_string(r), 0, 128, 16));
  const ServingTiming s = Walk(eight, Sendnn());
  const ServingTiming i = Walk(eight, Inductor());
  const double batched = s.itl_p50_us / i.itl_p50_us;
  const ServingTiming s1 = Walk({eight[0]}, Sendnn());
  const ServingTiming i1 = Walk({eight[0]}, Inductor());
  EXPECT_LT(batched, s1.itl_p50_us / i1.itl_p50_us);
  EXPECT_GT(batched, 1.0);
  // Eight decoding together take longer per step than one, far less than eight times.
  EXPECT_GT(i.itl_p50_us, i1.itl_p50_us);
  EXPECT_LT(i.itl_p50_us, 2 * i1.itl_p50_us);
}

// The timing kind's "serving" member: written as a suite file.
void WriteTimingSuite(const TempDir& dir, const nlohmann::json& model,
                      const nlohmann::json& serving) {
  nlohmann::json c = {{"id", "trace"}, {"kind", "timing"}, {"model", model}};
  if (!serving.is_null()) c["serving"] = serving;
  nlohmann::json doc = {{"name", "t"}, {"cases", {c}}};
  spyre_test::WriteFile(dir.File("t.json"), doc.dump());
}

nlohmann::json TwoRequestServing() {
  return {{"token_budget", 2048},
          {"max_running", 8},
          {"block_size", 64},
          {"kv_blocks", 160},
          {"requests",
           {{{"id", "A"}, {"arrival", 0}, {"prompt_len", 512}, {"max_new_tokens", 8}},
            {{"id", "B"}, {"arrival", 3}, {"prompt_len", 256}, {"max_new_tokens", 4}}}}};
}

nlohmann::json GraniteModel(const std::string& figure, const std::string& profile) {
  nlohmann::json m = {{"figure", figure}, {"config", "granite-3.3-8b"}};
  if (!profile.empty()) m["profile"] = profile;
  return m;
}

std::string TimingLoadError(const TempDir& dir, const nlohmann::json& model,
                            const nlohmann::json& serving) {
  WriteTimingSuite(dir, model, serving);
  auto s = harness::LoadSuite(dir.path(), "t");
  return s.ok() ? "" : s.status().message();
}

TEST(ServingTimingTest, BadTimedTracesFailWhenTheSuiteLoadsNamingTheMember) {
  TempDir dir;
  const nlohmann::json model = GraniteModel("modeled", "inductor");
  EXPECT_EQ(TimingLoadError(dir, model, TwoRequestServing()), "");

  nlohmann::json t = TwoRequestServing();
  t["requests"][1]["stop"] = 5;  // nothing is generated: no stop tokens
  std::string e = TimingLoadError(dir, model, t);
  EXPECT_NE(e.find("/cases/0/serving/requests/1/stop: unknown member of a request; use id, "
                   "arrival, prompt_len, max_new_tokens"),
            std::string::npos)
      << e;
  t = TwoRequestServing();
  t["requests"][0].erase("prompt_len");
  e = TimingLoadError(dir, model, t);
  EXPECT_NE(e.find("/cases/0/serving/requests/0/prompt_len: required"), std::string::npos) << e;
  t = TwoRequestServing();
  t["requests"][1]["prompt_len"] = 4096;  // over the token budget of 2048
  e = TimingLoadError(dir, model, t);
  EXPECT_NE(e.find("/cases/0/serving: request 'B' (trace index 1) has a prompt of 4096 tokens, "
                   "over the token budget of 2048"),
            std::string::npos)
      << e;
  t = TwoRequestServing();
  t["requests"][0]["arrival"] = 5000000;
  e = TimingLoadError(dir, model, t);
  EXPECT_NE(e.find("/cases/0/serving/requests/0/arrival: at most step 1000000"), std::string::npos)
      << e;
  e = TimingLoadError(dir, model, "a trace");  // the schema's rule
  EXPECT_NE(e.find("/cases/0/serving: expected object"), std::string::npos) << e;

  nlohmann::json m = model;
  m["seq"] = 1024;
  e = TimingLoadError(dir, m, TwoRequestServing());
  EXPECT_NE(e.find("/cases/0/model/seq: a serving trace takes its lengths from its requests"),
            std::string::npos)
      << e;
  e = TimingLoadError(dir, {{"figure", "softmax_us"}}, TwoRequestServing());
  EXPECT_NE(e.find("/cases/0/serving: a trace is timed by the figures modeled and speedup"),
            std::string::npos)
      << e;
  m = model;
  m["config"] = "granite-8b";
  e = TimingLoadError(dir, m, TwoRequestServing());
  EXPECT_NE(e.find("/cases/0/model/config: unknown model config 'granite-8b'; timing takes a "
                   "built-in decoder: "),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("granite-3.3-8b"), std::string::npos) << e;
  EXPECT_EQ(e.find("checkpoint"), std::string::npos) << e;
  EXPECT_EQ(e.find("bert-tiny"), std::string::npos) << e;
  t = TwoRequestServing();
  for (auto& r : t["requests"]) r["max_new_tokens"] = 1;
  nlohmann::json speedup = GraniteModel("speedup", "");
  speedup["phase"] = "decode";
  e = TimingLoadError(dir, speedup, t);
  EXPECT_NE(e.find("/cases/0/serving/requests: a decode speedup compares the gaps between tokens"),
            std::string::npos)
      << e;
}

// A full-size model in a computing serving case stays refused, pointing at
// the timing kind.
TEST(ServingTimingTest, AComputedTraceOfAFullSizeModelIsRefused) {
  TempDir dir;
  nlohmann::json doc = {{"name", "s"},
                        {"cases",
                         {{{"id", "big"},
                           {"kind", "serving"},
                           {"model", {{"config", "granite-3.3-8b"}}},
                           {"serving", TwoRequestServing()}}}}};
  spyre_test::WriteFile(dir.File("s.json"), doc.dump());
  auto s = harness::LoadSuite(dir.path(), "s");
  ASSERT_FALSE(s.ok());
  const std::string& e = s.status().message();
  EXPECT_NE(e.find("/cases/0/model (case 'big'): model 'granite-3.3-8b'"), std::string::npos) << e;
  EXPECT_NE(e.find("\"kind\": \"timing\" cases (a trace is timed by one with the trace as its "
                   "\"serving\" member)"),
            std::string::npos)
      << e;
}

const harness::Metric* FindMetric(const harness::CaseResult& r, const std::string& output,
                                  const std::string& name) {
  for (const harness::Metric& m : r.metrics) {
    if (m.output == output && m.name == name) return &m;
  }
  return nullptr;
}

// A timed trace's case records what the walk gives, request by request, as
// a pass's modeled time is recorded: output "time", the trace's modeled
// time as the case's modeled_us, its kernels as ops.
TEST(ServingTimingTest, TheCaseRecordsEachRequestAndTheTraceFigures) {
  TempDir dir;
  WriteTimingSuite(dir, GraniteModel("modeled", "sendnn"), TwoRequestServing());
  auto suite = harness::LoadSuite(dir.path(), "t");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  const harness::CaseResult r =
      harness::ExecuteCase(*suite, suite->cases[0], harness::ExecOptions());
  ASSERT_EQ(r.status, harness::CaseStatus::kPassed) << r.message;
  const ServingTiming t = Walk({Request("A", 0, 512, 8), Request("B", 3, 256, 4)}, Sendnn());
  EXPECT_DOUBLE_EQ(r.modeled_us, t.steps.total_us);
  EXPECT_TRUE(r.wall_us.empty());
  const std::vector<std::pair<std::string, double>> expected = {
      {"A.modeled_ttft_us", t.times[0].ttft_us},
      {"A.modeled_itl_us", t.times[0].itl_us},
      {"A.modeled_itl_p50_us", t.times[0].itl_p50_us},
      {"A.modeled_itl_max_us", t.times[0].itl_max_us},
      {"B.modeled_ttft_us", t.times[1].ttft_us},
      {"B.modeled_itl_us", t.times[1].itl_us},
      {"modeled_ttft_p50_us", t.ttft_p50_us},
      {"modeled_ttft_p90_us", t.ttft_p90_us},
      {"modeled_itl_p50_us", t.itl_p50_us},
      {"modeled_tokens_per_s", t.tokens_per_s},
      {"modeled_us", t.steps.total_us}};
  for (const auto& [name, value] : expected) {
    const harness::Metric* m = FindMetric(r, "time", name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_DOUBLE_EQ(m->value, value) << name;
    EXPECT_FALSE(m->failed) << name;
  }
  int64_t kv_writes = 0;
  for (const harness::OpSummary& op : r.ops) {
    if (op.op == "kv_write") kv_writes = op.calls;
  }
  EXPECT_EQ(kv_writes, 40 * (8 + 4));  // one per layer and request, every token
  EXPECT_EQ(r.extra["requests"][1]["admitted_step"].get<int64_t>(), 3);

  // A speedup case: sendnn over inductor of the medians, the value by phase.
  nlohmann::json model = GraniteModel("speedup", "");
  model["phase"] = "decode";
  WriteTimingSuite(dir, model, TwoRequestServing());
  suite = harness::LoadSuite(dir.path(), "t");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  const harness::CaseResult sp =
      harness::ExecuteCase(*suite, suite->cases[0], harness::ExecOptions());
  ASSERT_EQ(sp.status, harness::CaseStatus::kPassed) << sp.message;
  const ServingTiming ti = Walk({Request("A", 0, 512, 8), Request("B", 3, 256, 4)}, Inductor());
  EXPECT_DOUBLE_EQ(sp.extra["value"].get<double>(), t.itl_p50_us / ti.itl_p50_us);
  ASSERT_NE(FindMetric(sp, "figure", "ttft_p50_speedup"), nullptr);
  EXPECT_DOUBLE_EQ(FindMetric(sp, "figure", "ttft_p50_speedup")->value,
                   t.ttft_p50_us / ti.ttft_p50_us);
  EXPECT_DOUBLE_EQ(sp.modeled_us, ti.steps.total_us);
}

}  // namespace
