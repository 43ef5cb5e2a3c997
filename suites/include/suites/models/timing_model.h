#pragma once
// Timing-only execution: the modeled device time of a decoder at any size,
// from the cost model (spyre_emu/cost_model.h) alone, without allocating or
// computing any tensor. The walk issues the kernels the fused decoder layers
// would (one kernel per matmul, per normalisation and per element-wise op),
// so an 8B model at batch 1, sequence 1024 is modeled on a laptop in
// milliseconds. The time is end to end: each launch adds the profile's
// launch_ns (inductor's program correction) to its kernel's device time.
//
//   TimingResult t = ModelDecoderTime(granite8b, {1, 1024, Phase::kDecode}, sendnn, 32);
//   t.total_us;  t.kernels[i].name, .calls, .us
//   TimingResult s = ServingStepTime(granite8b, {{0, 512}, {700, 1}}, inductor, 32);
#include <cstdint>
#include <string>
#include <vector>

#include <spyre_emu/cost_model.h>

#include "suites/models/model_config.h"

namespace suites {

enum class Phase {
  kPrefill,  // `seq` prompt tokens per sequence, causal attention
  kDecode,   // one new token per sequence attending to `seq` cached positions
};

struct TimingShape {
  int64_t batch = 1;
  int64_t seq = 1024;
  Phase phase = Phase::kPrefill;
};

struct KernelTime {
  std::string name;  // "q_proj", "attn_scores", "rms_norm", ...
  int64_t calls = 0;
  double us = 0;         // all calls together, launches included
  double launch_us = 0;  // the launches' part of `us`
};

struct TimingResult {
  double total_us = 0;              // kernels' device time + launches
  double launch_us = 0;             // launches alone (0 on sendnn)
  int64_t launches = 0;             // kernels launched per pass
  double roofline_us = 0;           // max(FLOPs / peak, bytes / bandwidth) of the whole pass
  double weight_bytes = 0;          // DL16 weights read once per pass
  std::vector<KernelTime> kernels;  // in walk order
  double kernel_us() const { return total_us - launch_us; }
  // Adds another pass (a later step of a trace): times, launches, rooflines
  // and weights read add up, kernels by name.
  void Add(const TimingResult& other);
};

TimingResult ModelDecoderTime(const ModelConfig& config, const TimingShape& shape,
                              const spyre_emu::CostProfile& profile, int cores);

// One sequence's share of a continuous-batching step: `tokens` new tokens at
// cache positions position .. position + tokens - 1, the last attending to
// position + tokens keys. A prefill of P tokens is {0, P}; the decode of a
// sequence with `seq` cached positions is {seq, 1}.
struct SequenceStep {
  int64_t position = 0;
  int64_t tokens = 1;
};

// One step of a serving engine over a paged KV cache, walked as the engine
// issues its kernels: the norms, projections, RoPE and MLP over every
// sequence's new tokens at once, one logits row per sequence, and per
// sequence its own attention over its context plus "kv_write", the store of
// its new keys and values into its cache blocks. The attention reads the
// blocks in place through the block table (a block holds whole rows of each
// head, so it reads the bytes of a contiguous cache). A step of one sequence
// is therefore ModelDecoderTime's pass at batch 1 and that length, plus
// `layers` kv_write kernels. No sequences: an empty result.
TimingResult ServingStepTime(const ModelConfig& config, const std::vector<SequenceStep>& sequences,
                             const spyre_emu::CostProfile& profile, int cores);

}  // namespace suites
