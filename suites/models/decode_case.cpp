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
#include "base/host_probe.h"
#include "harness/wall_sampler.h"
#include "harness/case_kinds/case_kinds.h"
#include "model_case.h"

namespace suites {
namespace {

using harness::CaseResult;
using harness::CaseStatus;
using Clock = std::chrono::steady_clock;

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

// A token's text as terminals, JSON and HTML can show it: printable ASCII
// as is, a backslash doubled, anything else escaped (a newline as \\n, a
// byte 0x80 as \\x80).
std::string Printable(const std::string& bytes) {
  std::string out;
  for (const unsigned char c : bytes) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  return out;
}

// The decoded text of a text-prompt case, per sequence: the prompt, the
// golden tokens and the device's top-1 at each step (teacher forced: each
// given the golden text before it), and the flips, near ties labelled.
nlohmann::json DecodeTexts(const ModelCase& mc, const at::Tensor& golden_tokens,
                           const at::Tensor& device_logits, double near_tie_margin,
                           const at::Tensor& golden_logprobs) {
  const at::Tensor dev = device_logits.argmax(-1);
  const at::Tensor gold = golden_tokens.to(at::kLong);
  const at::Tensor glp = golden_logprobs.to(at::kDouble);
  nlohmann::json out = nlohmann::json::array();
  for (int64_t i = 0; i < gold.size(0); ++i) {
    std::vector<int64_t> prompt;
    for (int64_t k = 0; k < mc.prompts.size(1); ++k) {
      const int64_t id = mc.prompts[i][k].item<int64_t>();
      if (id != ByteTokenizer::kBos) prompt.push_back(id);
    }
    nlohmann::json g = nlohmann::json::array(), d = nlohmann::json::array();
    nlohmann::json flips = nlohmann::json::array();
    int64_t first = -1;
    for (int64_t s = 0; s < gold.size(1); ++s) {
      const int64_t gt = gold[i][s].item<int64_t>(), dt = dev[i][s].item<int64_t>();
      g.push_back(Printable(mc.tokenizer.TokenText(gt)));
      d.push_back(Printable(mc.tokenizer.TokenText(dt)));
      if (gt == dt) continue;
      if (first < 0) first = s;
      const double gap =
          std::exp(glp[i][s][gt].item<double>()) - std::exp(glp[i][s][dt].item<double>());
      flips.push_back({{"step", s}, {"near_tie", gap < near_tie_margin}, {"golden_prob_gap", gap}});
    }
    out.push_back({{"sequence", i},
                   {"prompt", Printable(mc.tokenizer.Decode(prompt))},
                   {"golden", g},
                   {"device", d},
                   {"first_divergence_step", first},
                   {"flips", flips}});
  }
  return out;
}

// A few characters either side of a sequence's step, the step's token in
// brackets: golden  ...not to [b]e, th  /  device ...not to [s].
std::string QuoteAt(const nlohmann::json& text, int64_t step, const char* which) {
  std::string before = text["prompt"].get<std::string>();
  for (int64_t s = 0; s < step; ++s) before += text["golden"][s].get<std::string>();
  constexpr size_t kBefore = 16, kAfter = 6;
  std::string out =
      before.size() > kBefore ? "..." + before.substr(before.size() - kBefore) : before;
  out += "[" + text[which][step].get<std::string>() + "]";
  if (std::string(which) == "golden") {
    std::string after;
    for (size_t s = step + 1; s < text["golden"].size() && after.size() < kAfter; ++s) {
      after += text["golden"][s].get<std::string>();
    }
    out += after;
  }
  return "\"" + out + "\"";
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

  harness::StatusOr<harness::SafetensorsFile> ComputeGolden(
      const harness::SuiteSpec& suite, const harness::CaseSpec& c, const ModelCase& mc,
      const harness::ExecOptions&) const override {
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
                     const ModelCase& mc, const harness::ExecOptions& options) const override {
    const std::string path = harness::GoldenPath(options.golden_dir, suite.name, c.id);
    auto golden = harness::LoadGolden(path, suite, c);
    if (!golden.ok()) return harness::CaseResult::Error(golden.status().message());
    auto weights = LoadModelWeights(mc);
    if (!weights.ok()) return harness::CaseResult::Error(weights.status().message());
    // The golden tokens teach every run (a timing round's too); whether
    // they were computed from these prompts and weights is the judged
    // pass's to check.
    harness::Status same = options.judged
                               ? CheckGoldenInputs(*golden, mc, *weights, path, suite.name, suite.root)
                               : harness::Status::Ok();
    if (!same.ok()) return harness::CaseResult::Error(same.message());
    const at::Tensor* tokens = golden->Find("tokens");
    const at::Tensor* logprobs = golden->Find("logprobs");
    const int64_t b = mc.prompts.size(0);
    if (tokens == nullptr || logprobs == nullptr || tokens->dim() != 2 || tokens->size(0) != b ||
        tokens->size(1) != mc.steps) {
      return harness::CaseResult::Error(path + ": expected tensors 'tokens' [" + std::to_string(b) +
                                        ", " + std::to_string(mc.steps) +
                                        "] and 'logprobs'; regenerate it");
    }

    const int64_t max_len = mc.prompts.size(1) + mc.steps;
    DecoderModel model(mc.config, *weights, DeviceUnderTest(), mc.dtype, mc.impl, max_len);
    const at::Tensor teacher = tokens->to(at::kLong);
    // A confirmation process times two configurations (harness/wall_sampler.h):
    // side 0 the baseline's, 1 this run's. Their samples alternate (A B B A
    // ...), as the common sampler's do, so that the load's swings within the
    // process fall on both; the outputs, metrics and traced pass are this
    // run's. Otherwise every sample is side 1.
    harness::PairedSides* sides = harness::ActivePairedSides();
    if (sides != nullptr) sides->used = true;
    const int first = sides != nullptr && sides->first == 0 ? 0 : 1;
    const auto set_side = [&](int side) {
      if (sides != nullptr && !(sides->set_side && sides->set_side(side))) sides->failed = true;
    };
    const auto side_of = [&](int i, int k) {
      return sides == nullptr ? 1 : harness::PairedSide(i, k, first);
    };
    const int per_sample = sides != nullptr ? 2 : 1;
    for (int i = 0; i < WarmupCount(suite, options); ++i) {
      for (int k = 0; k < per_sample; ++k) {
        set_side(side_of(0, k));
        RunDecode(model, mc.prompts, teacher, mc.steps, nullptr);
      }
    }
    CaseResult r;
    r.status = CaseStatus::kPassed;
    std::vector<double> ttft, itl, tps, wall[2];
    std::vector<int64_t> before[2], after[2];
    at::Tensor logits;
    harness::HostProbe probe;
    for (int i = 0; i < RepeatCount(suite, options); ++i) {
      for (int k = 0; k < per_sample; ++k) {
        const int side = side_of(i, k);
        set_side(side);
        probe.Sample();
        DecodeTiming t;
        before[side].push_back(harness::ThreadRunQueueWaitNs());
        at::Tensor out = RunDecode(model, mc.prompts, teacher, mc.steps, &t);
        after[side].push_back(harness::ThreadRunQueueWaitNs());
        wall[side].push_back(t.prefill_us + t.steps_us);
        if (side == 0) continue;
        logits = std::move(out);
        ttft.push_back(t.prefill_us);
        if (mc.steps > 1) itl.push_back(t.steps_us / static_cast<double>(mc.steps - 1));
        tps.push_back(static_cast<double>(b * mc.steps) / ((t.prefill_us + t.steps_us) * 1e-6));
      }
    }
    set_side(1);
    r.wall_us = wall[1];
    r.queue_us = harness::QueueWaitPerCallUs(before[1], after[1], 1);
    if (sides != nullptr) {
      r.extra["paired_wall_us"] = wall[0];
      r.extra["paired_queue_us"] = harness::QueueWaitPerCallUs(before[0], after[0], 1);
    }
    probe.Record(&r);
    // The modeled clock, phase by phase, in one more (untimed, traced) run.
    DeviceProfile prefill_profile, steps_profile;
    prefill_profile = ProfileOnDevice([&] { model.Prefill(mc.prompts).to(at::kCPU); });
    steps_profile = ProfileOnDevice([&] {
      for (int64_t i = 1; i < mc.steps; ++i) model.Step(teacher.narrow(1, i - 1, 1)).to(at::kCPU);
    });
    FillProfile(MergeProfiles(prefill_profile, steps_profile), &r);
    if (!options.judged) return r;  // a timing round: no yardstick, no verdict

    const DecodeJudgement j =
        JudgeDecode(logits, *logprobs, teacher, mc.top_k, mc.near_tie_margin);
    // The yardstick: the CPU computing the same decode in fp32 with weights
    // and activations held in the device's storage format for the dtype,
    // teacher-forced alike; its logits leave in the dtype, as the device's.
    DecoderModel yardstick_model(mc.config, *weights, at::kCPU, at::kFloat, LayerImpl::kPortable,
                                 max_len, DeviceFormatRounding(mc.dtype));
    const at::Tensor yardstick_fp32 =
        RunDecode(yardstick_model, mc.prompts, teacher, mc.steps, nullptr);
    const at::Tensor yardstick_logits = yardstick_fp32.to(mc.dtype).to(at::kFloat);
    const double yardstick =
        JudgeDecode(yardstick_logits, *logprobs, teacher, mc.top_k, mc.near_tie_margin)
            .max_logprob_diff;
    // Below the logprob rule's resolution when the logits leave in a coarser
    // format than the device computes in (bfloat16 out of DL16): the share of
    // logits rounded to another value than the golden's, against the
    // yardstick's share (LogitFlips).
    const bool judge_flips = OutputCoarserThanStorage(mc.dtype);
    LogitFlips flips;
    if (judge_flips) flips = CountLogitFlips(logits, yardstick_fp32, *logprobs, mc.dtype);
    const double flip_limit = std::max(kLogitFlipFloor, mc.logit_flip_m * flips.yardstick_share);
    const bool flips_failed = judge_flips && flips.device_share > flip_limit;
    const double lp_limit = LogprobLimit(mc, yardstick);
    const bool fixed_limit = !std::isnan(mc.max_logprob_diff);
    // "limit 0.06 = 3 x yardstick 0.02" / "limit 0.01 (floor; 3 x yardstick
    // 0.002)" / "fixed limit 0.05".
    std::string limit_text;
    if (fixed_limit) {
      limit_text = "fixed limit " + Short(lp_limit);
    } else if (lp_limit > mc.logprob_floor) {
      limit_text = "limit " + Short(lp_limit) + " = " + Short(mc.logprob_m) + " x yardstick " +
                   Short(yardstick);
    } else {
      limit_text = "limit " + Short(lp_limit) + " (the floor; " + Short(mc.logprob_m) +
                   " x yardstick " + Short(yardstick) + " is below it)";
    }
    const double agreement = static_cast<double>(j.agreeing) / static_cast<double>(j.pairs);
    AddMetric(&r, "tokens", "top1_agreement", agreement);
    AddMetric(&r, "tokens", "first_divergence_step", static_cast<double>(j.first_divergence));
    AddMetric(&r, "tokens", "near_ties", static_cast<double>(j.near_ties));
    AddMetric(&r, "tokens", "hard_flips", static_cast<double>(j.pairs - j.agreeing - j.near_ties),
              0, j.first_failure >= 0);
    const bool lp_failed = j.max_logprob_diff > lp_limit;
    AddMetric(&r, "logprobs", "max_logprob_diff", j.max_logprob_diff, lp_limit, lp_failed);
    AddMetric(&r, "logprobs", "logprob_yardstick", yardstick);
    if (judge_flips) {
      AddMetric(&r, "logits", "logit_flip_share", flips.device_share, flip_limit, flips_failed);
      AddMetric(&r, "logits", "logit_flip_yardstick", flips.yardstick_share);
    }
    const bool topk_failed = j.min_top_k_overlap < mc.min_top_k_overlap;
    AddMetric(&r, "logprobs", "min_top_k_overlap", j.min_top_k_overlap, mc.min_top_k_overlap,
              topk_failed);
    AddMetric(&r, "logprobs", "mean_top_k_overlap", j.mean_top_k_overlap);
    // How peaked the golden distributions are (a trained model's are; the
    // synthetic models' are flatter, with more near ties).
    int64_t close_calls = 0;
    for (const double g : j.golden_top2_gap) close_calls += g < mc.near_tie_margin;
    const double near_tie_rate =
        static_cast<double>(close_calls) / static_cast<double>(j.golden_top2_gap.size());
    AddMetric(&r, "logprobs", "golden_top1_prob_median", Median(j.golden_top1_prob));
    AddMetric(&r, "logprobs", "golden_top2_gap_median", Median(j.golden_top2_gap));
    AddMetric(&r, "logprobs", "golden_near_tie_rate", near_tie_rate);
    r.max_abs_err = j.max_logprob_diff;

    const double modeled_ttft = prefill_profile.modeled_us;
    const double modeled_itl = mc.steps > 1
                                   ? steps_profile.modeled_us / static_cast<double>(mc.steps - 1)
                                   : std::nan("");
    const double modeled_total = prefill_profile.modeled_us + steps_profile.modeled_us;
    const double modeled_tps = static_cast<double>(b * mc.steps) / (modeled_total * 1e-6);
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
        if (step["max_logprob_diff"].get<double>() > lp_limit) {
          over.push_back(step["step"].get<int64_t>());
        }
      }
      problems.push_back("max |logprob diff| " + Short(j.max_logprob_diff) + " above the " +
                         limit_text + " at " + StepRanges(over, mc.steps) +
                         (fixed_limit ? " (the case's \"model\": {\"max_logprob_diff\": ...})"
                                      : " (the case's \"model\": {\"logprob_m\": ..., "
                                        "\"logprob_floor\": ...} set the rule)"));
    }
    if (flips_failed) {
      problems.push_back(Percent(flips.device_share) +
                         " of the bfloat16 logits rounded to another value than the golden's, "
                         "above the limit " + Percent(flip_limit) + " = " + Short(mc.logit_flip_m) + " x yardstick " +
                         Percent(flips.yardstick_share) +
                         " (an error below the logprob rule's resolution; the case's \"model\": "
                         "{\"logit_flip_m\": ...} sets the rule)");
    }
    if (topk_failed) {
      problems.push_back("top-" + std::to_string(mc.top_k) + " overlap " +
                         Short(j.min_top_k_overlap) + " below " + Short(mc.min_top_k_overlap));
    }
    nlohmann::json texts;
    if (mc.text) texts = DecodeTexts(mc, teacher, logits, mc.near_tie_margin, *logprobs);
    if (!problems.empty()) {
      r.status = CaseStatus::kFailed;
      for (const auto& p : problems) r.message += (r.message.empty() ? "" : "; ") + p;
      if (j.first_failure < 0 && j.near_ties > 0) {
        r.message += "; " + std::to_string(j.near_ties) + " near-tie flip(s) from step " +
                     std::to_string(j.first_divergence);
      }
      // The first divergence as text: the first hard flip, else the first
      // near tie, of the earliest sequence that has it.
      const int64_t at_step = j.first_failure >= 0 ? j.first_failure : j.first_divergence;
      for (const auto& t : texts) {
        if (at_step < 0) break;
        bool here = false, near = false;
        for (const auto& f : t["flips"]) {
          if (f["step"].get<int64_t>() != at_step) continue;
          here = true;
          near = f["near_tie"].get<bool>();
        }
        if (!here) continue;
        r.message += "; as text (sequence " + std::to_string(t["sequence"].get<int64_t>()) +
                     ", step " + std::to_string(at_step) + (near ? ", a near tie" : "") +
                     "): golden " + QuoteAt(t, at_step, "golden") + ", device " +
                     QuoteAt(t, at_step, "device");
        break;
      }
      // No token moved: the text of the step whose log-probabilities moved
      // most, where the device came closest to writing something else.
      if (at_step < 0 && !texts.empty() && !j.per_step.empty()) {
        int64_t worst = 0;
        for (const auto& step : j.per_step) {
          if (step["max_logprob_diff"].get<double>() >
              j.per_step[worst]["max_logprob_diff"].get<double>()) {
            worst = step["step"].get<int64_t>();
          }
        }
        r.message += "; every token agrees; the log-probabilities moved most at step " +
                     std::to_string(worst) + ", as text (sequence 0): " +
                     QuoteAt(texts[0], worst, "golden");
      }
    }
    // update, not assign: the probe's host_probe_us is in there.
    r.extra.update(
        {{"model", mc.config.name},
         {"impl", LayerImplName(mc.impl)},
         {"dtype", c10::toString(mc.dtype)},
         {"batch", b},
         {"prompt_len", mc.prompts.size(1)},
         {"steps", mc.steps},
         {"top1_agreement", agreement},
         {"first_divergence_step", j.first_divergence},
         {"near_ties", j.near_ties},
         {"max_logprob_diff", j.max_logprob_diff},
         {"max_logprob_diff_limit", lp_limit},
         {"logprob_yardstick", yardstick},
         {"logprob_limit_rule",
          fixed_limit ? nlohmann::json{{"fixed", lp_limit}}
                      : nlohmann::json{{"m", mc.logprob_m}, {"floor", mc.logprob_floor}}},
         {"per_step", j.per_step},
         {"logit_flips", judge_flips ? nlohmann::json{{"share", flips.device_share},
                                                      {"yardstick", flips.yardstick_share},
                                                      {"limit", flip_limit},
                                                      {"m", mc.logit_flip_m}}
                                     : nlohmann::json()},
         {"ttft_us", Median(ttft)},
         {"itl_us", Median(itl)},
         {"tokens_per_s", Median(tps)},
         {"modeled_ttft_us", modeled_ttft},
         {"modeled_itl_us", modeled_itl},
         {"modeled_tokens_per_s", modeled_tps},
         {"device", DeviceUnderTest().str()}});
    if (mc.text) r.extra["text"] = texts;
    RecordOpErrors([&] { RunDecode(model, mc.prompts, teacher, mc.steps, nullptr); }, &r);
    return r;
  }
};

SPYRE_REGISTER_CASE_KIND("decode", DecodeCaseKind);

}  // namespace
}  // namespace suites
