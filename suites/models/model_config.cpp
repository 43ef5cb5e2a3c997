#include "suites/model_config.h"

#include <cmath>
#include <map>

namespace suites {
namespace {

using harness::InvalidInput;
using harness::Status;
using harness::StatusOr;

ModelConfig Decoder(const std::string& name, const std::string& type, int64_t hidden,
                    int64_t layers, int64_t heads, int64_t kv_heads, int64_t intermediate,
                    int64_t vocab) {
  ModelConfig c;
  c.name = name;
  c.model_type = type;
  c.hidden = hidden;
  c.layers = layers;
  c.heads = heads;
  c.kv_heads = kv_heads;
  c.intermediate = intermediate;
  c.vocab = vocab;
  return c;
}

ModelConfig WithGranite(ModelConfig c, double emb, double attn, double resid, double logits) {
  c.embedding_multiplier = emb;
  c.attention_multiplier = attn;
  c.residual_multiplier = resid;
  c.logits_scaling = logits;
  c.tie_embeddings = true;
  return c;
}

ModelConfig Encoder(const std::string& name, const std::string& type, int64_t position_offset) {
  ModelConfig c = Decoder(name, type, 64, 2, 4, 4, 256, 384);
  c.family = ModelFamily::kEncoder;
  c.max_positions = 130;
  c.norm_eps = 1e-12;
  c.position_offset = position_offset;
  return c;
}

// Tiny configurations run for real (golden files committed); the full-size
// ones are for timing-only cases. Tiny Granite keeps the real model's
// embedding, attention and residual multipliers (logits_scaling 4); its
// synthetic embeddings have std 1/12 (O(1) after the x12 multiplier, so the
// layers move the residual stream as in a trained model). It is untied: with
// random weights a tied head predicts the input token with near certainty,
// which would leave decode nothing to judge; "granite-tiny-tied" covers the
// tied head in the prefill suite.
const std::map<std::string, ModelConfig>& Builtins() {
  static const std::map<std::string, ModelConfig> kConfigs = [] {
    std::map<std::string, ModelConfig> m;
    ModelConfig llama = Decoder("llama-tiny", "llama", 64, 2, 4, 2, 176, 320);
    llama.norm_eps = 1e-5;
    m[llama.name] = llama;
    ModelConfig granite = WithGranite(Decoder("granite-tiny", "granite", 128, 2, 4, 2, 256, 512),
                                      12.0, 1.0 / 32, 0.22, 4.0);
    granite.embedding_std = 1.0 / 12;
    granite.tie_embeddings = false;
    m[granite.name] = granite;
    ModelConfig tied = granite;
    tied.name = "granite-tiny-tied";
    tied.tie_embeddings = true;
    m[tied.name] = tied;
    ModelConfig granite8b =
        WithGranite(Decoder("granite-3.3-8b", "granite", 4096, 40, 32, 8, 12800, 49155), 12.0,
                    0.0078125, 0.22, 16.0);
    granite8b.rope_theta = 10000000.0;
    granite8b.max_positions = 131072;
    granite8b.norm_eps = 1e-5;
    m[granite8b.name] = granite8b;
    ModelConfig llama8b = Decoder("llama-3.1-8b", "llama", 4096, 32, 32, 8, 14336, 128256);
    llama8b.rope_theta = 500000.0;
    llama8b.max_positions = 131072;
    llama8b.norm_eps = 1e-5;
    m[llama8b.name] = llama8b;
    m["bert-tiny"] = Encoder("bert-tiny", "bert", 0);
    m["roberta-tiny"] = Encoder("roberta-tiny", "roberta", 2);
    return m;
  }();
  return kConfigs;
}

template <typename T>
StatusOr<T> Required(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !j[key].is_number()) {
    return InvalidInput(where + ": '" + key + "' is missing or not a number");
  }
  return j[key].get<T>();
}

}  // namespace

double ModelConfig::attention_scale() const {
  if (attention_multiplier > 0) return attention_multiplier;
  return 1.0 / std::sqrt(static_cast<double>(head_dim()));
}

Status ModelConfig::Check() const {
  const std::string where = "model '" + name + "': ";
  if (hidden <= 0 || layers <= 0 || heads <= 0 || intermediate <= 0 || vocab <= 0) {
    return InvalidInput(where + "hidden, layers, heads, intermediate and vocab must be positive");
  }
  if (hidden % heads != 0) return InvalidInput(where + "heads must divide hidden");
  if (kv_heads <= 0 || heads % kv_heads != 0) {
    return InvalidInput(where + "kv_heads must be positive and divide heads");
  }
  if (family == ModelFamily::kDecoder && head_dim() % 2 != 0) {
    return InvalidInput(where + "RoPE needs an even head_dim");
  }
  return Status::Ok();
}

