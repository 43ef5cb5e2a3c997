// ModelDecoderTime: walk one decoder pass through the cost model.
#include "suites/models/timing_model.h"

#include <algorithm>
#include <map>

#include <spyre_emu/padding.h>

namespace suites {
namespace {

using spyre_emu::KernelCost;
using spyre_emu::MatmulShape;
using spyre_emu::VectorKind;
using spyre_emu::VectorShape;

constexpr int kDl16Bytes = 2;

class Walk {
 public:
  Walk(const spyre_emu::CostProfile& profile, int cores) : profile_(profile), cores_(cores) {}

  void Matmul(const std::string& name, int64_t calls, int64_t batch, int64_t m, int64_t n,
              int64_t k) {
    const KernelCost c =
        spyre_emu::ModelMatmul(MatmulShape{batch, m, n, k, kDl16Bytes}, profile_, cores_);
    Add(name, calls, c.total_ns);
    flops_ += 2.0 * calls * batch * m * n * k;
    bytes_ += static_cast<double>(calls) * kDl16Bytes * batch * (m * k + k * n + m * n);
  }

  // rows x cols elements; `tensors` inputs and outputs of that size.
  void Vector(const std::string& name, int64_t calls, VectorKind kind, int64_t rows, int64_t cols,
              int tensors, double steps) {
    VectorShape v;
    v.kind = kind;
    v.rows = rows;
    v.cols = cols;
    v.elem_bytes = kDl16Bytes;
    v.io_bytes = static_cast<int64_t>(tensors) *
                 static_cast<int64_t>(spyre_emu::PaddedDeviceBytes({rows, cols}, kDl16Bytes));
    v.steps_per_element = steps;
    Add(name, calls, spyre_emu::ModelVector(v, profile_, cores_).total_ns);
    bytes_ += static_cast<double>(calls) * tensors * kDl16Bytes * rows * cols;
  }

  TimingResult Finish(double weight_bytes) {
    TimingResult r;
    for (auto& k : order_) {
      r.total_us += by_name_[k].us;
      r.launch_us += by_name_[k].launch_us;
      r.launches += by_name_[k].calls;
      r.kernels.push_back(by_name_[k]);
    }
    r.weight_bytes = weight_bytes;
    r.roofline_us = spyre_emu::RooflineNs(flops_, std::max(bytes_, weight_bytes)) / 1000.0;
    return r;
  }

 private:
  // `calls` launches of one kernel: its device time plus the profile's
  // per-launch cost each.
  void Add(const std::string& name, int64_t calls, double kernel_ns) {
    if (!by_name_.count(name)) order_.push_back(name);
    KernelTime& k = by_name_[name];
    k.name = name;
    k.calls += calls;
    k.us += static_cast<double>(calls) * (kernel_ns + profile_.launch_ns) / 1000.0;
    k.launch_us += static_cast<double>(calls) * profile_.launch_ns / 1000.0;
  }

  const spyre_emu::CostProfile& profile_;
  int cores_;
  double flops_ = 0, bytes_ = 0;
  std::vector<std::string> order_;
  std::map<std::string, KernelTime> by_name_;
};

// Each layer's attention over `keys` positions for `sequences` sequences of
// `new_tokens` queries each, one batched kernel per step of it: per K/V
// head, its g query heads are the rows of one matmul.
void AttentionKernels(Walk& w, const ModelConfig& c, int64_t sequences, int64_t new_tokens,
                      int64_t keys) {
  const int64_t g = c.heads / c.kv_heads, d = c.head_dim();
  w.Matmul("attn_scores", c.layers, sequences * c.kv_heads, g * new_tokens, keys, d);
  w.Vector("softmax", c.layers, VectorKind::kNormalization, sequences * c.heads * new_tokens, keys,
           2, 5);
  w.Matmul("attn_values", c.layers, sequences * c.kv_heads, g * new_tokens, d, keys);
}

// One decoder pass over `tokens` new tokens with `rows` logits rows (the
// last position of each sequence); `attention(w)` issues every layer's
// attention kernels.
template <typename Attention>
TimingResult DecoderPass(const ModelConfig& c, int64_t tokens, int64_t rows,
                         const spyre_emu::CostProfile& profile, int cores, Attention attention) {
  Walk w(profile, cores);
  const int64_t d = c.head_dim(), h = c.hidden, kv = c.kv_heads * d;
  const int64_t layers = c.layers;
  w.Vector("embedding", 1, VectorKind::kElementwise, tokens, h, 2, 1);
  w.Vector("rms_norm", 2 * layers + 1, VectorKind::kNormalization, tokens, h, 3, 4);
  w.Matmul("q_proj", layers, 1, tokens, h, h);
  w.Matmul("kv_proj", layers, 1, tokens, 2 * kv, h);
  w.Vector("rope", 2 * layers, VectorKind::kElementwise, tokens * (c.heads + c.kv_heads) / 2, d, 4,
           4);
  attention(w);
  w.Matmul("o_proj", layers, 1, tokens, h, h);
  w.Vector("residual_add", 2 * layers, VectorKind::kElementwise, tokens, h, 3, 1);
  w.Matmul("gate_up_proj", layers, 1, tokens, 2 * c.intermediate, h);
  w.Vector("silu_mul", layers, VectorKind::kElementwise, tokens, c.intermediate, 3, 8);
  w.Matmul("down_proj", layers, 1, tokens, h, c.intermediate);
  // Generation needs the logits of each sequence's last position only.
  w.Matmul("lm_head", 1, 1, rows, c.vocab, h);
  return w.Finish(static_cast<double>(c.Parameters()) * kDl16Bytes);
}

}  // namespace

void TimingResult::Add(const TimingResult& other) {
  total_us += other.total_us;
  launch_us += other.launch_us;
  launches += other.launches;
  roofline_us += other.roofline_us;
  weight_bytes += other.weight_bytes;
  for (const KernelTime& k : other.kernels) {
    auto same = std::find_if(kernels.begin(), kernels.end(),
                             [&](const KernelTime& mine) { return mine.name == k.name; });
    if (same == kernels.end()) {
      kernels.push_back(k);
      continue;
    }
    same->calls += k.calls;
    same->us += k.us;
    same->launch_us += k.launch_us;
  }
}

TimingResult ModelDecoderTime(const ModelConfig& c, const TimingShape& shape,
                              const spyre_emu::CostProfile& profile, int cores) {
  const int64_t b = shape.batch;
  const bool decode = shape.phase == Phase::kDecode;
  const int64_t s = decode ? 1 : shape.seq;        // new tokens per sequence
  const int64_t t = shape.seq + (decode ? 1 : 0);  // keys attended to
  return DecoderPass(c, b * s, b, profile, cores,
                     [&](Walk& w) { AttentionKernels(w, c, b, s, t); });
}

TimingResult ServingStepTime(const ModelConfig& c, const std::vector<SequenceStep>& sequences,
                             const spyre_emu::CostProfile& profile, int cores) {
  if (sequences.empty()) return TimingResult();
  int64_t tokens = 0;
  for (const SequenceStep& q : sequences) tokens += q.tokens;
  return DecoderPass(c, tokens, static_cast<int64_t>(sequences.size()), profile, cores,
                     [&](Walk& w) {
                       for (const SequenceStep& q : sequences) {
                         // Its new keys and values into its blocks, then its
                         // attention over everything it has cached.
                         w.Vector("kv_write", c.layers, VectorKind::kElementwise,
                                  2 * c.kv_heads * q.tokens, c.head_dim(), 2, 1);
                         AttentionKernels(w, c, 1, q.tokens, q.position + q.tokens);
                       }
                     });
}

}  // namespace suites
