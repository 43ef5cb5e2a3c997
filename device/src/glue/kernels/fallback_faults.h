#pragma once
// SPYRE_EMU_FAULTS for ops served by the CPU fallback (ops without a device
// kernel, and device kernels disabled by a `fallback` fault), for
// glue::RunCpuFallback (device/src/glue/fallback.cpp) to call:
//
//   FallbackFaults faults(name);   // abort / segv / hang / oom act here
//   op.callBoxed(stack);           // ... the CPU op, results back on the device
//   faults.Finish(stack, n);       // error=R / nan on the device float
//                                  // results; stretches the op's time by
//                                  // slow=F (WallStretch; call before timing
//                                  // the event)
//
// A malformed SPYRE_EMU_FAULTS throws (c10::Error naming the bad entry), as
// it does for device kernels.
#include <ATen/core/stack.h>

#include <string>

#include "glue/glue.h"
#include "glue/kernels/kernel_support.h"
#include "spyre_emu/faults.h"

namespace spyre_emu::device_kernels {

class FallbackFaults {
 public:
  explicit FallbackFaults(const std::string& op);
  // Applies the value faults to the last `num_returns` stack entries that are
  // device tensors (tensor lists included), then the slow factor.
  void Finish(const torch::jit::Stack& stack, size_t num_returns) const;

 private:
  OpFaults faults_;
  glue::KernelTimer timer_;
  WallStretch stretch_;
};

}  // namespace spyre_emu::device_kernels
