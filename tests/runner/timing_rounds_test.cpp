// Timing rounds: round values collected from the timing passes and merged
// into the main pass's result.
#include "runner/timing_rounds.h"

#include <gtest/gtest.h>

#include <cmath>

#include "detect/detect.h"
#include "base/host_probe.h"

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

TEST(TimingRoundsTest, HowBusyTheMachineWasIsPooledOverTheRounds) {
  TimingRounds rounds;
  CaseResult first = Timed("a", {10}, 9.0), second = Timed("a", {11}, 9.0);
  first.extra["host_busy"] = harness::BusyJson({1, 5});
  second.extra["host_busy"] = harness::BusyJson({4, 6});
  rounds.Add(first);
  rounds.Add(second);
  rounds.Add(Timed("a", {12}, 9.0));  // a round that read none
  CaseResult main = Timed("a", {13}, 9.0);
  main.extra["host_busy"] = harness::BusyJson({0, 3});
  rounds.MergeInto(&main, 4);
  EXPECT_EQ(HostBusy(main).others, 5);
  EXPECT_EQ(HostBusy(main).total, 14);
  // Rounds that read none leave no figure, not a zero.
  TimingRounds none;
  none.Add(Timed("b", {1}, 9.0));
  CaseResult b = Timed("b", {2}, 9.0);
  none.MergeInto(&b, 2);
  EXPECT_TRUE(b.extra.find("host_busy") == b.extra.end());
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


// What `--rounds MIN-MAX` stops on: the spread of the round values (medians
// of each round, wall time less run-queue wait when every round kept it)
// over the square root of the rounds there will be.
TEST(TimingRoundsTest, StandardErrorIsTheSpreadOfTheRoundValuesOverTheRootOfTheirCount) {
  TimingRounds rounds;
  EXPECT_TRUE(std::isinf(rounds.StandardError("ops", "a", 5)));  // nothing yet
  rounds.Add(Timed("a", {100, 90, 110}, 0));  // round value 100
  rounds.Add(Timed("a", {200, 120}, 0));      // 160
  EXPECT_TRUE(std::isinf(rounds.StandardError("ops", "a", 5)));  // two rounds say too little
  rounds.Add(Timed("a", {125}, 0));           // 125
  const std::vector<double> logs = {std::log(100.0), std::log(160.0), std::log(125.0)};
  const double mean = (logs[0] + logs[1] + logs[2]) / 3;
  double ss = 0;
  for (double x : logs) ss += (x - mean) * (x - mean);
  EXPECT_NEAR(rounds.StandardError("ops", "a", 4), std::sqrt(ss / 2 / 4), 1e-12);
  EXPECT_NEAR(rounds.StandardError("ops", "a", 16), std::sqrt(ss / 2 / 16), 1e-12);
  EXPECT_TRUE(std::isinf(rounds.StandardError("ops", "other", 4)));

  // Equal rounds once the run-queue wait is taken out: no spread at all.
  TimingRounds queued;
  for (double wait : {0.0, 50.0, 20.0}) {
    CaseResult r = Timed("q", {100 + wait, 100 + wait}, 0);
    r.queue_us = {wait, wait};
    queued.Add(r);
  }
  EXPECT_EQ(queued.StandardError("ops", "q", 3), 0);
  // One round without waits: every round is read as wall time.
  queued.Add(Timed("q", {100, 100}, 0));
  EXPECT_GT(queued.StandardError("ops", "q", 4), 0.05);
}

}  // namespace
}  // namespace harness::runner_internal
