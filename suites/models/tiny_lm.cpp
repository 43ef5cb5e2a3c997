// The trained model's byte tokenizer and its training loop (suites/tiny_lm.h).
#include "suites/models/tiny_lm.h"

#include <c10/core/GradMode.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "harness/safetensors/safetensors.h"
#include "base/input_file.h"
#include "harness/inputs/generator.h"
#include "suites/models/decoder.h"

namespace suites {
namespace {

using harness::InvalidInput;

constexpr uint64_t kMaxTokenizerBytes = 1 << 16;

}  // namespace

std::vector<int64_t> ByteTokenizer::Encode(const std::string& text) const {
  std::vector<int64_t> ids = {kBos};
  for (const unsigned char c : text) ids.push_back(static_cast<int64_t>(c));
  return ids;
}

std::string ByteTokenizer::TokenText(int64_t id) const {
  if (id >= 0 && id < 256) return std::string(1, static_cast<char>(id));
  if (id == kBos) return "<bos>";
  if (id == kEos) return "<eos>";
  if (id == kPad) return "<pad>";
  return "<id " + std::to_string(id) + ">";
}

std::string ByteTokenizer::Decode(const std::vector<int64_t>& ids) const {
  std::string out;
  for (const int64_t id : ids) out += TokenText(id);
  return out;
}

nlohmann::json ByteTokenizer::Describe() const {
  return {{"type", "bytes"},
          {"bytes", "token ids 0-255 are the bytes of UTF-8 text"},
          {"vocab_size", kVocab},
          {"bos_token_id", kBos},
          {"eos_token_id", kEos},
          {"pad_token_id", kPad},
          {"add_bos", true},
          {"special_tokens", {{"<bos>", kBos}, {"<eos>", kEos}, {"<pad>", kPad}}}};
}

harness::StatusOr<ByteTokenizer> LoadTokenizer(const std::string& dir) {
  const std::string path = (std::filesystem::path(dir) / "tokenizer.json").string();
  SPYRE_ASSIGN_OR_RETURN(const std::string text,
                         harness::ReadInputFile(path, kMaxTokenizerBytes, "tokenizer description"));
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  const ByteTokenizer tok;
  const nlohmann::json want = tok.Describe();
  if (!j.is_object() || j.value("type", std::string()) != "bytes") {
    return InvalidInput(path +
                        ": not a byte tokenizer description (\"type\": \"bytes\"); "
                        "text prompts need one");
  }
  for (const char* key : {"vocab_size", "bos_token_id", "eos_token_id", "pad_token_id"}) {
    if (!j.contains(key) || j[key] != want[key]) {
      return InvalidInput(path + ": \"" + key + "\" must be " + want[key].dump() +
                          " (the byte tokenizer's layout)");
    }
  }
  return tok;
}

harness::StatusOr<Corpus> ReadFortunes(const std::vector<std::string>& files,
                                       int64_t heldout_every) {
  Corpus c;
  int64_t index = 0;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return harness::NotFound(file + ": cannot read the fortune file");
    std::string line, current;
    auto flush = [&] {
      while (!current.empty() && (current.back() == '\n' || current.back() == ' ')) {
        current.pop_back();
      }
      if (!current.empty()) {
        const bool held = heldout_every > 0 && index % heldout_every == heldout_every - 1;
        (held ? c.heldout : c.train).push_back(current);
        (held ? c.heldout_bytes : c.train_bytes) += static_cast<int64_t>(current.size());
        ++index;
      }
      current.clear();
    };
    while (std::getline(in, line)) {
      if (line == "%") {
        flush();
      } else {
        current += line + "\n";
      }
    }
    flush();
  }
  if (c.train.empty()) return InvalidInput("no fortunes in the files given");
  return c;
}

std::vector<int64_t> TokenStream(const ByteTokenizer& tok, const std::vector<std::string>& texts) {
  std::vector<int64_t> out;
  for (const auto& t : texts) {
    const std::vector<int64_t> ids = tok.Encode(t);
    out.insert(out.end(), ids.begin(), ids.end());
    out.push_back(ByteTokenizer::kEos);
  }
  return out;
}

