// Hugging Face checkpoint directories written by the test with the project's
// safetensors writer: sharded and single-file layouts load; a missing or
// mis-shaped tensor is an error naming it and the file.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/safetensors/safetensors.h"
#include "suites/models/checkpoint.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::TempDir;

const char* kLlamaConfig = R"({"model_type": "llama", "hidden_size": 32, "num_hidden_layers": 2,
  "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48, "vocab_size": 40,
  "rms_norm_eps": 1e-5, "tie_word_embeddings": false})";

suites::ModelConfig LlamaConfig() {
  auto c = suites::ConfigFromHfJson(nlohmann::json::parse(kLlamaConfig), "config.json");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return *c;
}

// Writes the weights as two shards plus the index, or as one file.
void WriteCheckpoint(const std::string& dir, const suites::Weights& w, bool sharded,
                     const std::string& config = kLlamaConfig) {
  spyre_test::WriteFile(dir + "/config.json", config);
  if (!sharded) {
    harness::SafetensorsFile f;
    for (const auto& [name, t] : w) f.tensors.emplace_back(name, t.to(at::kBFloat16));
    ASSERT_TRUE(harness::WriteSafetensors(dir + "/model.safetensors", f).ok());
    return;
  }
  harness::SafetensorsFile shards[2];
  nlohmann::json index = {{"metadata", nlohmann::json::object()},
                          {"weight_map", nlohmann::json::object()}};
  int i = 0;
  for (const auto& [name, t] : w) {
    const int shard = i++ % 2;
    shards[shard].tensors.emplace_back(name, t);
    index["weight_map"][name] = "model-0000" + std::to_string(shard + 1) + "-of-00002.safetensors";
  }
  for (int s = 0; s < 2; ++s) {
    const std::string file = dir + "/model-0000" + std::to_string(s + 1) + "-of-00002.safetensors";
    ASSERT_TRUE(harness::WriteSafetensors(file, shards[s]).ok());
  }
  spyre_test::WriteFile(dir + "/model.safetensors.index.json", index.dump());
}

TEST(CheckpointTest, ShardedHfLayoutLoadsEveryTensor) {
  TempDir dir;
  const suites::Weights w = suites::SyntheticWeights(LlamaConfig(), 3);
  ASSERT_TRUE(w.count("model.layers.0.self_attn.q_proj.weight"));
  WriteCheckpoint(dir.path(), w, /*sharded=*/true);
  auto ck = suites::LoadCheckpoint(dir.path());
  ASSERT_TRUE(ck.ok()) << ck.status().message();
  EXPECT_EQ(ck->files.size(), 2u);
  EXPECT_EQ(ck->config.hidden, 32);
  EXPECT_EQ(ck->config.kv_heads, 2);
  EXPECT_FALSE(ck->config.tie_embeddings);
  ASSERT_EQ(ck->weights.size(), w.size());
  for (const auto& [name, t] : w) EXPECT_TRUE(at::equal(ck->weights.at(name), t)) << name;
}

TEST(CheckpointTest, SingleFileInBf16Loads) {
  TempDir dir;
  const suites::Weights w = suites::SyntheticWeights(LlamaConfig(), 3);
  WriteCheckpoint(dir.path(), w, /*sharded=*/false);
  auto ck = suites::LoadCheckpoint(dir.path());
  ASSERT_TRUE(ck.ok()) << ck.status().message();
  const at::Tensor& q = ck->weights.at("model.layers.1.self_attn.q_proj.weight");
  EXPECT_EQ(q.scalar_type(), at::kBFloat16);
  EXPECT_TRUE(
      at::allclose(q.to(at::kFloat), w.at("model.layers.1.self_attn.q_proj.weight"), 1e-2, 1e-2));
}

TEST(CheckpointTest, MissingTensorIsAnErrorNamingItAndTheFiles) {
  TempDir dir;
  suites::Weights w = suites::SyntheticWeights(LlamaConfig(), 3);
  w.erase("model.layers.1.mlp.up_proj.weight");
  WriteCheckpoint(dir.path(), w, /*sharded=*/true);
  auto ck = suites::LoadCheckpoint(dir.path());
  ASSERT_FALSE(ck.ok());
  EXPECT_NE(ck.status().message().find("'model.layers.1.mlp.up_proj.weight' is missing"),
            std::string::npos)
      << ck.status().message();
  EXPECT_NE(ck.status().message().find("model-00001-of-00002.safetensors"), std::string::npos);
}

TEST(CheckpointTest, MisShapedTensorIsAnErrorNamingItTheFileAndBothShapes) {
  TempDir dir;
  suites::Weights w = suites::SyntheticWeights(LlamaConfig(), 3);
  w["model.layers.0.self_attn.k_proj.weight"] = at::zeros({32, 32});  // kv_heads ignored
  WriteCheckpoint(dir.path(), w, /*sharded=*/false);
  auto ck = suites::LoadCheckpoint(dir.path());
  ASSERT_FALSE(ck.ok());
  const std::string& m = ck.status().message();
  EXPECT_NE(
      m.find(
          "model.safetensors: tensor 'model.layers.0.self_attn.k_proj.weight' has shape [32, 32]"),
      std::string::npos)
      << m;
  EXPECT_NE(m.find("implies [16, 32]"), std::string::npos) << m;
}

TEST(CheckpointTest, IndexNamingAFileOutsideTheDirectoryIsRefused) {
  TempDir dir;
  spyre_test::WriteFile(dir.File("config.json"), kLlamaConfig);
  spyre_test::WriteFile(dir.File("model.safetensors.index.json"),
                        R"({"weight_map": {"model.norm.weight": "../x.safetensors"}})");
  auto ck = suites::LoadCheckpoint(dir.path());
  ASSERT_FALSE(ck.ok());
  EXPECT_NE(ck.status().message().find("outside the checkpoint directory"), std::string::npos);
}

TEST(CheckpointTest, EncoderNamesWithABertPrefixLoad) {
  TempDir dir;
  const std::string config = R"({"model_type": "bert", "hidden_size": 32, "num_hidden_layers": 1,
    "num_attention_heads": 2, "intermediate_size": 64, "vocab_size": 50,
    "max_position_embeddings": 40, "type_vocab_size": 2, "layer_norm_eps": 1e-12})";
  auto cfg = suites::ConfigFromHfJson(nlohmann::json::parse(config), "config.json");
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  suites::Weights prefixed;
  for (const auto& [name, t] : suites::SyntheticWeights(*cfg, 1)) prefixed["bert." + name] = t;
  WriteCheckpoint(dir.path(), prefixed, /*sharded=*/false, config);
  auto ck = suites::LoadCheckpoint(dir.path());
  ASSERT_TRUE(ck.ok()) << ck.status().message();
  EXPECT_TRUE(ck->weights.count("encoder.layer.0.attention.self.query.weight"));
}

TEST(CheckpointTest, UnsupportedModelTypeSaysWhichAreSupported) {
  auto c =
      suites::ConfigFromHfJson(nlohmann::json::parse(R"({"model_type": "gpt2"})"), "x/config.json");
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("llama, granite"), std::string::npos);
}

}  // namespace
