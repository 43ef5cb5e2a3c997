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
  const auto j = suites::JudgeDecode(lp, lp, tokens, 2, 0.02);
  EXPECT_EQ(j.agreeing, 2);
  EXPECT_EQ(j.first_divergence, -1);
  EXPECT_EQ(j.first_failure, -1);
  EXPECT_NEAR(j.max_logprob_diff, 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(j.min_top_k_overlap, 1.0);
}

TEST(DecodeMetricsTest, AFlipBetweenNearTiesIsReportedNotFailed) {
  const at::Tensor gold = LogProbs({{0.7, 0.1, 0.1, 0.1}, {0.41, 0.40, 0.1, 0.09}});
  const at::Tensor dev = LogProbs({{0.7, 0.1, 0.1, 0.1}, {0.40, 0.41, 0.1, 0.09}});
  const auto j = suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, 0.02);
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
  const auto j = suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, 0.02);
  EXPECT_EQ(j.first_failure, 1);
  EXPECT_EQ(j.agreeing, 2);
  EXPECT_NE(j.failure.find("device chose token 1, golden 0"), std::string::npos) << j.failure;
  EXPECT_NEAR(j.max_logprob_diff, std::log(3.0), 1e-9);
}

TEST(DecodeMetricsTest, TopKOverlapCountsSharedTokens) {
  const at::Tensor gold = LogProbs({{0.4, 0.3, 0.2, 0.1}});
  const at::Tensor dev = LogProbs({{0.4, 0.1, 0.2, 0.3}});
  const auto j = suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, 0.02);
  EXPECT_DOUBLE_EQ(j.min_top_k_overlap, 0.5);  // {0, 1} vs {0, 3}
}

TEST(DecodeMetricsTest, ANonFiniteLogitStaysInTheLogprobFigure) {
  // The NaN sits on the golden token, so the device's argmax still picks
  // it: only the logprob figure can fail the step.
  const at::Tensor gold = LogProbs({{0.7, 0.1, 0.1, 0.1}, {0.6, 0.2, 0.1, 0.1}});
  at::Tensor dev = gold.clone();
  dev[0][1][0] = std::nan("");
  const auto j = suites::JudgeDecode(dev, gold, gold.argmax(-1), 2, 0.02);
  EXPECT_TRUE(std::isnan(j.max_logprob_diff)) << j.max_logprob_diff;
  EXPECT_NEAR(j.per_step[0]["max_logprob_diff"].get<double>(), 0.0, 1e-12);
  EXPECT_TRUE(std::isnan(j.per_step[1]["max_logprob_diff"].get<double>()));
}

}  // namespace
