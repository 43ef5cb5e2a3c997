#pragma once
// Model weights by Hugging Face tensor name ("model.layers.0.self_attn.q_proj.weight",
// "encoder.layer.0.attention.self.query.weight", ...): synthetic from a seed
// for the built-in configurations, or loaded from a checkpoint directory.
//
//   auto w = LoadCheckpoint("suites/models/granite-tiny");   // config.json + *.safetensors
//   if (!w.ok()) ... w.status().message() names the tensor and the file
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "base/status.h"
#include "suites/models/model_config.h"

namespace suites {

using Weights = std::map<std::string, at::Tensor>;

// Every tensor the model code reads, with its shape, in HF naming (decoders:
// "model." prefix, "lm_head.weight" unless tied; encoders: no prefix).
std::vector<std::pair<std::string, std::vector<int64_t>>> ExpectedTensors(const ModelConfig& c);

// Synthetic fp32 weights from the project generator (never torch's RNG):
// tensor i of ExpectedTensors is stream i of `seed`. Linear weights
// N(0, 1/fan_in) (activations stay O(1) through the layers, as in a trained
// model), embeddings N(0, embedding_std^2), norm weights N(1, 0.1^2), biases
// N(0, 0.02^2); an untied head N(0, 9 logits_scaling^2 / hidden) (logits of std
// about 3).
Weights SyntheticWeights(const ModelConfig& c, uint64_t seed);

struct Checkpoint {
  ModelConfig config;
  Weights weights;                 // as stored (any floating dtype), by expected name
  std::vector<std::string> files;  // the safetensors files read
};

// Reads <dir>/config.json and the weights: model.safetensors.index.json's
// weight_map when present (sharded), else every *.safetensors in `dir`.
// Encoder checkpoints may prefix names with "bert." / "roberta.". Errors: a
// missing tensor names it and the files searched; a mis-shaped tensor names
// it, its file, its shape and the shape config.json implies.
harness::StatusOr<Checkpoint> LoadCheckpoint(const std::string& dir);

// Where each tensor the config requires is stored, and that it is there
// with the shape config.json implies and a floating dtype: the checks of
// LoadCheckpoint (same errors) from the safetensors headers alone, so that
// a run can refuse a broken checkpoint before anything is recorded without
// reading its weights.
struct StoredTensor {
  std::string file;         // the safetensors file holding it
  std::string stored_name;  // its name there (encoders: maybe "bert."-prefixed)
  at::ScalarType dtype = at::kFloat;
  std::vector<int64_t> shape;
};
struct CheckpointIndex {
  ModelConfig config;
  std::map<std::string, StoredTensor> tensors;  // by expected name
};
harness::StatusOr<CheckpointIndex> IndexCheckpoint(const std::string& dir);

// Only <dir>/config.json (what validating a suite needs; no weights read).
harness::StatusOr<ModelConfig> LoadCheckpointConfig(const std::string& dir);

}  // namespace suites
