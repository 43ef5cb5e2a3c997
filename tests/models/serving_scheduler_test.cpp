// Continuous batching over small traces whose every step is worked out by
// hand: admission under the token budget, the running-batch limit and the
// KV reservation, retirement, block reuse, and the two scheduler faults.
#include "serving_scheduler.h"

#include <cmath>

#include <gtest/gtest.h>

#include "serving_times.h"

namespace {

using suites::FinishReason;
using suites::RequestState;
using suites::SchedulerFaults;
using suites::SchedulerLimits;
using suites::ServingRequest;
using suites::ServingScheduler;
using suites::StepPlan;
using suites::WorkKind;

ServingRequest Req(const std::string& id, int64_t arrival, int64_t prompt, int64_t max_new,
                   int64_t stop = -1) {
  ServingRequest r;
  r.id = id;
  r.arrival_step = arrival;
  r.prompt_len = prompt;
  r.max_new_tokens = max_new;
  r.stop_token = stop;
  return r;
}

SchedulerLimits Limits(int64_t budget, int64_t running, int64_t block_size, int64_t blocks) {
  SchedulerLimits l;
  l.token_budget = budget;
  l.max_running = running;
  l.block_size = block_size;
  l.kv_blocks = blocks;
  return l;
}

// "P0:0+6 D1:6" : the plan's work, prefills and decodes with request,
// position and tokens.
std::string WorkText(const StepPlan& plan) {
  std::string out;
  for (const auto& w : plan.work) {
    out += (out.empty() ? "" : " ") + std::string(w.kind == WorkKind::kPrefill ? "P" : "D") +
           std::to_string(w.request) + ":" + std::to_string(w.position) +
           (w.kind == WorkKind::kPrefill ? "+" + std::to_string(w.tokens) : "");
  }
  return out;
}

// Runs the trace to the end, committing token 1 for every work item; the
// plans' work, step by step.
std::vector<std::string> RunTrace(ServingScheduler& s, int64_t max_steps = 100) {
  std::vector<std::string> steps;
  while (!s.Done() && static_cast<int64_t>(steps.size()) < max_steps) {
    const StepPlan& plan = s.Plan();
    steps.push_back(WorkText(plan));
    s.Commit(std::vector<int64_t>(plan.work.size(), 1));
  }
  return steps;
}

TEST(ServingSchedulerTest, OneRequestIsPrefilledThenDecodedUntilMaxTokens) {
  ServingScheduler s({Req("a", 0, 5, 3)}, Limits(64, 4, 16, 4));
  EXPECT_EQ(RunTrace(s), (std::vector<std::string>{"P0:0+5", "D0:5", "D0:6"}));
  const auto& rec = s.record(0);
  EXPECT_EQ(rec.state, RequestState::kFinished);
  EXPECT_EQ(rec.reason, FinishReason::kMaxTokens);
  EXPECT_EQ(rec.admitted_step, 0);
  EXPECT_EQ(rec.finished_step, 2);
  EXPECT_EQ(rec.token_steps, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(s.blocks_in_use(), 0);
}

TEST(ServingSchedulerTest, TheStopTokenRetiresARequestEarly) {
  ServingScheduler s({Req("a", 0, 2, 10, /*stop=*/7)}, Limits(64, 4, 16, 4));
  s.Commit(std::vector<int64_t>(s.Plan().work.size(), 3));
  s.Commit(std::vector<int64_t>(s.Plan().work.size(), 7));
  EXPECT_TRUE(s.Done());
  EXPECT_EQ(s.record(0).reason, FinishReason::kStopToken);
  EXPECT_EQ(s.record(0).tokens, (std::vector<int64_t>{3, 7}));
}

TEST(ServingSchedulerTest, PrefillsWaitForRoomInTheTokenBudget) {
  // 30 + 30 leave 4 of 64 tokens: the 10-token prompt waits one step, when
  // the two decodes leave it 62.
  ServingScheduler s({Req("a", 0, 30, 2), Req("b", 0, 30, 2), Req("c", 0, 10, 1)},
                     Limits(64, 4, 16, 16));
  EXPECT_EQ(RunTrace(s), (std::vector<std::string>{"P0:0+30 P1:0+30", "D0:30 D1:30 P2:0+10"}));
}

TEST(ServingSchedulerTest, ARequestThatDoesNotFitHoldsBackLaterArrivals) {
  // First come, first served: the 1-token prompt behind the 40-token one
  // does not overtake it.
  ServingScheduler s({Req("a", 0, 30, 3), Req("b", 0, 40, 1), Req("c", 0, 1, 1)},
                     Limits(64, 4, 16, 16));
  EXPECT_EQ(RunTrace(s), (std::vector<std::string>{"P0:0+30", "D0:30 P1:0+40 P2:0+1", "D0:31"}));
}

TEST(ServingSchedulerTest, TheRunningBatchIsBounded) {
  ServingScheduler s({Req("a", 0, 1, 2), Req("b", 0, 1, 2), Req("c", 0, 1, 1)},
                     Limits(64, 2, 16, 16));
  EXPECT_EQ(RunTrace(s), (std::vector<std::string>{"P0:0+1 P1:0+1", "D0:1 D1:1", "P2:0+1"}));
}

TEST(ServingSchedulerTest, NothingRunsBeforeItsArrivalStep) {
  ServingScheduler s({Req("late", 2, 3, 1)}, Limits(64, 4, 16, 4));
  EXPECT_EQ(RunTrace(s), (std::vector<std::string>{"", "", "P0:0+3"}));
  EXPECT_EQ(s.record(0).admitted_step, 2);
}

// The hand-computed trace (block size 4):
//   step 0: A prefills 6 positions               -> A 2 blocks          = 2
//   step 1: A decodes position 6 (2 blocks), B prefills 3 (1 block)     = 3
//   step 2: A pos 7 (2), B pos 3 (1), C prefills 9 (3 blocks)           = 6
//   step 3: A pos 8 (3), B pos 4 (2), C pos 9 (3)                       = 8
//           A has its 4 tokens and C its 2: both retire, 6 blocks back
//   steps 4-6: B alone, positions 5-7 in its 2 blocks                   = 2
TEST(ServingSchedulerTest, PeakKvBlocksOfASmallTraceMatchTheHandCount) {
  ServingScheduler s({Req("A", 0, 6, 4), Req("B", 1, 3, 6), Req("C", 2, 9, 2)},
                     Limits(16, 4, 4, 16));
  std::vector<int64_t> in_use;
  std::vector<std::vector<int64_t>> freed;
  while (!s.Done()) {
    const StepPlan& plan = s.Plan();
    in_use.push_back(plan.blocks_in_use);
    freed.push_back(plan.freed_blocks);
    s.Commit(std::vector<int64_t>(plan.work.size(), 1));
  }
  EXPECT_EQ(in_use, (std::vector<int64_t>{2, 3, 6, 8, 2, 2, 2}));
  EXPECT_EQ(s.peak_blocks(), 8);
  EXPECT_EQ(s.steps(), 7);
  // A held 0, 1 and (from step 3) 6; C held 3, 4, 5.
  EXPECT_EQ(s.record(0).blocks, (std::vector<int64_t>{0, 1, 6}));
  EXPECT_EQ(s.record(2).blocks, (std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(freed[4], (std::vector<int64_t>{0, 1, 6, 3, 4, 5}));
  EXPECT_EQ(s.blocks_in_use(), 0);
}

TEST(ServingSchedulerTest, AdmissionReservesTheBlocksARequestCanEverNeed) {
  // Pool of 4 blocks of 4: a and b reserve 2 each (4 + 5 - 1 = 8
  // positions); c waits until they retire, although they hold only one
  // block each at first.
  ServingScheduler s({Req("a", 0, 4, 5), Req("b", 0, 4, 5), Req("c", 0, 1, 1)},
                     Limits(64, 4, 4, 4));
  const StepPlan& first = s.Plan();
  EXPECT_EQ(WorkText(first), "P0:0+4 P1:0+4");
  EXPECT_EQ(first.blocks_in_use, 2);
  s.Commit({1, 1});
  RunTrace(s);
  EXPECT_EQ(s.record(0).finished_step, 4);
  EXPECT_EQ(s.record(2).admitted_step, 5);
  EXPECT_EQ(s.peak_blocks(), 4);
}

TEST(ServingSchedulerTest, TraceProblemNamesTheRequestAndWhatToRaise) {
  const std::string long_prompt =
      suites::TraceProblem({Req("ok", 0, 4, 1), Req("big", 0, 70, 1)}, Limits(64, 4, 16, 64));
  EXPECT_NE(long_prompt.find("request 'big' (trace index 1)"), std::string::npos) << long_prompt;
  EXPECT_NE(long_prompt.find("raise \"token_budget\""), std::string::npos) << long_prompt;
  const std::string blocks =
      suites::TraceProblem({Req("r", 0, 30, 40)}, Limits(64, 4, 16, 4));  // 69 positions: 5 blocks
  EXPECT_NE(blocks.find("needs 5 KV blocks of 16 positions, the pool has 4"), std::string::npos)
      << blocks;
  EXPECT_NE(suites::TraceProblem({}, Limits(2, 4, 16, 4)).find("at least the running-batch"),
            std::string::npos);
  EXPECT_EQ(suites::TraceProblem({Req("r", 0, 64, 1)}, Limits(64, 4, 16, 4)), "");
}

TEST(ServingSchedulerFaultTest, ADroppedRequestLeavesTheBatchUnfinished) {
  SchedulerFaults f;
  f.drop_request = 1;
  f.drop_step = 2;
  ServingScheduler s({Req("a", 0, 2, 4), Req("b", 0, 2, 4)}, Limits(64, 4, 16, 4), f);
  EXPECT_EQ(RunTrace(s), (std::vector<std::string>{"P0:0+2 P1:0+2", "D0:2 D1:2", "D0:3", "D0:4"}));
  EXPECT_EQ(s.record(1).state, RequestState::kDropped);
  EXPECT_EQ(s.record(1).tokens.size(), 2u);
  EXPECT_EQ(s.blocks_in_use(), 0);
}

TEST(ServingSchedulerFaultTest, ABlockFreedEarlyIsHandedToTheNextRequest) {
  SchedulerFaults f;
  f.free_early_request = 0;
  f.free_early_step = 1;
  ServingScheduler s({Req("a", 0, 2, 4), Req("b", 1, 2, 2)}, Limits(64, 4, 16, 4), f);
  EXPECT_EQ(WorkText(s.Plan()), "P0:0+2");
  s.Commit({1});
  const StepPlan& plan = s.Plan();
  EXPECT_EQ(plan.freed_blocks, (std::vector<int64_t>{0}));
  // a still reads block 0 while b writes its prompt there.
  EXPECT_EQ(s.record(0).blocks, (std::vector<int64_t>{0}));
  EXPECT_EQ(s.record(1).blocks, (std::vector<int64_t>{0}));
  s.Commit({1, 1});
  RunTrace(s);
  EXPECT_TRUE(s.Done());
  EXPECT_EQ(s.blocks_in_use(), 0);
}

// A request's times read off its steps' end times: from the start of its
// arrival step (the end of step 0 here) to the end of the step of its
// first token, then the gaps between the steps of its tokens.
TEST(ServingTimesTest, TimesComeFromTheEndsOfTheStepsOfItsTokens) {
  const std::vector<double> step_end = {10, 20, 30, 40, 50, 70};
  suites::RequestRecord rec;
  rec.token_steps = {2, 3, 5};
  const suites::RequestTimes t = suites::TimesOf(rec, Req("a", 1, 4, 3), step_end);
  EXPECT_DOUBLE_EQ(t.ttft_us, 30 - 10);
  EXPECT_EQ(suites::TokenGaps(rec, step_end), (std::vector<double>{10, 30}));
  EXPECT_DOUBLE_EQ(t.itl_us, (70 - 30) / 2.0);
  EXPECT_DOUBLE_EQ(t.itl_p50_us, 20);
  EXPECT_DOUBLE_EQ(t.itl_max_us, 30);
  // Arriving at step 0, the time to first token starts at 0; one token has no gaps.
  rec.token_steps = {1};
  const suites::RequestTimes one = suites::TimesOf(rec, Req("b", 0, 4, 1), step_end);
  EXPECT_DOUBLE_EQ(one.ttft_us, 20);
  EXPECT_TRUE(std::isnan(one.itl_us) && std::isnan(one.itl_p50_us) && std::isnan(one.itl_max_us));
  rec.token_steps.clear();
  EXPECT_TRUE(std::isnan(suites::TimesOf(rec, Req("c", 0, 4, 1), step_end).ttft_us));
}

}  // namespace
