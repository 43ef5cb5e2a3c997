// The "decode" case kind: a prompt, then greedy steps with the KV cache on
// the device, teacher-forced with the golden tokens (so one divergence does
// not cascade), judged per step (decode_metrics.h) and timed as time to
// first token, inter-token latency and tokens/s, wall and modeled.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "decode_metrics.h"
#include "harness/golden/golden.h"
#include "harness/host_probe.h"
#include "harness/suite_file/case_kinds.h"
#include "model_case.h"

namespace suites {
namespace {

using harness::CaseResult;
using harness::CaseStatus;
using Clock = std::chrono::steady_clock;

// A limit or a difference, to four significant digits ("0.0404", not
// std::to_string's "0.040400").
std::string Short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The steps a criterion failed at, as ranges: "all 16 steps", "step 3",
// "steps 0-3, 7, 9-11".
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

double Us(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::micro>(b - a).count();
}

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
                     int64_t steps, DecodeTiming* timing, at::ScalarType out_dtype = at::kFloat) {
  std::vector<at::Tensor> outs;
  const auto t0 = Clock::now();
  outs.push_back(model.Prefill(prompts).select(1, -1).to(at::kCPU).to(out_dtype));
  const auto t1 = Clock::now();
  for (int64_t i = 1; i < steps; ++i) {
    const at::Tensor next =
        teacher.defined() ? teacher.narrow(1, i - 1, 1) : outs.back().argmax(-1, /*keepdim=*/true);
    outs.push_back(model.Step(next).to(at::kCPU).to(out_dtype));
  }
  const auto t2 = Clock::now();
  if (timing != nullptr) *timing = {Us(t0, t1), Us(t1, t2)};
  return at::stack(outs, 1);
}

double Median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

void AddMetric(CaseResult* r, const std::string& output, const std::string& name, double value,
               double limit = std::nan(""), bool failed = false) {
  r->metrics.push_back({output, name, value, limit, failed});
}

class DecodeCaseKind : public ModelCaseKind {
 public:
  DecodeCaseKind() : ModelCaseKind(ModelTask::kDecode) {}

  harness::Status Validate(const harness::SuiteSpec& suite,
                           const harness::CaseSpec& c) const override {
    return ParseModelCase(suite, c, ModelTask::kDecode).status();
  }

  harness::StatusOr<harness::SafetensorsFile> ComputeGolden(
      const harness::SuiteSpec& suite, const harness::CaseSpec& c,
      const harness::ExecOptions&) const override {
    SPYRE_ASSIGN_OR_RETURN(auto mc, ParseModelCase(suite, c, ModelTask::kDecode));
    SPYRE_ASSIGN_OR_RETURN(auto weights, LoadModelWeights(mc));
    const int64_t max_len = mc.prompts.size(1) + mc.steps;
    DecoderModel cpu(mc.config, weights, at::kCPU, kModelReferenceDtype, LayerImpl::kPortable,
                     max_len);
    const at::Tensor logits =
        RunDecode(cpu, mc.prompts, at::Tensor(), mc.steps, nullptr, kModelReferenceDtype);
    harness::SafetensorsFile f;
    f.tensors.emplace_back("tokens", logits.argmax(-1));
    f.tensors.emplace_back("logprobs", at::log_softmax(logits, -1).to(at::kFloat));
    f.metadata = ModelGoldenMetadata(suite, c, mc, weights);
    return f;
  }

