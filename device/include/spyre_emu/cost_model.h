#pragma once
// The cost model: modeled device time of one kernel, and how the kernel's
// work is divided across the emulated cores (torch-free).
//
// The shape follows torch-spyre's compiler cost model (shared/DESIGN.md):
//   compute  = MACs / cores_used / (peak MAC/s per core * pt_eff),
//              pt_eff = min(1, sqrt((M_per_core / 8) / 8))
//   memory   = stick-padded bytes / 204.8 GB/s * max(1, max(m_split, n_split) / 8)
//              * batch_split^0.4 (the b^1.4 batch penalty, per core: b^1.4 / b)
//   k-split  = 0.14 ns per output element per ring hop (k_split - 1 hops)
//   vector   = elements per core * steps per element * 4.45 ps (calibrated)
//   time     = max(compute, memory) + k-split + per-kernel overhead (12.01 us)
// Compute and memory overlap (double-buffered LX), so the larger one counts.
// Every term is at least its roofline term, so a modeled time never beats the
// roofline (98.304e12 FLOP/s, 204.8 GB/s): ModelMatmul/ModelVector check it.
//
// Two profiles (CostProfileFor):
//   inductor  LX planning (a lowered multi-step kernel touches its input and
//             output once) and cost-driven work division: the split with the
//             lowest modeled time over all M/N/K (and batch) splits.
//   sendnn    no LX planning (a lowered softmax/layer_norm round-trips its
//             intermediates through DDR) and the legacy work division: all
//             cores, N split first in whole sticks, then M; never K.
// Calibration (tests/kernels/cost_calibration_test.cpp prints the table):
// softmax [512,1024] fp16 on one core models 32.5 us (sendnn) and 23.7 us
// (inductor); matmul time is 29-69% lower on inductor over the Granite 3.3 8B
// prefill shape set (GranitePrefillMatmuls).
//
// Work division changes only the modeled time, never a kernel's result.
#include <cstdint>
#include <string>
#include <vector>

#include "spyre_emu/config.h"

namespace spyre_emu {

// Hardware facts (shared/DESIGN.md, from torch-spyre docs and IBM onnx-mlir).
constexpr double kPeakFlopsPerSecond = 98.304e12;  // DL16 peak, whole chip
constexpr double kDdrBytesPerSecond = 204.8e9;     // LPDDR5 bandwidth, whole chip
// Stick-padded byte counts come from memory.h's PaddedDeviceBytes.

struct CostProfile {
  const char* name;
  bool lx_planning;        // see the header comment
  bool cost_driven_split;  // true: search the splits; false: legacy policy
  double kernel_overhead_ns;
};
const CostProfile& CostProfileFor(Profile profile);

// How a kernel's work is divided. cores() = batch * m * n * k <= cores given.
struct WorkSplit {
  int batch = 1;
  int m = 1;
  int n = 1;
  int k = 1;
  int cores() const { return batch * m * n * k; }
};
std::string SplitToString(const WorkSplit& split);  // "b1 m4 n8 k1"

struct KernelCost {
  WorkSplit split;
  double compute_ns = 0;
  double memory_ns = 0;
  double reduce_ns = 0;  // K-split partial sums
  double overhead_ns = 0;
  double total_ns = 0;
};

// out[batch, m, n] = a[batch, m, k] . b[batch, k, n] (+ bias); elem_bytes is
// the device element size (2 for DL16, 4 for fp32). batch >= 1; m, n, k >= 0.
struct MatmulShape {
  int64_t batch = 1;
  int64_t m = 0;
  int64_t n = 0;
  int64_t k = 0;
  int elem_bytes = 2;
};
KernelCost ModelMatmul(const MatmulShape& shape, const CostProfile& profile, int cores);

// Kernels on the vector unit, viewed as `rows` independent rows of `cols`
// elements (the last dim, or the reduced length). io_bytes: stick-padded device
// bytes of every input and output, each read or written once.
enum class VectorKind {
  kElementwise,    // one pass: add, exp, gelu, where, copies, ...
  kReduction,      // sum, mean, amax, var
  kNormalization,  // softmax, log_softmax, layer_norm: lowered to several steps
};
struct VectorShape {
  VectorKind kind = VectorKind::kElementwise;
  int64_t rows = 1;
  int64_t cols = 0;
  int elem_bytes = 2;
  int64_t io_bytes = 0;
  // Vector-unit steps per element (add 1, gelu ~8, softmax 5: max, sub, exp,
  // sum, div). The vector rate is calibrated on softmax's 5 steps.
  double steps_per_element = 1;
};
KernelCost ModelVector(const VectorShape& shape, const CostProfile& profile, int cores);

// The roofline floor: max(flops / peak, bytes / bandwidth), in ns.
double RooflineNs(double flops, double bytes);

// The documented matmul shape set of the profile calibration: Granite 3.3 8B
// (hidden 4096, 32 heads of 128, 8 KV heads, MLP 12800, vocab 49155) at batch 1,
// sequence 1024. `name` says which projection.
struct NamedMatmul {
  const char* name;
  MatmulShape shape;
};
std::vector<NamedMatmul> GranitePrefillMatmuls();

}  // namespace spyre_emu
