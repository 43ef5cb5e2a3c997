#pragma once
// Per-step judgement of a decode run against its golden run (teacher forced:
// both saw the same tokens, so steps are independent).
//
// For each step and sequence: top-1 agreement with the golden token; when
// they differ, the golden probability gap p(golden token) - p(device token)
// (below the margin: a near tie, reported, not failed); max |logprob diff|
// over the golden top-k tokens; overlap of the two top-k sets.
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "harness/case_result.h"

namespace suites {

struct DecodeJudgement {
  int64_t steps = 0;
  int64_t agreeing = 0;  // (step, sequence) pairs whose top-1 matches
  int64_t pairs = 0;
  int64_t near_ties = 0;
  int64_t first_divergence = -1;  // first step with any flip (near tie or not), -1 none
  int64_t first_failure = -1;     // first step with a flip that is not a near tie
  double max_logprob_diff = 0;
  double min_top_k_overlap = 1;
  double mean_top_k_overlap = 1;
  std::string failure;  // the first hard flip, in words
  // How peaked the golden distributions are, per (step, sequence) pair:
  // p(top 1) and p(top 1) - p(top 2).
  std::vector<double> golden_top1_prob, golden_top2_gap;
  nlohmann::json per_step = nlohmann::json::array();
};

// device_logits, golden_logprobs: [B, N, V]; golden_tokens [B, N].
DecodeJudgement JudgeDecode(const at::Tensor& device_logits, const at::Tensor& golden_logprobs,
                            const at::Tensor& golden_tokens, int64_t top_k, double near_tie_margin);

}  // namespace suites
