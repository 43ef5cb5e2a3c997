#pragma once
// What the decode kind and the serving kind share: running a prompt and its
// steps on a DecoderModel, and judging a decode against its golden with the
// yardstick's limits (decode_metrics.h has the per-step judgement).
//
//   DecodeVerdict v = JudgeDecodeCase(mc, weights, logits, golden_logprobs, teacher);
//   for (const std::string& p : DecodeProblems(v, mc)) ...   // empty: passed
#include <cmath>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "base/case_result.h"
#include "base/stats.h"
#include "decode_metrics.h"
#include "model_case.h"

namespace suites {

struct DecodeTiming {
  double prefill_us = 0;  // time to first token: prefill + reading its logits
  double steps_us = 0;    // the remaining N - 1 steps
};

// Runs the prompt and N - 1 steps. teacher [B, N] gives the token fed after
// each step; when undefined, the argmax is fed (greedy; the golden run).
// Returns logits [B, N, V] on the CPU as `out_dtype` (fp32 on the device;
// the float64 golden run keeps its logits in float64, so the greedy tokens
// are chosen from them).
at::Tensor RunDecode(DecoderModel& model, const at::Tensor& prompts, const at::Tensor& teacher,
                     int64_t steps, DecodeTiming* timing, at::ScalarType out_dtype = at::kFloat);

// The median; NaN for no values.
using harness::Median;

void AddMetric(harness::CaseResult* r, const std::string& output, const std::string& name,
               double value, double limit = std::nan(""), bool failed = false);

// The steps a criterion failed at, as ranges: "all 16 steps", "step 3",
// "steps 0-3, 7, 9-11".
std::string StepRanges(const std::vector<int64_t>& steps, int64_t total);

// The yardstick: the CPU computing the same decode (mc.prompts, mc.steps)
// in fp32 with weights and activations held in the device's storage format
// for the dtype, teacher-forced alike. Its logits before they leave in the
// dtype.
at::Tensor DecodeYardstickFp32(const ModelCase& mc, const Weights& weights,
                               const at::Tensor& teacher);

// The device's decode judged against the golden, with the limits its
// yardstick sets, and which criteria failed.
struct DecodeVerdict {
  DecodeJudgement j;
  double yardstick = 0;  // the yardstick's max |logprob diff|
  NearTie near_tie;      // the near-tie rule, its log-probability margin from the yardstick
  bool judge_flips = false;
  LogitFlips flips;
  double flip_limit = 0;
  bool flips_failed = false;
  double lp_limit = 0;
  bool fixed_limit = false;
  std::string limit_text;
  bool lp_failed = false;
  bool topk_failed = false;
};

// logits [B, N, V] (the device's), logprobs [B, N, V] and teacher [B, N]
// (the golden's) for the decode of mc.prompts over mc.steps.
DecodeVerdict JudgeDecodeCase(const ModelCase& mc, const Weights& weights, const at::Tensor& logits,
                              const at::Tensor& logprobs, const at::Tensor& teacher);

// The same with the yardstick's fp32 logits given (DecodeYardstickFp32);
// the limit comes from the larger of their own max |logprob diff| and
// `yardstick_at_least` (a serving trace's largest over its requests).
DecodeVerdict JudgeDecodeAgainst(const ModelCase& mc, const at::Tensor& logits,
                                 const at::Tensor& logprobs, const at::Tensor& teacher,
                                 const at::Tensor& yardstick_fp32, double yardstick_at_least = 0);

// The yardstick's own max |logprob diff| against the golden, its logits
// leaving in mc.dtype as the device's do.
double YardstickMaxLogprobDiff(const ModelCase& mc, const at::Tensor& yardstick_fp32,
                               const at::Tensor& logprobs, const at::Tensor& teacher);

double DecodeTop1Agreement(const DecodeJudgement& j);

// The accuracy metrics of a verdict, under the outputs "tokens", "logprobs"
// and "logits"; sets r->max_abs_err.
void AddDecodeAccuracyMetrics(const DecodeVerdict& v, const ModelCase& mc, harness::CaseResult* r);

// Every failed criterion, hard flips first; empty when the decode passed.
std::vector<std::string> DecodeProblems(const DecodeVerdict& v, const ModelCase& mc);

}  // namespace suites
