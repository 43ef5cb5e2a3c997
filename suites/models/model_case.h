#pragma once
// The parsed "model" member shared by the decode, prefill and embed case
// kinds, the weights it names, and the pieces of a CaseResult they share.
//
//   "model": {"config": "granite-tiny"  |  "checkpoint": "models/my-granite",
//             "dtype": "float16", "impl": "portable" | "fused",
//             "prompts": [[1, 2, 3], [4, 5, 6]]  |  "batch": 2, "seq": 16
//             |  "prompts_text": ["Once upon", "The cat s"] (checkpoint with a tokenizer.json),
//             "steps": 8, "top_k": 5, "near_tie_margin": 0.02,
//             "logprob_m": 2, "logprob_floor": 0.01  |  "max_logprob_diff": 0.1,
//             "logit_flip_m": 1.4, "min_top_k_overlap": 0.6,
//             "min_cosine": 0.999, "tolerance": {...}}
#include <cmath>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "base/case_result.h"
#include "harness/compare/tolerance.h"
#include "harness/safetensors/safetensors.h"
#include "base/status.h"
#include "harness/case_kinds/case_kinds.h"
#include "suite_file/suite_file.h"
#include "suites/models/checkpoint.h"
#include "suites/models/decoder.h"
#include "suites/device_under_test.h"
#include "suites/models/model_config.h"
#include "suites/models/tiny_lm.h"

namespace suites {

// kServing: the "serving" kind's model member: a decoder with decode's
// judging members and no prompts (its requests carry them).
enum class ModelTask { kDecode, kPrefill, kEmbed, kServing };

struct ModelCase {
  ModelTask task = ModelTask::kDecode;
  ModelConfig config;
  std::string checkpoint;  // resolved directory, or empty for synthetic weights
  uint64_t seed = 0;
  at::ScalarType dtype = at::kHalf;
  LayerImpl impl = LayerImpl::kPortable;
  at::Tensor prompts;  // [B, S] int64 on the CPU
  // "prompts_text": the prompts were text, tokenized by the checkpoint's
  // tokenizer.json (which also turns the decoded tokens back into text).
  bool text = false;
  ByteTokenizer tokenizer;
  int64_t steps = 0;  // decode: generated tokens (the first comes from the prefill)
  int64_t top_k = 5;
  // Golden probability gap below which a flip is a near tie (so is one
  // within twice the yardstick in log-probability: NearTie).
  double near_tie_margin = 0.02;
  // The decode logprob limit: logprob_m times the yardstick's own max
  // |logprob diff| (the CPU computing the case in the device's storage
  // format, DeviceFormatRounding), at least logprob_floor; a given
  // max_logprob_diff replaces it with a fixed limit (LogprobLimit).
  double max_logprob_diff = std::nan("");
  double logprob_m = 2;
  double logprob_floor = 0.01;
  // bfloat16 decode: the share of logits rounded to another value than the
  // golden's may be logit_flip_m times the yardstick's (CountLogitFlips).
  double logit_flip_m = 1.4;
  double min_top_k_overlap = 0.6;
  double min_cosine = 0.9995;  // embed (and prefill logits)
  nlohmann::json tolerance;    // prefill logits overrides
  // prefill: the logits tolerance with those overrides applied (set by the
  // prefill kind's Parse)
  harness::Tolerance logits_tolerance;
};

// Parses c.body["model"]; errors name the JSON pointer. A checkpoint's
// config.json is read here (its weights when the case runs).
harness::StatusOr<ModelCase> ParseModelCase(const harness::SuiteSpec& suite,
                                            const harness::CaseSpec& c, ModelTask task);

// Token ids given in a suite file at `path`: a non-empty array of integers
// in [0, vocab); an error names the first that is not.
harness::StatusOr<std::vector<int64_t>> TokenIdsFromJson(const nlohmann::json& ids, int64_t vocab,
                                                         const std::string& path);
// Ids a tokenizer made from a suite file's text at `path`: an id outside the
// model's vocabulary is an error naming it.
harness::Status CheckTokensInVocab(const std::vector<int64_t>& ids, int64_t vocab,
                                   const std::string& path);

// The CPU yardstick's rounding for a model computed in `dtype` on the
// device: the storage format the op judge uses for that dtype
// (harness/device_format.h), applied at the layer boundaries in fp32. None
// when the device keeps the dtype as it is (fp32).
BoundaryRounding DeviceFormatRounding(at::ScalarType dtype);

// The decode case's limit on max |logprob diff| given the yardstick's own.
double LogprobLimit(const ModelCase& mc, double yardstick);

// Synthetic weights (seeded) or the checkpoint's.
harness::StatusOr<Weights> LoadModelWeights(const ModelCase& mc);

// The model kinds' CheckFiles: a checkpoint case's weights are all there,
// shaped as its config.json implies (safetensors headers only, see
// IndexCheckpoint); synthetic weights have nothing to check.
harness::Status CheckModelFiles(const ModelCase& mc);

// The model kinds' CheckGolden: the tensors the case compares against are in
// the golden file, of the right kind of dtype and shaped as the case and its
// config imply (decode: tokens [B, steps] integral and logprobs
// [B, steps, vocab]; prefill: logits [B, S, vocab]; embed: embeddings
// [B, hidden]; floating unless said). Whether the file was computed from
// these prompts and weights needs the weights: the case checks that when it
// runs.
harness::Status CheckModelGolden(const harness::SuiteSpec& suite, const ModelCase& mc,
                                 const harness::SafetensorsHeader& golden, const std::string& path);
// The same for a case body not parsed yet (ParseModelCase for `task`).
harness::Status CheckModelGolden(const harness::SuiteSpec& suite, const harness::CaseSpec& c,
                                 ModelTask task, const harness::SafetensorsHeader& golden,
                                 const std::string& path);

// What the model kinds share: the parse (ParseModelCase for the kind's
// task), CheckFiles and CheckGolden above.
class ModelCaseKind : public harness::CaseKindOf<ModelCase> {
 public:
  explicit ModelCaseKind(ModelTask task) : task_(task) {}
  harness::StatusOr<ModelCase> Parse(const harness::SuiteSpec& suite,
                                     const harness::CaseSpec& c) const override {
    return ParseModelCase(suite, c, task_);
  }
  harness::Status CheckFiles(const harness::SuiteSpec&, const harness::CaseSpec&,
                             const ModelCase& mc) const override {
    return CheckModelFiles(mc);
  }
  harness::Status CheckGolden(const harness::SuiteSpec& suite, const harness::CaseSpec&,
                              const ModelCase& mc, const harness::SafetensorsHeader& golden,
                              const std::string& path) const override {
    return CheckModelGolden(suite, mc, golden, path);
  }

