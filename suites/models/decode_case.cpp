// The "decode" case kind: a prompt, then greedy steps with the KV cache on
// the device, teacher-forced with the golden tokens (so one divergence does
// not cascade), judged per step (decode_metrics.h) and timed as time to
// first token, inter-token latency and tokens/s, wall and modeled.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "decode_metrics.h"
#include "decode_verdict.h"
#include "harness/golden/golden.h"
#include "base/host_probe.h"
#include "harness/wall_sampler.h"
#include "harness/case_kinds/case_kinds.h"
#include "model_case.h"

namespace suites {
namespace {

using harness::CaseResult;
using harness::CaseStatus;

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
                           const at::Tensor& device_logits, NearTie near_tie,
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
      const double lg = glp[i][s][gt].item<double>(), ld = glp[i][s][dt].item<double>();
      const double gap = std::exp(lg) - std::exp(ld);
      flips.push_back(
          {{"step", s}, {"near_tie", near_tie.Holds(gap, lg - ld)}, {"golden_prob_gap", gap}});
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

// What a decode case runs on: the golden decode that teaches and judges it,
// and the model's weights.
struct DecodeInputs {
  at::Tensor tokens;    // the golden greedy tokens [B, N]
  at::Tensor logprobs;  // the golden log-probabilities [B, N, V]
  Weights weights;
};

harness::StatusOr<DecodeInputs> LoadDecodeInputs(const harness::SuiteSpec& suite,
                                                 const harness::CaseSpec& c, const ModelCase& mc,
                                                 const harness::ExecOptions& options) {
  const std::string path = harness::GoldenPath(options.golden_dir, suite.name, c.id);
  SPYRE_ASSIGN_OR_RETURN(auto golden, harness::LoadGolden(path, suite, c));
  SPYRE_ASSIGN_OR_RETURN(auto weights, LoadModelWeights(mc));
  // The golden tokens teach every run (a timing round's too); whether
  // they were computed from these prompts and weights is the judged
  // pass's to check.
  if (options.judged) {
    SPYRE_RETURN_IF_ERROR(CheckGoldenInputs(golden, mc, weights, path, suite.name, suite.root));
  }
  const at::Tensor* tokens = golden.Find("tokens");
  const at::Tensor* logprobs = golden.Find("logprobs");
  const int64_t b = mc.prompts.size(0);
  if (tokens == nullptr || logprobs == nullptr || tokens->dim() != 2 || tokens->size(0) != b ||
      tokens->size(1) != mc.steps) {
    return harness::InvalidInput(path + ": expected tensors 'tokens' [" + std::to_string(b) + ", " +
                                 std::to_string(mc.steps) + "] and 'logprobs'; regenerate it");
  }
  return DecodeInputs{*tokens, *logprobs, std::move(weights)};
}

// A confirmation process times two configurations (harness/wall_sampler.h):
// side 0 the baseline's, 1 this run's. Their samples alternate (A B B A
// ...), as the common sampler's do, so that the load's swings within the
// process fall on both; the outputs, metrics and traced pass are this
// run's. Otherwise every sample is side 1.
class DecodePairedSides {
 public:
  DecodePairedSides() : sides_(harness::ActivePairedSides()) {
    if (sides_ != nullptr) sides_->used = true;
    first_ = sides_ != nullptr && sides_->first == 0 ? 0 : 1;
  }

  bool Paired() const { return sides_ != nullptr; }
  int PerSample() const { return sides_ != nullptr ? 2 : 1; }
  int SideOf(int i, int k) const {
    return sides_ == nullptr ? 1 : harness::PairedSide(i, k, first_);
  }
  void Switch(int side) const {
    if (sides_ != nullptr && !(sides_->set_side && sides_->set_side(side))) sides_->failed = true;
  }

