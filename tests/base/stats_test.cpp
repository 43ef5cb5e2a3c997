#include "base/stats.h"

#include <cmath>
#include <limits>
#include <random>

#include <gtest/gtest.h>

namespace {

using harness::MannWhitneyU;

TEST(StatsTest, MedianMeanVariance) {
  EXPECT_TRUE(std::isnan(harness::Median({})));
  EXPECT_EQ(harness::Median({3, 1, 2}), 2);
  EXPECT_EQ(harness::Median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(harness::Mean({1, 2, 3, 6}), 3);
  EXPECT_EQ(harness::Variance({5}), 0);
  EXPECT_DOUBLE_EQ(harness::Variance({1, 2, 3, 4}), 5.0 / 3);
  EXPECT_DOUBLE_EQ(harness::RobustSigma({1, 2, 3, 4, 100}), 1.4826);
}

TEST(StatsTest, QuantileInterpolatesBetweenOrderStatistics) {
  EXPECT_TRUE(std::isnan(harness::Quantile({}, 0.5)));
  EXPECT_TRUE(std::isnan(harness::Quantile({1, 2}, 1.5)));
  EXPECT_TRUE(std::isnan(harness::Quantile({1, 2}, std::nan(""))));
  EXPECT_EQ(harness::Quantile({7}, 0.9), 7);
  // Positions 0..10 over the sorted 10, 20, ..., 110: p90 sits at position 9.
  const std::vector<double> v = {110, 10, 100, 20, 90, 30, 80, 40, 70, 50, 60};
  EXPECT_DOUBLE_EQ(harness::Quantile(v, 0.9), 100);
  EXPECT_DOUBLE_EQ(harness::Quantile(v, 0.0), 10);
  EXPECT_DOUBLE_EQ(harness::Quantile(v, 1.0), 110);
  EXPECT_DOUBLE_EQ(harness::Quantile({4, 1, 3, 2}, 0.5), harness::Median({4, 1, 3, 2}));
  // Between two: position 0.9 * 3 = 2.7 of 1, 2, 3, 4.
  EXPECT_DOUBLE_EQ(harness::Quantile({4, 1, 3, 2}, 0.9), 3.7);
}

TEST(StatsTest, StudentTMatchesTableQuantiles) {
  // Two-sided 5% critical values: df 10 -> 2.228, df 30 -> 2.042; normal 1.960.
  EXPECT_NEAR(harness::StudentTCdf(2.228, 10), 0.975, 2e-4);
  EXPECT_NEAR(harness::StudentTCdf(2.042, 30), 0.975, 2e-4);
  EXPECT_NEAR(harness::StudentTCdf(-2.042, 30), 0.025, 2e-4);
  EXPECT_NEAR(harness::StudentTCdf(1.95996, INFINITY), 0.975, 1e-5);
  EXPECT_DOUBLE_EQ(harness::StudentTCdf(0, 5), 0.5);
  // df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/pi.
  EXPECT_NEAR(harness::StudentTCdf(3, 1), 0.5 + std::atan(3.0) / M_PI, 1e-12);
}

TEST(StatsTest, StudentTQuantileInvertsTheCdf) {
  EXPECT_NEAR(harness::StudentTQuantile(0.975, 10), 2.228, 1e-3);
  EXPECT_NEAR(harness::StudentTQuantile(0.995, 9), 3.250, 1e-3);
  EXPECT_NEAR(harness::StudentTQuantile(0.975, INFINITY), 1.960, 1e-3);
  EXPECT_NEAR(harness::StudentTQuantile(0.025, 10), -2.228, 1e-3);
  EXPECT_NEAR(harness::StudentTQuantile(0.5 + std::atan(3.0) / M_PI, 1), 3, 1e-9);  // Cauchy
  EXPECT_TRUE(std::isnan(harness::StudentTQuantile(1, 5)));
  EXPECT_TRUE(std::isnan(harness::StudentTQuantile(0.9, 0)));
}

TEST(StatsTest, IncompleteBetaKnownValues) {
  EXPECT_NEAR(harness::RegularizedIncompleteBeta(1, 1, 0.3), 0.3, 1e-14);  // uniform
  EXPECT_NEAR(harness::RegularizedIncompleteBeta(2, 1, 0.5), 0.25, 1e-14);  // x^2
  EXPECT_NEAR(harness::RegularizedIncompleteBeta(0.5, 0.5, 0.5), 0.5, 1e-12);  // symmetric
}

TEST(StatsTest, MannWhitneyExactSmallSamples) {
  // Complete separation of 3 vs 3: U = 0, p = 2 / C(6,3) = 0.1.
  auto r = MannWhitneyU({1, 2, 3}, {4, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 0);
  EXPECT_NEAR(r.p_value, 0.1, 1e-12);
  // 5 vs 5 separated: p = 2 / C(10,5) = 2/252.
  r = MannWhitneyU({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5});
  EXPECT_EQ(r.u, 25);
  EXPECT_NEAR(r.p_value, 2.0 / 252, 1e-12);
  // One swap at the boundary: U = 1, P(U <= 1) = 2/20, p = 0.2.
  r = MannWhitneyU({1, 2, 4}, {3, 5, 6});
  EXPECT_EQ(r.u, 1);
  EXPECT_NEAR(r.p_value, 0.2, 1e-12);
}

TEST(StatsTest, MannWhitneyNormalApproximationWithTies) {
  // With ties the normal approximation is used; identical samples give p = 1.
  auto same = MannWhitneyU({1, 1, 2, 2, 3}, {1, 1, 2, 2, 3});
  EXPECT_FALSE(same.exact);
  EXPECT_NEAR(same.p_value, 1.0, 1e-12);
  auto all_equal = MannWhitneyU({7, 7, 7}, {7, 7});
  EXPECT_EQ(all_equal.p_value, 1);
  // Large separated samples: p far below 1e-6.
  std::vector<double> a, b;
  for (int i = 0; i < 40; ++i) { a.push_back(i); b.push_back(i + 100); }
  EXPECT_LT(MannWhitneyU(a, b).p_value, 1e-6);
  EXPECT_EQ(MannWhitneyU({}, {1, 2}).p_value, 1);
}

TEST(StatsTest, MannWhitneyFalsePositiveRateIsNearAlpha) {
  // Under the null (same distribution) p < 0.05 should happen about 5% of the time.
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> dist(0, 0.1);
  int hits = 0, trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> a(20), b(20);
    for (auto& x : a) x = dist(rng);
    for (auto& x : b) x = dist(rng);
    hits += MannWhitneyU(a, b).p_value < 0.05;
  }
  EXPECT_NEAR(hits / double(trials), 0.05, 0.015);
}

TEST(StatsTest, HodgesLehmannFindsTheShiftAndCoversIt) {
  std::vector<double> a, b;
  for (int i = 0; i < 20; ++i) { a.push_back(i); b.push_back(i + 5); }
  auto s = harness::HodgesLehmannShift(a, b, 0.05);
  EXPECT_DOUBLE_EQ(s.estimate, 5);
  EXPECT_LT(s.lower, 5);
  EXPECT_GT(s.upper, 5);
  EXPECT_LT(s.upper - s.lower, 20);
}

TEST(StatsTest, WelchTTest) {
  // Equal constant samples: no evidence; different constants: certain.
  EXPECT_EQ(harness::WelchTTest({2, 2, 2}, {2, 2}).p_value, 1);
  EXPECT_EQ(harness::WelchTTest({2, 2, 2}, {3, 3}).p_value, 0);
  auto r = harness::WelchTTest({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(r.t, 5.0);  // difference 5, se = sqrt(2.5/5 + 2.5/5) = 1
  EXPECT_DOUBLE_EQ(r.df, 8.0);
  EXPECT_NEAR(r.p_value, 2 * (1 - harness::StudentTCdf(5, 8)), 1e-15);
  EXPECT_LT(r.p_value, 0.002);
}

TEST(StatsTest, PairedShiftTest) {
  // d = {1, 2, 3, 4}: mean 2.5, variance 5/3, se = sqrt(5/12); Walsh
  // averages 1 1.5 2 2.5 2 2.5 3 3 3.5 4, median 2.5.
  auto r = harness::PairedShiftTest({1, 2, 3, 4});
  EXPECT_EQ(r.n, 4u);
  EXPECT_DOUBLE_EQ(r.estimate, 2.5);
  EXPECT_NEAR(r.t, 2.5 / std::sqrt(5.0 / 12), 1e-12);
  EXPECT_NEAR(r.p_value, 2 * (1 - harness::StudentTCdf(r.t, 3)), 1e-15);
  // One wild difference moves the estimate little and the t-test's p a lot.
  auto wild = harness::PairedShiftTest({0.30, 0.31, 0.29, 0.30, 0.32, 0.28, -2.0});
  EXPECT_NEAR(wild.estimate, 0.30, 0.02);
  EXPECT_GT(wild.p_value, 0.1);
  // Signs mirror; symmetric differences give no evidence.
  EXPECT_DOUBLE_EQ(harness::PairedShiftTest({-1, -2, -3, -4}).t, -r.t);
  EXPECT_EQ(harness::PairedShiftTest({-1, 1, -2, 2}).p_value, 1);
  // Edges: nothing, one value, a deterministic shift, no shift at all.
  EXPECT_EQ(harness::PairedShiftTest({}).p_value, 1);
  EXPECT_EQ(harness::PairedShiftTest({0.7}).p_value, 1);
  EXPECT_DOUBLE_EQ(harness::PairedShiftTest({0.7}).estimate, 0.7);
  EXPECT_EQ(harness::PairedShiftTest({0.5, 0.5, 0.5}).p_value, 0);
  EXPECT_EQ(harness::PairedShiftTest({0, 0, 0}).p_value, 1);
}

TEST(StatsTest, PairLogRatiosLeaveOutABadPairWithoutShiftingTheOthers) {
  const double nan = std::nan("");
  // Pair 1 has no baseline value and pair 3 a NaN candidate: each is left
  // out whole, and pairs 0, 2 and 4 keep their own partners.
  const std::vector<double> d =
      harness::PairLogRatios({10, 0, 20, 40, 5, 7}, {20, 30, 20, nan, 10});
  ASSERT_EQ(d.size(), 3u);
  EXPECT_DOUBLE_EQ(d[0], std::log(2.0));
  EXPECT_DOUBLE_EQ(d[1], 0.0);
  EXPECT_DOUBLE_EQ(d[2], std::log(2.0));
  EXPECT_TRUE(harness::PairLogRatios({}, {1, 2}).empty());
  EXPECT_TRUE(harness::PairLogRatios({1, 2}, {-1, std::numeric_limits<double>::infinity()}).empty());
}

}  // namespace
