// The confirmation's sequential rule: which suspects get another pair of
// fresh processes. Fixed values, no timing.
#include "runner/confirm.h"

#include <cmath>

#include <gtest/gtest.h>

#include "base/stats.h"

namespace harness::runner_internal {
namespace {

std::vector<double> Logs(std::vector<double> v) {
  for (double& x : v) x = std::log(x);
  return v;
}

// n values around `center`, spread by +-1% steps.
std::vector<double> Around(double center, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(center * (1 + 0.01 * (i - n / 2)));
  return v;
}

// n values alternating around `center` by +-spread.
std::vector<double> Zigzag(double center, double spread, int n, bool up_first) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i)
    v.push_back(center * (1 + ((i % 2 == 0) == up_first ? spread : -spread) * (1 + 0.1 * i)));
  return v;
}

TEST(ConfirmStepTest, BelowTheMinimumEveryCaseGoesOnUnlessPlainlyUnchanged) {
  const ThresholdValues v;
  // Three pairs that separate: not enough processes for any verdict yet.
  EXPECT_EQ(NextConfirmStep(Around(100, 3), Around(200, 3), 3, 7, v), ConfirmStep::kMore);
  // Four pairs that overlap completely, estimate near zero: stop.
  EXPECT_EQ(NextConfirmStep(Zigzag(100, 0.2, 4, true), Zigzag(100, 0.2, 4, false), 4, 7, v),
            ConfirmStep::kFutile);
  // The same overlap with only three pairs: too early to give up.
  EXPECT_EQ(NextConfirmStep(Zigzag(100, 0.2, 3, true), Zigzag(100, 0.2, 3, false), 3, 7, v),
            ConfirmStep::kMore);
  // A doubling never stops early.
  EXPECT_EQ(NextConfirmStep(Around(100, 5), Around(200, 5), 5, 7, v), ConfirmStep::kMore);
}

TEST(ConfirmStepTest, FromTheMinimumClearOrSmallCasesStopAndLargeUndecidedOnesGoOn) {
  const ThresholdValues v;  // wall_confirm_alpha 0.001, wall_min_effect 5%
  // Seven a side, completely separated: p = 0.00058, decided.
  EXPECT_EQ(NextConfirmStep(Around(100, 7), Around(200, 7), 7, 7, v), ConfirmStep::kDecided);
  // One inversion among seven a side: p = 0.0012, just above the level: more.
  std::vector<double> base = Around(100, 7), cand = Around(200, 7);
  base.back() = 195;  // above the candidate's fastest (194) only
  EXPECT_EQ(NextConfirmStep(base, cand, 7, 7, v), ConfirmStep::kMore);
  // Plain overlap at seven: stopped as futile.
  EXPECT_EQ(NextConfirmStep(Zigzag(100, 0.2, 7, true), Zigzag(100, 0.2, 7, false), 7, 7, v),
            ConfirmStep::kFutile);
  // A wide, unclear difference (p = 0.26, estimate +13%): a finding's size,
  // not yet evidence either way: more processes, at seven as at five.
  const std::vector<double> wide_b = {100, 141, 91, 161, 111, 131, 96};
  const std::vector<double> wide_c = {121, 152, 102, 172, 106, 183, 117};
  EXPECT_EQ(NextConfirmStep(wide_b, wide_c, 7, 7, v), ConfirmStep::kMore);
  EXPECT_EQ(NextConfirmStep(wide_b, wide_c, 5, 7, v), ConfirmStep::kMore);
  // The same once it has separated at p < 0.001: decided.
  std::vector<double> far_b = wide_b, far_c = wide_c;
  for (int i = 0; i < 4; ++i) far_b.push_back(95 + 4 * i);
  for (int i = 0; i < 4; ++i) far_c.push_back(190 + 7 * i);
  for (double& x : far_c) x *= 1.3;
  ASSERT_LT(MannWhitneyU(Logs(far_b), Logs(far_c)).p_value, v.wall_confirm_alpha);
  EXPECT_EQ(NextConfirmStep(far_b, far_c, 11, 7, v), ConfirmStep::kDecided);
}

TEST(ConfirmStepTest, ALargeEstimateGoesOnWhateverItsPValue) {
  const ThresholdValues v;
  // Seven processes a side of a case slowed by about 40% on a loaded host:
  // the sets overlap (p = 0.22), the estimate is +36%. Not decided.
  const std::vector<double> b = {100, 180, 90, 150, 110, 230, 95};
  const std::vector<double> c = {140, 130, 260, 150, 210, 125, 175};
  const double p = MannWhitneyU(Logs(b), Logs(c)).p_value;
  const double shift = std::expm1(HodgesLehmannShift(Logs(b), Logs(c), v.wall_confirm_alpha).estimate);
  ASSERT_GE(p, 0.1);
  ASSERT_GT(shift, 0.3);
  EXPECT_EQ(NextConfirmStep(b, c, 7, 7, v), ConfirmStep::kMore);
  EXPECT_EQ(NextConfirmStep(b, c, 10, 7, v), ConfirmStep::kMore);
  // A slowdown as large of the baseline's side (an improvement): the same.
  EXPECT_EQ(NextConfirmStep(c, b, 7, 7, v), ConfirmStep::kMore);
}

