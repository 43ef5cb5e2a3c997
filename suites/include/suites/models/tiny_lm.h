#pragma once
// The byte-level tokenizer of the project's trained model and the training
// loop that produced it (tools/train_tiny_lm): a Llama-family decoder
// (suites/decoder.h, the same forward the cases run) trained with AdamW on
// the CPU, deterministic from its seed for a given thread count and BLAS
// kernel.
//
//   ByteTokenizer tok;                                  // ids 0-255 bytes, then specials
//   std::vector<int64_t> ids = tok.Encode("Q: why?");   // <bos> + bytes
//   TinyLmTrainer t(config, options);
//   double loss = t.Step(t.Batch(stream, step));        // one optimizer step
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "base/status.h"
#include "suites/models/checkpoint.h"
#include "suites/models/model_config.h"

namespace suites {

// Bytes are their own ids (0-255); the specials follow.
class ByteTokenizer {
 public:
  static constexpr int64_t kBos = 256;
  static constexpr int64_t kEos = 257;
  static constexpr int64_t kPad = 258;
  static constexpr int64_t kVocab = 259;

  // <bos> followed by the text's bytes.
  std::vector<int64_t> Encode(const std::string& text) const;
  // Bytes as they are; specials as "<bos>", "<eos>", "<pad>"; other ids as "<id N>".
  std::string Decode(const std::vector<int64_t>& ids) const;
  std::string TokenText(int64_t id) const;
  // The description written beside the weights (tokenizer.json) and read
  // back by ParseTokenizer.
  nlohmann::json Describe() const;
};

// Reads <dir>/tokenizer.json (as ByteTokenizer::Describe writes it); errors
// name the file and what is wrong.
harness::StatusOr<ByteTokenizer> LoadTokenizer(const std::string& dir);

// The fortune files' texts, one fortune per string, split between training
// and held-out text (every `heldout_every`-th fortune is held out).
struct Corpus {
  std::vector<std::string> train;
  std::vector<std::string> heldout;
  int64_t train_bytes = 0;
  int64_t heldout_bytes = 0;
};
// Reads strfile(1) text files (fortunes separated by "%" lines).
harness::StatusOr<Corpus> ReadFortunes(const std::vector<std::string>& files,
                                       int64_t heldout_every);
// <bos> text <eos> for every text, concatenated.
std::vector<int64_t> TokenStream(const ByteTokenizer& tok, const std::vector<std::string>& texts);

struct TrainOptions {
  uint64_t seed = 1;
  int64_t steps = 1000;
  int64_t batch = 16;
  int64_t seq = 128;  // tokens per training window
  double lr = 3e-3;   // peak; linear warm-up, cosine decay to lr / 10
  int64_t warmup_steps = 50;
  double weight_decay = 0.01;
  double clip = 1.0;  // gradient norm
};

class TinyLmTrainer {
 public:
  // Initial weights: every linear and embedding weight N(0, 0.02^2) from the
  // project generator with `options.seed`, norm weights 1.
  TinyLmTrainer(const ModelConfig& config, const TrainOptions& options);

  // Windows [batch, seq + 1] of `stream` at offsets drawn from the seed and
  // the step number.
  at::Tensor Batch(const std::vector<int64_t>& stream, int64_t step) const;
  // One AdamW step on a batch [B, S + 1] (inputs tokens[:, :-1], targets
  // tokens[:, 1:]); returns the mean cross-entropy in nats before the step.
  double Step(const at::Tensor& tokens);
  // Mean bits per byte of the held-out stream, scored in windows of `seq`
  // tokens (each window starts without context), over targets that are
  // bytes.
  double BitsPerByte(const std::vector<int64_t>& stream) const;
  // Greedy continuation of `prompt` (token ids) for `n` tokens.
  std::vector<int64_t> Greedy(const std::vector<int64_t>& prompt, int64_t n) const;

  const Weights& weights() const { return weights_; }
  const ModelConfig& config() const { return config_; }
  int64_t steps_done() const { return step_; }

 private:
  ModelConfig config_;
  TrainOptions options_;
  Weights weights_;  // fp32 leaves requiring grad
  Weights m_, v_;    // AdamW moments
  int64_t step_ = 0;
};

// The unigram byte model's bits per byte on the held-out bytes, with byte
// frequencies counted on the training bytes (add-one smoothing).
double UnigramBitsPerByte(const Corpus& corpus);

// Writes config.json (Hugging Face llama), model.safetensors (float32) and
// tokenizer.json into `dir`.
harness::Status WriteTinyLmCheckpoint(const std::string& dir, const ModelConfig& config,
                                      const Weights& weights, const ByteTokenizer& tok,
                                      const nlohmann::json& training);

}  // namespace suites
