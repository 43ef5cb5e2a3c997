// The "serving" case kind: its trace validated when the suite loads, a
// small trace served on the device end to end (every request against its
// solo reference, the peak KV blocks at the hand count), the scheduler
// faults caught and named, and the committed serving traces passing.
#include <gtest/gtest.h>

#include <cmath>

#include "harness/case_kinds/case_kinds.h"
#include "harness/golden/golden.h"
#include "quick_options.h"
#include "serving_engine.h"
#include "serving_judge.h"
#include "serving_metrics.h"
#include "serving_trace.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::TempDir;

nlohmann::json ServingRequestJson(const std::string& id, int arrival, int prompt_len, int max_new) {
  return {
      {"id", id}, {"arrival", arrival}, {"prompt_len", prompt_len}, {"max_new_tokens", max_new}};
}

// The trace of the scheduler's hand count (serving_scheduler_test.cpp): with
// blocks of 4 positions its peak is 8 blocks, at step 3.
nlohmann::json HandCountedServing() {
  return {{"token_budget", 16},
          {"max_running", 4},
          {"block_size", 4},
          {"kv_blocks", 16},
          {"requests",
           {ServingRequestJson("A", 0, 6, 4), ServingRequestJson("B", 1, 3, 6),
            ServingRequestJson("C", 2, 9, 2)}}};
}

void WriteServingSuite(const TempDir& dir, const nlohmann::json& model,
                       const nlohmann::json& serving) {
  nlohmann::json doc = {
      {"name", "s"},
      {"cases", {{{"id", "c"}, {"kind", "serving"}, {"model", model}, {"serving", serving}}}}};
  spyre_test::WriteFile(dir.File("s.json"), doc.dump());
}

std::string ServingLoadError(const TempDir& dir, const nlohmann::json& serving,
                             const nlohmann::json& model = {{"config", "llama-tiny"}}) {
  WriteServingSuite(dir, model, serving);
  auto s = harness::LoadSuite(dir.path(), "s");
  return s.ok() ? "" : s.status().message();
}

double MetricOf(const harness::CaseResult& r, const std::string& output, const std::string& name) {
  for (const auto& m : r.metrics) {
    if (m.output == output && m.name == name) return m.value;
  }
  return std::nan("");
}

TEST(ServingCaseTest, BadTracesFailWhenTheSuiteLoadsNamingTheMember) {
  TempDir dir;
  nlohmann::json s = HandCountedServing();
  EXPECT_EQ(ServingLoadError(dir, s), "");

  nlohmann::json t = s;
  t["requests"][1]["id"] = "A";
  EXPECT_NE(ServingLoadError(dir, t).find("/cases/0/serving/requests/1/id: 'A' is already"),
            std::string::npos)
      << ServingLoadError(dir, t);

  t = s;
  t["requests"][2]["prompt_len"] = 20;  // over the token budget of 16
  EXPECT_NE(ServingLoadError(dir, t).find("/cases/0/serving: request 'C' (trace index 2) has a "
                                          "prompt of 20 tokens, over the token budget of 16"),
            std::string::npos)
      << ServingLoadError(dir, t);

  t = s;
  t["kv_blocks"] = 2;  // A needs ceil(9 / 4) = 3
  EXPECT_NE(ServingLoadError(dir, t).find("needs 3 KV blocks of 4 positions, the pool has 2; "
                                          "raise \"kv_blocks\""),
            std::string::npos)
      << ServingLoadError(dir, t);

  t = s;
  t["requests"][0]["prompt"] = {1, 2};
  EXPECT_NE(ServingLoadError(dir, t).find("/cases/0/serving/requests/0: give exactly one of"),
            std::string::npos)
      << ServingLoadError(dir, t);

  t = s;
  t["requests"][0].erase("max_new_tokens");
  EXPECT_NE(ServingLoadError(dir, t).find("/requests/0/max_new_tokens: required"),
            std::string::npos)
      << ServingLoadError(dir, t);

  t = s;
  t["requests"][0]["arival"] = 3;
  EXPECT_NE(ServingLoadError(dir, t).find("/requests/0/arival: unknown member of a request"),
            std::string::npos)
      << ServingLoadError(dir, t);

  t = s;
  t["requests"][0]["stop"] = 100000;
  EXPECT_NE(ServingLoadError(dir, t).find("/requests/0/stop: a token id in [0, 320)"),
            std::string::npos)
      << ServingLoadError(dir, t);

  t = s;
  t["max_running"] = 0;
  EXPECT_NE(ServingLoadError(dir, t).find("/cases/0/serving/max_running: expected an integer >= 1"),
            std::string::npos)
      << ServingLoadError(dir, t);

  EXPECT_NE(ServingLoadError(dir, s, {{"config", "llama-tiny"}, {"prompts", {{1, 2}}}})
                .find("/cases/0/model/prompts: a serving case's prompts belong to its requests"),
            std::string::npos);
  EXPECT_NE(ServingLoadError(dir, nullptr).find("/cases/0/serving: expected object"),
            std::string::npos)
      << ServingLoadError(dir, nullptr);
  EXPECT_NE(ServingLoadError(dir, {{"requests", nlohmann::json::array()}})
                .find("/cases/0/serving/requests: expected a non-empty array"),
            std::string::npos);
}

