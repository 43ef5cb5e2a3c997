#pragma once
// Per-step judgement of a decode run against its golden run (teacher forced:
// both saw the same tokens, so steps are independent).
//
// For each step and sequence: top-1 agreement with the golden token; when
// they differ, how far apart the golden put the two tokens (a near tie,
// reported, not failed, when their probabilities differ by less than the
// margin or their log-probabilities by less than what an honest device in
// the same formats moves them: NearTie); max |logprob diff| over the golden
// top-k tokens; overlap of the two top-k sets.
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "base/case_result.h"

namespace suites {

struct DecodeJudgement {
  int64_t steps = 0;
  int64_t agreeing = 0;  // (step, sequence) pairs whose top-1 matches
  int64_t pairs = 0;
  int64_t near_ties = 0;
  int64_t first_divergence = -1;  // first step with any flip (near tie or not), -1 none
  int64_t first_failure = -1;     // first step with a flip that is not a near tie
  double max_logprob_diff = 0;
  double rms_logprob_diff = 0;  // over every pair's golden top-k tokens
  double min_top_k_overlap = 1;
  double mean_top_k_overlap = 1;
  std::string failure;  // the first hard flip, in words
  // How peaked the golden distributions are, per (step, sequence) pair:
  // p(top 1) and p(top 1) - p(top 2).
  std::vector<double> golden_top1_prob, golden_top2_gap;
  nlohmann::json per_step = nlohmann::json::array();
};

// A limit or a difference, to four significant digits ("0.0404", not
// std::to_string's "0.040400").
std::string Short(double v);

// When a flip is a near tie. `probability` is the case's near_tie_margin;
// `logprob` is twice the yardstick's max |logprob diff| (each of the two
// tokens may move by that much the other way on an honest device), 0 where
// no yardstick is known.
struct NearTie {
  double probability = 0;  // the case's margin: ModelCase::near_tie_margin
  double logprob = 0;
  bool Holds(double prob_gap, double logprob_gap) const {
    return prob_gap < probability || logprob_gap < logprob;
  }
};

// device_logits, golden_logprobs: [B, N, V]; golden_tokens [B, N].
DecodeJudgement JudgeDecode(const at::Tensor& device_logits, const at::Tensor& golden_logprobs,
                            const at::Tensor& golden_tokens, int64_t top_k, NearTie near_tie);

// Percent to three significant digits: "19.3%".
std::string Percent(double share);

// A device whose logits leave in a format with fewer fraction bits than it
// computes in (bfloat16's 7 out of DL16's 9) has most of a small error
// rounded away before the log-probabilities see it; what remains of it is
// how often a logit lands on another output value than the golden logit does. The golden file keeps log-probabilities, which fix each logit
// up to one constant per (sequence, step); the constant is taken from the
// yardstick's fp32 logits (their mean offset over the vocabulary), whose
// error is far below the output spacing.
struct LogitFlips {
  double device_share = 0;     // device logits on another value than the golden's
  double yardstick_share = 0;  // the yardstick's fp32 logits rounded to the dtype, likewise
};
inline constexpr double kLogitFlipFloor = 0.02;
bool OutputCoarserThanStorage(at::ScalarType dtype);
// device_logits [B, N, V] (values of `dtype`), yardstick_fp32 [B, N, V] before
// rounding to the dtype, golden_logprobs [B, N, V].
LogitFlips CountLogitFlips(const at::Tensor& device_logits, const at::Tensor& yardstick_fp32,
                           const at::Tensor& golden_logprobs, at::ScalarType dtype);

}  // namespace suites