 private:
  const ModelTask task_;
};

// SHA-256 over every weight's name and TensorDigest (a checkpoint that
// changes after its golden files were written is caught by it).
std::string WeightsDigest(const Weights& weights);

// The CPU model computes golden outputs in float64, stored as float32. In
// float32 the logits would carry the BLAS's sgemm rounding, which depends on
// the kernel OpenBLAS picks for the CPU; float64 keeps that difference some
// 2^29 times below a float32 step, so the stored values are the same on
// every CPU and BLAS that has been tried (see `golden verify`).
inline constexpr at::ScalarType kModelReferenceDtype = at::kDouble;

// Golden metadata common to the model kinds (with "weights_digest").
std::map<std::string, std::string> ModelGoldenMetadata(const harness::SuiteSpec& suite,
                                                       const harness::CaseSpec& c,
                                                       const ModelCase& mc, const Weights& weights);
// Checks that the golden file was computed from these prompts and weights;
// error text says to regenerate.
harness::Status CheckGoldenInputs(const harness::SafetensorsFile& golden, const ModelCase& mc,
                                  const Weights& weights, const std::string& path,
                                  const std::string& suite, const std::string& suites_root = "");

// Copies a device profile into the result (modeled time, fallbacks, peak, ops).
void FillProfile(const DeviceProfile& p, harness::CaseResult* r);
// Merges two profiles (phases of one repeat).
DeviceProfile MergeProfiles(const DeviceProfile& a, const DeviceProfile& b);

int WarmupCount(const harness::SuiteSpec& suite, const harness::ExecOptions& o);
int RepeatCount(const harness::SuiteSpec& suite, const harness::ExecOptions& o);

}  // namespace suites