TEST(ConfirmStepTest, ASmallEstimateStopsAtTheMinimumEvenNearTheLine) {
  const ThresholdValues v;
  // +3% with the sets mostly apart (p < 0.1 but not < 0.001): no finding can
  // come of it at a 5% minimum effect, so the processes go to other cases.
  const std::vector<double> b = Around(100, 7), c = Around(103, 7);
  const double p = MannWhitneyU(Logs(b), Logs(c)).p_value;
  ASSERT_LT(p, 0.1);
  ASSERT_GE(p, v.wall_confirm_alpha);
  EXPECT_EQ(NextConfirmStep(b, c, 7, 7, v), ConfirmStep::kDecided);
  // Below the minimum it still goes on.
  EXPECT_EQ(NextConfirmStep(b, c, 6, 7, v), ConfirmStep::kMore);
}

TEST(ConfirmBudgetTest, PastTheBudgetOnlyUndecidedCasesStillApartGoOn) {
  // Six processes a side of a decode case slowed 2.5x on a loaded host, the
  // budget spent: six cannot reach p < 0.001, seven completely apart can,
  // and nine can reach the lower level that tens of confirmed cases share.
  const std::vector<double> base = {410, 520, 455, 610, 480, 430};
  const std::vector<double> slowed = {1150, 1320, 990, 1480, 1210, 1060};
  EXPECT_TRUE(SidesCompletelyApart(base, slowed));
  EXPECT_TRUE(SidesCompletelyApart(slowed, base));  // faster: the same
  // One baseline process above the slowest candidate's: more processes
  // could still confirm it, but not within what was budgeted.
  std::vector<double> overlap = base;
  overlap.back() = 1000;
  EXPECT_FALSE(SidesCompletelyApart(overlap, slowed));
  EXPECT_FALSE(SidesCompletelyApart({}, slowed));
}

