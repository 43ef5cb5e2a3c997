// The "prefill" case kind (logits at every position of a batch of prompts,
// compared element-wise with the golden logits) and the "embed" case kind
// (cosine similarity of mean-pooled encoder embeddings).
#include <cmath>

#include "harness/compare/compare.h"
#include "harness/golden/golden.h"
#include "harness/case_kinds/case_kinds.h"
#include "harness/wall_sampler.h"
#include "model_case.h"
#include "suites/models/encoder.h"

namespace suites {
namespace {

using harness::CaseResult;
using harness::CaseStatus;

// The logits tolerance of a model case (docs/models.md): no
// yardstick (the CPU cannot run the model in the device format), an element
// bound scaled to the logits' rms, and a cosine floor.
harness::Tolerance LogitsTolerance() {
  harness::Tolerance t;
  t.yardstick = false;
  t.atol_rms = 0.05;
  t.rtol = 0.02;
  t.max_fraction_outside = 0.001;
  t.floor = 0.02;
  t.min_cosine = 0.9995;
  return t;
}

// Runs `fn` warm-up + repeat times (wall samples), then once traced.
template <typename Fn>
at::Tensor TimedRuns(const harness::SuiteSpec& suite, const harness::ExecOptions& options, Fn fn,
                     CaseResult* r) {
  at::Tensor out;
  harness::TakeWallSamples(harness::SamplingFor(suite, options), [&] { out = fn(); }, r);
  // The traced run's peak device memory must not include the timed runs'
  // last output, still held here: a parity run has none, and the two modes
  // would report different peaks for the same case.
  out = at::Tensor();
  FillProfile(ProfileOnDevice([&] { out = fn(); }), r);
  return out;
}

// The golden tensor `name`, from a golden file computed from these prompts and weights.
harness::StatusOr<at::Tensor> GoldenTensor(const harness::SuiteSpec& suite,
                                           const harness::CaseSpec& c,
                                           const harness::ExecOptions& options, const ModelCase& mc,
                                           const Weights& weights, const std::string& name) {
  const std::string path = harness::GoldenPath(options.golden_dir, suite.name, c.id);
  SPYRE_ASSIGN_OR_RETURN(auto golden, harness::LoadGolden(path, suite, c));
  SPYRE_RETURN_IF_ERROR(CheckGoldenInputs(golden, mc, weights, path, suite.name, suite.root));
  const at::Tensor* t = golden.Find(name);
  if (t == nullptr)
    return harness::InvalidInput(path + ": has no tensor '" + name + "'; regenerate it");
  return *t;
}

// What a prefill or embed case runs with: its weights, and its golden tensor
// `name` checked against them (none in a timing round, which judges nothing).
struct Loaded {
  Weights weights;
  at::Tensor golden;
};
harness::StatusOr<Loaded> LoadForRun(const harness::SuiteSpec& suite, const harness::CaseSpec& c,
                                     const harness::ExecOptions& options, const ModelCase& mc,
                                     const std::string& name) {
  SPYRE_ASSIGN_OR_RETURN(Weights weights, LoadModelWeights(mc));
  if (!options.judged) return Loaded{std::move(weights), at::Tensor()};
  SPYRE_ASSIGN_OR_RETURN(at::Tensor golden, GoldenTensor(suite, c, options, mc, weights, name));
  return Loaded{std::move(weights), std::move(golden)};
}

class PrefillCaseKind : public ModelCaseKind {
 public:
  PrefillCaseKind() : ModelCaseKind(ModelTask::kPrefill) {}

  // The model, then the logits tolerance with the case's overrides.
  harness::StatusOr<ModelCase> Parse(const harness::SuiteSpec& suite,
                                     const harness::CaseSpec& c) const override {
    SPYRE_ASSIGN_OR_RETURN(ModelCase mc, ModelCaseKind::Parse(suite, c));
    mc.logits_tolerance = LogitsTolerance();
    if (!mc.tolerance.is_null()) {
      SPYRE_RETURN_IF_ERROR(harness::ApplyToleranceOverrides(
          mc.tolerance, c.body.value("pointer", "") + "/model/tolerance", &mc.logits_tolerance));
    }
    return mc;
  }

  harness::StatusOr<harness::SafetensorsFile> ComputeGolden(
      const harness::SuiteSpec& suite, const harness::CaseSpec& c, const ModelCase& mc,
      const harness::ExecOptions&) const override {
    SPYRE_ASSIGN_OR_RETURN(auto weights, LoadModelWeights(mc));
    DecoderModel cpu(mc.config, weights, at::kCPU, kModelReferenceDtype, LayerImpl::kPortable,
                     mc.prompts.size(1));
    harness::SafetensorsFile f;
    f.tensors.emplace_back("logits", cpu.Prefill(mc.prompts).to(at::kFloat).contiguous());
    f.metadata = ModelGoldenMetadata(suite, c, mc, weights);
    return f;
  }

