// The shared wall-time sampler: batch sizing and what it records. No timing
// assertions (timing belongs in bench/); the counts are exact.
#include "harness/wall_sampler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace harness {
namespace {

TEST(WallSamplerTest, BatchLastsAtLeastTheMinimumSampleTime) {
  EXPECT_EQ(CallsPerSample(1000, 300), 4);  // 3 calls would be 900 us
  EXPECT_EQ(CallsPerSample(1000, 1000), 1);
  EXPECT_EQ(CallsPerSample(1000, 5000), 1);  // a slow call is one sample by itself
  EXPECT_EQ(CallsPerSample(0, 3), 1);        // 0: one call per sample
  EXPECT_EQ(CallsPerSample(-1, 3), 1);
  EXPECT_EQ(CallsPerSample(1000, 0), kMaxCallsPerSample);  // a call too short to time
  EXPECT_EQ(CallsPerSample(1e9, 1e-3), kMaxCallsPerSample);
}

TEST(WallSamplerTest, SamplesAreMeanTimesPerCallOverOneBatch) {
  SamplingPlan plan;
  plan.warmup = 2;
  plan.repeat = 4;
  plan.min_sample_us = 200;
  int calls = 0;
  CaseResult r;
  TakeWallSamples(
      plan, [&] { ++calls; }, &r);
  ASSERT_EQ(r.wall_us.size(), 4u);
  const int batch = r.extra["wall_batch"].get<int>();
  EXPECT_GT(batch, 1);  // an increment takes far less than 200 us
  int sizing = 0, probe_calls = 0;
  SizeBatch(
      200, [&] { ++probe_calls; }, &sizing);
  EXPECT_EQ(sizing, probe_calls);
  EXPECT_GT(calls, 2 + 4 * batch);                   // warm-up, the sizing calls, the samples
  for (double us : r.wall_us) EXPECT_LT(us, 200.0);  // per call, not per batch
  EXPECT_GT(HostProbeUs(r), 0);
  // The run-queue wait inside each sample, per call, where the kernel has it.
  if (ThreadRunQueueWaitNs() >= 0) {
    ASSERT_EQ(r.queue_us.size(), r.wall_us.size());
    for (double q : r.queue_us) EXPECT_GE(q, 0);
  } else {
    EXPECT_TRUE(r.queue_us.empty());
  }
}

TEST(WallSamplerTest, SizingStopsAtTheFirstGroupLongEnough) {
  int made = -1;
  // A call spinning 40 us outlasts an eighth of 200 us: one call decides.
  auto spin = [] {
    const auto start = std::chrono::steady_clock::now();
    while (MicrosSince(start) < 40) {
    }
  };
  const int batch = SizeBatch(200, spin, &made);
  EXPECT_EQ(made, 1);
  EXPECT_GE(batch, 1);
  EXPECT_LE(batch, 5);  // ceil(200 / 40): never more, a call lasts at least 40 us
  EXPECT_EQ(SizeBatch(0, spin, &made), 1);
  EXPECT_EQ(made, 0);
}

TEST(WallSamplerTest, ZeroMinimumTimesOneCallPerSampleWithoutASizingCall) {
  SamplingPlan plan;
  plan.warmup = 1;
  plan.repeat = 3;
  plan.min_sample_us = 0;
  int calls = 0;
  CaseResult r;
  TakeWallSamples(
      plan, [&] { ++calls; }, &r);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(r.wall_us.size(), 3u);
  EXPECT_EQ(r.extra["wall_batch"], 1);
}

TEST(WallSamplerTest, TheRunOverridesTheSuiteDefaults) {
  SuiteSpec suite;
  suite.warmup = 3;
  suite.repeat = 7;
  ExecOptions o;
  SamplingPlan p = SamplingFor(suite, o);
  EXPECT_EQ(p.warmup, 3);
  EXPECT_EQ(p.repeat, 7);
  EXPECT_EQ(p.min_sample_us, kDefaultMinSampleUs);
  suite.min_sample_us = 5000;
  EXPECT_EQ(SamplingFor(suite, o).min_sample_us, 5000);
  o.warmup = 0;
  o.repeat = 2;
  o.min_sample_us = 0;
  p = SamplingFor(suite, o);
  EXPECT_EQ(p.warmup, 0);
  EXPECT_EQ(p.repeat, 2);
  EXPECT_EQ(p.min_sample_us, 0);
}

TEST(WallSamplerTest, AConfirmationTakesMoreSamplesWhileTheyAreShort) {
  SuiteSpec suite;
  suite.repeat = 5;
  ExecOptions o;
  o.min_repeat = 11;
  const SamplingPlan p = SamplingFor(suite, o);
  EXPECT_EQ(p.repeat, 5);
  EXPECT_EQ(p.min_repeat, 11);
  // The repeat is always taken; past it, samples up to min_repeat while
  // those before took less than kExtraSamplesWithinUs in all.
  EXPECT_TRUE(TakeSample(p, 4, 1e9));
  EXPECT_TRUE(TakeSample(p, 5, 0));
  EXPECT_TRUE(TakeSample(p, 10, kExtraSamplesWithinUs - 1));
  EXPECT_FALSE(TakeSample(p, 11, 0));
  EXPECT_FALSE(TakeSample(p, 5, kExtraSamplesWithinUs));
  SamplingPlan plain = p;
  plain.min_repeat = 0;
  EXPECT_FALSE(TakeSample(plain, 5, 0));

  // The sampler counts each sample's time: calls that take 30 ms stop at
  // the repeat (five already take 150 ms), quick ones go on to eleven.
  SamplingPlan q = p;
  q.warmup = 0;
  q.min_sample_us = 0;
  CaseResult quick, slow;
  TakeWallSamples(
      q, [] {}, &quick);
  TakeWallSamples(
      q, [] { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }, &slow);
  EXPECT_EQ(slow.wall_us.size(), 5u);
  // Eleven samples of an empty call outlast 100 ms only on a host stalled
  // for that long; then fewer are taken, never fewer than the repeat.
  EXPECT_GE(quick.wall_us.size(), 5u);
  EXPECT_LE(quick.wall_us.size(), 11u);
}

TEST(WallSamplerTest, AParityOnlyCaseIsNotTimedAtAll) {
  SuiteSpec suite;
  suite.warmup = 3;
  suite.repeat = 7;
  ExecOptions o;
  o.timed = false;
  const SamplingPlan p = SamplingFor(suite, o);
  EXPECT_FALSE(p.timed);
  int calls = 0;
  CaseResult r;
  TakeWallSamples(
      p, [&] { ++calls; }, &r);
  EXPECT_EQ(calls, 0);  // the kind's traced pass is the case's one run
  EXPECT_TRUE(r.wall_us.empty());
  EXPECT_TRUE(r.queue_us.empty());
  EXPECT_FALSE(r.extra.contains("wall_batch"));
}

}  // namespace
}  // namespace harness