// Served together (A, B and C overlap at steps 2 and 3), each request's
// tokens and logits match the request decoded alone, and the KV pool peaks
// at the hand count.
TEST(ServingCaseTest, ASmallTraceMatchesItsSoloReferencesAndPeaksAtTheHandCount) {
  TempDir dir;
  WriteServingSuite(dir, {{"config", "llama-tiny"}}, HandCountedServing());
  auto suite = harness::LoadSuite(dir.path(), "s");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  const auto options = spyre_test::QuickOptions(dir.path(), dir.File("golden"));
  auto gen = harness::GenerateGolden(*suite, options);
  ASSERT_TRUE(gen.ok()) << gen.status().message();
  const harness::CaseResult r = harness::ExecuteCase(*suite, suite->cases[0], options);
  EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << r.message;
  EXPECT_EQ(MetricOf(r, "kv", "kv_blocks_peak"), 8);
  EXPECT_EQ(MetricOf(r, "requests", "failed_requests"), 0);
  EXPECT_EQ(r.extra["kv_blocks_in_use"], nlohmann::json({2, 3, 6, 8, 2, 2, 2}));
  ASSERT_EQ(r.extra["requests"].size(), 3u);
  for (const auto& req : r.extra["requests"]) {
    EXPECT_EQ(req["served_tokens"], req["golden_tokens"]) << req.dump();
    EXPECT_TRUE(req["passed"].get<bool>()) << req.dump();
  }
  EXPECT_EQ(r.extra["requests"][2]["admitted_step"], 2);
  EXPECT_FALSE(std::isnan(MetricOf(r, "A", "top1_agreement")));
  EXPECT_GT(MetricOf(r, "latency", "modeled_ttft_us"), 0);
  EXPECT_GT(MetricOf(r, "latency", "C.modeled_ttft_us"), 0);
  EXPECT_GT(MetricOf(r, "latency", "modeled_tokens_per_s"), 0);
  EXPECT_GT(r.peak_device_bytes, 0);
  EXPECT_GT(r.modeled_us, 0);
}

// The scheduler faults run through the engine and the judge on the small
// trace: each is caught, naming the request and the step.
class ServingFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteServingSuite(dir_, {{"config", "llama-tiny"}}, HandCountedServing());
    auto suite = harness::LoadSuite(dir_.path(), "s");
    ASSERT_TRUE(suite.ok()) << suite.status().message();
    suite_ = *suite;
    const auto options = spyre_test::QuickOptions(dir_.path(), dir_.File("golden"));
    ASSERT_TRUE(harness::GenerateGolden(suite_, options).ok());
    auto sc = suites::ParseServingCase(suite_, suite_.cases[0]);
    ASSERT_TRUE(sc.ok()) << sc.status().message();
    sc_ = *sc;
    auto in = suites::LoadServingInputs(suite_, suite_.cases[0], sc_, options);
    ASSERT_TRUE(in.ok()) << in.status().message();
    in_ = *in;
  }

  // Request i judged after a run with `faults`.
  std::string Judge(const suites::SchedulerFaults& faults, size_t i) {
    suites::DecoderModel model(sc_.model.config, in_.weights, suites::DeviceUnderTest(),
                               sc_.model.dtype, sc_.model.impl, sc_.max_len);
    suites::ServingRunOptions o;
    o.faults = faults;
    const suites::ServingRun run = suites::RunServingTrace(model, sc_, in_.tokens, o);
    harness::CaseResult r;
    nlohmann::json detail;
    suites::TraceLogitFlips flips;
    return suites::JudgeServedRequest(sc_, i, in_, suites::ComputeServingYardsticks(sc_, in_), run,
                                      &r, &detail, &flips);
  }

  TempDir dir_;
  harness::SuiteSpec suite_;
  suites::ServingCase sc_;
  suites::ServingInputs in_;
};

