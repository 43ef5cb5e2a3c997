#pragma once
// Shared plumbing of the device kernels (TORCH_LIBRARY_IMPL wrappers):
// dtype mapping, the Exec (rounding + the host threads), broadcasting
// strides, and KernelCall, which wraps one kernel invocation with fault
// injection (SPYRE_EMU_FAULTS), the cost model, stats and the trace.
//
//   at::Tensor Exp(const at::Tensor& x) {
//     KernelCall call("exp");
//     if (call.fallback() || !KernelDtype(x)) return glue::CallCpuFallback<at::Tensor>(...);
//     at::Tensor out = ...;                       // run the core kernel
//     call.Finish({x}, out, ElementwiseCost(...));
//     return out;
//   }
//
// KernelCall's constructor acts on the process-ending faults (abort, segv,
// hang) and on oom (throws the out-of-memory error); Finish applies error=R,
// nan and slow=F to the output and the modeled/wall times.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "glue/glue.h"
#include "spyre_emu/cost_model.h"
#include "spyre_emu/faults.h"
#include "spyre_emu/kernels.h"

namespace spyre_emu::device_kernels {

// True for device tensors of a dtype the kernels compute (fp16, bf16, fp32).
bool KernelDtype(const at::Tensor& t);
DType CoreType(at::ScalarType dtype);  // fp16/bf16 -> kDl16, fp32 -> kFp32
// The device's host thread pool: libtorch's intra-op OpenMP threads
// (at::set_num_threads), so the emulated and the native kernels of a run
// share one pool and one thread count. Blocks of `grain` indices are handed
// out one at a time, to the threads as they come free.
void RunOnHostThreads(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body);
// The rounding setting and RunOnHostThreads.
Exec MakeExec();

// Strides (in elements) that read `t` broadcast to `shape` (0 where t is
// broadcast); t's dims align to the right of shape.
std::vector<int64_t> BroadcastStrides(const at::Tensor& t, at::IntArrayRef shape);

// The faults for op, or nullptr. Throws a c10::Error naming the bad entry
// when SPYRE_EMU_FAULTS is malformed (re-parsed whenever the setting changes).
const OpFaults* FaultsFor(const std::string& op);

// Modeled costs of the kernel kinds on the current profile and core count.
KernelCost MatmulCost(int64_t batch, int64_t m, int64_t n, int64_t k, at::ScalarType dtype);
KernelCost VectorCost(VectorKind kind, int64_t rows, int64_t cols, at::ScalarType dtype,
                      std::initializer_list<at::Tensor> tensors, double steps_per_element);

class KernelCall {
 public:
  explicit KernelCall(std::string op);
  KernelCall(const KernelCall&) = delete;
  KernelCall& operator=(const KernelCall&) = delete;

  // The op's device kernel is disabled by a `fallback` fault.
  bool fallback() const { return faults_.fallback; }
  // Applies error / nan to `outputs[0]` (the primary output), scales the
  // times by slow, counts the call and records the trace event.
  void Finish(at::ArrayRef<at::Tensor> inputs, const at::Tensor& out, const KernelCost& cost);

 private:
  std::string op_;
  OpFaults faults_;
  glue::KernelTimer timer_;
};

// The value faults (error=R, nan) on a device tensor, in place. Exposed for
// the CPU fallback hook (fallback_faults.cpp).
void PerturbOutput(const OpFaults& faults, const at::Tensor& out);
// Sleeps so that the wall time since `timer` becomes slow x itself.
void StretchWallTime(double slow, const glue::KernelTimer& timer);

}  // namespace spyre_emu::device_kernels