int64_t ModelConfig::Parameters() const {
  const int64_t kv = kv_heads * head_dim();
  if (family == ModelFamily::kEncoder) {
    const int64_t layer = 4 * (hidden * hidden + hidden) + 2 * hidden * intermediate +
                          intermediate + hidden + 4 * hidden;
    return (vocab + max_positions + type_vocab) * hidden + 2 * hidden + layers * layer;
  }
  const int64_t layer =
      2 * hidden * hidden + 2 * hidden * kv + 3 * hidden * intermediate + 2 * hidden;
  return vocab * hidden * (tie_embeddings ? 1 : 2) + hidden + layers * layer;
}

StatusOr<ModelConfig> BuiltinConfig(const std::string& name) {
  auto it = Builtins().find(name);
  if (it == Builtins().end()) {
    std::string names;
    for (const auto& n : BuiltinConfigNames()) names += (names.empty() ? "" : ", ") + n;
    return harness::NotFound("unknown model config '" + name + "' (built in: " + names +
                             "; or name a checkpoint directory)");
  }
  return it->second;
}

std::vector<std::string> BuiltinConfigNames() {
  std::vector<std::string> names;
  for (const auto& [name, c] : Builtins()) names.push_back(name);
  return names;
}

StatusOr<ModelConfig> ConfigFromHfJson(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("model_type") || !j["model_type"].is_string()) {
    return InvalidInput(where + ": no 'model_type' string");
  }
  ModelConfig c;
  c.model_type = j["model_type"].get<std::string>();
  c.name = c.model_type;
  const bool encoder =
      c.model_type == "bert" || c.model_type == "roberta" || c.model_type == "xlm-roberta";
  if (!encoder && c.model_type != "llama" && c.model_type != "granite") {
    return InvalidInput(where + ": model_type '" + c.model_type +
                        "' is not supported (llama, granite, bert, roberta, xlm-roberta)");
  }
  auto get = [&](const char* key, int64_t* out) -> Status {
    auto v = Required<int64_t>(j, key, where);
    if (!v.ok()) return v.status();
    *out = *v;
    return Status::Ok();
  };
  SPYRE_RETURN_IF_ERROR(get("hidden_size", &c.hidden));
  SPYRE_RETURN_IF_ERROR(get("num_hidden_layers", &c.layers));
  SPYRE_RETURN_IF_ERROR(get("num_attention_heads", &c.heads));
  SPYRE_RETURN_IF_ERROR(get("intermediate_size", &c.intermediate));
  SPYRE_RETURN_IF_ERROR(get("vocab_size", &c.vocab));
  c.kv_heads = j.value("num_key_value_heads", c.heads);
  c.max_positions = j.value("max_position_embeddings", c.max_positions);
  if (encoder) {
    c.family = ModelFamily::kEncoder;
    c.norm_eps = j.value("layer_norm_eps", 1e-12);
    c.type_vocab = j.value("type_vocab_size", c.type_vocab);
    if (c.model_type != "bert") c.position_offset = j.value("pad_token_id", 1) + 1;
    if (j.value("hidden_act", std::string("gelu")) != "gelu") {
      return InvalidInput(where + ": hidden_act '" + j["hidden_act"].get<std::string>() +
                          "' is not supported (gelu)");
    }
  } else {
    c.norm_eps = j.value("rms_norm_eps", 1e-6);
    c.rope_theta = j.value("rope_theta", c.rope_theta);
    c.tie_embeddings = j.value("tie_word_embeddings", c.model_type == "granite");
    c.embedding_multiplier = j.value("embedding_multiplier", 1.0);
    c.attention_multiplier = j.value("attention_multiplier", 0.0);
    c.residual_multiplier = j.value("residual_multiplier", 1.0);
    c.logits_scaling = j.value("logits_scaling", 1.0);
    if (j.contains("rope_scaling") && !j["rope_scaling"].is_null()) {
      return InvalidInput(where + ": rope_scaling is not supported (plain RoPE only)");
    }
  }
  c.embedding_std = 1.0;
  Status s = c.Check();
  if (!s.ok()) return InvalidInput(where + ": " + s.message());
  return c;
}

}  // namespace suites
