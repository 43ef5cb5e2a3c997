// The trained model's tokenizer and training loop: a few AdamW steps on a
// small text lower the loss, the same seed gives the same weights, and the
// checkpoint written loads through the checkpoint path with its tokenizer.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>

#include <filesystem>

#include "harness/golden/golden.h"
#include "harness/case_kinds/case_kinds.h"
#include "suites/models/checkpoint.h"
#include "suites/models/decoder.h"
#include "suites/models/tiny_lm.h"
#include "support/temp_dir.h"

namespace {

suites::ModelConfig SmallConfig() {
  suites::ModelConfig c;
  c.name = "small";
  c.model_type = "llama";
  c.hidden = 32;
  c.layers = 1;
  c.heads = 2;
  c.kv_heads = 1;
  c.intermediate = 64;
  c.vocab = suites::ByteTokenizer::kVocab;
  c.max_positions = 64;
  c.norm_eps = 1e-5;
  c.tie_embeddings = true;
  return c;
}

std::vector<std::string> Texts() {
  return {"the cat sat on the mat.", "the dog sat on the log.", "a cat and a dog sat.",
          "the mat is on the log.", "on the mat the cat sat."};
}

TEST(TinyLmTest, TheTokenizerRoundTripsBytesAndNamesSpecials) {
  const suites::ByteTokenizer tok;
  const std::vector<int64_t> ids = tok.Encode("A\n\xc3\xa9");
  ASSERT_EQ(ids.size(), 5u);
  EXPECT_EQ(ids[0], suites::ByteTokenizer::kBos);
  EXPECT_EQ(ids[1], 'A');
  EXPECT_EQ(ids[3], 0xc3);
  EXPECT_EQ(tok.Decode(ids), "<bos>A\n\xc3\xa9");
  EXPECT_EQ(tok.TokenText(suites::ByteTokenizer::kEos), "<eos>");
}

TEST(TinyLmTest, AFewStepsLowerTheLossAndTheSeedFixesTheWeights) {
  at::set_num_threads(1);
  const suites::ByteTokenizer tok;
  const std::vector<int64_t> stream = suites::TokenStream(tok, Texts());
  suites::TrainOptions o;
  o.seed = 5;
  o.steps = 40;
  o.batch = 8;
  o.seq = 16;
  o.warmup_steps = 5;
  o.lr = 1e-2;
  suites::TinyLmTrainer a(SmallConfig(), o), b(SmallConfig(), o);
  double first = 0, last = 0;
  for (int64_t step = 0; step < o.steps; ++step) {
    const double loss = a.Step(a.Batch(stream, step));
    if (step < 5) first += loss / 5;
    if (step >= o.steps - 5) last += loss / 5;
  }
  // From about ln(259) = 5.6 nats (uniform over the vocabulary) to well below.
  EXPECT_GT(first, 4.5);
  EXPECT_LT(last, first - 1.5) << "first " << first << ", last " << last;
  // Bits per byte on the training text itself fall below the uniform 8.
  EXPECT_LT(a.BitsPerByte(stream), 6.0);
  for (int64_t step = 0; step < o.steps; ++step) b.Step(b.Batch(stream, step));
  for (const auto& [name, w] : a.weights()) {
    EXPECT_TRUE(at::equal(w, b.weights().at(name))) << name;
  }
}

TEST(TinyLmTest, TheCheckpointLoadsWithItsTokenizer) {
  spyre_test::TempDir dir;
  suites::TrainOptions o;
  o.steps = 1;
  o.batch = 2;
  o.seq = 8;
  suites::TinyLmTrainer t(SmallConfig(), o);
  const suites::ByteTokenizer tok;
  ASSERT_TRUE(
      suites::WriteTinyLmCheckpoint(dir.path(), SmallConfig(), t.weights(), tok, {{"seed", 1}})
          .ok());
  auto ck = suites::LoadCheckpoint(dir.path());
  ASSERT_TRUE(ck.ok()) << ck.status().message();
  EXPECT_EQ(ck->config.hidden, 32);
  EXPECT_TRUE(ck->config.tie_embeddings);
  EXPECT_TRUE(suites::LoadTokenizer(dir.path()).ok());
  spyre_test::WriteFile(dir.File("tokenizer.json"), R"({"type": "bpe"})");
  auto bad = suites::LoadTokenizer(dir.path());
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("tokenizer.json: not a byte tokenizer"), std::string::npos)
      << bad.status().message();
}