// Paired processes: the machine's state moves both values of a process
// alike, so what decides is how steady their ratio is, not whether the two
// sets overlap.
TEST(ConfirmStepTest, PairedProcessesAreDecidedOnTheirRatios) {
  const ThresholdValues v;
  // Seven processes whose level swings 0.6-2.4x (a loaded host), each
  // timing the candidate 30% (+-2%) slower than the baseline beside it.
  const std::vector<double> level = {1.0, 2.4, 0.6, 1.8, 0.9, 1.3, 2.0};
  std::vector<double> base, slowed, same;
  for (size_t i = 0; i < level.size(); ++i) {
    base.push_back(100 * level[i]);
    slowed.push_back(100 * level[i] * (1.30 + (i % 2 == 0 ? 0.02 : -0.02)));
    same.push_back(100 * level[i] * (1 + (i % 2 == 0 ? 0.02 : -0.02) * (1 + 0.1 * i)));
  }
  // As two sets they overlap (Mann-Whitney far from 0.001): more rounds.
  EXPECT_GT(MannWhitneyU(Logs(base), Logs(slowed)).p_value, 0.01);
  EXPECT_EQ(NextConfirmStep(base, slowed, 7, 7, v), ConfirmStep::kMore);
  // As pairs the change is plain.
  EXPECT_EQ(NextConfirmStep(base, slowed, 7, 7, v, /*paired=*/true), ConfirmStep::kDecided);
  // The t-test of the pairs reaches the level from four pairs, so a plain
  // change stops there, below the minimum a rank test needs; three pairs
  // are too few to stop for anything.
  const std::vector<double> b3(base.begin(), base.begin() + 3),
      slowed3(slowed.begin(), slowed.begin() + 3),
      slowed4(slowed.begin(), slowed.begin() + 4);
  const std::vector<double> b4(base.begin(), base.begin() + 4);
  ASSERT_LT(TestConfirmation(b4, slowed4, true).p, v.wall_confirm_alpha);
  EXPECT_EQ(NextConfirmStep(b4, slowed4, 4, 7, v, true), ConfirmStep::kDecided);
  EXPECT_EQ(NextConfirmStep(b3, slowed3, 3, 7, v, true), ConfirmStep::kMore);
  // Four pairs of the same +30% whose ratios scatter by +-10%: p is about
  // 0.01, above the level, so more pairs, up to the minimum and past it.
  std::vector<double> scattered;
  for (size_t i = 0; i < 4; ++i) scattered.push_back(b4[i] * (1.30 + (i % 2 == 0 ? 0.1 : -0.1)));
  ASSERT_GT(TestConfirmation(b4, scattered, true).p, v.wall_confirm_alpha);
  EXPECT_EQ(NextConfirmStep(b4, scattered, 4, 7, v, true), ConfirmStep::kMore);
  // Unpaired, the same four values a side go on: a rank test cannot reach
  // the level below seven a side.
  EXPECT_EQ(NextConfirmStep(b4, slowed4, 4, 7, v), ConfirmStep::kMore);
  // Four steady pairs 1% apart: p is far below 0.5, but the change is
  // bounded inside the 5% minimum, so nothing more could come of it.
  std::vector<double> steady;
  const double small[] = {1.010, 1.012, 1.008, 1.011};
  for (size_t i = 0; i < 4; ++i) steady.push_back(b4[i] * small[i]);
  ASSERT_LT(TestConfirmation(b4, steady, true).p, 0.5);
  EXPECT_EQ(NextConfirmStep(b4, steady, 4, 7, v, true), ConfirmStep::kFutile);
  // Four pairs that scatter +-7% around +4%: neither clear nor bounded
  // inside the minimum (a 5% change would look like this): more pairs.
  std::vector<double> loose;
  const double wide[] = {1.12, 0.97, 1.10, 0.99};
  for (size_t i = 0; i < 4; ++i) loose.push_back(b4[i] * wide[i]);
  ASSERT_LT(TestConfirmation(b4, loose, true).p, 0.5);
  EXPECT_EQ(NextConfirmStep(b4, loose, 4, 7, v, true), ConfirmStep::kMore);
  // Unchanged pairs are futile after four rounds.
  const std::vector<double> s4(same.begin(), same.begin() + 4);
  EXPECT_EQ(NextConfirmStep(b4, s4, 4, 7, v, true), ConfirmStep::kFutile);
  // Sides of different lengths are not pairs.
  EXPECT_EQ(NextConfirmStep(base, std::vector<double>(slowed.begin(), slowed.end() - 1), 7, 7, v,
                            true),
            ConfirmStep::kDecided);
  // A pair with a value missing is left out whole: the others keep their
  // partners, and a plain change stays plain (shifted onto the neighbour's
  // partner it would mix levels 0.6-2.4x apart).
  std::vector<double> gap = slowed;
  gap[1] = 0;
  EXPECT_EQ(NextConfirmStep(base, gap, 7, 7, v, true), ConfirmStep::kDecided);
  EXPECT_EQ(NextConfirmStep(b3, std::vector<double>(gap.begin(), gap.begin() + 3), 3, 7, v, true),
            ConfirmStep::kMore);
  // Three whole pairs of an unchanged case are judged (futile), not taken
  // for sides that cannot be paired.
  std::vector<double> s4_gap = s4;
  s4_gap[1] = std::nan("");
  EXPECT_EQ(NextConfirmStep(b4, s4_gap, 4, 7, v, true), ConfirmStep::kFutile);
}

TEST(ConfirmBudgetTest, PastTheBudgetPairsGoOnWhileEveryProcessAgrees) {
  const std::vector<double> base = {410, 1520, 455, 610, 980, 430};
  const std::vector<double> slowed = {450, 1700, 490, 700, 1100, 470};
  // As sets they overlap; as pairs every process timed the candidate slower.
  EXPECT_FALSE(SidesCompletelyApart(base, slowed));
  EXPECT_TRUE(SidesCompletelyApart(base, slowed, /*paired=*/true));
  EXPECT_TRUE(SidesCompletelyApart(slowed, base, true));
  std::vector<double> one_other = slowed;
  one_other[2] = 400;
  EXPECT_FALSE(SidesCompletelyApart(base, one_other, true));
  // Sides of different lengths are not pairs.
  EXPECT_FALSE(SidesCompletelyApart(base, {450, 1700, 490}, true));
}

TEST(ConfirmBudgetTest, TheBudgetCoversTheRoundsAnUndecidedCaseMayNeed) {
  // A quiet host: eleven rounds of 5 s fit in 120 s, which stays.
  EXPECT_DOUBLE_EQ(ConfirmBudget(120, 5, 11), 120);
  // A loaded one: 14 s a round, 11 rounds with a 15% margin.
  EXPECT_NEAR(ConfirmBudget(120, 14, 11), 14 * 11 * 1.15, 1e-9);
  // Never beyond four times the configured budget.
  EXPECT_DOUBLE_EQ(ConfirmBudget(120, 200, 11), 480);
}

}  // namespace
}  // namespace harness::runner_internal
