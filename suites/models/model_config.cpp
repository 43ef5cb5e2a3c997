#include "suites/models/model_config.h"

#include <cmath>
#include <map>
#include <type_traits>

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

// config.json members are checked for their type before they are read:
// nlohmann's get<T> throws on a string where a number belongs, and converting
// a huge floating-point value to an integer is undefined behaviour.
template <typename T>
bool HasType(const nlohmann::json& v) {
  if constexpr (std::is_same_v<T, bool>) return v.is_boolean();
  if constexpr (std::is_same_v<T, std::string>) return v.is_string();
  if constexpr (std::is_integral_v<T>) return v.is_number_integer();
  return v.is_number();
}

template <typename T>
const char* TypeName() {
  if constexpr (std::is_same_v<T, bool>) return "true or false";
  if constexpr (std::is_same_v<T, std::string>) return "a string";
  if constexpr (std::is_integral_v<T>) return "an integer";
  return "a number";
}

StatusOr<int64_t> Required(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.contains(key) || !HasType<int64_t>(j[key])) {
    return InvalidInput(where + ": '" + key + "' is missing or not an integer");
  }
  return j[key].get<int64_t>();
}

// An optional member: absent or null leaves *out as it is (the default).
template <typename T>
Status Optional(const nlohmann::json& j, const char* key, const std::string& where, T* out) {
  if (!j.contains(key) || j[key].is_null()) return Status::Ok();
  if (!HasType<T>(j[key])) return InvalidInput(where + ": '" + key + "' must be " + TypeName<T>());
  *out = j[key].get<T>();
  return Status::Ok();
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
  if (max_positions <= 0 || type_vocab <= 0 || position_offset < 0) {
    return InvalidInput(where + "max_positions and type_vocab must be positive, position_offset >= 0");
  }
  // Far beyond any real model: a typo (32 -> 3200000000) must fail here, not
  // list billions of tensors or overflow the parameter count.
  constexpr int64_t kMaxWidth = int64_t{1} << 20, kMaxCount = int64_t{1} << 24, kMaxLayers = 4096;
  if (hidden > kMaxWidth || intermediate > kMaxWidth || layers > kMaxLayers || vocab > kMaxCount ||
      max_positions > kMaxCount || type_vocab > kMaxCount || position_offset > kMaxCount) {
    return InvalidInput(where + "sizes beyond what is supported (hidden and intermediate <= 2^20, "
                        "layers <= 4096, vocab and positions <= 2^24)");
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
    SPYRE_ASSIGN_OR_RETURN(auto v, Required(j, key, where));
    *out = v;
    return Status::Ok();
  };
  SPYRE_RETURN_IF_ERROR(get("hidden_size", &c.hidden));
  SPYRE_RETURN_IF_ERROR(get("num_hidden_layers", &c.layers));
  SPYRE_RETURN_IF_ERROR(get("num_attention_heads", &c.heads));
  SPYRE_RETURN_IF_ERROR(get("intermediate_size", &c.intermediate));
  SPYRE_RETURN_IF_ERROR(get("vocab_size", &c.vocab));
  c.kv_heads = c.heads;
  SPYRE_RETURN_IF_ERROR(Optional(j, "num_key_value_heads", where, &c.kv_heads));
  SPYRE_RETURN_IF_ERROR(Optional(j, "max_position_embeddings", where, &c.max_positions));
  if (encoder) {
    c.family = ModelFamily::kEncoder;
    c.norm_eps = 1e-12;
    SPYRE_RETURN_IF_ERROR(Optional(j, "layer_norm_eps", where, &c.norm_eps));
    SPYRE_RETURN_IF_ERROR(Optional(j, "type_vocab_size", where, &c.type_vocab));
    if (c.model_type != "bert") {
      int64_t pad = 1;
      SPYRE_RETURN_IF_ERROR(Optional(j, "pad_token_id", where, &pad));
      if (pad < 0 || pad >= c.vocab) {
        return InvalidInput(where + ": pad_token_id " + std::to_string(pad) + " is not a token id");
      }
      c.position_offset = pad + 1;
    }
    std::string act = "gelu";
    SPYRE_RETURN_IF_ERROR(Optional(j, "hidden_act", where, &act));
    if (act != "gelu") {
      return InvalidInput(where + ": hidden_act '" + act + "' is not supported (gelu)");
    }
  } else {
    c.tie_embeddings = c.model_type == "granite";
    SPYRE_RETURN_IF_ERROR(Optional(j, "rms_norm_eps", where, &c.norm_eps));
    SPYRE_RETURN_IF_ERROR(Optional(j, "rope_theta", where, &c.rope_theta));
    SPYRE_RETURN_IF_ERROR(Optional(j, "tie_word_embeddings", where, &c.tie_embeddings));
    SPYRE_RETURN_IF_ERROR(Optional(j, "embedding_multiplier", where, &c.embedding_multiplier));
    SPYRE_RETURN_IF_ERROR(Optional(j, "attention_multiplier", where, &c.attention_multiplier));
    SPYRE_RETURN_IF_ERROR(Optional(j, "residual_multiplier", where, &c.residual_multiplier));
    SPYRE_RETURN_IF_ERROR(Optional(j, "logits_scaling", where, &c.logits_scaling));
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
