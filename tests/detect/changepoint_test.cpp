#include "detect/changepoint.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace {

std::vector<double> Noisy(size_t n, double level, double sigma, std::mt19937_64& rng) {
  std::normal_distribution<double> d(0, sigma);
  std::vector<double> v(n);
  for (auto& x : v) x = level * (1 + d(rng));
  return v;
}

TEST(ChangePointTest, DeterministicStepIsFoundExactly) {
  std::vector<double> s(6, 23.7);
  s.insert(s.end(), 6, 32.5);
  auto cps = harness::DetectChangePoints(s);
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 6u);
  EXPECT_DOUBLE_EQ(cps[0].before, 23.7);
  EXPECT_DOUBLE_EQ(cps[0].after, 32.5);
  EXPECT_NEAR(cps[0].relative, 32.5 / 23.7 - 1, 1e-12);
}

TEST(ChangePointTest, ConstantAndShortSeriesHaveNone) {
  EXPECT_TRUE(harness::DetectChangePoints(std::vector<double>(30, 1.0)).empty());
  EXPECT_TRUE(harness::DetectChangePoints({1, 2, 3, 4, 5}).empty());
  EXPECT_TRUE(harness::DetectChangePoints({}).empty());
}

TEST(ChangePointTest, SingleOutliersAreNotChangePoints) {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 50; ++trial) {
    auto s = Noisy(30, 100, 0.01, rng);
    s[trial % 30] *= 3;  // one wild run anywhere, including the ends
    EXPECT_TRUE(harness::DetectChangePoints(s).empty()) << "trial " << trial;
  }
}

TEST(ChangePointTest, NoisyShiftIsLocated) {
  std::mt19937_64 rng(11);
  int exact = 0;
  for (int trial = 0; trial < 50; ++trial) {
    auto s = Noisy(12, 100, 0.01, rng);
    auto t = Noisy(12, 110, 0.01, rng);
    s.insert(s.end(), t.begin(), t.end());
    auto cps = harness::DetectChangePoints(s);
    ASSERT_EQ(cps.size(), 1u) << "trial " << trial;
    exact += cps[0].index == 12;
    EXPECT_NEAR(cps[0].relative, 0.10, 0.03);
  }
  EXPECT_GE(exact, 48);
}

TEST(ChangePointTest, TwoShiftsAreBothFound) {
  std::vector<double> s(8, 1.0);
  s.insert(s.end(), 8, 2.0);
  s.insert(s.end(), 8, 1.5);
  auto cps = harness::DetectChangePoints(s);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 8u);
  EXPECT_EQ(cps[1].index, 16u);
}

TEST(ChangePointTest, MinimumRelativeShiftFiltersTinySteps) {
  std::vector<double> s(10, 100.0);
  s.insert(s.end(), 10, 100.1);
  EXPECT_EQ(harness::DetectChangePoints(s).size(), 1u);
  harness::ChangePointOptions o;
  o.min_relative_shift = 0.005;
  EXPECT_TRUE(harness::DetectChangePoints(s, o).empty());
}

TEST(ChangePointTest, EDivisivePeaksAtTheTrueSplit) {
  std::vector<double> s = {1, 1, 1, 1, 5, 5, 5, 5};
  auto q = harness::EDivisiveStatistic(s, 2);
  size_t best = 2;
  for (size_t t = 2; t <= 6; ++t) if (q[t] > q[best]) best = t;
  EXPECT_EQ(best, 4u);
  EXPECT_GT(q[4], 0);
}

}  // namespace

// Wall-time options as `history` sets them: logs, at least a 5% shift.
harness::ChangePointOptions WallOptions() {
  harness::ChangePointOptions o;
  o.log_scale = true;
  o.min_relative_shift = 0.05;
  return o;
}

std::vector<double> Logs(std::vector<double> v) {
  for (double& x : v) x = std::log(x);
  return v;
}

