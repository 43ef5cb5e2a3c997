// Running and judging a decode (decode_verdict.h).
#include "decode_verdict.h"

#include <algorithm>
#include <chrono>

namespace suites {
namespace {

using harness::CaseResult;
using DecodeClock = std::chrono::steady_clock;

double DecodeElapsedUs(DecodeClock::time_point a, DecodeClock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

// "limit 0.06 = 3 x yardstick 0.02" / "limit 0.01 (floor; 3 x yardstick
// 0.002)" / "fixed limit 0.05".
std::string DecodeLimitText(const ModelCase& mc, double lp_limit, double yardstick,
                            bool fixed_limit) {
  if (fixed_limit) return "fixed limit " + Short(lp_limit);
  if (lp_limit > mc.logprob_floor) {
    return "limit " + Short(lp_limit) + " = " + Short(mc.logprob_m) + " x yardstick " +
           Short(yardstick);
  }
  return "limit " + Short(lp_limit) + " (the floor; " + Short(mc.logprob_m) + " x yardstick " +
         Short(yardstick) + " is below it)";
}

std::vector<int64_t> DecodeStepsOverLimit(const nlohmann::json& per_step, double lp_limit) {
  std::vector<int64_t> over;
  for (const auto& step : per_step) {
    if (!(step["max_logprob_diff"].get<double>() <= lp_limit)) {  // NaN: over
      over.push_back(step["step"].get<int64_t>());
    }
  }
  return over;
}

}  // namespace

std::string StepRanges(const std::vector<int64_t>& steps, int64_t total) {
  if (total > 1 && static_cast<int64_t>(steps.size()) == total) {
    return "all " + std::to_string(total) + " steps";
  }
  if (steps.size() == 1) return "step " + std::to_string(steps[0]);
  std::string out;
  for (size_t i = 0; i < steps.size();) {
    size_t j = i;
    while (j + 1 < steps.size() && steps[j + 1] == steps[j] + 1) ++j;
    out += (out.empty() ? "" : ", ") + std::to_string(steps[i]);
    if (j > i) out += (j == i + 1 ? ", " : "-") + std::to_string(steps[j]);
    i = j + 1;
  }
  return "steps " + out;
}

at::Tensor RunDecode(DecoderModel& model, const at::Tensor& prompts, const at::Tensor& teacher,
                     int64_t steps, DecodeTiming* timing, at::ScalarType out_dtype) {
  std::vector<at::Tensor> outs;
  const auto t0 = DecodeClock::now();
  outs.push_back(model.Prefill(prompts).select(1, -1).to(at::kCPU).to(out_dtype));
  const auto t1 = DecodeClock::now();
  for (int64_t i = 1; i < steps; ++i) {
    const at::Tensor next =
        teacher.defined() ? teacher.narrow(1, i - 1, 1) : outs.back().argmax(-1, /*keepdim=*/true);
    outs.push_back(model.Step(next).to(at::kCPU).to(out_dtype));
  }
  const auto t2 = DecodeClock::now();
  if (timing != nullptr) *timing = {DecodeElapsedUs(t0, t1), DecodeElapsedUs(t1, t2)};
  return at::stack(outs, 1);
}

void AddMetric(CaseResult* r, const std::string& output, const std::string& name, double value,
               double limit, bool failed) {
  r->metrics.push_back({output, name, value, limit, failed});
}

at::Tensor DecodeYardstickFp32(const ModelCase& mc, const Weights& weights,
                               const at::Tensor& teacher) {
  const int64_t max_len = mc.prompts.size(1) + mc.steps;
  DecoderModel yardstick_model(mc.config, weights, at::kCPU, at::kFloat, LayerImpl::kPortable,
                               max_len, DeviceFormatRounding(mc.dtype));
  return RunDecode(yardstick_model, mc.prompts, teacher, mc.steps, nullptr);
}

double YardstickMaxLogprobDiff(const ModelCase& mc, const at::Tensor& yardstick_fp32,
                               const at::Tensor& logprobs, const at::Tensor& teacher) {
  // Its logits leave in the dtype, as the device's.
  const at::Tensor yardstick_logits = yardstick_fp32.to(mc.dtype).to(at::kFloat);
  return JudgeDecode(yardstick_logits, logprobs, teacher, mc.top_k, NearTie{mc.near_tie_margin})
      .max_logprob_diff;
}

DecodeVerdict JudgeDecodeAgainst(const ModelCase& mc, const at::Tensor& logits,
                                 const at::Tensor& logprobs, const at::Tensor& teacher,
                                 const at::Tensor& yardstick_fp32, double yardstick_at_least) {
  DecodeVerdict v;
  v.yardstick =
      std::max(yardstick_at_least, YardstickMaxLogprobDiff(mc, yardstick_fp32, logprobs, teacher));
  // A flip between two tokens the golden put closer than the yardstick's
  // own error could move them (one up, the other down) is a near tie, as
  // one under the fixed probability margin is: bfloat16's logits are
  // coarse enough to flip a 51/47 choice with no fault at all.
  v.near_tie = NearTie{mc.near_tie_margin, 2 * v.yardstick};
  v.j = JudgeDecode(logits, logprobs, teacher, mc.top_k, v.near_tie);
  // Below the logprob rule's resolution when the logits leave in a coarser
  // format than the device computes in (bfloat16 out of DL16): the share of
  // logits rounded to another value than the golden's, against the
  // yardstick's share (LogitFlips).
  v.judge_flips = OutputCoarserThanStorage(mc.dtype);
  if (v.judge_flips) v.flips = CountLogitFlips(logits, yardstick_fp32, logprobs, mc.dtype);
  v.flip_limit = std::max(kLogitFlipFloor, mc.logit_flip_m * v.flips.yardstick_share);
  v.flips_failed = v.judge_flips && v.flips.device_share > v.flip_limit;
  v.lp_limit = LogprobLimit(mc, v.yardstick);
  v.fixed_limit = !std::isnan(mc.max_logprob_diff);
  v.limit_text = DecodeLimitText(mc, v.lp_limit, v.yardstick, v.fixed_limit);
  v.lp_failed = !(v.j.max_logprob_diff <= v.lp_limit);  // a NaN logit fails
  v.topk_failed = v.j.min_top_k_overlap < mc.min_top_k_overlap;
  return v;
}

DecodeVerdict JudgeDecodeCase(const ModelCase& mc, const Weights& weights, const at::Tensor& logits,
                              const at::Tensor& logprobs, const at::Tensor& teacher) {
  return JudgeDecodeAgainst(mc, logits, logprobs, teacher,
                            DecodeYardstickFp32(mc, weights, teacher));
}

double DecodeTop1Agreement(const DecodeJudgement& j) {
  return static_cast<double>(j.agreeing) / static_cast<double>(j.pairs);
}

void AddDecodeAccuracyMetrics(const DecodeVerdict& v, const ModelCase& mc, CaseResult* r) {
  const DecodeJudgement& j = v.j;
  AddMetric(r, "tokens", "top1_agreement", DecodeTop1Agreement(j));
  AddMetric(r, "tokens", "first_divergence_step", static_cast<double>(j.first_divergence));
  AddMetric(r, "tokens", "near_ties", static_cast<double>(j.near_ties));
  AddMetric(r, "tokens", "hard_flips", static_cast<double>(j.pairs - j.agreeing - j.near_ties), 0,
            j.first_failure >= 0);
  AddMetric(r, "logprobs", "max_logprob_diff", j.max_logprob_diff, v.lp_limit, v.lp_failed);
  AddMetric(r, "logprobs", "logprob_yardstick", v.yardstick);
  if (v.judge_flips) {
    AddMetric(r, "logits", "logit_flip_share", v.flips.device_share, v.flip_limit, v.flips_failed);
    AddMetric(r, "logits", "logit_flip_yardstick", v.flips.yardstick_share);
  }
  AddMetric(r, "logprobs", "min_top_k_overlap", j.min_top_k_overlap, mc.min_top_k_overlap,
            v.topk_failed);
  AddMetric(r, "logprobs", "mean_top_k_overlap", j.mean_top_k_overlap);
  // How peaked the golden distributions are (a trained model's are; the
  // synthetic models' are flatter, with more near ties).
  int64_t close_calls = 0;
  for (const double g : j.golden_top2_gap) close_calls += g < mc.near_tie_margin;
  const double near_tie_rate =
      static_cast<double>(close_calls) / static_cast<double>(j.golden_top2_gap.size());
  AddMetric(r, "logprobs", "golden_top1_prob_median", Median(j.golden_top1_prob));
  AddMetric(r, "logprobs", "golden_top2_gap_median", Median(j.golden_top2_gap));
  AddMetric(r, "logprobs", "golden_near_tie_rate", near_tie_rate);
  r->max_abs_err = j.max_logprob_diff;
}

std::vector<std::string> DecodeProblems(const DecodeVerdict& v, const ModelCase& mc) {
  const DecodeJudgement& j = v.j;
  std::vector<std::string> problems;
  if (j.first_failure >= 0) {
    problems.push_back("token divergence: " + std::to_string(j.pairs - j.agreeing - j.near_ties) +
                       " top-1 flip(s), first at " + j.failure);
  }
  if (v.lp_failed && std::isnan(j.max_logprob_diff)) {
    problems.push_back("non-finite device logits at " +
                       StepRanges(DecodeStepsOverLimit(j.per_step, v.lp_limit), mc.steps));
  } else if (v.lp_failed) {
    problems.push_back("max |logprob diff| " + Short(j.max_logprob_diff) + " above the " +
                       v.limit_text + " at " +
                       StepRanges(DecodeStepsOverLimit(j.per_step, v.lp_limit), mc.steps) +
                       (v.fixed_limit ? " (the case's \"model\": {\"max_logprob_diff\": ...})"
                                      : " (the case's \"model\": {\"logprob_m\": ..., "
                                        "\"logprob_floor\": ...} set the rule)"));
  }
  if (v.flips_failed) {
    problems.push_back(Percent(v.flips.device_share) +
                       " of the bfloat16 logits rounded to another value than the golden's, "
                       "above the limit " +
                       Percent(v.flip_limit) + " = " + Short(mc.logit_flip_m) + " x yardstick " +
                       Percent(v.flips.yardstick_share) +
                       " (an error below the logprob rule's resolution; the case's \"model\": "
                       "{\"logit_flip_m\": ...} sets the rule)");
  }
  if (v.topk_failed) {
    problems.push_back("top-" + std::to_string(mc.top_k) + " overlap " +
                       Short(j.min_top_k_overlap) + " below " + Short(mc.min_top_k_overlap));
  }
  return problems;
}

}  // namespace suites
