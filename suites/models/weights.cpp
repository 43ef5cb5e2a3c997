// Expected tensor names and shapes, and synthetic weights from the project
// generator (suites/checkpoint.h).
#include <cmath>

#include "harness/inputs/generator.h"
#include "suites/models/checkpoint.h"

namespace suites {
namespace {

using NamedShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

void DecoderTensors(const ModelConfig& c, NamedShapes* out) {
  const int64_t h = c.hidden, kv = c.kv_heads * c.head_dim(), f = c.intermediate;
  out->push_back({"model.embed_tokens.weight", {c.vocab, h}});
  for (int64_t l = 0; l < c.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    out->push_back({p + "input_layernorm.weight", {h}});
    out->push_back({p + "self_attn.q_proj.weight", {h, h}});
    out->push_back({p + "self_attn.k_proj.weight", {kv, h}});
    out->push_back({p + "self_attn.v_proj.weight", {kv, h}});
    out->push_back({p + "self_attn.o_proj.weight", {h, h}});
    out->push_back({p + "post_attention_layernorm.weight", {h}});
    out->push_back({p + "mlp.gate_proj.weight", {f, h}});
    out->push_back({p + "mlp.up_proj.weight", {f, h}});
    out->push_back({p + "mlp.down_proj.weight", {h, f}});
  }
  out->push_back({"model.norm.weight", {h}});
  if (!c.tie_embeddings) out->push_back({"lm_head.weight", {c.vocab, h}});
}

void EncoderTensors(const ModelConfig& c, NamedShapes* out) {
  const int64_t h = c.hidden, f = c.intermediate;
  out->push_back({"embeddings.word_embeddings.weight", {c.vocab, h}});
  out->push_back({"embeddings.position_embeddings.weight", {c.max_positions, h}});
  out->push_back({"embeddings.token_type_embeddings.weight", {c.type_vocab, h}});
  out->push_back({"embeddings.LayerNorm.weight", {h}});
  out->push_back({"embeddings.LayerNorm.bias", {h}});
  for (int64_t l = 0; l < c.layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    for (const char* name : {"attention.self.query", "attention.self.key", "attention.self.value",
                             "attention.output.dense"}) {
      out->push_back({p + name + ".weight", {h, h}});
      out->push_back({p + name + ".bias", {h}});
    }
    out->push_back({p + "attention.output.LayerNorm.weight", {h}});
    out->push_back({p + "attention.output.LayerNorm.bias", {h}});
    out->push_back({p + "intermediate.dense.weight", {f, h}});
    out->push_back({p + "intermediate.dense.bias", {f}});
    out->push_back({p + "output.dense.weight", {h, f}});
    out->push_back({p + "output.dense.bias", {h}});
    out->push_back({p + "output.LayerNorm.weight", {h}});
    out->push_back({p + "output.LayerNorm.bias", {h}});
  }
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

NamedShapes ExpectedTensors(const ModelConfig& c) {
  NamedShapes out;
  if (c.family == ModelFamily::kDecoder) {
    DecoderTensors(c, &out);
  } else {
    EncoderTensors(c, &out);
  }
  return out;
}

Weights SyntheticWeights(const ModelConfig& c, uint64_t seed) {
  Weights w;
  const NamedShapes shapes = ExpectedTensors(c);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto& [name, shape] = shapes[i];
    harness::InputSpec spec;
    spec.shape = shape;
    spec.dtype = at::kFloat;
    if (name.find("embed") != std::string::npos && EndsWith(name, ".weight") &&
        name.find("LayerNorm") == std::string::npos) {
      spec.scale = c.embedding_std;
    } else if (name.find("norm") != std::string::npos ||
               name.find("LayerNorm") != std::string::npos) {
      spec.mean = EndsWith(name, ".weight") ? 1.0 : 0.0;
      spec.scale = 0.1;
    } else if (EndsWith(name, ".bias")) {
      spec.scale = 0.02;
    } else if (name == "lm_head.weight") {
      // Logits of std about 3 after logits_scaling: peaked like a trained
      // model's, with some close calls.
      spec.scale = 3.0 * c.logits_scaling / std::sqrt(static_cast<double>(c.hidden));
    } else {
      spec.scale = 1.0 / std::sqrt(static_cast<double>(shape.back()));
    }
    w[name] = harness::GenerateInput(spec, seed, static_cast<int>(i));
  }
  return w;
}

}  // namespace suites
