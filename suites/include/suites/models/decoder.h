#pragma once
// The decoder family (Llama, Granite 3.x) over plain ATen ops: the same code
// runs on the CPU (golden, fp32) and on the emulated device (fp16).
//
//   DecoderModel m(config, weights, DeviceUnderTest(), at::kHalf, LayerImpl::kPortable);
//   at::Tensor logits = m.Prefill(prompt);       // [B, S, V], fills the KV cache
//   at::Tensor next = m.Step(tokens);            // tokens [B, 1] -> logits [B, V]
//   at::Tensor last = m.StepPaged(tokens, segments, &cache);   // serving
//
// Layers: RMSNorm, RoPE (rotate-half, HF layout), grouped-query attention
// with a KV cache kept on the model's device, SwiGLU MLP, Granite's
// multipliers, tied or untied embeddings. Prompts in one batch have equal
// lengths (no padding). Logits are returned in the model dtype.
#include <cstdint>
#include <functional>
#include <vector>

#include <ATen/ATen.h>
#include <c10/core/Device.h>

#include "suites/models/checkpoint.h"
#include "suites/models/model_config.h"

namespace suites {

// portable: a composition of ATen ops (what any backend runs). fused: the
// spyre::rms_norm / spyre::swiglu_mlp / spyre::gqa_attention custom ops
// (suites/fused_ops.h): one gate+up matmul, attention without materialising
// the repeated K/V heads.
enum class LayerImpl { kPortable, kFused };
const char* LayerImplName(LayerImpl impl);  // "portable", "fused"

// Values rounded at the layer boundaries: the CPU computing in fp32 while
// holding weights and activations the way a device holds another dtype (the
// decode yardstick, model_case.h). `weights` maps a host weight to the value
// the device holds; `activations` maps a computed value to the value the
// device stores. Applied to every weight, the RoPE tables, the embedding
// output, each norm, projection, RoPE, attention and MLP output, the
// residual stream after each add, and the logits.
struct BoundaryRounding {
  std::function<at::Tensor(const at::Tensor&)> weights;
  std::function<at::Tensor(const at::Tensor&)> activations;
};

class PagedKvCache;

// One sequence's share of a serving step (StepPaged): `tokens` consecutive
// positions from `position` on, its keys and values kept in the blocks
// `blocks` lists.
struct PagedSegment {
  int64_t position = 0;
  int64_t tokens = 1;
  const std::vector<int64_t>* blocks = nullptr;
};

class DecoderModel {
 public:
  // Copies the weights to `device` in `dtype` (linear weights stored
  // transposed, [in, out], so every projection is one mm). `max_len` bounds
  // prompt + generated tokens (RoPE tables). `rounding`, when given, is
  // applied as BoundaryRounding describes (the model computes in `dtype`).
  DecoderModel(const ModelConfig& config, const Weights& weights, c10::Device device,
               at::ScalarType dtype, LayerImpl impl, int64_t max_len = 512,
               BoundaryRounding rounding = {});

  // tokens [B, S] int64 on any device. Resets the cache. Logits [B, S, V].
  at::Tensor Prefill(const at::Tensor& tokens);
  // tokens [B, 1]; appends to the cache. Logits [B, V].
  at::Tensor Step(const at::Tensor& tokens);
  int64_t cached_length() const { return cached_; }

  // One step of continuous batching: tokens [1, T] are the segments' tokens
  // one after another (T their total). The projections and the MLP see all
  // T at once; each segment's attention writes its keys and values to
  // `cache` and reads its whole past back through its block table. Returns
  // the logits of each segment's last position, [segments, V]. Leaves the
  // model's own cache (Prefill / Step) alone.
  at::Tensor StepPaged(const at::Tensor& tokens, const std::vector<PagedSegment>& segments,
                       PagedKvCache* cache);

 private:
  struct Layer {
    at::Tensor input_norm, post_norm;
    at::Tensor wq, wk, wv, wo;  // [in, out]
    at::Tensor w_gate, w_up, w_down;
    at::Tensor w_gate_up;         // fused: [hidden, 2 * intermediate]
    at::Tensor k_cache, v_cache;  // [B, kv_heads, T, head_dim]
  };
  using AttentionFn = std::function<at::Tensor(Layer&, int64_t layer_index, const at::Tensor& x)>;
  at::Tensor Forward(const at::Tensor& tokens);  // [B, S] -> logits [B, S, V]
  // The layers and the head over `tokens`, attention by `attend`.
  at::Tensor RunLayers(const at::Tensor& tokens, const AttentionFn& attend);
  at::Tensor AttentionBlock(Layer& layer, const at::Tensor& x, int64_t pos);
  at::Tensor PagedAttentionBlock(Layer& layer, int64_t layer_index, const at::Tensor& x,
                                 const std::vector<PagedSegment>& segments, PagedKvCache* cache);
  at::Tensor Attend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v) const;
  // An activation as the model holds it (unchanged without a rounding).
  at::Tensor Held(const at::Tensor& t) const {
    return rounding_.activations ? rounding_.activations(t) : t;
  }

  ModelConfig config_;
  c10::Device device_;
  at::ScalarType dtype_;
  LayerImpl impl_;
  int64_t max_len_;
  BoundaryRounding rounding_;
  at::Tensor embed_, final_norm_, head_;  // head_: [hidden, vocab]
  at::Tensor cos_, sin_;                  // [max_len, head_dim]
  std::vector<Layer> layers_;
  int64_t cached_ = 0;
};

}  // namespace suites
