// The checkpoint preflight: IndexCheckpoint checks a checkpoint from its
// safetensors headers alone, with the errors LoadCheckpoint gives, and the
// model kinds' CheckFiles refuses a broken checkpoint before a run records
// anything. ReadSafetensorsHeader agrees with the whole-file reader.
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/safetensors/safetensors.h"
#include "harness/case_kinds/case_kinds.h"
#include "suites/models/checkpoint.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::TempDir;

const char* kConfig = R"({"model_type": "llama", "hidden_size": 32, "num_hidden_layers": 1,
  "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48, "vocab_size": 40,
  "rms_norm_eps": 1e-5})";

suites::Weights Weights() {
  auto c = suites::ConfigFromHfJson(nlohmann::json::parse(kConfig), "config.json");
  EXPECT_TRUE(c.ok()) << c.status().message();
  return suites::SyntheticWeights(*c, 5);
}

void WritePreflightCheckpoint(const std::string& dir, const suites::Weights& w) {
  std::filesystem::create_directories(dir);
  spyre_test::WriteFile(dir + "/config.json", kConfig);
  harness::SafetensorsFile f;
  for (const auto& [name, t] : w) f.tensors.emplace_back(name, t);
  ASSERT_TRUE(harness::WriteSafetensors(dir + "/model.safetensors", f).ok());
}

TEST(SafetensorsHeaderTest, AgreesWithTheWholeFileReader) {
  TempDir dir;
  harness::SafetensorsFile f;
  f.tensors.emplace_back("b", at::zeros({2, 3}, at::kBFloat16));
  f.tensors.emplace_back("a", at::zeros({0, 7}, at::kLong));
  f.tensors.emplace_back("s", at::zeros({}, at::kBool));
  f.metadata["suite"] = "x";
  ASSERT_TRUE(harness::WriteSafetensors(dir.File("t.safetensors"), f).ok());
  auto whole = harness::ReadSafetensors(dir.File("t.safetensors"));
  auto header = harness::ReadSafetensorsHeader(dir.File("t.safetensors"));
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  ASSERT_TRUE(header.ok()) << header.status().message();
  EXPECT_EQ(header->metadata, whole->metadata);
  ASSERT_EQ(header->tensors.size(), whole->tensors.size());
  for (const auto& [name, t] : whole->tensors) {
    const harness::SafetensorsEntry* e = header->Find(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->dtype, t.scalar_type()) << name;
    EXPECT_EQ(e->shape, t.sizes().vec()) << name;
  }
  EXPECT_EQ(header->Find("c"), nullptr);
}

TEST(SafetensorsHeaderTest, ATruncatedFileFailsAsTheWholeFileReaderFails) {
  TempDir dir;
  harness::SafetensorsFile f;
  f.tensors.emplace_back("w", at::zeros({64, 64}));
  ASSERT_TRUE(harness::WriteSafetensors(dir.File("t.safetensors"), f).ok());
  const std::string bytes = spyre_test::ReadFile(dir.File("t.safetensors"));
  for (size_t keep : {bytes.size() - 4, size_t{100}, size_t{5}}) {
    spyre_test::WriteFile(dir.File("cut.safetensors"), bytes.substr(0, keep));
    auto whole = harness::ReadSafetensors(dir.File("cut.safetensors"));
    auto header = harness::ReadSafetensorsHeader(dir.File("cut.safetensors"));
    ASSERT_FALSE(whole.ok()) << keep;
    ASSERT_FALSE(header.ok()) << keep;
    EXPECT_EQ(header.status().message(), whole.status().message()) << keep;
    EXPECT_NE(header.status().message().find("malformed safetensors"), std::string::npos);
  }
  auto missing = harness::ReadSafetensorsHeader(dir.File("none.safetensors"));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), harness::ErrorCode::kNotFound);
}

TEST(CheckpointPreflightTest, IndexesAnIntactCheckpointFromItsHeaders) {
  TempDir dir;
  const suites::Weights w = Weights();
  WritePreflightCheckpoint(dir.File("ck"), w);
  auto index = suites::IndexCheckpoint(dir.File("ck"));
  ASSERT_TRUE(index.ok()) << index.status().message();
  ASSERT_EQ(index->tensors.size(), w.size());
  const suites::StoredTensor& up = index->tensors.at("model.layers.0.mlp.up_proj.weight");
  EXPECT_EQ(up.file, dir.File("ck") + "/model.safetensors");
  EXPECT_EQ(up.shape, (std::vector<int64_t>{48, 32}));
  EXPECT_EQ(up.dtype, at::kFloat);
}

