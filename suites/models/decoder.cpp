// DecoderModel: Llama / Granite forward with a KV cache (suites/decoder.h).
#include "suites/models/decoder.h"

#include <cmath>

#include "suites/models/fused_ops.h"
#include "suites/models/model_layers.h"

namespace suites {
namespace {

// Weight as stored -> fp32 -> dtype -> device; `transpose` for [in, out].
at::Tensor Place(const at::Tensor& w, bool transpose, c10::Device device, at::ScalarType dtype) {
  at::Tensor t = w.to(at::kFloat);
  if (transpose) t = t.t();
  return t.contiguous().to(dtype).to(device);
}

}  // namespace

const char* LayerImplName(LayerImpl impl) {
  return impl == LayerImpl::kFused ? "fused" : "portable";
}

DecoderModel::DecoderModel(const ModelConfig& config, const Weights& weights, c10::Device device,
                           at::ScalarType dtype, LayerImpl impl, int64_t max_len,
                           BoundaryRounding rounding)
    : config_(config),
      device_(device),
      dtype_(dtype),
      impl_(impl),
      max_len_(max_len),
      rounding_(std::move(rounding)) {
  auto held = [&](const at::Tensor& t) { return rounding_.weights ? rounding_.weights(t) : t; };
  auto w = [&](const std::string& name, bool transpose) {
    return Place(held(weights.at(name).to(at::kFloat)), transpose, device, dtype);
  };
  embed_ = w("model.embed_tokens.weight", false);
  final_norm_ = w("model.norm.weight", false);
  head_ = config.tie_embeddings ? w("model.embed_tokens.weight", true) : w("lm_head.weight", true);
  for (int64_t l = 0; l < config.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    Layer layer;
    layer.input_norm = w(p + "input_layernorm.weight", false);
    layer.post_norm = w(p + "post_attention_layernorm.weight", false);
    layer.wq = w(p + "self_attn.q_proj.weight", true);
    layer.wk = w(p + "self_attn.k_proj.weight", true);
    layer.wv = w(p + "self_attn.v_proj.weight", true);
    layer.wo = w(p + "self_attn.o_proj.weight", true);
    if (impl == LayerImpl::kFused) {
      const at::Tensor gate_up = at::cat({weights.at(p + "mlp.gate_proj.weight").to(at::kFloat),
                                          weights.at(p + "mlp.up_proj.weight").to(at::kFloat)});
      layer.w_gate_up = Place(held(gate_up), true, device, dtype);
    } else {
      layer.w_gate = w(p + "mlp.gate_proj.weight", true);
      layer.w_up = w(p + "mlp.up_proj.weight", true);
    }
    layer.w_down = w(p + "mlp.down_proj.weight", true);
    layers_.push_back(std::move(layer));
  }
  // RoPE tables in double on the CPU: cos/sin of position * theta^(-2i/D),
  // the frequencies repeated for both halves (HF rotate-half layout).
  const int64_t d = config.head_dim();
  at::Tensor inv = at::arange(0, d, 2, at::kDouble).div(static_cast<double>(d));
  inv = at::pow(config.rope_theta, inv).reciprocal();
  const at::Tensor angles = at::outer(at::arange(max_len, at::kDouble), inv);
  const at::Tensor full = at::cat({angles, angles}, -1);
  cos_ = held(full.cos()).to(dtype).to(device);
  sin_ = held(full.sin()).to(dtype).to(device);
}

at::Tensor DecoderModel::Prefill(const at::Tensor& tokens) {
  cached_ = 0;
  return Forward(tokens);
}

at::Tensor DecoderModel::Step(const at::Tensor& tokens) {
  TORCH_CHECK(cached_ > 0, "DecoderModel::Step before Prefill");
  return Forward(tokens).select(1, 0);
}

at::Tensor DecoderModel::AttentionBlock(Layer& layer, const at::Tensor& x, int64_t pos) {
  const int64_t b = x.size(0), s = x.size(1), d = config_.head_dim();
  auto heads = [&](const at::Tensor& w, int64_t n) {
    return Held(Linear(x, w)).view({b, s, n, d}).transpose(1, 2).contiguous();
  };
  const at::Tensor cos = cos_.narrow(0, pos, s), sin = sin_.narrow(0, pos, s);
  const at::Tensor q = Held(ApplyRope(heads(layer.wq, config_.heads), cos, sin));
  const at::Tensor k = Held(ApplyRope(heads(layer.wk, config_.kv_heads), cos, sin));
  const at::Tensor v = heads(layer.wv, config_.kv_heads);
  layer.k_cache = pos == 0 ? k : at::cat({layer.k_cache, k}, 2);
  layer.v_cache = pos == 0 ? v : at::cat({layer.v_cache, v}, 2);
  const double scale = config_.attention_scale();
  const at::Tensor attn =
      Held(impl_ == LayerImpl::kFused
               ? SpyreGqaAttention(q, layer.k_cache, layer.v_cache, scale, /*causal=*/true)
               : Attention(q, layer.k_cache, layer.v_cache, scale, /*causal=*/true));
  return Held(Linear(attn.transpose(1, 2).reshape({b, s, config_.hidden}), layer.wo));
}

at::Tensor DecoderModel::Forward(const at::Tensor& tokens) {
  TORCH_CHECK(tokens.dim() == 2, "decoder tokens must be [batch, sequence], got ", tokens.sizes());
  const int64_t s = tokens.size(1), pos = cached_;
  TORCH_CHECK(pos + s <= max_len_, "sequence of ", pos + s, " tokens exceeds the model's max_len ",
              max_len_);
  const bool fused = impl_ == LayerImpl::kFused;
  auto norm = [&](const at::Tensor& x, const at::Tensor& w) {
    return Held(fused ? SpyreRmsNorm(x, w, config_.norm_eps) : RmsNorm(x, w, config_.norm_eps));
  };
  at::Tensor x = at::embedding(embed_, tokens.to(device_));
  if (config_.embedding_multiplier != 1.0) x = Held(x.mul(config_.embedding_multiplier));
  const double residual = config_.residual_multiplier;
  for (Layer& layer : layers_) {
    x = Held(x.add(AttentionBlock(layer, norm(x, layer.input_norm), pos), residual));
    const at::Tensor h = norm(x, layer.post_norm);
    const at::Tensor mlp = Held(fused ? SpyreSwigluMlp(h, layer.w_gate_up, layer.w_down)
                                      : SwiGlu(h, layer.w_gate, layer.w_up, layer.w_down));
    x = Held(x.add(mlp, residual));
  }
  at::Tensor logits = Held(Linear(norm(x, final_norm_), head_));
  if (config_.logits_scaling != 1.0) logits = Held(logits.div(config_.logits_scaling));
  cached_ = pos + s;
  return logits;
}

}  // namespace suites
