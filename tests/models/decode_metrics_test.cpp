// JudgeDecode on crafted log-probabilities: agreement, near ties reported
// but not failed, hard flips failed, logprob differences and top-k overlap.
#include <gtest/gtest.h>

#include <cmath>

#include "decode_metrics.h"

namespace {

// One sequence, steps of 4-token distributions given as probabilities.
at::Tensor LogProbs(const std::vector<std::vector<double>>& probs) {
  std::vector<at::Tensor> rows;
  for (const auto& p : probs) rows.push_back(at::tensor(p, at::kDouble).log());
  return at::stack(rows).unsqueeze(0);
}

TEST(DecodeMetricsTest, IdenticalRunsAgreeEverywhere) {
  const at::Tensor lp = LogProbs({{0.7, 0.1, 0.1, 0.1}, {0.1, 0.6, 0.2, 0.1}});
  const at::Tensor tokens = lp.argmax(-1);
  const auto j = suites::JudgeDecode(lp, lp, tokens, 2, suites::NearTie{0.02});
  EXPECT_EQ(j.agreeing, 2);
  EXPECT_EQ(j.first_divergence, -1);
  EXPECT_EQ(j.first_failure, -1);
  EXPECT_NEAR(j.max_logprob_diff, 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(j.min_top_k_overlap, 1.0);
}

TEST(DecodeMetricsTest, AFlipBetweenNearTiesIsReportedNotFailed) {
  const at::Tensor gold = LogProbs({{0.7, 0.1, 0.1, 0.1}, {0.41, 0.40, 0.1, 0.09}});
  const at::Tensor dev = LogProbs({{0.7, 0.1, 0.1, 0.1}, {0.40, 0.41, 0.1, 0.09}});
  const auto j = suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, suites::NearTie{0.02});
  EXPECT_EQ(j.near_ties, 1);
  EXPECT_EQ(j.first_divergence, 1);
  EXPECT_EQ(j.first_failure, -1);
  EXPECT_NEAR(j.max_logprob_diff, std::abs(std::log(0.41) - std::log(0.40)), 1e-9);
  EXPECT_TRUE(j.per_step[1]["flips"][0]["near_tie"].get<bool>());
}

TEST(DecodeMetricsTest, AFlipBeyondTheMarginFailsAtItsStep) {
  const at::Tensor gold =
      LogProbs({{0.7, 0.1, 0.1, 0.1}, {0.6, 0.2, 0.1, 0.1}, {0.7, 0.1, 0.1, 0.1}});
  const at::Tensor dev =
      LogProbs({{0.7, 0.1, 0.1, 0.1}, {0.2, 0.6, 0.1, 0.1}, {0.7, 0.1, 0.1, 0.1}});
  const auto j = suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, suites::NearTie{0.02});
  EXPECT_EQ(j.first_failure, 1);
  EXPECT_EQ(j.agreeing, 2);
  EXPECT_NE(j.failure.find("device chose token 1, golden 0"), std::string::npos) << j.failure;
  EXPECT_NEAR(j.max_logprob_diff, std::log(3.0), 1e-9);
}

TEST(DecodeMetricsTest, AFlipWithinTheYardsticksMoveIsANearTie) {
  // The golden puts the two tokens 0.51 / 0.47 apart: 0.04 in probability,
  // above the margin, but 0.08 in log-probability, which two tokens each
  // moved 0.05 the other way (an honest bfloat16 device) can close.
  const at::Tensor gold = LogProbs({{0.51, 0.47, 0.01, 0.01}});
  const at::Tensor dev = LogProbs({{0.48, 0.50, 0.01, 0.01}});
  const double lp_gap = std::log(0.51) - std::log(0.47);
  const auto tie = suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, suites::NearTie{0.02, 0.1});
  EXPECT_EQ(tie.near_ties, 1);
  EXPECT_EQ(tie.first_failure, -1);
  EXPECT_NEAR(tie.per_step[0]["flips"][0]["golden_logprob_gap"].get<double>(), lp_gap, 1e-9);
  // A yardstick half as large leaves the same flip a failure, and says why.
  const auto hard =
      suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, suites::NearTie{0.02, 0.05});
  EXPECT_EQ(hard.first_failure, 0);
  EXPECT_NE(hard.failure.find("log-probabilities by 0.08168, above twice the yardstick's 0.025"),
            std::string::npos)
      << hard.failure;
  EXPECT_EQ(suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, suites::NearTie{0.02})
                .first_failure,
            0);
}

TEST(DecodeMetricsTest, TopKOverlapCountsSharedTokens) {
  const at::Tensor gold = LogProbs({{0.4, 0.3, 0.2, 0.1}});
  const at::Tensor dev = LogProbs({{0.4, 0.1, 0.2, 0.3}});
  const auto j = suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, suites::NearTie{0.02});
  EXPECT_DOUBLE_EQ(j.min_top_k_overlap, 0.5);  // {0, 1} vs {0, 3}
}

TEST(DecodeMetricsTest, ANonFiniteLogitStaysInTheLogprobFigure) {
  // The NaN sits on the golden token, so the device's argmax still picks
  // it: only the logprob figure can fail the step.
  const at::Tensor gold = LogProbs({{0.7, 0.1, 0.1, 0.1}, {0.6, 0.2, 0.1, 0.1}});
  at::Tensor dev = gold.clone();
  dev[0][1][0] = std::nan("");
  const auto j = suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, suites::NearTie{0.02});
  EXPECT_TRUE(std::isnan(j.max_logprob_diff)) << j.max_logprob_diff;
  EXPECT_NEAR(j.per_step[0]["max_logprob_diff"].get<double>(), 0.0, 1e-12);
  EXPECT_TRUE(std::isnan(j.per_step[1]["max_logprob_diff"].get<double>()));
}

}  // namespace
