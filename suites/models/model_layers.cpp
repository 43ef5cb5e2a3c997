#include "suites/models/model_layers.h"

namespace suites {

at::Tensor RmsNorm(const at::Tensor& x, const at::Tensor& w, double eps) {
  const at::Tensor inv = at::rsqrt(x.pow(2).mean({-1}, /*keepdim=*/true).add(eps));
  return x.mul(inv).mul(w);
}

at::Tensor Linear(const at::Tensor& x, const at::Tensor& w, const at::Tensor& bias) {
  const at::Tensor x2 = x.reshape({-1, x.size(-1)});
  at::Tensor y = bias.defined() ? at::addmm(bias, x2, w) : at::mm(x2, w);
  std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
  shape.back() = w.size(1);
  return y.view(shape);
}

at::Tensor SwiGlu(const at::Tensor& x, const at::Tensor& w_gate, const at::Tensor& w_up,
                  const at::Tensor& w_down) {
  return Linear(at::silu(Linear(x, w_gate)).mul(Linear(x, w_up)), w_down);
}

at::Tensor SwiGluFused(const at::Tensor& x, const at::Tensor& w_gate_up, const at::Tensor& w_down) {
  const at::Tensor gu = Linear(x, w_gate_up);
  const int64_t f = w_gate_up.size(1) / 2;
  return Linear(at::silu(gu.narrow(-1, 0, f)).mul(gu.narrow(-1, f, f)), w_down);
}

at::Tensor ApplyRope(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin) {
  const int64_t half = x.size(-1) / 2;
  const at::Tensor rotated = at::cat({x.narrow(-1, half, half).neg(), x.narrow(-1, 0, half)}, -1);
  return x.mul(cos).add(rotated.mul(sin));
}

at::Tensor CausalBias(int64_t s, int64_t t, at::ScalarType dtype, c10::Device device) {
  // Query i (at position t - s + i) sees keys j <= t - s + i. -30000 is
  // finite in fp16 and DL16 and makes exp() underflow to exactly 0.
  at::Tensor bias = at::zeros({s, t}, at::kFloat);
  auto a = bias.accessor<float, 2>();
  for (int64_t i = 0; i < s; ++i) {
    for (int64_t j = t - s + i + 1; j < t; ++j) a[i][j] = -30000.0f;
  }
  return bias.to(dtype).to(device);
}

namespace {

// scores [N, G, S, T] (G query heads per K/V head) -> probabilities.
at::Tensor MaskedSoftmax(const at::Tensor& scores, bool causal) {
  if (!causal || scores.size(2) == 1) return at::softmax(scores, -1);
  const at::Tensor bias =
      CausalBias(scores.size(2), scores.size(3), scores.scalar_type(), scores.device());
  return at::softmax(scores.add(bias), -1);
}

}  // namespace

at::Tensor Attention(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, double scale,
                     bool causal) {
  const int64_t b = q.size(0), h = q.size(1), s = q.size(2), d = q.size(3);
  const int64_t kvh = k.size(1), t = k.size(2), g = h / kvh;
  // Repeat each K/V head for its g query heads (HF repeat_kv), materialised.
  const at::Tensor kr = k.unsqueeze(2).expand({b, kvh, g, t, d}).reshape({b * h, t, d});
  const at::Tensor vr = v.unsqueeze(2).expand({b, kvh, g, t, d}).reshape({b * h, t, d});
  const at::Tensor qb = q.reshape({b * h, s, d}).mul(scale);
  const at::Tensor scores = at::bmm(qb, kr.transpose(1, 2)).view({b * h, 1, s, t});
  const at::Tensor probs = MaskedSoftmax(scores, causal).view({b * h, s, t});
  return at::bmm(probs, vr).view({b, h, s, d});
}

at::Tensor AttentionFused(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          double scale, bool causal) {
  const int64_t b = q.size(0), h = q.size(1), s = q.size(2), d = q.size(3);
  const int64_t kvh = k.size(1), t = k.size(2), g = h / kvh;
  // The g query heads of one K/V head are one matmul's rows: no K/V copies.
  const at::Tensor qg = q.contiguous().view({b * kvh, g * s, d}).mul(scale);
  const at::Tensor kb = k.reshape({b * kvh, t, d});
  const at::Tensor vb = v.reshape({b * kvh, t, d});
  const at::Tensor scores = at::bmm(qg, kb.transpose(1, 2)).view({b * kvh, g, s, t});
  const at::Tensor probs = MaskedSoftmax(scores, causal).view({b * kvh, g * s, t});
  return at::bmm(probs, vb).view({b, h, s, d});
}

}  // namespace suites
