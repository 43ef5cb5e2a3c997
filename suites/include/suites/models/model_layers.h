#pragma once
// The layer functions both decoder implementations and the encoder are built
// from, written over ATen ops so they run on any device in any float dtype.
// The fused custom ops (spyre::*) call the *Fused variants.
#include <ATen/ATen.h>

namespace suites {

// x * rsqrt(mean(x^2, -1) + eps) * w.
at::Tensor RmsNorm(const at::Tensor& x, const at::Tensor& w, double eps);
// x [.., in] . w [in, out] (+ bias) as one 2-D mm / addmm.
at::Tensor Linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias = {});
// down(silu(x . gate) * (x . up)); weights [in, out].
at::Tensor SwiGlu(const at::Tensor& x, const at::Tensor& w_gate, const at::Tensor& w_up,
                  const at::Tensor& w_down);
// Same with gate and up concatenated ([in, 2f]): one matmul for both.
at::Tensor SwiGluFused(const at::Tensor& x, const at::Tensor& w_gate_up, const at::Tensor& w_down);
// RoPE (rotate-half): x [B, H, S, D], cos/sin [S, D].
at::Tensor ApplyRope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin);
// Scaled dot-product attention. q [B, H, S, D]; k, v [B, KVH, T, D] with
// H % KVH == 0; query i sits at position T - S + i and sees keys 0..T-S+i
// when `causal`. Returns [B, H, S, D]. The portable form repeats K/V per
// query head; the fused form groups the query heads of one KV head instead.
at::Tensor Attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, double scale,
                     bool causal);
at::Tensor AttentionFused(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          double scale, bool causal);

// The additive causal bias [S, T] (0 or a large negative finite value: DL16
// has no infinity), in `dtype` on `device`.
at::Tensor CausalBias(int64_t s, int64_t t, at::ScalarType dtype, c10::Device device);

}  // namespace suites
