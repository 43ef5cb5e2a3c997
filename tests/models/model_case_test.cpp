// The decode / prefill / embed case kinds through the harness: suite
// validation errors, a checkpoint directory inside the suites root run end
// to end (golden generated, then executed on the device), and the committed
// golden files of the model suites passing.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "harness/golden/golden.h"
#include "harness/safetensors/safetensors.h"
#include "harness/case_kinds/case_kinds.h"
#include "harness/wall_sampler.h"
#include "model_case.h"
#include "suites/models/checkpoint.h"
#include "quick_options.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::TempDir;

harness::ExecOptions Options(const std::string& suites, const std::string& golden) {
  return spyre_test::QuickOptions(suites, golden);
}

void WriteSuite(const TempDir& dir, const nlohmann::json& model,
                const std::string& kind = "decode") {
  nlohmann::json doc = {{"name", "m"},
                        {"cases", {{{"id", "c"}, {"kind", kind}, {"model", model}}}}};
  spyre_test::WriteFile(dir.File("m.json"), doc.dump());
}

std::string LoadError(const TempDir& dir) {
  auto s = harness::LoadSuite(dir.path(), "m");
  return s.ok() ? "" : s.status().message();
}

TEST(ModelCaseTest, BadModelMembersFailWhenTheSuiteLoads) {
  TempDir dir;
  WriteSuite(dir, {{"config", "llama-tiny"}, {"prompts", {{1, 2}}}});
  EXPECT_NE(LoadError(dir).find("/cases/0/model/steps"), std::string::npos) << LoadError(dir);
  WriteSuite(dir, {{"config", "llama-tiny"}, {"prompts", {{1, 2}}}, {"steps", 2}, {"topk", 3}});
  EXPECT_NE(LoadError(dir).find("/cases/0/model/topk: unknown member"), std::string::npos)
      << LoadError(dir);
  WriteSuite(dir, {{"config", "llama-tiny"}, {"prompts", {{1, 9999}}}, {"steps", 2}});
  EXPECT_NE(LoadError(dir).find("/cases/0/model/prompts/0/1"), std::string::npos) << LoadError(dir);
  WriteSuite(dir, {{"config", "bert-tiny"}, {"prompts", {{1, 2}}}, {"steps", 2}});
  EXPECT_NE(LoadError(dir).find("decode cases need a decoder"), std::string::npos)
      << LoadError(dir);
  WriteSuite(dir, {{"config", "nope"}, {"batch", 1}, {"seq", 2}}, "prefill");
  EXPECT_NE(LoadError(dir).find("unknown model config 'nope'"), std::string::npos)
      << LoadError(dir);
  // A bound is printed as people write it, not as "0.000000".
  WriteSuite(dir, {{"config", "llama-tiny"}, {"prompts", {{1, 2}}}, {"steps", 2},
                   {"near_tie_margin", -0.5}});
  EXPECT_NE(LoadError(dir).find("/cases/0/model/near_tie_margin: expected a number >= 0"),
            std::string::npos)
      << LoadError(dir);
  EXPECT_EQ(LoadError(dir).find("0.000000"), std::string::npos) << LoadError(dir);
  WriteSuite(dir, {{"config", "bert-tiny"}, {"batch", 1}, {"seq", 2}, {"min_cosine", -3}},
             "embed");
  EXPECT_NE(LoadError(dir).find("/cases/0/model/min_cosine: expected a number >= -1"),
            std::string::npos)
      << LoadError(dir);
  EXPECT_EQ(LoadError(dir).find("-1.000000"), std::string::npos) << LoadError(dir);
  WriteSuite(dir, {{"checkpoint", "../outside"}, {"batch", 1}, {"seq", 2}}, "prefill");
  EXPECT_FALSE(LoadError(dir).empty());
  EXPECT_NE(LoadError(dir).find("/cases/0/model/checkpoint"), std::string::npos) << LoadError(dir);
}

TEST(ModelCaseTest, ACheckpointInsideTheSuitesRootRunsEndToEnd) {
  TempDir dir;
  auto cfg = suites::BuiltinConfig("llama-tiny");
  ASSERT_TRUE(cfg.ok());
  std::filesystem::create_directories(dir.File("models/tiny"));
  spyre_test::WriteFile(dir.File("models/tiny/config.json"), R"({"model_type": "llama",
    "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
    "intermediate_size": 176, "vocab_size": 320, "rms_norm_eps": 1e-5})");
  harness::SafetensorsFile f;
  for (const auto& [name, t] : suites::SyntheticWeights(*cfg, 9)) f.tensors.emplace_back(name, t);
  ASSERT_TRUE(harness::WriteSafetensors(dir.File("models/tiny/model.safetensors"), f).ok());
  WriteSuite(dir, {{"checkpoint", "models/tiny"}, {"prompts", {{3, 1, 4, 1, 5, 9}}}, {"steps", 6}});
  auto suite = harness::LoadSuite(dir.path(), "m");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  const auto options = Options(dir.path(), dir.File("golden"));
  auto gen = harness::GenerateGolden(*suite, options);
  ASSERT_TRUE(gen.ok()) << gen.status().message();
  EXPECT_EQ(gen->written, 1);
  const harness::CaseResult r = harness::ExecuteCase(*suite, suite->cases[0], options);
  EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << r.message;
  EXPECT_EQ(r.extra["model"], "tiny");
  EXPECT_EQ(r.extra["per_step"].size(), 6u);
  EXPECT_GT(r.modeled_us, 0);
  EXPECT_GT(r.extra["modeled_tokens_per_s"].get<double>(), 0);

  // A checkpoint replaced after its golden files were written is caught.
  harness::SafetensorsFile other;
  for (const auto& [name, t] : suites::SyntheticWeights(*cfg, 10))
    other.tensors.emplace_back(name, t);
  ASSERT_TRUE(harness::WriteSafetensors(dir.File("models/tiny/model.safetensors"), other).ok());
  const harness::CaseResult stale = harness::ExecuteCase(*suite, suite->cases[0], options);
  EXPECT_EQ(stale.status, harness::CaseStatus::kError);
  EXPECT_NE(stale.message.find("model weights differ"), std::string::npos) << stale.message;
}

