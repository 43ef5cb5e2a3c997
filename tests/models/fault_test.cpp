// Acceptance: with every mm output perturbed by 5e-3, every committed
// decode case fails its yardstick-scaled limit and names the steps whose
// log-probabilities moved (a serving trace, the requests and their steps). The
// fault is set through SetConfig: ctest's discovered ENVIRONMENT property
// keeps only the first of several variables (see the report to the lead).
#include <gtest/gtest.h>

#include <spyre_emu/runtime.h>

#include "harness/case_kinds/case_kinds.h"

namespace {

TEST(ModelFaultTest, DecodeReportsLogprobErrorsForTheAffectedSteps) {
  spyre_emu::Config config = spyre_emu::CurrentConfig();
  const std::string before = config.faults;
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "decode");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  harness::ExecOptions o;
  o.suites_dir = SPYRE_SOURCE_DIR "/suites";
  o.golden_dir = SPYRE_SOURCE_DIR "/golden";
  o.warmup = 0;
  o.repeat = 1;
  for (const auto& c : suite->cases) {
    // The clean run first: its yardstick is the one the fault must leave alone.
    config.faults = before;
    spyre_emu::SetConfig(config);
    const harness::CaseResult clean = harness::ExecuteCase(*suite, c, o);
    config.faults = "mm:error=5e-3";
    spyre_emu::SetConfig(config);
    const harness::CaseResult r = harness::ExecuteCase(*suite, c, o);
    EXPECT_EQ(r.status, harness::CaseStatus::kFailed) << c.id;
    EXPECT_NE(r.message.find("max |logprob diff|"), std::string::npos) << c.id << ": " << r.message;
    if (c.kind == "serving") {
      // A trace names the requests that failed and the step of each.
      EXPECT_NE(r.message.find(" requests failed; "), std::string::npos) << r.message;
      EXPECT_NE(r.message.find("request '"), std::string::npos) << r.message;
      EXPECT_NE(r.message.find(" of the trace: "), std::string::npos) << r.message;
      continue;
    }
    // The limit scales with the yardstick; the message says how.
    const double limit = r.extra["max_logprob_diff_limit"].get<double>();
    const double yardstick = r.extra["logprob_yardstick"].get<double>();
    EXPECT_GT(yardstick, 0) << c.id;
    // The yardstick is the CPU's fp32-in-DL16 error, not the fault's.
    EXPECT_DOUBLE_EQ(yardstick, clean.extra["logprob_yardstick"].get<double>()) << c.id;
    int over = 0;
    for (const auto& step : r.extra["per_step"])
      over += step["max_logprob_diff"].get<double>() > limit;
    EXPECT_GT(over, 0) << c.id;
    // The steps are named as ranges, not listed one by one: every step over
    // the limit reads "at all N steps".
    const int steps = static_cast<int>(r.extra["per_step"].size());
    if (over == steps && steps > 1) {
      EXPECT_NE(r.message.find("at all " + std::to_string(steps) + " steps"), std::string::npos)
          << r.message;
    } else {
      EXPECT_NE(r.message.find(" at step"), std::string::npos) << r.message;
    }
    EXPECT_EQ(r.message.find("0, 1, 2, 3"), std::string::npos) << r.message;
    EXPECT_NE(r.message.find(" x yardstick "), std::string::npos) << r.message;
    EXPECT_NE(r.message.find("\"logprob_m\""), std::string::npos) << r.message;
  }
  config.faults = before;
  spyre_emu::SetConfig(config);
}

}  // namespace

namespace {

// Acceptance: a matmul off by 0.2% (a quarter of a bfloat16 spacing, two
// DL16 rounding units) fails every case of the trained model, serving
// traces included. fp16 logits show it in the logprobs; bfloat16 logits
// round most of it away, so those cases fail on how many logits land on
// another value than the golden's, and say so. (At 0.1%, one DL16 rounding
// unit, the trained model's peaked fp16 logits move no more than the
// yardstick's own: the fp16 cases pass, the bfloat16 ones fail.)
TEST(ModelFaultTest, TwoTenthsOfAPercentFailsEveryTrainedModelCase) {
  spyre_emu::Config config = spyre_emu::CurrentConfig();
  const std::string before = config.faults;
  config.faults = "mm:error=2e-3";
  spyre_emu::SetConfig(config);
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "decode");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  harness::ExecOptions o;
  o.suites_dir = SPYRE_SOURCE_DIR "/suites";
  o.golden_dir = SPYRE_SOURCE_DIR "/golden";
  o.warmup = 0;
  o.repeat = 1;
  int trained = 0;
  for (const auto& c : suite->cases) {
    if (c.id.rfind("fortunes.", 0) != 0) continue;
    if (c.kind == "serving") {
      const harness::CaseResult r = harness::ExecuteCase(*suite, c, o);
      EXPECT_EQ(r.status, harness::CaseStatus::kFailed) << c.id << ": " << r.message;
      if (c.id.find(".bf16.") != std::string::npos) {
        EXPECT_NE(r.message.find("of the trace's bfloat16 logits rounded"), std::string::npos)
            << c.id << ": " << r.message;
      }
      continue;
    }
    ++trained;
    const harness::CaseResult r = harness::ExecuteCase(*suite, c, o);
    EXPECT_EQ(r.status, harness::CaseStatus::kFailed) << c.id << ": " << r.message;
    // The text is quoted: at the first divergence, or where no token moved,
    // at the step whose log-probabilities moved most.
    EXPECT_NE(r.message.find("as text (sequence "), std::string::npos) << c.id << ": " << r.message;
    if (c.id.find(".bf16.") != std::string::npos) {
      EXPECT_NE(r.message.find("bfloat16 logits rounded to another value than the golden's"),
                std::string::npos)
          << c.id << ": " << r.message;
      const auto& f = r.extra["logit_flips"];
      EXPECT_GT(f["share"].get<double>(), f["limit"].get<double>()) << c.id;
      EXPECT_GT(f["yardstick"].get<double>(), 0) << c.id;
    }
  }
  EXPECT_EQ(trained, 8);
  config.faults = before;
  spyre_emu::SetConfig(config);
}

}  // namespace
