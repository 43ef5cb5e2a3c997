#pragma once
// The cost model: modeled device time of one kernel, how the kernel's work is
// divided across the emulated cores, and what each launch costs the stack
// that dispatches it (torch-free).
//
// Terms (the form and constants of torch-spyre's
// work-division cost model, torch_spyre/_inductor/work_division.py, which is
// fit to measured device kernel times):
//   compute  = MACs / cores_used / (peak MAC/s per core * pt_eff),
//              pt_eff = min(1, sqrt((M_per_core / 8) / 8))
//   memory   = stick-padded bytes / 204.8 GB/s * cohort * batch_split^0.4
//              (the b^1.4 batch penalty, per core: b^1.4 / b)
//   cohort   = max(1, max(m_split, n_split) / 8) for a matmul: an operand is
//              broadcast to the cores splitting the other output dim, and
//              past 8 sharers the broadcasts contend for the ring. A vector
//              kernel's rows are partitioned, nothing is broadcast: cohort 1
//              (torch-spyre's pointwise and reduction models have no cohort
//              term: "a pure reduction has no broadcast").
//   k-split  = 0.14 ns per output element per ring hop (k_split - 1 hops)
//   vector   = elements per core * steps per element * 4.45 ps (calibrated)
//   matmul   = compute + memory + k-split + overhead. Added, not overlapped:
//              torch-spyre's matmul model sums its terms (its vector models
//              take the max), i.e. the measured kernels did not hide operand
//              streaming behind the PT array.
//   vector   = max(vector work, memory) + overhead (streamed through LX).
//   overhead = 12.01 us per kernel (calibrated), both profiles.
// Every term is at least its roofline term, so a modeled kernel never beats
// the roofline (98.304e12 FLOP/s, 204.8 GB/s): ModelMatmul/ModelVector check.
//
// Two profiles (CostProfileFor):
//   inductor  LX planning (a lowered multi-step kernel touches its input and
//             output once), cost-driven work division (the split with the
//             lowest modeled time over all M/N/K/batch splits), and program
//             correction at every launch (launch_ns, below).
//   sendnn    no LX planning (a lowered softmax/layer_norm round-trips its
//             intermediates through DDR), the legacy work division (all
//             cores, N split first in whole sticks, then M; never K), and no
//             per-launch cost (an assumption: the legacy stack runs a graph
//             compiled ahead of time with its addresses bound, so nothing is
//             patched between kernels).
//
// Kernel time vs launch. KernelCost.total_ns is the kernel's device time, what
// a profiler reports per kernel and what the published kernel figures are.
// CostProfile.launch_ns is what the stack spends per launch outside the
// kernel: torch-spyre's runtime patches every compiled program's symbolic
// tensor addresses at launch, in three FIFO steps on the kernel's stream (a
// host callback computes the corrections, an H2D DMA copies them into the
// program, the kernel's prologue applies them; torch-spyre docs, "Program
// correction"; the coverage of IBM's announcement describes the same steps). End-to-end figures
// (the timing walk, suites/models/timing_model.h) add it per kernel; the per-op trace does not.
//
// Parameters, what each is calibrated on and what it predicts:
//   12.01 us overhead   softmax [512,1024] fp16, 1 core, sendnn: 32.51 us
//   4.45 ps/elem-step   softmax [512,1024] fp16, 1 core, inductor: 23.67 us
//   79.4 us launch      Granite 3.3 8B, batch 1, seq 1024: decode 2.4x
//                       faster on inductor (the figure the launch cost moves
//                       most: decode kernels are small)
//   predicted, not fit: the same model's prefill 1.7x (models 1.78x, +4.5%)
//                       and the matmul kernel band 29-69% (models 41-57%).
// Everything else is a published hardware fact or torch-spyre constant.
//
// Reading "matmul kernel time 29-69% lower": the spread of per-kernel
// reductions over the kernels IBM measured, a set it does not list. Every
// kernel of that set lies inside the band, so every kernel of our stand-in set
// (GranitePrefillMatmuls) must too, widened by the 5% tolerance; requiring our
// set's extremes to land on 29% and 69% would assume it holds the very kernels
// that were IBM's extremes, and would fit the model to that guess. The spread
// we model is reported beside the verdict (suites/models/timing_case.cpp).
//
// Work division changes only the modeled time, never a kernel's result.
#include <cstdint>
#include <string>
#include <vector>

#include "spyre_emu/config.h"

namespace spyre_emu {

// Hardware facts (from torch-spyre docs and IBM onnx-mlir).
constexpr double kPeakFlopsPerSecond = 98.304e12;  // DL16 peak, whole chip
constexpr double kDdrBytesPerSecond = 204.8e9;     // LPDDR5 bandwidth, whole chip
// Stick-padded byte counts come from memory.h's PaddedDeviceBytes.

struct CostProfile {
  const char* name;
  bool lx_planning;           // see the header comment
  bool cost_driven_split;     // true: search the splits; false: legacy policy
  double kernel_overhead_ns;  // inside every kernel's time
  double launch_ns;           // per launch, outside the kernel's time
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

// A kernel's device time and its parts (a vector kernel's compute_ns is its
// vector-unit work). total_ns excludes the profile's launch_ns.
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
