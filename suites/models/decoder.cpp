// DecoderModel: Llama / Granite forward with a KV cache (suites/decoder.h).
#include "suites/models/decoder.h"

#include <cmath>

#include "paged_kv_cache.h"
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
  const at::Tensor attn = Attend(q, layer.k_cache, layer.v_cache);
  return Held(Linear(attn.transpose(1, 2).reshape({b, s, config_.hidden}), layer.wo));
}

at::Tensor DecoderModel::Attend(const at::Tensor& q, const at::Tensor& k,
                                const at::Tensor& v) const {
  const double scale = config_.attention_scale();
  return Held(impl_ == LayerImpl::kFused ? SpyreGqaAttention(q, k, v, scale, /*causal=*/true)
                                         : Attention(q, k, v, scale, /*causal=*/true));
}

at::Tensor DecoderModel::PagedAttentionBlock(Layer& layer, int64_t layer_index, const at::Tensor& x,
                                             const std::vector<PagedSegment>& segments,
                                             PagedKvCache* cache) {
  const int64_t t = x.size(1), d = config_.head_dim();
  // Every segment's projections in one matmul each: [1, heads, T, D].
  auto heads = [&](const at::Tensor& w, int64_t n) {
    return Held(Linear(x, w)).view({1, t, n, d}).transpose(1, 2).contiguous();
  };
  const at::Tensor q_all = heads(layer.wq, config_.heads);
  const at::Tensor k_all = heads(layer.wk, config_.kv_heads);
  const at::Tensor v_all = heads(layer.wv, config_.kv_heads);
  std::vector<at::Tensor> outs;
  int64_t start = 0;
  for (const PagedSegment& seg : segments) {
    const int64_t s = seg.tokens;
    const at::Tensor cos = cos_.narrow(0, seg.position, s), sin = sin_.narrow(0, seg.position, s);
    auto part = [&](const at::Tensor& all) { return all.narrow(2, start, s).contiguous(); };
    const at::Tensor q = Held(ApplyRope(part(q_all), cos, sin));
    const at::Tensor k = Held(ApplyRope(part(k_all), cos, sin));
    cache->Write(layer_index, *seg.blocks, seg.position, k, part(v_all));
    const auto [keys, values] = cache->Read(layer_index, *seg.blocks, seg.position + s);
    outs.push_back(Attend(q, keys, values).transpose(1, 2).reshape({1, s, config_.hidden}));
    start += s;
  }
  const at::Tensor attn = outs.size() == 1 ? outs[0] : at::cat(outs, 1);
  return Held(Linear(attn, layer.wo));
}

at::Tensor DecoderModel::Forward(const at::Tensor& tokens) {
  TORCH_CHECK(tokens.dim() == 2, "decoder tokens must be [batch, sequence], got ", tokens.sizes());
  const int64_t s = tokens.size(1), pos = cached_;
  TORCH_CHECK(pos + s <= max_len_, "sequence of ", pos + s, " tokens exceeds the model's max_len ",
              max_len_);
  at::Tensor logits = RunLayers(tokens, [&](Layer& layer, int64_t, const at::Tensor& x) {
    return AttentionBlock(layer, x, pos);
  });
  cached_ = pos + s;
  return logits;
}

at::Tensor DecoderModel::StepPaged(const at::Tensor& tokens,
                                   const std::vector<PagedSegment>& segments, PagedKvCache* cache) {
  TORCH_CHECK(tokens.dim() == 2 && tokens.size(0) == 1, "StepPaged tokens must be [1, T], got ",
              tokens.sizes());
  int64_t total = 0;
  for (const PagedSegment& seg : segments) {
    TORCH_CHECK(seg.position + seg.tokens <= max_len_, "sequence of ", seg.position + seg.tokens,
                " tokens exceeds the model's max_len ", max_len_);
    total += seg.tokens;
  }
  TORCH_CHECK(total == tokens.size(1), "StepPaged: the segments cover ", total, " of ",
              tokens.size(1), " tokens");
  const at::Tensor logits =
      RunLayers(tokens, [&](Layer& layer, int64_t index, const at::Tensor& x) {
        return PagedAttentionBlock(layer, index, x, segments, cache);
      });
  // Each segment's last position.
  std::vector<int64_t> last;
  int64_t end = 0;
  for (const PagedSegment& seg : segments) {
    end += seg.tokens;
    last.push_back(end - 1);
  }
  std::vector<at::Tensor> rows;
  for (const int64_t i : last) rows.push_back(logits.select(0, 0).narrow(0, i, 1));
  return rows.size() == 1 ? rows[0] : at::cat(rows, 0);
}

at::Tensor DecoderModel::RunLayers(const at::Tensor& tokens, const AttentionFn& attend) {
  const bool fused = impl_ == LayerImpl::kFused;
  auto norm = [&](const at::Tensor& x, const at::Tensor& w) {
    return Held(fused ? SpyreRmsNorm(x, w, config_.norm_eps) : RmsNorm(x, w, config_.norm_eps));
  };
  at::Tensor x = at::embedding(embed_, tokens.to(device_));
  if (config_.embedding_multiplier != 1.0) x = Held(x.mul(config_.embedding_multiplier));
  const double residual = config_.residual_multiplier;
  for (size_t l = 0; l < layers_.size(); ++l) {
    Layer& layer = layers_[l];
    x = Held(x.add(attend(layer, static_cast<int64_t>(l), norm(x, layer.input_norm)), residual));
    const at::Tensor h = norm(x, layer.post_norm);
    const at::Tensor mlp = Held(fused ? SpyreSwigluMlp(h, layer.w_gate_up, layer.w_down)
                                      : SwiGlu(h, layer.w_gate, layer.w_up, layer.w_down));
    x = Held(x.add(mlp, residual));
  }
  at::Tensor logits = Held(Linear(norm(x, final_norm_), head_));
  if (config_.logits_scaling != 1.0) logits = Held(logits.div(config_.logits_scaling));
  return logits;
}

}  // namespace suites