TinyLmTrainer::TinyLmTrainer(const ModelConfig& config, const TrainOptions& options)
    : config_(config), options_(options) {
  const auto shapes = ExpectedTensors(config);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const auto& [name, shape] = shapes[i];
    harness::InputSpec spec;
    spec.shape = shape;
    if (name.find("norm") != std::string::npos) {
      spec.dist = harness::Distribution::kConst;
      spec.value = 1.0;
    } else {
      spec.scale = 0.02;
    }
    at::Tensor w = harness::GenerateInput(spec, options.seed, static_cast<int>(i));
    w.requires_grad_(true);
    weights_[name] = w;
    m_[name] = at::zeros_like(w).detach();
    v_[name] = at::zeros_like(w).detach();
  }
}

at::Tensor TinyLmTrainer::Batch(const std::vector<int64_t>& stream, int64_t step) const {
  const int64_t n = options_.seq + 1;
  TORCH_CHECK(static_cast<int64_t>(stream.size()) > n, "training stream shorter than a window");
  // mt19937_64 gives the same sequence on every platform for a seed.
  std::mt19937_64 rng(options_.seed * 1000003u + static_cast<uint64_t>(step));
  at::Tensor out = at::empty({options_.batch, n}, at::kLong);
  int64_t* p = out.data_ptr<int64_t>();
  const uint64_t range = stream.size() - static_cast<uint64_t>(n);
  for (int64_t b = 0; b < options_.batch; ++b) {
    const uint64_t start = rng() % range;
    std::copy_n(stream.begin() + static_cast<int64_t>(start), n, p + b * n);
  }
  return out;
}

double TinyLmTrainer::Step(const at::Tensor& tokens) {
  const int64_t s = tokens.size(1) - 1;
  DecoderModel model(config_, weights_, at::kCPU, at::kFloat, LayerImpl::kPortable, s);
  const at::Tensor logits = model.Prefill(tokens.narrow(1, 0, s));
  const at::Tensor loss = at::cross_entropy_loss(logits.reshape({-1, config_.vocab}),
                                                 tokens.narrow(1, 1, s).reshape({-1}));
  loss.backward();
  const double value = loss.item<double>();

  c10::AutoGradMode no_grad(false);
  ++step_;
  // Learning rate: linear warm-up, then cosine to a tenth of the peak.
  const double t = static_cast<double>(step_);
  const double warm = static_cast<double>(std::max<int64_t>(1, options_.warmup_steps));
  const double total = static_cast<double>(std::max<int64_t>(options_.steps, 1));
  double lr = options_.lr;
  if (t < warm) {
    lr *= t / warm;
  } else {
    const double f = std::min(1.0, (t - warm) / std::max(1.0, total - warm));
    lr *= 0.1 + 0.9 * 0.5 * (1 + std::cos(M_PI * f));
  }
  double norm2 = 0;
  for (auto& [name, w] : weights_) {
    if (w.grad().defined()) norm2 += w.grad().pow(2).sum().item<double>();
  }
  const double scale = std::sqrt(norm2) > options_.clip ? options_.clip / std::sqrt(norm2) : 1.0;
  constexpr double kB1 = 0.9, kB2 = 0.95, kEps = 1e-8;
  const double c1 = 1 - std::pow(kB1, t), c2 = 1 - std::pow(kB2, t);
  for (auto& [name, w] : weights_) {
    at::Tensor& g = w.mutable_grad();
    if (!g.defined()) continue;
    g.mul_(scale);
    m_[name].mul_(kB1).add_(g, 1 - kB1);
    v_[name].mul_(kB2).addcmul_(g, g, 1 - kB2);
    const bool decay = w.dim() == 2;  // not the norm weights
    if (decay) w.mul_(1 - lr * options_.weight_decay);
    w.addcdiv_(m_[name].div(c1), v_[name].div(c2).sqrt().add_(kEps), -lr);
    g = at::Tensor();
  }
  return value;
}

