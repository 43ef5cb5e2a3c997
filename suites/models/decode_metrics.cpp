#include "decode_metrics.h"

#include "harness/compare/device_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

namespace suites {

std::string Short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

namespace {

// std::max passes over a NaN on either side; a non-finite logit must stay
// in the figure the verdict reads.
double MaxKeepingNan(double a, double b) {
  return std::isnan(a) || std::isnan(b) ? std::nan("") : std::max(a, b);
}

}  // namespace

DecodeJudgement JudgeDecode(const at::Tensor& device_logits, const at::Tensor& golden_logprobs,
                            const at::Tensor& golden_tokens, int64_t top_k,
                            NearTie near_tie) {
  // Log-probabilities of the device's logits, computed on the CPU in double:
  // the device is judged on its logits, not on a host-side softmax.
  const at::Tensor dev_lp = at::log_softmax(device_logits.to(at::kDouble), -1);
  const at::Tensor gold_lp = golden_logprobs.to(at::kDouble);
  const int64_t b = dev_lp.size(0), n = dev_lp.size(1);
  const at::Tensor dev_top = std::get<1>(dev_lp.topk(top_k, -1));
  const at::Tensor gold_top = std::get<1>(gold_lp.topk(top_k, -1));
  const at::Tensor dev_arg = dev_lp.argmax(-1);
  auto dl = dev_lp.accessor<double, 3>();
  auto gl = gold_lp.accessor<double, 3>();
  auto dt = dev_top.accessor<int64_t, 3>();
  auto gt = gold_top.accessor<int64_t, 3>();
  auto da = dev_arg.accessor<int64_t, 2>();
  const at::Tensor tokens = golden_tokens.to(at::kLong);
  auto tok = tokens.accessor<int64_t, 2>();

  DecodeJudgement j;
  j.steps = n;
  double overlap_sum = 0, sq_sum = 0;
  for (int64_t s = 0; s < n; ++s) {
    nlohmann::json step = {{"step", s}, {"flips", nlohmann::json::array()}};
    double step_diff = 0, step_overlap = 1, step_gap = 1;
    for (int64_t i = 0; i < b; ++i) {
      ++j.pairs;
      // How decided the golden choice was: p(top 1) - p(top 2).
      const double p1 = std::exp(gl[i][s][gt[i][s][0]]);
      const double gap12 = p1 - (top_k > 1 ? std::exp(gl[i][s][gt[i][s][1]]) : 0.0);
      step_gap = std::min(step_gap, gap12);
      j.golden_top1_prob.push_back(p1);
      j.golden_top2_gap.push_back(gap12);
      const int64_t gold = tok[i][s], dev = da[i][s];
      std::set<int64_t> gold_set, dev_set;
      for (int64_t k = 0; k < top_k; ++k) {
        gold_set.insert(gt[i][s][k]);
        dev_set.insert(dt[i][s][k]);
        const double d = dl[i][s][gt[i][s][k]] - gl[i][s][gt[i][s][k]];
        step_diff = MaxKeepingNan(step_diff, std::abs(d));
        sq_sum += d * d;
      }
      int64_t common = 0;
      for (int64_t t : dev_set) common += gold_set.count(t);
      const double overlap = static_cast<double>(common) / static_cast<double>(top_k);
      step_overlap = std::min(step_overlap, overlap);
      overlap_sum += overlap;
      if (dev == gold) {
        ++j.agreeing;
        continue;
      }
      const double gap = std::exp(gl[i][s][gold]) - std::exp(gl[i][s][dev]);
      const double lp_gap = gl[i][s][gold] - gl[i][s][dev];
      const bool tie = near_tie.Holds(gap, lp_gap);
      step["flips"].push_back({{"sequence", i},
                               {"golden_token", gold},
                               {"device_token", dev},
                               {"golden_prob_gap", gap},
                               {"golden_logprob_gap", lp_gap},
                               {"near_tie", tie}});
      if (j.first_divergence < 0) j.first_divergence = s;
      if (tie) {
        ++j.near_ties;
      } else if (j.first_failure < 0) {
        j.first_failure = s;
        j.failure = "step " + std::to_string(s) + ", sequence " + std::to_string(i) +
                    ": device chose token " + std::to_string(dev) + ", golden " +
                    std::to_string(gold) + " (golden probabilities differ by " +
                    Short(gap) + ", above the near-tie margin " + Short(near_tie.probability) +
                    (near_tie.logprob > 0 ? "; log-probabilities by " + Short(lp_gap) +
                                                ", above twice the yardstick's " +
                                                Short(near_tie.logprob / 2)
                                          : std::string()) +
                    ")";
      }
    }
    step["max_logprob_diff"] = step_diff;
    step["top_k_overlap"] = step_overlap;
    step["golden_top2_gap"] = step_gap;
    j.max_logprob_diff = MaxKeepingNan(j.max_logprob_diff, step_diff);
    j.min_top_k_overlap = std::min(j.min_top_k_overlap, step_overlap);
    j.per_step.push_back(std::move(step));
  }
  j.rms_logprob_diff =
      j.pairs > 0 ? std::sqrt(sq_sum / static_cast<double>(j.pairs * top_k)) : 0.0;
  j.mean_top_k_overlap = j.pairs > 0 ? overlap_sum / static_cast<double>(j.pairs) : 1.0;
  return j;
}

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g%%", share * 100);
  return buf;
}

bool OutputCoarserThanStorage(at::ScalarType dtype) {
  return dtype == at::kBFloat16 && harness::FormatKindOf(dtype) == harness::FormatKind::kDl16;
}

LogitFlips CountLogitFlips(const at::Tensor& device_logits, const at::Tensor& yardstick_fp32,
                           const at::Tensor& golden_logprobs, at::ScalarType dtype) {
  const at::Tensor lp = golden_logprobs.to(at::kDouble);
  const at::Tensor offset = (yardstick_fp32.to(at::kDouble) - lp).mean(-1, /*keepdim=*/true);
  const auto in_dtype = [dtype](const at::Tensor& t) {
    return t.to(at::kFloat).to(dtype).to(at::kFloat);
  };
  const at::Tensor golden = in_dtype(lp + offset);
  const auto share = [&golden](const at::Tensor& t) {
    return t.ne(golden).to(at::kDouble).mean().item<double>();
  };
  return {share(in_dtype(device_logits)), share(in_dtype(yardstick_fp32))};
}

}  // namespace suites
