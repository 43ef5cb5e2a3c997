// The trained model's tokenizer and training loop: a few AdamW steps on a
// small text lower the loss, the same seed gives the same weights, and the
// checkpoint written loads through the checkpoint path with its tokenizer.
#include <gtest/gtest.h>

#include <ATen/Parallel.h>

#include "suites/checkpoint.h"
#include "suites/decoder.h"
#include "suites/tiny_lm.h"
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

}  // namespace