TEST(ChangePointTest, AFourRunPulseWithSpreadIsFoundAtBothEdges) {
  // The shape of a smoke case's history (us, unqueued): thirteen clean runs
  // at 3.3-4.0 us, four with mm slowed 2x whose medians spread 7.3-9.8 us,
  // three clean runs.
  const std::vector<double> us = {3.5, 3.3, 3.6, 3.4, 3.8, 4.0, 3.5, 3.7, 3.4, 3.6,
                                  3.9, 3.5, 3.6, 7.3, 7.6, 9.8, 9.4, 3.8, 3.5, 3.6};
  auto cps = harness::DetectChangePoints(Logs(us), WallOptions());
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 13u);
  EXPECT_EQ(cps[1].index, 17u);
  EXPECT_GT(cps[0].relative, 0.9);
  EXPECT_LT(cps[1].relative, -0.45);
  EXPECT_LT(cps[0].p_value, 0.001);
}

TEST(ChangePointTest, ThreeRunPulsesAreNotFoundAndStaircasesOnlyRise) {
  // Three runs of a pulse: Welch at either edge has 2 degrees of freedom.
  std::vector<double> us(20, 3.6);
  for (size_t i = 0; i < us.size(); ++i) us[i] *= 1 + 0.03 * static_cast<double>(i % 5) / 4;
  std::vector<double> three = us;
  for (size_t i = 13; i < 16; ++i) three[i] = 8 + 0.7 * static_cast<double>(i % 3);
  three[14] = 9.9;
  EXPECT_TRUE(harness::DetectChangePoints(Logs(three), WallOptions()).empty());
  std::vector<double> stairs = us;
  for (size_t i = 10; i < 20; ++i) stairs[i] *= i < 14 ? 2 : 4;
  auto cps = harness::DetectChangePoints(Logs(stairs), WallOptions());
  ASSERT_FALSE(cps.empty());
  for (const auto& cp : cps) EXPECT_GT(cp.relative, 0) << "a staircase has no way back";
}

TEST(ChangePointTest, AFourRunPulseInTwelveRunsOfALoadedHostIsFound) {
  // Twelve runs of a case on a loaded host (us): four clean, four with its
  // op slowed 2x, four clean; the clean runs spread 300-440 us, the slow ones
  // 560-900. Each edge is four runs against four: Welch's test between them
  // alone has three to six degrees of freedom and misses both edges.
  const std::vector<double> us = {350, 440, 300, 400, 800, 560, 900, 640, 330, 420, 380, 300};
  auto cps = harness::DetectChangePoints(Logs(us), WallOptions());
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 4u);
  EXPECT_EQ(cps[1].index, 8u);
  EXPECT_NEAR(cps[0].after / cps[0].before, 2, 0.2);
  EXPECT_NEAR(cps[1].after / cps[1].before, 0.5, 0.05);
  EXPECT_LT(cps[0].p_value, 0.001);
  EXPECT_LT(cps[1].p_value, 0.001);
  // The same runs with the slow ones at the clean level: nothing.
  std::vector<double> flat = us;
  for (size_t i = 4; i < 8; ++i) flat[i] /= 2;
  EXPECT_TRUE(harness::DetectChangePoints(Logs(flat), WallOptions()).empty());
}

TEST(ChangePointTest, AnOddRunBesideAPulseDoesNotHideIt) {
  // A measured history (us): four clean runs, four with mm slowed 2x, four
  // clean, one of which ran at the slow level (142). That one run inflates
  // the variance of the whole series; the pulse is found without it.
  const std::vector<double> us = {61, 65, 70, 66, 251, 133, 223, 219, 71, 142, 62, 63};
  auto cps = harness::DetectChangePoints(Logs(us), WallOptions());
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 4u);
  EXPECT_EQ(cps[1].index, 8u);
  EXPECT_GT(cps[0].relative, 1.5);
  EXPECT_LT(cps[1].relative, -0.6);
}

