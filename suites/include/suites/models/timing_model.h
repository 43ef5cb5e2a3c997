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
};

TimingResult ModelDecoderTime(const ModelConfig& config, const TimingShape& shape,
                              const spyre_emu::CostProfile& profile, int cores);

}  // namespace suites