void ExpectEveryCasePasses(const std::string& name, const std::string& filter = "") {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", name);
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  const auto options = Options(SPYRE_SOURCE_DIR "/suites", SPYRE_SOURCE_DIR "/golden");
  int ran = 0;
  for (const auto& c : suite->cases) {
    if (!filter.empty() && c.id.find(filter) == std::string::npos) continue;
    ++ran;
    const harness::CaseResult r = harness::ExecuteCase(*suite, c, options);
    EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << c.id << ": " << r.message;
    EXPECT_FALSE(r.metrics.empty()) << c.id;
    EXPECT_GT(r.modeled_us, 0) << c.id;
  }
  EXPECT_GT(ran, 0);
}

// In a confirmation process a decode case times both configurations, its
// samples alternating A B B A ... (the side asked for first opening each
// group), so the load's swings within the process fall on both; the
// baseline's samples and their run-queue waits come back beside the
// candidate's, and the candidate's configuration is left in force.
TEST(ModelCaseTest, DecodeAlternatesTheTwoConfigurationsOfAPairedProcess) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "decode");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  const harness::CaseSpec* spec = nullptr;
  for (const auto& c : suite->cases) {
    if (c.id == "llama_tiny.b1") spec = &c;
  }
  ASSERT_NE(spec, nullptr);
  auto options = Options(SPYRE_SOURCE_DIR "/suites", SPYRE_SOURCE_DIR "/golden");
  options.warmup = 1;
  options.repeat = 3;
  for (const int first : {0, 1}) {
    std::string sequence;
    harness::PairedSides sides;
    sides.first = first;
    sides.set_side = [&](int side) {
      sequence += side == 0 ? 'b' : 'c';
      return true;
    };
    harness::CaseResult r;
    {
      harness::ScopedPairedSides scope(&sides);
      r = harness::ExecuteCase(*suite, *spec, options);
    }
    ASSERT_EQ(r.status, harness::CaseStatus::kPassed) << r.message;
    EXPECT_TRUE(sides.used);
    EXPECT_FALSE(sides.failed);
    // One warm-up of each, three samples of each, then back to the candidate.
    EXPECT_EQ(sequence, first == 0 ? "bc" "bccbbc" "c" : "cb" "cbbccb" "c");
    EXPECT_EQ(r.wall_us.size(), 3u);
    ASSERT_TRUE(r.extra.contains("paired_wall_us"));
    EXPECT_EQ(r.extra["paired_wall_us"].size(), 3u);
    EXPECT_EQ(r.extra["paired_queue_us"].size(), r.queue_us.size());
  }
  // Outside a confirmation: no baseline samples.
  const harness::CaseResult alone = harness::ExecuteCase(*suite, *spec, options);
  ASSERT_EQ(alone.status, harness::CaseStatus::kPassed) << alone.message;
  EXPECT_EQ(alone.wall_us.size(), 3u);
  EXPECT_FALSE(alone.extra.contains("paired_wall_us"));
}

TEST(ModelCaseTest, CommittedEmbedGoldenPasses) { ExpectEveryCasePasses("embed"); }
TEST(ModelCaseTest, CommittedPrefillGoldenPasses) { ExpectEveryCasePasses("prefill", ".b2."); }
TEST(ModelCaseTest, CommittedDecodeGoldenPasses) { ExpectEveryCasePasses("decode", ".b1"); }

// A timing round (all but the main pass of run --rounds N) runs the model on
// the device, timed and traced, and judges nothing: prefill and embed read
// no golden file (none exists here), decode reads only the golden tokens it
// is taught with and runs no CPU yardstick.
TEST(ModelCaseTest, ATimingRoundOfEachModelKindJudgesNothing) {
  for (const std::string name : {"prefill", "embed", "decode"}) {
    auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", name);
    ASSERT_TRUE(suite.ok()) << suite.status().message();
    auto options = Options(SPYRE_SOURCE_DIR "/suites",
                           name == "decode" ? SPYRE_SOURCE_DIR "/golden" : "/nonexistent-golden");
    options.judged = false;
    const harness::CaseSpec& c = suite->cases.front();
    const harness::CaseResult r = harness::ExecuteCase(*suite, c, options);
    EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << c.id << ": " << r.message;
    EXPECT_EQ(r.wall_us.size(), 1u) << c.id;
    EXPECT_TRUE(r.metrics.empty()) << c.id;
    EXPECT_FALSE(r.ops.empty()) << c.id;
    EXPECT_GT(r.modeled_us, 0) << c.id;
  }
}

TEST(MergeProfilesTest, ACountTheDeviceDoesNotProvideStaysNotProvided) {
  suites::DeviceProfile given, missing;
  given.fallback_ops = 3;
  given.peak_device_bytes = 100;
  missing.modeled_us = std::nan("");
  missing.fallback_ops = -1;
  missing.peak_device_bytes = -1;
  EXPECT_EQ(suites::MergeProfiles(given, given).fallback_ops, 6);
  EXPECT_EQ(suites::MergeProfiles(missing, missing).fallback_ops, -1);
  EXPECT_EQ(suites::MergeProfiles(missing, missing).peak_device_bytes, -1);
  EXPECT_TRUE(std::isnan(suites::MergeProfiles(missing, given).modeled_us));
}

}  // namespace