TEST(ChangePointTest, APulseThatEndsAtAnotherLevelIsFoundAtBothEdges) {
  // Four runs, four with an op slowed 2x, then twelve runs lower than the
  // first four (the host quieter). The best single split is the pulse's
  // end; its start, tested inside the left side alone (four runs against
  // four, Welch), fails. As a pulse beside a step, its edges are tested
  // with the variance pooled over the three segments.
  const std::vector<double> us = {44, 55, 59, 57, 105, 102, 102, 109, 34, 36,
                                  38, 35, 39, 38, 47, 37, 33, 33, 35, 40};
  auto cps = harness::DetectChangePoints(Logs(us), WallOptions());
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 4u);
  EXPECT_EQ(cps[1].index, 8u);
  EXPECT_GT(cps[0].relative, 0.6);
  EXPECT_LT(cps[1].relative, -0.5);
  // The same runs without the slowdown: one step, the host's.
  std::vector<double> step = us;
  for (size_t i = 4; i < 8; ++i) step[i] = us[i] / 2;
  cps = harness::DetectChangePoints(Logs(step), WallOptions());
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 8u);
}

TEST(ChangePointTest, APulseFoundWithoutAnOddRunMeetsAStricterLevel) {
  // Leaving the odd run out is one try among eight side runs, so the runs
  // that remain must pass at a level eight times stricter: the same pulse
  // with and without its odd run in the series.
  const auto series = [](double factor, bool with_odd) {
    std::vector<double> us = {350, 440, 300, 400, 330, 420, 380, 300, 330, 420, 380, 300};
    for (size_t i = 4; i < 8; ++i) us[i] *= factor;
    us[9] *= 2.2;
    if (!with_odd) us.erase(us.begin() + 9);
    return Logs(us);
  };
  // At 2x the eleven runs hold a pulse at p ~ 3e-4: enough on its own, not
  // as a retry.
  auto alone = harness::DetectChangePoints(series(2.0, false), WallOptions());
  ASSERT_EQ(alone.size(), 2u);
  EXPECT_GT(std::max(alone[0].p_value, alone[1].p_value), 0.001 / 8);
  EXPECT_TRUE(harness::DetectChangePoints(series(2.0, true), WallOptions()).empty());
  // At 2.2x they pass the stricter level too.
  auto retried = harness::DetectChangePoints(series(2.2, true), WallOptions());
  ASSERT_EQ(retried.size(), 2u);
  EXPECT_EQ(retried[0].index, 4u);
  EXPECT_EQ(retried[1].index, 8u);
  EXPECT_LT(std::max(retried[0].p_value, retried[1].p_value), 0.001 / 8);
}

TEST(ChangePointTest, ADeterministicPulseHasExactEdges) {
  // modeled_us under a fault injected for four runs: no noise at all.
  std::vector<double> s(5, 40.0);
  s.insert(s.end(), 4, 65.5);
  s.insert(s.end(), 5, 40.0);
  auto cps = harness::DetectChangePoints(s);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].index, 5u);
  EXPECT_EQ(cps[1].index, 9u);
  EXPECT_DOUBLE_EQ(cps[0].after, 65.5);
  EXPECT_DOUBLE_EQ(cps[1].after, 40.0);
}

TEST(ChangePointTest, APulseMustGoBackWhereItCameFrom) {
  // A rise for four runs, then a further rise: a staircase, not a pulse;
  // and a rise that does not come back: one step.
  std::vector<double> up = {100, 104, 98, 102, 150, 155, 148, 152, 300, 310, 295, 305};
  for (const auto& cp : harness::DetectChangePoints(Logs(up), WallOptions())) EXPECT_GT(cp.relative, 0);
  std::vector<double> step = {100, 104, 98, 102, 200, 205, 198, 202, 199, 204, 201, 197};
  auto cps = harness::DetectChangePoints(Logs(step), WallOptions());
  ASSERT_EQ(cps.size(), 1u);
  EXPECT_EQ(cps[0].index, 4u);
}
