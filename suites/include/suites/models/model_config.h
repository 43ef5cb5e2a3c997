#pragma once
// Model configurations for the model case kinds (decode, prefill, embed,
// timing): the decoder family (Llama, Granite 3.x) and the encoder family
// (BERT, RoBERTa). A configuration is a built-in name ("granite-tiny",
// "llama-tiny", "bert-tiny", "granite-3.3-8b", ...) or read from a Hugging
// Face config.json.
//
// Granite differs from Llama only by four scalars (HF GraniteConfig):
// embeddings x embedding_multiplier, attention scores x attention_multiplier
// (instead of 1/sqrt(head_dim)), each residual branch x residual_multiplier,
// logits / logits_scaling. Llama uses 1, 1/sqrt(head_dim), 1, 1.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace suites {

enum class ModelFamily { kDecoder, kEncoder };

struct ModelConfig {
  std::string name;        // "granite-tiny", or the checkpoint's model_type
  std::string model_type;  // "llama", "granite", "bert", "roberta"
  ModelFamily family = ModelFamily::kDecoder;
  int64_t hidden = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;  // grouped-query attention: heads % kv_heads == 0
  int64_t intermediate = 0;
  int64_t vocab = 0;
  int64_t max_positions = 2048;
  double norm_eps = 1e-6;  // RMSNorm (decoder) or LayerNorm (encoder) epsilon
  double rope_theta = 10000.0;
  bool tie_embeddings = false;
  // Granite's scalars (Llama: 1, 0 = 1/sqrt(head_dim), 1, 1).
  double embedding_multiplier = 1.0;
  double attention_multiplier = 0.0;
  double residual_multiplier = 1.0;
  double logits_scaling = 1.0;
  // Encoder only.
  int64_t type_vocab = 2;
  int64_t position_offset = 0;  // RoBERTa: padding_idx + 1 = 2
  // Synthetic weights: the standard deviation of embedding rows (a trained
  // model's embeddings are O(1) after the multiplier; see SyntheticWeights).
  double embedding_std = 1.0;

  int64_t head_dim() const { return heads > 0 ? hidden / heads : 0; }
  double attention_scale() const;  // attention_multiplier, or 1/sqrt(head_dim)
  // Checks the arithmetic (positive sizes, heads divide hidden, kv_heads
  // divide heads); errors say which field.
  harness::Status Check() const;
  // Parameter count (embeddings, layers, final norm, untied head).
  int64_t Parameters() const;
};

// The built-in configurations; unknown name -> NotFound listing them.
harness::StatusOr<ModelConfig> BuiltinConfig(const std::string& name);
std::vector<std::string> BuiltinConfigNames();

// A Hugging Face config.json (model_type llama, granite, bert, roberta,
// xlm-roberta). `where` names the file in errors.
harness::StatusOr<ModelConfig> ConfigFromHfJson(const nlohmann::json& j, const std::string& where);

}  // namespace suites
