// The serving fault points read from a fault spec.
#include "serving_faults.h"

#include <gtest/gtest.h>

namespace {

using suites::ParseServingFaults;

TEST(ServingFaultsTest, FaultPointsPickARequestAndAStep) {
  const auto f = ParseServingFaults(
      "mm:slow=2; serving_drop:request=3,step=7;serving_free_early: request = 0 , step = 2", 4);
  EXPECT_EQ(f.error, "");
  EXPECT_EQ(f.faults.drop_request, 3);
  EXPECT_EQ(f.faults.drop_step, 7);
  EXPECT_EQ(f.faults.free_early_request, 0);
  EXPECT_EQ(f.faults.free_early_step, 2);
}

TEST(ServingFaultsTest, DeviceOpsAreLeftAlone) {
  const auto none = ParseServingFaults("mm:error=0.01;_softmax:nan", 4);
  EXPECT_EQ(none.error, "");
  EXPECT_EQ(none.faults.drop_request, -1);
  EXPECT_EQ(none.faults.free_early_request, -1);
}

TEST(ServingFaultsTest, ARequestPastTheTraceIsRefusedWithItsRange) {
  // Passed over, it would leave the trace clean and the run green.
  const auto beyond = ParseServingFaults("serving_drop:request=9,step=1", 4);
  EXPECT_EQ(beyond.error,
            "fault point 'serving_drop:request=9,step=1' names request 9, but this trace has 4 "
            "(0 to 3): aim request= at one of them, or run only the traces that have it "
            "(--filter)");
  EXPECT_NE(ParseServingFaults("serving_slow_prefill:request=4,slow=2", 4).error, "");
  EXPECT_EQ(ParseServingFaults("serving_slow_prefill:request=3,slow=2", 4).error, "");
}

// The scheduler run to its end with token 1 for every work item.
struct Ran {
  std::vector<suites::ServingRequest> trace;
  std::vector<suites::RequestRecord> records;
  suites::FaultsFired fired;
  int64_t steps = 0;
};
Ran RunScheduler(const suites::SchedulerFaults& faults) {
  Ran ran;
  // "a" arrives at 0, prompt 4, 3 tokens: prefilled at step 0, decodes at
  // 1 and 2. "b" arrives at 1 with one token only: prefilled at step 1.
  suites::ServingRequest a, b;
  a.id = "a";
  a.prompt_len = 4;
  a.max_new_tokens = 3;
  b.id = "b";
  b.arrival_step = 1;
  b.prompt_len = 2;
  b.max_new_tokens = 1;
  ran.trace = {a, b};
  suites::ServingScheduler s(ran.trace, suites::SchedulerLimits{}, faults);
  while (!s.Done()) s.Commit(std::vector<int64_t>(s.Plan().work.size(), 1));
  for (int64_t r = 0; r < 2; ++r) ran.records.push_back(s.record(r));
  ran.fired = s.faults_fired();
  ran.steps = s.steps();
  return ran;
}

std::string Unfired(const suites::SchedulerFaults& faults) {
  const Ran ran = RunScheduler(faults);
  return suites::UnfiredServingFault(faults, ran.fired, ran.records, ran.trace, ran.steps);
}

TEST(ServingFaultsTest, AFaultThatHitsNothingSaysWhichStepsWould) {
  suites::SchedulerFaults drop;
  drop.drop_request = 0;
  drop.drop_step = 2;
  EXPECT_EQ(Unfired(drop), "");  // "a" is still decoding at step 2
  drop.drop_step = 3;
  EXPECT_EQ(Unfired(drop),
            "fault point 'serving_drop:request=0,step=3' did nothing: request 0 ('a') yielded "
            "its last token at step 2 of the trace's 3 steps; aim step= at 0 to 2");

  suites::SchedulerFaults early;
  early.free_early_request = 0;
  early.free_early_step = 1;
  EXPECT_EQ(Unfired(early), "");
  early.free_early_step = 0;  // the step that prefills it: no blocks yet
  EXPECT_EQ(Unfired(early),
            "fault point 'serving_free_early:request=0,step=0' did nothing: request 0 ('a') held "
            "KV blocks from step 1 to 2 of the trace's 3 steps; aim step= inside that span");
  early.free_early_request = 1;
  early.free_early_step = 1;
  EXPECT_EQ(Unfired(early),
            "fault point 'serving_free_early:request=1,step=1' did nothing: request 1 ('b') "
            "yields its only token at its prefill (step 1), so no step finds it holding blocks; "
            "aim request= at one that decodes");
  EXPECT_EQ(Unfired({}), "");
  // Dropped by the other fault point before its early free.
  suites::SchedulerFaults both;
  both.drop_request = 0;
  both.drop_step = 1;
  both.free_early_request = 0;
  both.free_early_step = 2;
  EXPECT_EQ(Unfired(both),
            "fault point 'serving_free_early:request=0,step=2' did nothing: request 0 ('a') was "
            "dropped (serving_drop) before step 2; aim one of the two elsewhere");
}

TEST(ServingFaultsTest, AFaultPointWithoutItsRequestOrStepIsAnError) {
  const auto f = ParseServingFaults("serving_free_early:step=2", 4);
  EXPECT_NE(f.error.find("'serving_free_early' needs request=R"), std::string::npos) << f.error;
  EXPECT_NE(ParseServingFaults("serving_drop:nan", 4).error, "");
}

TEST(ServingFaultsTest, ASlowPrefillNamesItsRequestAndFactor) {
  const auto f = ParseServingFaults("mm:slow=2; serving_slow_prefill: request = 2 , slow = 3.5", 4);
  EXPECT_EQ(f.error, "");
  EXPECT_EQ(f.slow_prefill.request, 2);
  EXPECT_DOUBLE_EQ(f.slow_prefill.factor, 3.5);
  EXPECT_EQ(f.faults.drop_request, -1);
  // Its step is the request's prefill: a step= is refused, as is a
  // factor that would not slow it.
  for (const char* bad : {"serving_slow_prefill:request=2,step=1,slow=3",
                          "serving_slow_prefill:request=2", "serving_slow_prefill:slow=3",
                          "serving_slow_prefill:request=2,slow=1"}) {
    const auto e = ParseServingFaults(bad, 4);
    EXPECT_NE(e.error.find("'serving_slow_prefill' needs request=R"), std::string::npos)
        << bad << ": " << e.error;
    EXPECT_EQ(e.slow_prefill.request, -1) << bad;
  }
  EXPECT_EQ(ParseServingFaults("serving_slow_prefill:request=9,slow=3", 4).slow_prefill.request,
            -1);
}

}  // namespace
