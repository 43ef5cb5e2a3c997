// EncoderModel: BERT / RoBERTa forward and mean pooling (suites/encoder.h).
#include "suites/models/encoder.h"

#include "suites/models/model_layers.h"

namespace suites {

EncoderModel::EncoderModel(const ModelConfig& config, const Weights& weights, c10::Device device,
                           at::ScalarType dtype)
    : config_(config), device_(device) {
  for (const auto& [name, t] : weights) {
    at::Tensor f = t.to(at::kFloat);
    // 2-D weights of dense layers become [in, out]; embeddings stay rows.
    if (f.dim() == 2 && name.find("embeddings.") != 0) f = f.t();
    w_[name] = f.contiguous().to(dtype).to(device);
  }
}

at::Tensor EncoderModel::Embed(const at::Tensor& tokens) const {
  TORCH_CHECK(tokens.dim() == 2, "encoder tokens must be [batch, sequence], got ", tokens.sizes());
  const int64_t b = tokens.size(0), s = tokens.size(1), h = config_.hidden;
  const int64_t heads = config_.heads, d = config_.head_dim();
  TORCH_CHECK(s + config_.position_offset <= config_.max_positions, "sequence of ", s,
              " tokens exceeds max_positions ", config_.max_positions);
  auto w = [&](const std::string& name) -> const at::Tensor& { return w_.at(name); };
  auto layer_norm = [&](const at::Tensor& x, const std::string& p) {
    return at::layer_norm(x, {h}, w(p + ".weight"), w(p + ".bias"), config_.norm_eps);
  };
  const at::Tensor positions =
      at::arange(config_.position_offset, config_.position_offset + s, at::kLong).to(device_);
  const at::Tensor types = at::zeros({1}, at::kLong).to(device_);
  at::Tensor x = at::embedding(w("embeddings.word_embeddings.weight"), tokens.to(device_))
                     .add(at::embedding(w("embeddings.position_embeddings.weight"), positions))
                     .add(at::embedding(w("embeddings.token_type_embeddings.weight"), types));
  x = layer_norm(x, "embeddings.LayerNorm");
  for (int64_t l = 0; l < config_.layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    auto dense = [&](const at::Tensor& in, const std::string& name) {
      return Linear(in, w(p + name + ".weight"), w(p + name + ".bias"));
    };
    auto split = [&](const at::Tensor& t) {
      return t.view({b, s, heads, d}).transpose(1, 2).contiguous();
    };
    const at::Tensor attn = Attention(
        split(dense(x, "attention.self.query")), split(dense(x, "attention.self.key")),
        split(dense(x, "attention.self.value")), config_.attention_scale(), /*causal=*/false);
    const at::Tensor merged = attn.transpose(1, 2).reshape({b, s, h});
    x = layer_norm(dense(merged, "attention.output.dense").add(x),
                   p + "attention.output.LayerNorm");
    const at::Tensor inter = at::gelu(dense(x, "intermediate.dense"));
    x = layer_norm(dense(inter, "output.dense").add(x), p + "output.LayerNorm");
  }
  return x.mean({1});
}

}  // namespace suites
