#pragma once
// The fused decoder layers as custom ops in the `spyre` namespace
// (TORCH_LIBRARY(spyre, m)), with CPU and PrivateUse1 implementations:
//   spyre::rms_norm(Tensor x, Tensor weight, float eps) -> Tensor
//   spyre::swiglu_mlp(Tensor x, Tensor w_gate_up, Tensor w_down) -> Tensor
//   spyre::gqa_attention(Tensor q, Tensor k, Tensor v, float scale, bool causal) -> Tensor
// Weights are [in, out]; w_gate_up is gate and up concatenated on dim 1.
// These wrappers call the ops through the dispatcher, so the device's
// registration is what runs for device tensors.
#include <ATen/ATen.h>

namespace suites {

at::Tensor SpyreRmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps);
at::Tensor SpyreSwigluMlp(const at::Tensor& x, const at::Tensor& w_gate_up,
                          const at::Tensor& w_down);
at::Tensor SpyreGqaAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             double scale, bool causal);

}  // namespace suites