double TinyLmTrainer::BitsPerByte(const std::vector<int64_t>& stream) const {
  c10::AutoGradMode no_grad(false);
  const int64_t n = options_.seq + 1;
  const int64_t windows = static_cast<int64_t>(stream.size()) / n;
  if (windows == 0) return std::nan("");
  const at::Tensor all =
      at::tensor(std::vector<int64_t>(stream.begin(), stream.begin() + windows * n), at::kLong)
          .view({windows, n});
  DecoderModel model(config_, weights_, at::kCPU, at::kFloat, LayerImpl::kPortable, n);
  double nats = 0;
  int64_t bytes = 0;
  constexpr int64_t kChunk = 32;
  for (int64_t i = 0; i < windows; i += kChunk) {
    const at::Tensor w = all.narrow(0, i, std::min(kChunk, windows - i));
    const at::Tensor lp = at::log_softmax(model.Prefill(w.narrow(1, 0, n - 1)), -1);
    const at::Tensor targets = w.narrow(1, 1, n - 1);
    const at::Tensor picked = lp.gather(-1, targets.unsqueeze(-1)).squeeze(-1);
    const at::Tensor is_byte = targets.lt(256);
    nats -= picked.masked_select(is_byte).sum().item<double>();
    bytes += is_byte.sum().item<int64_t>();
  }
  return nats / static_cast<double>(bytes) / std::log(2.0);
}

std::vector<int64_t> TinyLmTrainer::Greedy(const std::vector<int64_t>& prompt, int64_t n) const {
  c10::AutoGradMode no_grad(false);
  DecoderModel model(config_, weights_, at::kCPU, at::kFloat, LayerImpl::kPortable,
                     static_cast<int64_t>(prompt.size()) + n);
  std::vector<int64_t> out;
  at::Tensor logits = model.Prefill(at::tensor(prompt, at::kLong).view({1, -1})).select(1, -1);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t next = logits.argmax(-1).item<int64_t>();
    out.push_back(next);
    if (i + 1 < n) logits = model.Step(at::tensor({next}, at::kLong).view({1, 1}));
  }
  return out;
}

double UnigramBitsPerByte(const Corpus& corpus) {
  std::vector<double> count(256, 1.0);
  double total = 256;
  for (const auto& t : corpus.train) {
    for (const unsigned char c : t) count[c] += 1, total += 1;
  }
  double bits = 0;
  int64_t n = 0;
  for (const auto& t : corpus.heldout) {
    for (const unsigned char c : t) bits -= std::log2(count[c] / total), ++n;
  }
  return n > 0 ? bits / static_cast<double>(n) : std::nan("");
}

harness::Status WriteTinyLmCheckpoint(const std::string& dir, const ModelConfig& config,
                                      const Weights& weights, const ByteTokenizer& tok,
                                      const nlohmann::json& training) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  nlohmann::json cfg = {{"model_type", "llama"},
                        {"architectures", {"LlamaForCausalLM"}},
                        {"hidden_size", config.hidden},
                        {"num_hidden_layers", config.layers},
                        {"num_attention_heads", config.heads},
                        {"num_key_value_heads", config.kv_heads},
                        {"intermediate_size", config.intermediate},
                        {"vocab_size", config.vocab},
                        {"max_position_embeddings", config.max_positions},
                        {"rms_norm_eps", config.norm_eps},
                        {"rope_theta", config.rope_theta},
                        {"tie_word_embeddings", config.tie_embeddings},
                        {"hidden_act", "silu"},
                        {"bos_token_id", ByteTokenizer::kBos},
                        {"eos_token_id", ByteTokenizer::kEos},
                        {"torch_dtype", "float32"}};
  auto write = [&](const std::string& name, const std::string& text) -> harness::Status {
    const std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) return harness::Status(harness::ErrorCode::kIo, path + ": cannot write");
    return harness::Status::Ok();
  };
  SPYRE_RETURN_IF_ERROR(write("config.json", cfg.dump(2) + "\n"));
  SPYRE_RETURN_IF_ERROR(write("tokenizer.json", tok.Describe().dump(2) + "\n"));
  SPYRE_RETURN_IF_ERROR(write("training.json", training.dump(2) + "\n"));
  harness::SafetensorsFile f;
  for (const auto& [name, shape] : ExpectedTensors(config)) {
    f.tensors.emplace_back(name, weights.at(name).detach().contiguous().clone());
  }
  f.metadata = {{"format", "pt"}};
  return harness::WriteSafetensors((std::filesystem::path(dir) / "model.safetensors").string(), f);
}

}  // namespace suites
