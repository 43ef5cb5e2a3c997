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

#include <cstdint>
#include <functional>
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

// slow=F makes an op take F times its own time, in the quantity the harness
// judges latency on: wall time less the calling thread's run-queue wait. On a
// loaded host the op is preempted for a varying share of its wall time;
// stretching wall time would multiply those waits by F as well, so a slowed
// op would spread with the load instead of being F times the op. Where the
// wait cannot be read, wall
// time is stretched.
//
// Reading the wait is a system call (1-3 us), more than slow=1.05 adds to
// an op of tens of microseconds. So the wait is read only for an op whose
// recent calls on this thread (of the same name) took long enough to be
// preempted and to be stretched by more than the readings cost
// (StretchReadsWait); a shorter op is stretched in wall time, its own time
// taken as at most twice what its recent calls took, so a rare preemption
// inside it is not stretched as well.
class WallStretch {
 public:
  WallStretch() = default;
  // Reads the thread's run-queue wait at the op's start when slow > 1 and
  // the op's recent calls say it is worth it.
  WallStretch(double slow, const std::string& op);
  // Waits until the op, timed by `timer` since its start, has taken slow x
  // its own time (both less the run-queue wait).
  void Apply(const glue::KernelTimer& timer) const;

 private:
  double slow_ = 1.0;
  int64_t queued_at_start_ns_ = -1;
  int64_t overhead_ns_ = 0;  // what reading the wait at the start took
  int64_t* recent_ns_ = nullptr;  // the op's recent own time on this thread (-1: none yet)
};

// Whether a stretch by `slow` of an op whose recent calls took up to
// recent_ns (-1: unknown) reads the run-queue wait.
bool StretchReadsWait(double slow, int64_t recent_ns);
// The op's recent own time after a call that took own_ns: the larger of the
// two, the old one decaying by 1/16 a call, so a longer shape of the op
// raises it at once and a run of shorter calls lowers it within ~50 calls.
int64_t NextRecentNs(int64_t recent_ns, int64_t own_ns);

// What a stretch reads and how it waits (a seam for tests).
struct StretchClock {
  std::function<int64_t()> now_ns;     // a monotonic clock
  std::function<int64_t()> queued_ns;  // the thread's run-queue wait so far; -1 unknown
  std::function<void(int64_t)> sleep_ns;
};
// The stretch of an op that took op_ns of wall time, overhead_ns of it
// reading the run-queue wait at its start (queued_at_start_ns; -1: unknown):
// it waits until (slow - 1) x the op's own time (less its wait and that
// reading), less the reading, has passed, counted the same way (sleeping the
// bulk of a long wait and spinning the last millisecond, as a sleep
// overshoots by the timer slack). Returns that target in ns.
int64_t StretchOp(double slow, int64_t op_ns, int64_t queued_at_start_ns, int64_t overhead_ns,
                  const StretchClock& clock);
// The calling thread's run-queue wait so far (second field of
// /proc/thread-self/schedstat), -1 where the kernel does not provide it.
int64_t ThreadQueueWaitNs();

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
  WallStretch stretch_;
};

// The value faults (error=R, nan) on a device tensor, in place. Exposed for
// the CPU fallback hook (fallback_faults.cpp).
void PerturbOutput(const OpFaults& faults, const at::Tensor& out);

}  // namespace spyre_emu::device_kernels