TEST_F(ServingFaultTest, WithoutAFaultEveryRequestPasses) {
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(Judge({}, i), "") << i;
}

TEST_F(ServingFaultTest, ABlockFreedEarlyShowsUpAsWrongLogitsOfItsRequest) {
  // A's first block goes back to the pool at step 2, where C's prefill
  // takes it: A reads C's keys and values (or the poison) from then on.
  suites::SchedulerFaults f;
  f.free_early_request = 0;
  f.free_early_step = 2;
  const std::string problem = Judge(f, 0);
  EXPECT_NE(problem.find("request 'A'"), std::string::npos) << problem;
  EXPECT_NE(problem.find("at step 2"), std::string::npos) << problem;
}

TEST_F(ServingFaultTest, ADroppedRequestIsNamedWithItsLastStep) {
  suites::SchedulerFaults f;
  f.drop_request = 1;
  f.drop_step = 3;
  const std::string problem = Judge(f, 1);
  EXPECT_NE(problem.find("request 'B' was dropped: 2 of its 6 tokens served, the last at step 2"),
            std::string::npos)
      << problem;
  EXPECT_EQ(Judge(f, 0), "");  // its neighbours are unharmed
}

TEST_F(ServingFaultTest, ASlowPrefillStretchesItsStepInModeledTime) {
  // C is prefilled at step 2, beside A's and B's decodes; slowing its
  // prefill 3x triples that step, so C's modeled time to first token
  // triples, A's and B's first tokens (steps 0 and 1) do not move, and
  // A's inter-token latency, which spans step 2, grows.
  auto latency = [&](const suites::SlowPrefill& slow) {
    suites::DecoderModel model(sc_.model.config, in_.weights, suites::DeviceUnderTest(),
                               sc_.model.dtype, sc_.model.impl, sc_.max_len);
    suites::ServingRunOptions o;
    o.slow_prefill = slow;
    o.profile_steps = true;
    const suites::ServingRun run = suites::RunServingTrace(model, sc_, in_.tokens, o);
    return suites::MeasureLatency(sc_, {run}, run);
  };
  const suites::ServingLatency clean = latency({});
  const suites::ServingLatency slow = latency({2, 3.0});
  EXPECT_EQ(slow.first_token_step, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_NEAR(slow.modeled[2].ttft_us / clean.modeled[2].ttft_us, 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(slow.modeled[0].ttft_us, clean.modeled[0].ttft_us);
  EXPECT_DOUBLE_EQ(slow.modeled[1].ttft_us, clean.modeled[1].ttft_us);
  EXPECT_GT(slow.modeled[0].itl_us, clean.modeled[0].itl_us * 1.05);
  // Every request still gets its golden tokens: the fault is only time.
  suites::SchedulerFaults none;
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(Judge(none, i), "") << i;
}

// The faults reach the serving kind the way the device's do: `run
// --inject` with the fault points' names (serving_faults.h).
TEST(ServingCliTest, InjectedServingFaultsFailTheRunNamingRequestAndStep) {
  TempDir dir;
  WriteServingSuite(dir, {{"config", "llama-tiny"}}, HandCountedServing());
  const std::vector<std::string> where = {"--suite",  "s",        "--suites",
                                          dir.path(), "--golden", dir.File("g")};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), where.begin(), where.end());
    return args;
  };
  auto gen = spyre_test::RunCli(with({"golden", "generate"}));
  ASSERT_EQ(gen.exit_code, 0) << gen.out << gen.err;
  auto clean = spyre_test::RunCli(with({"run", "--db", dir.File("ok.db"), "--baseline", "none"}));
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  const std::vector<std::pair<std::string, std::string>> faults = {
      {"serving_free_early:request=0,step=2",
       "request 'A': non-finite logits for its token 2 at step 2"},
      {"serving_drop:request=1,step=3",
       "request 'B' was dropped: 2 of its 6 tokens served, the last at step 2"}};
  for (const auto& [spec, needle] : faults) {
    auto r = spyre_test::RunCli(
        with({"run", "--db", dir.File("f.db"), "--baseline", "none", "--inject", spec}));
    EXPECT_EQ(r.exit_code, 1) << spec << ": " << r.out << r.err;
    EXPECT_NE((r.out + r.err).find(needle), std::string::npos) << spec << ": " << r.out << r.err;
  }
  // A slow prefill leaves every token right; compared with the clean run
  // it is a modeled-latency regression naming the request and its step.
  auto slow = spyre_test::RunCli(with({"run", "--db", dir.File("ok.db"), "--baseline", "auto",
                                       "--inject", "serving_slow_prefill:request=2,slow=3"}));
  EXPECT_EQ(slow.exit_code, 1) << slow.out << slow.err;
  EXPECT_NE(slow.out.find("request 'C' (its prefill at step 2): modeled time to first token"),
            std::string::npos)
      << slow.out << slow.err;
  // Timed, the slow step is a wall-time regression too, confirmed in
  // processes that serve the trace with and without the fault in turn:
  // the serving engine's faults switch with the device's.
  auto timed_clean = spyre_test::RunCli(with(
      {"run", "--db", dir.File("t.db"), "--baseline", "none", "--latency", "all"}));
  EXPECT_EQ(timed_clean.exit_code, 0) << timed_clean.out << timed_clean.err;
  auto timed = spyre_test::RunCli(
      with({"run", "--db", dir.File("t.db"), "--baseline", "auto", "--latency", "all", "--inject",
            "serving_slow_prefill:request=2,slow=30"}));
  EXPECT_EQ(timed.exit_code, 1) << timed.out << timed.err;
  EXPECT_NE(timed.out.find("s/c latency"), std::string::npos) << timed.out << timed.err;
  EXPECT_NE(timed.out.find("fresh processes, paired"), std::string::npos) << timed.out << timed.err;
  // A fault point without its request is refused by the case, not ignored.
  auto bad = spyre_test::RunCli(with(
      {"run", "--db", dir.File("f.db"), "--baseline", "none", "--inject", "serving_drop:step=1"}));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE((bad.out + bad.err).find("'serving_drop' needs request=R"), std::string::npos)
      << bad.out << bad.err;
  // So is one that would leave the trace as it was: a request it does not
  // have, a step after its request finished.
  const std::vector<std::pair<std::string, std::string>> misses = {
      {"serving_drop:request=3,step=1", "names request 3, but this trace has 3 (0 to 2)"},
      {"serving_drop:request=1,step=30", "did nothing: request 1 ('B') yielded its last token at"}};
  for (const auto& [spec, needle] : misses) {
    auto r = spyre_test::RunCli(
        with({"run", "--db", dir.File("f.db"), "--baseline", "none", "--inject", spec}));
    EXPECT_NE(r.exit_code, 0) << spec;
    EXPECT_NE((r.out + r.err).find("error s/"), std::string::npos) << spec << ": " << r.out << r.err;
    EXPECT_NE((r.out + r.err).find(needle), std::string::npos) << spec << ": " << r.out << r.err;
  }
}

TEST(ServingCaseTest, CommittedServingTracesPassEveryRequest) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "decode");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  const auto options =
      spyre_test::QuickOptions(SPYRE_SOURCE_DIR "/suites", SPYRE_SOURCE_DIR "/golden");
  int ran = 0;
  for (const auto& c : suite->cases) {
    if (c.kind != "serving") continue;
    ++ran;
    const harness::CaseResult r = harness::ExecuteCase(*suite, c, options);
    EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << c.id << ": " << r.message;
    EXPECT_EQ(r.extra["requests"].size(), 16u) << c.id;
    EXPECT_GT(MetricOf(r, "kv", "kv_blocks_peak"), 0) << c.id;
  }
  EXPECT_EQ(ran, 4);
}

}  // namespace
