// Parsing of the "model" member and the helpers the model case kinds share.
#include "model_case.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "harness/compare/device_format.h"
#include "harness/golden/golden.h"
#include "base/human_format.h"
#include "base/input_file.h"
#include "harness/inputs/generator.h"
#include "base/sha256.h"
#include "suite_file/confined_path.h"

namespace suites {
namespace {

using harness::InvalidInput;
using harness::Status;
using harness::StatusOr;

const std::map<std::string, std::vector<std::string>>& AllowedMembers() {
  static const std::map<std::string, std::vector<std::string>> kAllowed = {
      {"common",
       {"config", "checkpoint", "dtype", "impl", "prompts", "prompts_text", "batch", "seq"}},
      {"decode",
       {"steps", "top_k", "near_tie_margin", "max_logprob_diff", "logprob_m", "logprob_floor",
        "logit_flip_m", "min_top_k_overlap"}},
      {"serving",
       {"top_k", "near_tie_margin", "max_logprob_diff", "logprob_m", "logprob_floor",
        "logit_flip_m", "min_top_k_overlap"}},
      {"prefill", {"tolerance", "min_cosine"}},
      {"embed", {"min_cosine"}}};
  return kAllowed;
}

const char* TaskName(ModelTask t) {
  switch (t) {
    case ModelTask::kDecode:
      return "decode";
    case ModelTask::kPrefill:
      return "prefill";
    case ModelTask::kEmbed:
      return "embed";
    case ModelTask::kServing:
      return "serving";
  }
  return "?";
}

// "prompts_text": strings tokenized by the checkpoint's tokenizer.json.
StatusOr<at::Tensor> ParseTextPrompts(const nlohmann::json& m, ModelCase* mc,
                                      const std::string& p) {
  const std::string tp = p + "/prompts_text";
  if (m.contains("prompts"))
    return InvalidInput(tp + ": give \"prompts\" or \"prompts_text\", not both");
  if (mc->checkpoint.empty()) {
    return InvalidInput(tp + ": text prompts need a \"checkpoint\" with a tokenizer.json");
  }
  SPYRE_ASSIGN_OR_RETURN_CTX(auto tok, LoadTokenizer(mc->checkpoint), tp);
  const nlohmann::json& pr = m["prompts_text"];
  if (!pr.is_array() || pr.empty())
    return InvalidInput(tp + ": expected a non-empty array of strings");
  std::vector<int64_t> ids;
  size_t len = 0;
  for (size_t i = 0; i < pr.size(); ++i) {
    const std::string ip = tp + "/" + std::to_string(i);
    if (!pr[i].is_string() || pr[i].get<std::string>().empty()) {
      return InvalidInput(ip + ": expected a non-empty string");
    }
    const std::vector<int64_t> t = tok.Encode(pr[i].get<std::string>());
    if (i == 0) len = t.size();
    if (t.size() != len) {
      return InvalidInput(ip + ": " + std::to_string(t.size()) + " tokens where prompt 0 has " +
                          std::to_string(len) +
                          "; prompts of one case need equal lengths in tokens (no padding)");
    }
    SPYRE_RETURN_IF_ERROR(CheckTokensInVocab(t, mc->config.vocab, ip));
    ids.insert(ids.end(), t.begin(), t.end());
  }
  mc->tokenizer = tok;
  mc->text = true;
  return at::tensor(ids, at::kLong)
      .view({static_cast<int64_t>(pr.size()), static_cast<int64_t>(len)});
}

StatusOr<at::Tensor> ParsePrompts(const nlohmann::json& m, ModelCase& mc_out,
                                  const std::string& p) {
  if (m.contains("prompts_text")) return ParseTextPrompts(m, &mc_out, p);
  const ModelCase& mc = mc_out;
  if (m.contains("prompts")) {
    const nlohmann::json& pr = m["prompts"];
    if (!pr.is_array() || pr.empty())
      return InvalidInput(p + "/prompts: expected a non-empty array of token-id arrays");
    std::vector<int64_t> ids;
    size_t len = 0;
    for (size_t i = 0; i < pr.size(); ++i) {
      const std::string ip = p + "/prompts/" + std::to_string(i);
      SPYRE_ASSIGN_OR_RETURN(const std::vector<int64_t> t,
                             TokenIdsFromJson(pr[i], mc.config.vocab, ip));
      if (i == 0) len = t.size();
      if (t.size() != len)
        return InvalidInput(ip + ": prompts of one case need equal lengths (no padding)");
      ids.insert(ids.end(), t.begin(), t.end());
    }
    return at::tensor(ids, at::kLong)
        .view({static_cast<int64_t>(pr.size()), static_cast<int64_t>(len)});
  }
  if (!m.contains("batch") || !m.contains("seq") || !m["batch"].is_number_integer() ||
      !m["seq"].is_number_integer() || m["batch"].get<int64_t>() < 1 ||
      m["seq"].get<int64_t>() < 1) {
    return InvalidInput(
        p + ": give \"prompts\" (token ids) or positive integers \"batch\" and \"seq\"");
  }
  // Bounded before the prompts are generated: a typo must not allocate them.
  if (m["batch"].get<int64_t>() > 4096 || m["seq"].get<int64_t>() > mc.config.max_positions) {
    return InvalidInput(p + ": batch is at most 4096 and seq at most the model's " +
                        std::to_string(mc.config.max_positions) + " positions");
  }
  harness::InputSpec spec;
  spec.shape = {m["batch"].get<int64_t>(), m["seq"].get<int64_t>()};
  spec.dtype = at::kLong;
  spec.dist = harness::Distribution::kInt;
  spec.low = 0;
  spec.high = static_cast<double>(mc.config.vocab - 1);
  return harness::GenerateInput(spec, mc.seed, /*input_index=*/0);
}

// A string member, type-checked (nlohmann's value() throws on a number).
Status StringMember(const nlohmann::json& m, const char* key, const std::string& p,
                    std::string* out) {
  if (!m.contains(key)) return Status::Ok();
  if (!m[key].is_string()) return InvalidInput(p + "/" + key + ": expected a string");
  *out = m[key].get<std::string>();
  return Status::Ok();
}

Status NumberMember(const nlohmann::json& m, const char* key, const std::string& p, double lo,
                    double* out) {
  if (!m.contains(key)) return Status::Ok();
  if (!m[key].is_number() || m[key].get<double>() < lo) {
    return InvalidInput(p + "/" + key + ": expected a number >= " + harness::HumanNumber(lo));
  }
  *out = m[key].get<double>();
  return Status::Ok();
}

// A model case builds its weights (float32), their float64 reference copy
// and the device's fp16 copy, then the activations: all bounded before any
// of it is allocated, so a full-size configuration (timing only) or an
// oversized checkpoint is a load error, not an exhausted host.
Status CheckMemoryBudget(const ModelConfig& cfg, const nlohmann::json& m, const std::string& p,
                         ModelTask task) {
  double batch = 1, length = 1;
  if (m.contains("prompts") && m["prompts"].is_array() && !m["prompts"].empty()) {
    batch = static_cast<double>(m["prompts"].size());
    if (m["prompts"][0].is_array()) length = static_cast<double>(m["prompts"][0].size());
  } else if (m.contains("prompts_text") && m["prompts_text"].is_array() &&
             !m["prompts_text"].empty()) {
    batch = static_cast<double>(m["prompts_text"].size());
    if (m["prompts_text"][0].is_string())
      length = 1 + static_cast<double>(m["prompts_text"][0].get<std::string>().size());
  } else {
    if (m.contains("batch") && m["batch"].is_number_integer())
      batch = std::max(1.0, m["batch"].get<double>());
    if (m.contains("seq") && m["seq"].is_number_integer())
      length = std::max(1.0, m["seq"].get<double>());
  }
  if (m.contains("steps") && m["steps"].is_number_integer())
    length += std::max(0.0, m["steps"].get<double>());
  const double params = static_cast<double>(cfg.Parameters());
  const double need =
      params * (4 + 8 + 2) + batch * length * static_cast<double>(cfg.vocab) * 8 * 2 +
      static_cast<double>(cfg.layers) * 2 * batch * length * static_cast<double>(cfg.hidden) * 8 +
      batch * static_cast<double>(cfg.heads) * length * length * 8;
  if (need <= static_cast<double>(harness::kCaseMemoryBudget)) return Status::Ok();
  char count[32];
  std::snprintf(count, sizeof(count), "%.3g", params);
  return InvalidInput(
      p + ": model '" + cfg.name + "' (" + count + " parameters) needs about " +
      harness::ByteSizeText(static_cast<uint64_t>(std::min(need, 1.8e19))) +
      " of host memory for its weights, their reference copy and activations, over the " +
      harness::ByteSizeText(harness::kCaseMemoryBudget) +
      " budget of one case; full-size configurations are for \"kind\": \"timing\" cases" +
      (task == ModelTask::kServing
           ? " (a trace is timed by one with the trace as its \"serving\" member)"
           : ""));
}

}  // namespace

StatusOr<std::vector<int64_t>> TokenIdsFromJson(const nlohmann::json& ids, int64_t vocab,
                                                const std::string& path) {
  if (!ids.is_array() || ids.empty()) {
    return InvalidInput(path + ": expected a non-empty array of token ids");
  }
  std::vector<int64_t> out;
  for (size_t k = 0; k < ids.size(); ++k) {
    const nlohmann::json& t = ids[k];
    if (!t.is_number_integer() || t.get<int64_t>() < 0 || t.get<int64_t>() >= vocab) {
      return InvalidInput(path + "/" + std::to_string(k) + ": token ids are integers in [0, " +
                          std::to_string(vocab) + ")");
    }
    out.push_back(t.get<int64_t>());
  }
  return out;
}

Status CheckTokensInVocab(const std::vector<int64_t>& ids, int64_t vocab,
                          const std::string& path) {
  for (const int64_t id : ids) {
    if (id >= vocab) {
      return InvalidInput(path + ": token " + std::to_string(id) + " is outside the model's " +
                          std::to_string(vocab) + "-token vocabulary");
    }
  }
  return Status::Ok();
}

StatusOr<ModelCase> ParseModelCase(const harness::SuiteSpec& suite, const harness::CaseSpec& c,
                                   ModelTask task) {
  const std::string p = c.body.value("pointer", std::string()) + "/model";
  if (!c.body.contains("model") || !c.body["model"].is_object()) {
    return InvalidInput(p + ": a " + std::string(TaskName(task)) +
                        " case needs a \"model\" object");
  }
  const nlohmann::json& m = c.body["model"];
  for (const auto& [key, value] : m.items()) {
    bool known = false;
    for (const char* group : {"common", TaskName(task)}) {
      const auto& names = AllowedMembers().at(group);
      known = known || std::find(names.begin(), names.end(), key) != names.end();
    }
    if (!known)
      return InvalidInput(p + "/" + key + ": unknown member of a " + TaskName(task) +
                          " case's model");
  }
  ModelCase mc;
  mc.task = task;
  mc.seed = c.body.value("seed", uint64_t{0});
  if (m.contains("config") == m.contains("checkpoint")) {
    return InvalidInput(
        p + ": give exactly one of \"config\" (built in) and \"checkpoint\" (a directory)");
  }
  std::string config_name, checkpoint, dtype, impl = "portable";
  SPYRE_RETURN_IF_ERROR(StringMember(m, "config", p, &config_name));
  SPYRE_RETURN_IF_ERROR(StringMember(m, "checkpoint", p, &checkpoint));
  SPYRE_RETURN_IF_ERROR(StringMember(m, "dtype", p, &dtype));
  SPYRE_RETURN_IF_ERROR(StringMember(m, "impl", p, &impl));
  if (m.contains("config")) {
    SPYRE_ASSIGN_OR_RETURN_CTX(mc.config, BuiltinConfig(config_name), p + "/config");
  } else {
    SPYRE_ASSIGN_OR_RETURN(auto dir,
                           harness::ResolveInsideRoot(suite.root, checkpoint, p + "/checkpoint"));
    mc.checkpoint = dir;
    SPYRE_ASSIGN_OR_RETURN_CTX(mc.config, LoadCheckpointConfig(mc.checkpoint), p + "/checkpoint");
  }
  SPYRE_RETURN_IF_ERROR(CheckMemoryBudget(mc.config, m, p + " (case '" + c.id + "')", task));
  const bool want_encoder = task == ModelTask::kEmbed;
  if ((mc.config.family == ModelFamily::kEncoder) != want_encoder) {
    return InvalidInput(p + ": model '" + mc.config.name + "' is " +
                        (want_encoder ? "a decoder" : "an encoder") + "; " + TaskName(task) +
                        " cases need " + (want_encoder ? "an encoder" : "a decoder"));
  }
  if (m.contains("dtype")) {
    auto dt = harness::ParseDtypeName(dtype);
    if (!dt.ok() || !at::isFloatingType(*dt) || *dt == at::kDouble) {
      return InvalidInput(p + "/dtype: use float16, bfloat16 or float32");
    }
    mc.dtype = *dt;
  }
  if (impl != "portable" && impl != "fused")
    return InvalidInput(p + "/impl: use \"portable\" or \"fused\"");
  mc.impl = impl == "fused" ? LayerImpl::kFused : LayerImpl::kPortable;
  if (task == ModelTask::kServing) {
    for (const char* key : {"prompts", "prompts_text", "batch", "seq"}) {
      if (m.contains(key)) {
        return InvalidInput(p + "/" + key +
                            ": a serving case's prompts belong to its requests "
                            "(\"serving\": {\"requests\": [{\"prompt\": ...}]})");
      }
    }
    mc.prompts = at::zeros({0, 0}, at::kLong);  // the serving kind fills it
  } else {
    SPYRE_ASSIGN_OR_RETURN(auto prompts, ParsePrompts(m, mc, p));
    mc.prompts = prompts;
  }
  if (task == ModelTask::kDecode) {
    if (!m.contains("steps") || !m["steps"].is_number_integer() || m["steps"].get<int64_t>() < 1) {
      return InvalidInput(p + "/steps: a decode case needs a positive integer \"steps\"");
    }
    mc.steps = m["steps"].get<int64_t>();
  }
  if (task == ModelTask::kDecode || task == ModelTask::kServing) {
    double top_k = static_cast<double>(mc.top_k);
    SPYRE_RETURN_IF_ERROR(NumberMember(m, "top_k", p, 1, &top_k));
    mc.top_k = static_cast<int64_t>(std::min(top_k, static_cast<double>(mc.config.vocab)));
    SPYRE_RETURN_IF_ERROR(NumberMember(m, "near_tie_margin", p, 0, &mc.near_tie_margin));
    SPYRE_RETURN_IF_ERROR(NumberMember(m, "max_logprob_diff", p, 0, &mc.max_logprob_diff));
    SPYRE_RETURN_IF_ERROR(NumberMember(m, "logprob_m", p, 0, &mc.logprob_m));
    SPYRE_RETURN_IF_ERROR(NumberMember(m, "logprob_floor", p, 0, &mc.logprob_floor));
    if (m.contains("max_logprob_diff") &&
        (m.contains("logprob_m") || m.contains("logprob_floor"))) {
      return InvalidInput(p +
                          "/max_logprob_diff: a fixed limit replaces the yardstick's; give "
                          "either it or logprob_m / logprob_floor, not both");
    }
    SPYRE_RETURN_IF_ERROR(NumberMember(m, "logit_flip_m", p, 0, &mc.logit_flip_m));
    SPYRE_RETURN_IF_ERROR(NumberMember(m, "min_top_k_overlap", p, 0, &mc.min_top_k_overlap));
  }
  SPYRE_RETURN_IF_ERROR(NumberMember(m, "min_cosine", p, -1, &mc.min_cosine));
  if (m.contains("tolerance")) mc.tolerance = m["tolerance"];
  const int64_t length = mc.prompts.size(1) + mc.steps;
  const int64_t limit = mc.config.max_positions - mc.config.position_offset;
  if (length > limit) {
    return InvalidInput(p + ": " + std::to_string(length) + " positions exceed the model's " +
                        std::to_string(limit));
  }
  return mc;
}

BoundaryRounding DeviceFormatRounding(at::ScalarType dtype) {
  if (harness::FormatKindOf(dtype) != harness::FormatKind::kDl16) return {};
  // A host weight is converted to the dtype, then encoded on the device;
  // every value the device computes is stored in its format.
  return {[dtype](const at::Tensor& t) { return harness::RoundThroughDl16(t.to(dtype)); },
          [](const at::Tensor& t) { return harness::RoundThroughDl16(t); }};
}

double LogprobLimit(const ModelCase& mc, double yardstick) {
  if (!std::isnan(mc.max_logprob_diff)) return mc.max_logprob_diff;
  return std::max(mc.logprob_floor, mc.logprob_m * yardstick);
}

StatusOr<Weights> LoadModelWeights(const ModelCase& mc) {
  if (mc.checkpoint.empty()) return SyntheticWeights(mc.config, mc.seed);
  SPYRE_ASSIGN_OR_RETURN(auto ck, LoadCheckpoint(mc.checkpoint));
  return std::move(ck.weights);
}

Status CheckModelFiles(const ModelCase& mc) {
  if (mc.checkpoint.empty()) return Status::Ok();
  return IndexCheckpoint(mc.checkpoint).status();
}

Status CheckModelGolden(const harness::SuiteSpec& suite, const harness::CaseSpec& c, ModelTask task,
                        const harness::SafetensorsHeader& golden, const std::string& path) {
  SPYRE_ASSIGN_OR_RETURN(auto mc, ParseModelCase(suite, c, task));
  return CheckModelGolden(suite, mc, golden, path);
}

Status CheckModelGolden(const harness::SuiteSpec& suite, const ModelCase& mc,
                        const harness::SafetensorsHeader& golden, const std::string& path) {
  const int64_t b = mc.prompts.size(0), s = mc.prompts.size(1);
  struct Want {
    const char* name;
    std::vector<int64_t> shape;
    bool integral;
  };
  std::vector<Want> wants;
  switch (mc.task) {
    case ModelTask::kDecode:
      wants = {{"tokens", {b, mc.steps}, true},
               {"logprobs", {b, mc.steps, mc.config.vocab}, false}};
      break;
    case ModelTask::kPrefill:
      wants = {{"logits", {b, s, mc.config.vocab}, false}};
      break;
    case ModelTask::kEmbed:
      wants = {{"embeddings", {b, mc.config.hidden}, false}};
      break;
    case ModelTask::kServing:
      break;  // per request: the serving kind checks them
  }
  const std::string regenerate =
      "; regenerate it with '" + harness::GoldenGenerateCommand(suite.name, suite.root, path) + "'";
  for (const Want& w : wants) {
    const harness::SafetensorsEntry* t = golden.Find(w.name);
    if (t == nullptr) return InvalidInput(path + ": has no tensor '" + w.name + "'" + regenerate);
    if (at::isFloatingType(t->dtype) == w.integral) {
      return InvalidInput(path + ": tensor '" + w.name + "' is " +
                          std::string(c10::toString(t->dtype)) + ", expected " +
                          (w.integral ? "an integer" : "a floating") + " dtype" + regenerate);
    }
    if (t->shape != w.shape) {
      return InvalidInput(path + ": tensor '" + w.name + "' has shape " +
                          harness::ShapeText(t->shape) + ", the case produces " +
                          harness::ShapeText(w.shape) + regenerate);
    }
  }
  return Status::Ok();
}

std::string WeightsDigest(const Weights& weights) {
  harness::Sha256 sha;
  for (const auto& [name, t] : weights) sha.Update(name + ":" + harness::TensorDigest(t) + "\n");
  return sha.FinishHex();
}

std::map<std::string, std::string> ModelGoldenMetadata(const harness::SuiteSpec& suite,
                                                       const harness::CaseSpec& c,
                                                       const ModelCase& mc,
                                                       const Weights& weights) {
  std::map<std::string, std::string> m = harness::GeneratorMetadata();
  m.insert({{"format", "spyre-regress-golden/1"},
            {"suite", suite.name},
            {"case", c.id},
            {"kind", c.kind},
            {"model", c.body["model"].dump()},
            {"config", mc.config.name},
            {"seed", std::to_string(mc.seed)},
            {"input_digests", harness::TensorDigest(mc.prompts)},
            {"weights_digest", WeightsDigest(weights)},
            {"reference_dtype", "float64"}});
  return m;
}

Status CheckGoldenInputs(const harness::SafetensorsFile& golden, const ModelCase& mc,
                         const Weights& weights, const std::string& path,
                         const std::string& suite, const std::string& suites_root) {
  const std::string regenerate =
      "; regenerate with '" + harness::GoldenGenerateCommand(suite, suites_root, path) + "'";
  auto it = golden.metadata.find("input_digests");
  if (it != golden.metadata.end() && it->second != harness::TensorDigest(mc.prompts)) {
    return InvalidInput(path +
                        ": the prompts differ from those the golden outputs were computed from" +
                        regenerate);
  }
  it = golden.metadata.find("weights_digest");
  if (it != golden.metadata.end() && it->second != WeightsDigest(weights)) {
    return InvalidInput(path +
                        ": the model weights differ from those the golden outputs were "
                        "computed from (checkpoint or generator changed)" +
                        regenerate);
  }
  return Status::Ok();
}

void FillProfile(const DeviceProfile& p, harness::CaseResult* r) {
  r->modeled_us = p.modeled_us;
  r->fallback_ops = p.fallback_ops;
  r->peak_device_bytes = p.peak_device_bytes;
  r->ops = p.ops;
}

DeviceProfile MergeProfiles(const DeviceProfile& a, const DeviceProfile& b) {
  DeviceProfile out;
  out.modeled_us = a.modeled_us + b.modeled_us;
  // A count the device does not provide (-1) stays not provided, never -2.
  out.fallback_ops =
      a.fallback_ops < 0 || b.fallback_ops < 0 ? -1 : a.fallback_ops + b.fallback_ops;
  out.peak_device_bytes = std::max(a.peak_device_bytes, b.peak_device_bytes);
  std::map<std::string, harness::OpSummary> by_op;
  for (const auto* p : {&a, &b}) {
    for (const auto& s : p->ops) {
      harness::OpSummary& t = by_op[s.op];
      t.op = s.op;
      t.calls += s.calls;
      t.modeled_us += s.modeled_us;
      t.wall_us += s.wall_us;
      t.fallbacks += s.fallbacks;
    }
  }
  for (auto& [name, s] : by_op) out.ops.push_back(std::move(s));
  return out;
}

// A parity-only case (not timed) decodes once, with no warm-up.
int WarmupCount(const harness::SuiteSpec& suite, const harness::ExecOptions& o) {
  if (!o.timed) return 0;
  return o.warmup >= 0 ? o.warmup : suite.warmup;
}

int RepeatCount(const harness::SuiteSpec& suite, const harness::ExecOptions& o) {
  if (!o.timed) return 1;
  return std::max(1, o.repeat >= 0 ? o.repeat : suite.repeat);
}

}  // namespace suites