  CaseResult Execute(const harness::SuiteSpec& suite, const harness::CaseSpec& c,
                     const ModelCase& mc, const harness::ExecOptions& options) const override {
    auto loaded = LoadForRun(suite, c, options, mc, "logits");
    if (!loaded.ok()) return harness::CaseResult::Error(loaded.status().message());
    const at::Tensor& golden = loaded->golden;
    DecoderModel model(mc.config, loaded->weights, DeviceUnderTest(), mc.dtype, mc.impl,
                       mc.prompts.size(1));
    CaseResult r;
    r.status = CaseStatus::kPassed;
    const at::Tensor logits = TimedRuns(
                                  suite, options, [&] { return model.Prefill(mc.prompts); }, &r)
                                  .cpu();
    if (!options.judged) return r;
    const harness::Tolerance& tol = mc.logits_tolerance;
    const harness::OutputComparison cmp =
        harness::CompareOutput("logits", logits, golden, nullptr, tol);
    r.max_abs_err = cmp.max_abs_err;
    r.max_rel_err = cmp.max_rel_err;
    r.rel_l2 = cmp.rel_l2;
    r.max_ulp = cmp.max_ulp;
    r.cosine = cmp.cosine;
    r.metrics = cmp.Metrics(tol);
    // Top-1 agreement at every position, reported (a flip between near ties
    // is expected; the element bound above is the criterion).
    const double agreement =
        logits.argmax(-1).eq(golden.argmax(-1)).to(at::kDouble).mean().item<double>();
    r.metrics.push_back({"logits", "top1_agreement", agreement, std::nan(""), false});
    if (!cmp.passed) {
      r.status = CaseStatus::kFailed;
      r.message = cmp.message;
    }
    // update, not assign: the sampler's host_probe_us and wall_batch are in there.
    r.extra.update({{"model", mc.config.name},     {"impl", LayerImplName(mc.impl)},
                    {"batch", mc.prompts.size(0)}, {"seq", mc.prompts.size(1)},
                    {"top1_agreement", agreement},  {"device", DeviceUnderTest().str()}});
    RecordOpErrors([&] { model.Prefill(mc.prompts); }, &r);
    return r;
  }
};

class EmbedCaseKind : public ModelCaseKind {
 public:
  EmbedCaseKind() : ModelCaseKind(ModelTask::kEmbed) {}

  harness::StatusOr<harness::SafetensorsFile> ComputeGolden(
      const harness::SuiteSpec& suite, const harness::CaseSpec& c, const ModelCase& mc,
      const harness::ExecOptions&) const override {
    SPYRE_ASSIGN_OR_RETURN(auto weights, LoadModelWeights(mc));
    EncoderModel cpu(mc.config, weights, at::kCPU, kModelReferenceDtype);
    harness::SafetensorsFile f;
    f.tensors.emplace_back("embeddings", cpu.Embed(mc.prompts).to(at::kFloat).contiguous());
    f.metadata = ModelGoldenMetadata(suite, c, mc, weights);
    return f;
  }

  CaseResult Execute(const harness::SuiteSpec& suite, const harness::CaseSpec& c,
                     const ModelCase& mc, const harness::ExecOptions& options) const override {
    auto loaded = LoadForRun(suite, c, options, mc, "embeddings");
    if (!loaded.ok()) return harness::CaseResult::Error(loaded.status().message());
    const at::Tensor& golden = loaded->golden;
    EncoderModel model(mc.config, loaded->weights, DeviceUnderTest(), mc.dtype);
    CaseResult r;
    r.status = CaseStatus::kPassed;
    const at::Tensor out = TimedRuns(
                               suite, options, [&] { return model.Embed(mc.prompts); }, &r)
                               .cpu()
                               .to(at::kDouble);
    if (!options.judged) return r;
    const at::Tensor ref = golden.to(at::kDouble);
    const at::Tensor cos = at::cosine_similarity(out, ref, 1, 1e-12);
    const double min_cos = cos.min().item<double>();
    r.cosine = min_cos;
    r.max_abs_err = (out - ref).abs().max().item<double>();
    r.rel_l2 = ((out - ref).norm() / ref.norm()).item<double>();
    const bool failed = !(min_cos >= mc.min_cosine);
    r.metrics.push_back({"embeddings", "min_cosine", min_cos, mc.min_cosine, failed});
    r.metrics.push_back({"embeddings", "max_abs_err", r.max_abs_err, std::nan(""), false});
    r.metrics.push_back({"embeddings", "rel_l2", r.rel_l2, std::nan(""), false});
    if (failed) {
      const int64_t worst = cos.argmin().item<int64_t>();
      r.status = CaseStatus::kFailed;
      r.message = "sequence " + std::to_string(worst) + ": cosine similarity " +
                  std::to_string(min_cos) + " below " + std::to_string(mc.min_cosine);
    }
    std::vector<double> cosines(cos.data_ptr<double>(), cos.data_ptr<double>() + cos.numel());
    r.extra.update({{"model", mc.config.name},
                    {"batch", mc.prompts.size(0)},
                    {"seq", mc.prompts.size(1)},
                    {"cosines", cosines},
                    {"device", DeviceUnderTest().str()}});
    RecordOpErrors([&] { model.Embed(mc.prompts); }, &r);
    return r;
  }
};

SPYRE_REGISTER_CASE_KIND("prefill", PrefillCaseKind);
SPYRE_REGISTER_CASE_KIND("embed", EmbedCaseKind);

}  // namespace
}  // namespace suites