// A suite "m" of one decode case on the checkpoint models/t with `model`
// members added; returns the load error, or "" when it loads.
std::string WriteTextSuite(const spyre_test::TempDir& dir, const nlohmann::json& extra) {
  nlohmann::json model = {{"checkpoint", "models/t"}, {"steps", 6}};
  model.update(extra);
  nlohmann::json doc = {{"name", "m"},
                        {"cases", {{{"id", "c"}, {"kind", "decode"}, {"model", model}}}}};
  spyre_test::WriteFile(dir.File("m.json"), doc.dump());
  auto s = harness::LoadSuite(dir.path(), "m");
  return s.ok() ? "" : s.status().message();
}

TEST(TinyLmTest, TextPromptsAreTokenizedCheckedAndDecodedBackToText) {
  spyre_test::TempDir dir;
  suites::TrainOptions o;
  o.steps = 1;
  suites::TinyLmTrainer t(SmallConfig(), o);
  ASSERT_TRUE(suites::WriteTinyLmCheckpoint(dir.File("models/t"), SmallConfig(), t.weights(),
                                            suites::ByteTokenizer(), {{"seed", 1}})
                  .ok());
  EXPECT_NE(WriteTextSuite(dir, {{"prompts_text", {"abcd", "abcde"}}})
                .find("/cases/0/model/prompts_text/1: 6 tokens where prompt 0 has 5"),
            std::string::npos)
      << WriteTextSuite(dir, {{"prompts_text", {"abcd", "abcde"}}});
  EXPECT_NE(WriteTextSuite(dir, {{"prompts_text", {"ab"}}, {"prompts", {{1, 2}}}}).find("not both"),
            std::string::npos);
  EXPECT_NE(WriteTextSuite(dir, {{"prompts_text", {""}}}).find("a non-empty string"),
            std::string::npos);
  std::filesystem::rename(dir.File("models/t/tokenizer.json"), dir.File("models/t/tok.json"));
  EXPECT_NE(WriteTextSuite(dir, {{"prompts_text", {"ab"}}}).find("tokenizer.json"),
            std::string::npos)
      << WriteTextSuite(dir, {{"prompts_text", {"ab"}}});
  std::filesystem::rename(dir.File("models/t/tok.json"), dir.File("models/t/tokenizer.json"));

  ASSERT_EQ(WriteTextSuite(dir, {{"prompts_text", {"a\"b", "cd\n"}}}), "");
  auto suite = harness::LoadSuite(dir.path(), "m");
  ASSERT_TRUE(suite.ok());
  harness::ExecOptions options;
  options.suites_dir = dir.path();
  options.golden_dir = dir.File("golden");
  options.warmup = 0;
  options.repeat = 1;
  ASSERT_TRUE(harness::GenerateGolden(*suite, options).ok());
  const harness::CaseResult r = harness::ExecuteCase(*suite, suite->cases[0], options);
  EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << r.message;
  ASSERT_TRUE(r.extra.contains("text")) << r.extra.dump();
  ASSERT_EQ(r.extra["text"].size(), 2u);
  // The prompt without <bos>, escaped as the reports show it.
  EXPECT_EQ(r.extra["text"][0]["prompt"], "a\"b");
  EXPECT_EQ(r.extra["text"][1]["prompt"], "cd\\n");
  EXPECT_EQ(r.extra["text"][0]["golden"].size(), 6u);
  EXPECT_EQ(r.extra["text"][0]["device"].size(), 6u);
}

}  // namespace
