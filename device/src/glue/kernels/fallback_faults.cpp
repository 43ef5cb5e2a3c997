#include "glue/kernels/fallback_faults.h"

#include "glue/kernels/kernel_support.h"

namespace spyre_emu::device_kernels {

FallbackFaults::FallbackFaults(const std::string& op) {
  if (const OpFaults* f = FaultsFor(op)) faults_ = *f;
  // The same process-level faults as a device kernel (KernelCall).
  if (faults_.abort) CrashWithAbort(op);
  if (faults_.segv) CrashWithSegv(op);
  if (faults_.hang) HangForever(op);
  TORCH_CHECK_WITH(OutOfMemoryError, !faults_.oom, "spyre_emu: out of device memory in op '", op,
                   "' (injected fault 'oom' from SPYRE_EMU_FAULTS)");
  stretch_ = WallStretch(faults_.wall_factor(), op);
}

void FallbackFaults::Finish(const torch::jit::Stack& stack, size_t num_returns) const {
  if (!faults_.any()) return;
  const size_t first = stack.size() >= num_returns ? stack.size() - num_returns : 0;
  for (size_t i = first; i < stack.size(); ++i) {
    const c10::IValue& v = stack[i];
    if (v.isTensor()) {
      const at::Tensor& t = v.toTensor();
      if (KernelDtype(t) && t.is_contiguous()) PerturbOutput(faults_, t);
    } else if (v.isTensorList()) {
      for (const at::Tensor& t : v.toTensorVector()) {
        if (KernelDtype(t) && t.is_contiguous()) PerturbOutput(faults_, t);
      }
    }
  }
  stretch_.Apply(timer_);
}

}  // namespace spyre_emu::device_kernels
