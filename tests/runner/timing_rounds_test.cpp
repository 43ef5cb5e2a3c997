// Timing rounds: round values collected from the timing passes and merged
// into the main pass's result.
#include "runner/timing_rounds.h"

#include <gtest/gtest.h>

#include "harness/detect/detect.h"
#include "harness/host_probe.h"

namespace harness::runner_internal {
namespace {

CaseResult Timed(const std::string& id, std::vector<double> wall, double probe,
                 CaseStatus s = CaseStatus::kPassed) {
  CaseResult r;
  r.suite = "ops";
  r.case_id = id;
  r.status = s;
  r.wall_us = std::move(wall);
  if (probe > 0) r.extra["host_probe_us"] = probe;
  return r;
}

TEST(TimingRoundsTest, EverySampleIsKeptRoundAfterRoundWithTheRoundsSizes) {
  TimingRounds rounds;
  rounds.Add(Timed("a", {10, 30, 20}, 9.0));
  rounds.Add(Timed("b", {5, 5, 5}, 9.5));
  rounds.Add(Timed("a", {12, 11}, 11.0));
  CaseResult main = Timed("a", {14, 13, 15, 100}, 10.0);
  rounds.MergeInto(&main, 3);
  EXPECT_EQ(main.wall_us, (std::vector<double>{10, 30, 20, 12, 11, 14, 13, 15, 100}));
  EXPECT_DOUBLE_EQ(HostProbeUs(main), 10.0);  // median of 9, 11, 10
  EXPECT_EQ(main.extra["rounds"]["count"], 3);
  EXPECT_EQ(main.extra["rounds"]["planned"], 3);
  EXPECT_EQ(main.extra["rounds"]["samples"], nlohmann::json({3, 2, 4}));
  EXPECT_EQ(WallRoundValues(main), (std::vector<double>{20, 11.5, 14.5}));
}

TEST(TimingRoundsTest, RoundsWithoutSamplesAddNothingAndResultsWithoutSamplesStayAsTheyAre) {
  TimingRounds rounds;
  EXPECT_FALSE(
      rounds.Add(Timed("a", {10}, 0, CaseStatus::kCrashed)));  // a round that lost its worker
  EXPECT_FALSE(rounds.Add(Timed("a", {}, 0)));
  EXPECT_TRUE(rounds.Add(Timed("a", {7}, 0, CaseStatus::kFailed)));  // failed accuracy still timed
  CaseResult main = Timed("a", {9}, 0);
  rounds.MergeInto(&main, 4);
  EXPECT_EQ(main.wall_us, (std::vector<double>{7, 9}));
  EXPECT_EQ(main.extra["rounds"]["count"], 2);
  EXPECT_EQ(main.extra["rounds"]["planned"], 4);
  EXPECT_TRUE(std::isnan(HostProbeUs(main)));
  // A main pass run beside other workers keeps only the rounds' samples;
  // with no round at all its own samples speak.
  CaseResult beside = Timed("a", {100}, 0);
  rounds.MergeInto(&beside, 4, /*include_own=*/false);
  EXPECT_EQ(beside.wall_us, (std::vector<double>{7}));
  CaseResult alone = Timed("z", {3, 5}, 0);
  rounds.MergeInto(&alone, 4, /*include_own=*/false);
  EXPECT_EQ(alone.wall_us, (std::vector<double>{3, 5}));
  EXPECT_EQ(alone.extra["rounds"]["samples"], nlohmann::json({2}));
  CaseResult errored = Timed("a", {}, 0, CaseStatus::kError);
  rounds.MergeInto(&errored, 4);
  EXPECT_TRUE(errored.wall_us.empty());
  EXPECT_FALSE(errored.extra.contains("rounds"));
}

}  // namespace
}  // namespace harness::runner_internal
