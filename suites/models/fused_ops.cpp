// Registration of the spyre:: fused layer ops. The device implementation is
// the grouped form of each layer (one gate+up matmul; the query heads of a
// K/V head in one batched matmul) built from device kernels; the CPU
// implementation is the same code, so golden parity covers both.
#include "suites/models/fused_ops.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/library.h>

#include "suites/models/model_layers.h"

namespace suites {
namespace {

at::Tensor RmsNormImpl(const at::Tensor& x, const at::Tensor& weight, double eps) {
  return RmsNorm(x, weight, eps);
}

at::Tensor SwigluImpl(const at::Tensor& x, const at::Tensor& w_gate_up, const at::Tensor& w_down) {
  return SwiGluFused(x, w_gate_up, w_down);
}

at::Tensor AttentionImpl(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                         double scale, bool causal) {
  return AttentionFused(q, k, v, scale, causal);
}

}  // namespace

TORCH_LIBRARY(spyre, m) {
  m.def("rms_norm(Tensor x, Tensor weight, float eps) -> Tensor");
  m.def("swiglu_mlp(Tensor x, Tensor w_gate_up, Tensor w_down) -> Tensor");
  m.def("gqa_attention(Tensor q, Tensor k, Tensor v, float scale, bool causal) -> Tensor");
}

// Inference only: autograd passes straight through to the backend kernels
// (no backward is defined for the fused layers).
TORCH_LIBRARY_IMPL(spyre, Autograd, m) {
  m.impl("rms_norm", torch::CppFunction::makeFallthrough());
  m.impl("swiglu_mlp", torch::CppFunction::makeFallthrough());
  m.impl("gqa_attention", torch::CppFunction::makeFallthrough());
}

TORCH_LIBRARY_IMPL(spyre, CPU, m) {
  m.impl("rms_norm", &RmsNormImpl);
  m.impl("swiglu_mlp", &SwigluImpl);
  m.impl("gqa_attention", &AttentionImpl);
}

TORCH_LIBRARY_IMPL(spyre, PrivateUse1, m) {
  m.impl("rms_norm", &RmsNormImpl);
  m.impl("swiglu_mlp", &SwigluImpl);
  m.impl("gqa_attention", &AttentionImpl);
}

at::Tensor SpyreRmsNorm(const at::Tensor& x, const at::Tensor& weight, double eps) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("spyre::rms_norm", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&, double)>();
  return op.call(x, weight, eps);
}

at::Tensor SpyreSwigluMlp(const at::Tensor& x, const at::Tensor& w_gate_up,
                          const at::Tensor& w_down) {
  static const auto op =
      c10::Dispatcher::singleton()
          .findSchemaOrThrow("spyre::swiglu_mlp", "")
          .typed<at::Tensor(const at::Tensor&, const at::Tensor&, const at::Tensor&)>();
  return op.call(x, w_gate_up, w_down);
}

at::Tensor SpyreGqaAttention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                             double scale, bool causal) {
  static const auto op = c10::Dispatcher::singleton()
                             .findSchemaOrThrow("spyre::gqa_attention", "")
                             .typed<at::Tensor(const at::Tensor&, const at::Tensor&,
                                               const at::Tensor&, double, bool)>();
  return op.call(q, k, v, scale, causal);
}

}  // namespace suites