// The preflight and the load say the same thing about the same checkpoint.
TEST(CheckpointPreflightTest, MissingAndMisShapedTensorsGiveLoadCheckpointsErrors) {
  TempDir dir;
  suites::Weights missing = Weights(), shaped = Weights();
  missing.erase("model.norm.weight");
  shaped["model.layers.0.mlp.up_proj.weight"] = at::zeros({32, 48});
  WritePreflightCheckpoint(dir.File("missing"), missing);
  WritePreflightCheckpoint(dir.File("shaped"), shaped);
  for (const char* ck : {"missing", "shaped"}) {
    auto index = suites::IndexCheckpoint(dir.File(ck));
    auto load = suites::LoadCheckpoint(dir.File(ck));
    ASSERT_FALSE(index.ok()) << ck;
    ASSERT_FALSE(load.ok()) << ck;
    EXPECT_EQ(index.status().message(), load.status().message());
    EXPECT_EQ(index.status().code(), load.status().code());
  }
  auto index = suites::IndexCheckpoint(dir.File("missing"));
  EXPECT_EQ(index.status().code(), harness::ErrorCode::kNotFound);
  EXPECT_NE(index.status().message().find(
                "tensor 'model.norm.weight' is missing (searched model.safetensors)"),
            std::string::npos)
      << index.status().message();
  EXPECT_NE(index.status().message().find("re-export it or fix config.json"), std::string::npos);
  index = suites::IndexCheckpoint(dir.File("shaped"));
  EXPECT_NE(index.status().message().find(
                "tensor 'model.layers.0.mlp.up_proj.weight' has shape [32, 48], "
                "config.json implies [48, 32]"),
            std::string::npos)
      << index.status().message();
}

TEST(CheckpointPreflightTest, AnIntegerWeightIsRefused) {
  TempDir dir;
  suites::Weights w = Weights();
  w["model.norm.weight"] = at::zeros({32}, at::kInt);
  WritePreflightCheckpoint(dir.File("ck"), w);
  auto index = suites::IndexCheckpoint(dir.File("ck"));
  ASSERT_FALSE(index.ok());
  EXPECT_NE(index.status().message().find("tensor 'model.norm.weight' is Int, not floating point"),
            std::string::npos)
      << index.status().message();
}

// Through the registered kinds, as the run's preflight calls them.
TEST(CheckpointPreflightTest, ModelKindsCheckTheirCheckpointBeforeARun) {
  TempDir dir;
  suites::Weights w = Weights();
  WritePreflightCheckpoint(dir.File("models/ok"), w);
  w.erase("model.layers.0.self_attn.k_proj.weight");
  WritePreflightCheckpoint(dir.File("models/broken"), w);
  for (const char* kind : {"decode", "prefill"}) {
    nlohmann::json cases = nlohmann::json::array();
    for (const char* id : {"ok", "broken", "synthetic"}) {
      nlohmann::json model = {{"prompts", {{1, 2}}}};
      if (std::string(kind) == "decode") model["steps"] = 2;
      if (std::string(id) == "synthetic") {
        model["config"] = "llama-tiny";
      } else {
        model["checkpoint"] = std::string("models/") + id;
      }
      cases.push_back({{"id", id}, {"kind", kind}, {"model", model}});
    }
    spyre_test::WriteFile(dir.File("ck.json"),
                          nlohmann::json({{"name", "ck"}, {"cases", cases}}).dump());
    auto suite = harness::LoadSuite(dir.path(), "ck");
    ASSERT_TRUE(suite.ok()) << suite.status().message();
    const harness::CaseKind* k = harness::FindCaseKind(kind);
    ASSERT_NE(k, nullptr);
    ASSERT_EQ(suite->cases.size(), 3u);
    EXPECT_TRUE(k->CheckFiles(*suite, suite->cases[0]).ok()) << kind;
    const harness::Status broken = k->CheckFiles(*suite, suite->cases[1]);
    ASSERT_FALSE(broken.ok()) << kind;
    EXPECT_NE(broken.message().find(
                  "models/broken: tensor 'model.layers.0.self_attn.k_proj.weight' is missing"),
              std::string::npos)
        << broken.message();
    EXPECT_TRUE(k->CheckFiles(*suite, suite->cases[2]).ok()) << kind;
  }
}

}  // namespace