 private:
  harness::PairedSides* sides_;
  int first_;
};

void WarmUpDecode(DecoderModel& model, const ModelCase& mc, const at::Tensor& teacher, int warmups,
                  const DecodePairedSides& sides) {
  for (int i = 0; i < warmups; ++i) {
    for (int k = 0; k < sides.PerSample(); ++k) {
      sides.Switch(sides.SideOf(0, k));
      RunDecode(model, mc.prompts, teacher, mc.steps, nullptr);
    }
  }
}

// Per side the wall time and run-queue readings of every sample; of this
// run's side also the latencies and the last sample's logits.
struct DecodeSamples {
  std::vector<double> ttft, itl, tps, wall[2];
  std::vector<int64_t> before[2], after[2];
  at::Tensor logits;
};

DecodeSamples TimeDecodeSamples(DecoderModel& model, const ModelCase& mc, const at::Tensor& teacher,
                                int repeats, const DecodePairedSides& sides,
                                harness::HostProbe* probe) {
  const int64_t b = mc.prompts.size(0);
  DecodeSamples s;
  for (int i = 0; i < repeats; ++i) {
    for (int k = 0; k < sides.PerSample(); ++k) {
      const int side = sides.SideOf(i, k);
      sides.Switch(side);
      probe->Sample();
      DecodeTiming t;
      s.before[side].push_back(harness::ThreadRunQueueWaitNs());
      at::Tensor out = RunDecode(model, mc.prompts, teacher, mc.steps, &t);
      s.after[side].push_back(harness::ThreadRunQueueWaitNs());
      s.wall[side].push_back(t.prefill_us + t.steps_us);
      if (side == 0) continue;
      s.logits = std::move(out);
      s.ttft.push_back(t.prefill_us);
      if (mc.steps > 1) s.itl.push_back(t.steps_us / static_cast<double>(mc.steps - 1));
      s.tps.push_back(static_cast<double>(b * mc.steps) / ((t.prefill_us + t.steps_us) * 1e-6));
    }
  }
  return s;
}

// Leaves the device on this run's side; a paired process's baseline samples
// go into extra.
void RecordDecodeWall(const DecodeSamples& s, const DecodePairedSides& sides,
                      harness::HostProbe* probe, CaseResult* r) {
  sides.Switch(1);
  r->wall_us = s.wall[1];
  r->queue_us = harness::QueueWaitPerCallUs(s.before[1], s.after[1], 1);
  if (sides.Paired()) {
    r->extra["paired_wall_us"] = s.wall[0];
    r->extra["paired_queue_us"] = harness::QueueWaitPerCallUs(s.before[0], s.after[0], 1);
  }
  probe->Record(r);
}

struct DecodePhaseProfiles {
  DeviceProfile prefill, steps;
};

// The modeled clock, phase by phase, in one more (untimed, traced) run.
DecodePhaseProfiles ProfileDecodePhases(DecoderModel& model, const ModelCase& mc,
                                        const at::Tensor& teacher) {
  DecodePhaseProfiles p;
  p.prefill = ProfileOnDevice([&] { model.Prefill(mc.prompts).to(at::kCPU); });
  p.steps = ProfileOnDevice([&] {
    for (int64_t i = 1; i < mc.steps; ++i) model.Step(teacher.narrow(1, i - 1, 1)).to(at::kCPU);
  });
  return p;
}


struct DecodeModeledLatency {
  double ttft_us = 0, itl_us = 0, tokens_per_s = 0;
};

DecodeModeledLatency ModeledDecodeLatency(const DecodePhaseProfiles& p, const ModelCase& mc) {
  const int64_t b = mc.prompts.size(0);
  DecodeModeledLatency m;
  m.ttft_us = p.prefill.modeled_us;
  m.itl_us = mc.steps > 1 ? p.steps.modeled_us / static_cast<double>(mc.steps - 1) : std::nan("");
  const double modeled_total = p.prefill.modeled_us + p.steps.modeled_us;
  m.tokens_per_s = static_cast<double>(b * mc.steps) / (modeled_total * 1e-6);
  return m;
}

void AddDecodeLatencyMetrics(const DecodeSamples& s, const DecodeModeledLatency& m, CaseResult* r) {
  AddMetric(r, "latency", "ttft_us", Median(s.ttft));
  AddMetric(r, "latency", "itl_us", Median(s.itl));
  AddMetric(r, "latency", "tokens_per_s", Median(s.tps));
  AddMetric(r, "latency", "modeled_ttft_us", m.ttft_us);
  AddMetric(r, "latency", "modeled_itl_us", m.itl_us);
  AddMetric(r, "latency", "modeled_tokens_per_s", m.tokens_per_s);
}

// The first divergence as text: the flip at `at_step` of the earliest
// sequence that has one there; "" when none does.
std::string DecodeDivergenceAsText(const nlohmann::json& texts, int64_t at_step) {
  for (const auto& t : texts) {
    if (at_step < 0) break;
    bool here = false, near = false;
    for (const auto& f : t["flips"]) {
      if (f["step"].get<int64_t>() != at_step) continue;
      here = true;
      near = f["near_tie"].get<bool>();
    }
    if (!here) continue;
    return "; as text (sequence " + std::to_string(t["sequence"].get<int64_t>()) + ", step " +
           std::to_string(at_step) + (near ? ", a near tie" : "") + "): golden " +
           QuoteAt(t, at_step, "golden") + ", device " + QuoteAt(t, at_step, "device");
  }
  return "";
}

// No token moved: the text of the step whose log-probabilities moved
// most, where the device came closest to writing something else.
std::string DecodeWorstStepAsText(const DecodeJudgement& j, const nlohmann::json& texts) {
  int64_t worst = 0;
  for (const auto& step : j.per_step) {
    if (step["max_logprob_diff"].get<double>() >
        j.per_step[worst]["max_logprob_diff"].get<double>()) {
      worst = step["step"].get<int64_t>();
    }
  }
  return "; every token agrees; the log-probabilities moved most at step " + std::to_string(worst) +
         ", as text (sequence 0): " + QuoteAt(texts[0], worst, "golden");
}

void FailDecodeCase(const std::vector<std::string>& problems, const DecodeJudgement& j,
                    const nlohmann::json& texts, CaseResult* r) {
  r->status = CaseStatus::kFailed;
  for (const auto& p : problems) r->message += (r->message.empty() ? "" : "; ") + p;
  if (j.first_failure < 0 && j.near_ties > 0) {
    r->message += "; " + std::to_string(j.near_ties) + " near-tie flip(s) from step " +
                  std::to_string(j.first_divergence);
  }
  // The first hard flip, else the first near tie.
  const int64_t at_step = j.first_failure >= 0 ? j.first_failure : j.first_divergence;
  r->message += DecodeDivergenceAsText(texts, at_step);
  if (at_step < 0 && !texts.empty() && !j.per_step.empty()) {
    r->message += DecodeWorstStepAsText(j, texts);
  }
}

void RecordDecodeExtra(const ModelCase& mc, const DecodeVerdict& v, const DecodeSamples& s,
                       const DecodeModeledLatency& m, CaseResult* r) {
  const DecodeJudgement& j = v.j;
  // update, not assign: the probe's host_probe_us is in there.
  r->extra.update(
      {{"model", mc.config.name},
       {"impl", LayerImplName(mc.impl)},
       {"dtype", c10::toString(mc.dtype)},
       {"batch", mc.prompts.size(0)},
       {"prompt_len", mc.prompts.size(1)},
       {"steps", mc.steps},
       {"top1_agreement", DecodeTop1Agreement(j)},
       {"first_divergence_step", j.first_divergence},
       {"near_ties", j.near_ties},
       {"max_logprob_diff", j.max_logprob_diff},
       {"max_logprob_diff_limit", v.lp_limit},
       {"logprob_yardstick", v.yardstick},
       {"logprob_limit_rule",
        v.fixed_limit ? nlohmann::json{{"fixed", v.lp_limit}}
                      : nlohmann::json{{"m", mc.logprob_m}, {"floor", mc.logprob_floor}}},
       {"per_step", j.per_step},
       {"logit_flips", v.judge_flips ? nlohmann::json{{"share", v.flips.device_share},
                                                      {"yardstick", v.flips.yardstick_share},
                                                      {"limit", v.flip_limit},
                                                      {"m", mc.logit_flip_m}}
                                     : nlohmann::json()},
       {"ttft_us", Median(s.ttft)},
       {"itl_us", Median(s.itl)},
       {"tokens_per_s", Median(s.tps)},
       {"modeled_ttft_us", m.ttft_us},
       {"modeled_itl_us", m.itl_us},
       {"modeled_tokens_per_s", m.tokens_per_s},
       {"device", DeviceUnderTest().str()}});
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
    auto inputs = LoadDecodeInputs(suite, c, mc, options);
    if (!inputs.ok()) return harness::CaseResult::Error(inputs.status().message());
    const int64_t max_len = mc.prompts.size(1) + mc.steps;
    DecoderModel model(mc.config, inputs->weights, DeviceUnderTest(), mc.dtype, mc.impl, max_len);
    const at::Tensor teacher = inputs->tokens.to(at::kLong);
    const DecodePairedSides sides;
    WarmUpDecode(model, mc, teacher, WarmupCount(suite, options), sides);
    CaseResult r;
    r.status = CaseStatus::kPassed;
    harness::HostProbe probe;
    const DecodeSamples samples =
        TimeDecodeSamples(model, mc, teacher, RepeatCount(suite, options), sides, &probe);
    RecordDecodeWall(samples, sides, &probe, &r);
    const DecodePhaseProfiles profiles = ProfileDecodePhases(model, mc, teacher);
    FillProfile(MergeProfiles(profiles.prefill, profiles.steps), &r);
    if (!options.judged) return r;  // a timing round: no yardstick, no verdict

    const DecodeVerdict v =
        JudgeDecodeCase(mc, inputs->weights, samples.logits, inputs->logprobs, teacher);
    AddDecodeAccuracyMetrics(v, mc, &r);
    const DecodeModeledLatency modeled = ModeledDecodeLatency(profiles, mc);
    AddDecodeLatencyMetrics(samples, modeled, &r);
    const std::vector<std::string> problems = DecodeProblems(v, mc);
    nlohmann::json texts;
    if (mc.text) {
      texts = DecodeTexts(mc, teacher, samples.logits, v.near_tie, inputs->logprobs);
    }
    if (!problems.empty()) FailDecodeCase(problems, v.j, texts, &r);
    RecordDecodeExtra(mc, v, samples, modeled, &r);
    if (mc.text) r.extra["text"] = texts;
    RecordOpErrors([&] { RunDecode(model, mc.prompts, teacher, mc.steps, nullptr); }, &r);
    return r;
  }
};

SPYRE_REGISTER_CASE_KIND("decode", DecodeCaseKind);

}  // namespace
}  // namespace suites