  CaseResult Execute(const harness::SuiteSpec& suite, const harness::CaseSpec& c,
                     const harness::ExecOptions& options) const override {
    auto mc = ParseModelCase(suite, c, ModelTask::kDecode);
    if (!mc.ok()) return harness::CaseResult::Error(mc.status().message());
    const std::string path = harness::GoldenPath(options.golden_dir, suite.name, c.id);
    auto golden = harness::LoadGolden(path, suite, c);
    if (!golden.ok()) return harness::CaseResult::Error(golden.status().message());
    auto weights = LoadModelWeights(*mc);
    if (!weights.ok()) return harness::CaseResult::Error(weights.status().message());
    harness::Status same = CheckGoldenInputs(*golden, *mc, *weights, path, suite.name);
    if (!same.ok()) return harness::CaseResult::Error(same.message());
    const at::Tensor* tokens = golden->Find("tokens");
    const at::Tensor* logprobs = golden->Find("logprobs");
    const int64_t b = mc->prompts.size(0);
    if (tokens == nullptr || logprobs == nullptr || tokens->dim() != 2 || tokens->size(0) != b ||
        tokens->size(1) != mc->steps) {
      return harness::CaseResult::Error(path + ": expected tensors 'tokens' [" + std::to_string(b) +
                                        ", " + std::to_string(mc->steps) +
                                        "] and 'logprobs'; regenerate it");
    }

    const int64_t max_len = mc->prompts.size(1) + mc->steps;
    DecoderModel model(mc->config, *weights, DeviceUnderTest(), mc->dtype, mc->impl, max_len);
    const at::Tensor teacher = tokens->to(at::kLong);
    for (int i = 0; i < WarmupCount(suite, options); ++i) {
      RunDecode(model, mc->prompts, teacher, mc->steps, nullptr);
    }
    CaseResult r;
    r.status = CaseStatus::kPassed;
    std::vector<double> ttft, itl, tps;
    at::Tensor logits;
    harness::HostProbe probe;
    for (int i = 0; i < RepeatCount(suite, options); ++i) {
      probe.Sample();
      DecodeTiming t;
      logits = RunDecode(model, mc->prompts, teacher, mc->steps, &t);
      r.wall_us.push_back(t.prefill_us + t.steps_us);
      ttft.push_back(t.prefill_us);
      if (mc->steps > 1) itl.push_back(t.steps_us / static_cast<double>(mc->steps - 1));
      tps.push_back(static_cast<double>(b * mc->steps) / ((t.prefill_us + t.steps_us) * 1e-6));
    }
    probe.Record(&r);
    // The modeled clock, phase by phase, in one more (untimed, traced) run.
    DeviceProfile prefill_profile, steps_profile;
    prefill_profile = ProfileOnDevice([&] { model.Prefill(mc->prompts).to(at::kCPU); });
    steps_profile = ProfileOnDevice([&] {
      for (int64_t i = 1; i < mc->steps; ++i) model.Step(teacher.narrow(1, i - 1, 1)).to(at::kCPU);
    });
    FillProfile(MergeProfiles(prefill_profile, steps_profile), &r);

    const DecodeJudgement j =
        JudgeDecode(logits, *logprobs, teacher, mc->top_k, mc->near_tie_margin);
    const double agreement = static_cast<double>(j.agreeing) / static_cast<double>(j.pairs);
    AddMetric(&r, "tokens", "top1_agreement", agreement);
    AddMetric(&r, "tokens", "first_divergence_step", static_cast<double>(j.first_divergence));
    AddMetric(&r, "tokens", "near_ties", static_cast<double>(j.near_ties));
    AddMetric(&r, "tokens", "hard_flips", static_cast<double>(j.pairs - j.agreeing - j.near_ties),
              0, j.first_failure >= 0);
    const bool lp_failed = j.max_logprob_diff > mc->max_logprob_diff;
    AddMetric(&r, "logprobs", "max_logprob_diff", j.max_logprob_diff, mc->max_logprob_diff,
              lp_failed);
    const bool topk_failed = j.min_top_k_overlap < mc->min_top_k_overlap;
    AddMetric(&r, "logprobs", "min_top_k_overlap", j.min_top_k_overlap, mc->min_top_k_overlap,
              topk_failed);
    AddMetric(&r, "logprobs", "mean_top_k_overlap", j.mean_top_k_overlap);
    r.max_abs_err = j.max_logprob_diff;

    const double modeled_ttft = prefill_profile.modeled_us;
    const double modeled_itl = mc->steps > 1
                                   ? steps_profile.modeled_us / static_cast<double>(mc->steps - 1)
                                   : std::nan("");
    const double modeled_total = prefill_profile.modeled_us + steps_profile.modeled_us;
    const double modeled_tps = static_cast<double>(b * mc->steps) / (modeled_total * 1e-6);
    AddMetric(&r, "latency", "ttft_us", Median(ttft));
    AddMetric(&r, "latency", "itl_us", Median(itl));
    AddMetric(&r, "latency", "tokens_per_s", Median(tps));
    AddMetric(&r, "latency", "modeled_ttft_us", modeled_ttft);
    AddMetric(&r, "latency", "modeled_itl_us", modeled_itl);
    AddMetric(&r, "latency", "modeled_tokens_per_s", modeled_tps);

    // Every failed criterion goes into the message, hard flips first.
    std::vector<std::string> problems;
    if (j.first_failure >= 0) {
      problems.push_back("token divergence: " + std::to_string(j.pairs - j.agreeing - j.near_ties) +
                         " top-1 flip(s), first at " + j.failure);
    }
    if (lp_failed) {
      std::vector<int64_t> over;
      for (const auto& step : j.per_step) {
        if (step["max_logprob_diff"].get<double>() > mc->max_logprob_diff) {
          over.push_back(step["step"].get<int64_t>());
        }
      }
      problems.push_back("max |logprob diff| " + Short(j.max_logprob_diff) + " above the limit " +
                         Short(mc->max_logprob_diff) + " at " + StepRanges(over, mc->steps) +
                         " (the case's \"model\": {\"max_logprob_diff\": ...} sets the limit)");
    }
    if (topk_failed) {
      problems.push_back("top-" + std::to_string(mc->top_k) + " overlap " +
                         std::to_string(j.min_top_k_overlap) + " below " +
                         std::to_string(mc->min_top_k_overlap));
    }
    if (!problems.empty()) {
      r.status = CaseStatus::kFailed;
      for (const auto& p : problems) r.message += (r.message.empty() ? "" : "; ") + p;
      if (j.first_failure < 0 && j.near_ties > 0) {
        r.message += "; " + std::to_string(j.near_ties) + " near-tie flip(s) from step " +
                     std::to_string(j.first_divergence);
      }
    }
    // update, not assign: the probe's host_probe_us is in there.
    r.extra.update({{"model", mc->config.name},
                    {"impl", LayerImplName(mc->impl)},
                    {"dtype", c10::toString(mc->dtype)},
                    {"batch", b},
                    {"prompt_len", mc->prompts.size(1)},
                    {"steps", mc->steps},
                    {"top1_agreement", agreement},
                    {"first_divergence_step", j.first_divergence},
                    {"near_ties", j.near_ties},
                    {"max_logprob_diff", j.max_logprob_diff},
                    {"per_step", j.per_step},
                    {"ttft_us", Median(ttft)},
                    {"itl_us", Median(itl)},
                    {"tokens_per_s", Median(tps)},
                    {"modeled_ttft_us", modeled_ttft},
                    {"modeled_itl_us", modeled_itl},
                    {"modeled_tokens_per_s", modeled_tps},
                    {"device", DeviceUnderTest().str()}});
    return r;
  }
};

SPYRE_REGISTER_CASE_KIND("decode", DecodeCaseKind);

}  // namespace
}  // namespace suites
