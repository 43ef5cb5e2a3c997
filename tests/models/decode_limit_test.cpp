// The decode limit on max |logprob diff| scales with the model: it is a
// multiple of the yardstick (the CPU computing the case in the device's
// storage format), so checkpoints whose random weights are 10x and 50x the
// usual scale pass on the clean device, and the limit, the yardstick and the
// rule are in the result.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "harness/golden/golden.h"
#include "harness/safetensors/safetensors.h"
#include "harness/inputs/generator.h"
#include "harness/case_kinds/case_kinds.h"
#include "model_case.h"
#include "suites/models/checkpoint.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::TempDir;

// A llama-tiny-shaped checkpoint (hidden 64) whose every weight is normal
// with standard deviation `std` (norm weights are ones), from a fixed seed.
void WriteRandomCheckpoint(const TempDir& dir, const std::string& name, double std, uint64_t seed) {
  auto cfg = suites::BuiltinConfig("llama-tiny");
  ASSERT_TRUE(cfg.ok());
  std::filesystem::create_directories(dir.File("models/" + name));
  spyre_test::WriteFile(dir.File("models/" + name + "/config.json"), R"({"model_type": "llama",
    "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "intermediate_size": 176, "vocab_size": 320, "rms_norm_eps": 1e-5})");
  harness::SafetensorsFile f;
  int index = 0;
  for (const auto& [tensor, shape] : suites::ExpectedTensors(*cfg)) {
    harness::InputSpec spec;
    spec.shape = shape;
    const bool norm = tensor.find("norm") != std::string::npos;
    spec.dist = norm ? harness::Distribution::kConst : harness::Distribution::kNormal;
    spec.value = 1.0;
    spec.scale = std;
    f.tensors.emplace_back(tensor, harness::GenerateInput(spec, seed, index++));
  }
  ASSERT_TRUE(harness::WriteSafetensors(dir.File("models/" + name + "/model.safetensors"), f).ok());
}

harness::StatusOr<harness::SuiteSpec> WriteLimitSuite(const TempDir& dir,
                                                 const std::vector<nlohmann::json>& cases) {
  nlohmann::json doc = {{"name", "m"}, {"cases", cases}};
  spyre_test::WriteFile(dir.File("m.json"), doc.dump());
  return harness::LoadSuite(dir.path(), "m");
}

nlohmann::json DecodeCase(const std::string& id, const std::string& checkpoint,
                          const std::string& dtype) {
  return {{"id", id},
          {"kind", "decode"},
          {"model",
           {{"checkpoint", "models/" + checkpoint},
            {"dtype", dtype},
            {"prompts", {{3, 1, 4, 1, 5, 9, 2, 6}, {27, 18, 28, 18, 28, 4, 5, 9}}},
            {"steps", 12}}}};
}

harness::ExecOptions LimitOptions(const TempDir& dir) {
  harness::ExecOptions o;
  o.suites_dir = dir.path();
  o.golden_dir = dir.File("golden");
  o.warmup = 0;
  o.repeat = 1;
  return o;
}

TEST(DecodeLimitTest, LargeRandomWeightsPassOnTheCleanDeviceWithALimitThatScales) {
  TempDir dir;
  WriteRandomCheckpoint(dir, "std0.2", 0.2, 21);
  WriteRandomCheckpoint(dir, "std1", 1.0, 22);
  auto suite = WriteLimitSuite(
      dir,
      {DecodeCase("s02.fp16", "std0.2", "float16"), DecodeCase("s02.bf16", "std0.2", "bfloat16"),
       DecodeCase("s1.fp16", "std1", "float16"), DecodeCase("s1.bf16", "std1", "bfloat16")});
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  const auto options = LimitOptions(dir);
  auto gen = harness::GenerateGolden(*suite, options);
  ASSERT_TRUE(gen.ok()) << gen.status().message();
  double limit_s02 = 0, limit_s1 = 0;
  for (const auto& c : suite->cases) {
    const harness::CaseResult r = harness::ExecuteCase(*suite, c, options);
    EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << c.id << ": " << r.message;
    const double diff = r.extra["max_logprob_diff"].get<double>();
    const double limit = r.extra["max_logprob_diff_limit"].get<double>();
    const double yardstick = r.extra["logprob_yardstick"].get<double>();
    EXPECT_GT(yardstick, 0) << c.id;
    EXPECT_DOUBLE_EQ(limit, std::max(0.01, 2 * yardstick)) << c.id;
    EXPECT_LE(diff, limit) << c.id;
    // The limit is stored with the metric it judges, the yardstick beside it.
    bool found_limit = false, found_yardstick = false;
    for (const auto& m : r.metrics) {
      if (m.name == "max_logprob_diff") found_limit = m.limit == limit;
      if (m.name == "logprob_yardstick") found_yardstick = m.value == yardstick;
    }
    EXPECT_TRUE(found_limit && found_yardstick) << c.id;
    std::printf("%s: max |logprob diff| %.4g, yardstick %.4g, limit %.4g\n", c.id.c_str(), diff,
                yardstick, limit);
    // bfloat16 logits are also judged on how many land on another value
    // than the golden's; a clean device stays within the rule.
    const auto& flips = r.extra["logit_flips"];
    if (c.id.find(".bf16") != std::string::npos) {
      ASSERT_TRUE(flips.is_object()) << c.id;
      EXPECT_LE(flips["share"].get<double>(), flips["limit"].get<double>()) << c.id;
      std::printf("%s: logits on another bfloat16 value %.4g, yardstick %.4g\n", c.id.c_str(),
                  flips["share"].get<double>(), flips["yardstick"].get<double>());
    } else {
      EXPECT_TRUE(flips.is_null()) << c.id;
    }
    if (c.id == "s02.fp16") limit_s02 = limit;
    if (c.id == "s1.fp16") limit_s1 = limit;
  }
  // Larger weights, larger rounding error, a wider limit: over the old
  // fixed 0.04 for the std-1 model.
  EXPECT_GT(limit_s1, limit_s02);
  EXPECT_GT(limit_s1, 0.04);
}

