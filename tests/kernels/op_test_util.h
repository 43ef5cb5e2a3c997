#pragma once
// Helpers of the ATen-level kernel tests: moving tensors to and from the
// device, DL16 ULP distances, settings and trace inspection.
#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "spyre_emu/spyre_emu.h"

namespace kernels_test {

// Random fp32 CPU tensor in [lo, hi) from a fixed seed (our own generator,
// not torch's RNG).
at::Tensor Random(at::IntArrayRef sizes, uint32_t seed, float lo = -3, float hi = 3);

// The tensor on the device as `dtype` (fp16 default).
at::Tensor ToDevice(const at::Tensor& cpu, at::ScalarType dtype = at::kHalf);
// The device tensor's exact values as an fp32 CPU tensor.
at::Tensor Values(const at::Tensor& device);

// Largest distance in DL16 ULPs between got (device values, fp32) and the
// correctly rounded DL16 value of ref (fp64); NaN must match NaN.
int MaxDl16UlpError(const at::Tensor& got, const at::Tensor& ref);

// Runs f with SPYRE_EMU_CORES = cores (restored afterwards).
struct ScopedCores {
  explicit ScopedCores(int cores);
  ~ScopedCores();
  spyre_emu::Config saved;
};
struct ScopedFaults {
  explicit ScopedFaults(const std::string& spec);
  ~ScopedFaults();
  spyre_emu::Config saved;
};

// True when a and b hold bit-identical data (same dtype and shape).
bool BitIdentical(const at::Tensor& a, const at::Tensor& b);

}  // namespace kernels_test