TEST(DecodeLimitTest, AFixedLimitReplacesTheYardsticksAndIsNamedInTheMessage) {
  TempDir dir;
  WriteRandomCheckpoint(dir, "std1", 1.0, 22);
  nlohmann::json c = DecodeCase("fixed", "std1", "float16");
  c["model"]["max_logprob_diff"] = 0.0001;
  auto suite = WriteLimitSuite(dir, {c});
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  const auto options = LimitOptions(dir);
  ASSERT_TRUE(harness::GenerateGolden(*suite, options).ok());
  const harness::CaseResult r = harness::ExecuteCase(*suite, suite->cases[0], options);
  EXPECT_EQ(r.status, harness::CaseStatus::kFailed);
  EXPECT_EQ(r.extra["max_logprob_diff_limit"].get<double>(), 0.0001);
  EXPECT_NE(r.message.find("above the fixed limit 0.0001"), std::string::npos) << r.message;
}

TEST(DecodeLimitTest, LimitMembersAreCheckedWhereTheyBelong) {
  TempDir dir;
  nlohmann::json both = {{"id", "c"},
                         {"kind", "decode"},
                         {"model",
                          {{"config", "llama-tiny"},
                           {"prompts", {{1, 2}}},
                           {"steps", 2},
                           {"max_logprob_diff", 0.1},
                           {"logprob_m", 4}}}};
  auto s = WriteLimitSuite(dir, {both});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("/cases/0/model/max_logprob_diff: a fixed limit replaces"),
            std::string::npos)
      << s.status().message();
  // A model limit put in the case's "tolerance" (the op kind's) is refused
  // with the place it belongs.
  for (const char* key : {"max_logprob_diff", "logprob_m", "logprob_floor"}) {
    nlohmann::json misplaced = {
        {"id", "c"},
        {"kind", "decode"},
        {"tolerance", {{key, 0.1}}},
        {"model", {{"config", "llama-tiny"}, {"prompts", {{1, 2}}}, {"steps", 2}}}};
    auto m = WriteLimitSuite(dir, {misplaced});
    ASSERT_FALSE(m.ok()) << key;
    EXPECT_NE(m.status().message().find("move it to /cases/0/model/" + std::string(key)),
              std::string::npos)
        << m.status().message();
  }
}

TEST(DecodeLimitTest, TheYardstickRoundsOnlyWhereTheDeviceFormatDoes) {
  EXPECT_FALSE(suites::DeviceFormatRounding(at::kFloat).activations);
  const auto half = suites::DeviceFormatRounding(at::kHalf);
  ASSERT_TRUE(half.activations && half.weights);
  // DL16 keeps 9 fraction bits: 1 + 2^-10 rounds away, 1 + 2^-9 stays.
  const at::Tensor x = at::tensor({1.0f + 1.0f / 1024, 1.0f + 1.0f / 512});
  const at::Tensor held = half.activations(x);
  EXPECT_EQ(held[0].item<float>(), 1.0f + 1.0f / 512);
  EXPECT_EQ(held[1].item<float>(), 1.0f + 1.0f / 512);
  // bf16 weights are bf16 first (7 fraction bits), then held as DL16.
  const auto bf16 = suites::DeviceFormatRounding(at::kBFloat16);
  EXPECT_EQ(bf16.weights(at::tensor({1.0f + 1.0f / 512}))[0].item<float>(), 1.0f);
}

}  // namespace
