#include "op_test_util.h"

#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>

namespace kernels_test {

at::Tensor Random(at::IntArrayRef sizes, uint32_t seed, float lo, float hi) {
  at::Tensor t = at::empty(sizes, at::kFloat);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  float* p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = d(rng);
  return t;
}

at::Tensor ToDevice(const at::Tensor& cpu, at::ScalarType dtype) {
  return cpu.to(dtype).to(spyre_emu::device());
}

at::Tensor Values(const at::Tensor& device) {
  // fp16 -> fp32 on the device decodes DL16 exactly; then to the host.
  return device.to(at::kFloat).cpu().contiguous();
}

namespace {
int Ordered(uint16_t c) { return (c & 0x8000) ? -(c & 0x7FFF) : (c & 0x7FFF); }
}  // namespace

int MaxDl16UlpError(const at::Tensor& got, const at::Tensor& ref) {
  const at::Tensor g = got.to(at::kFloat).contiguous(), r = ref.to(at::kDouble).contiguous();
  EXPECT_EQ(g.sizes(), r.sizes());
  int worst = 0;
  const float* pg = g.data_ptr<float>();
  const double* pr = r.data_ptr<double>();
  for (int64_t i = 0; i < g.numel(); ++i) {
    const uint16_t a = spyre_emu::Dl16Encode(pg[i], spyre_emu::Rounding::kNearestAway);
    const uint16_t b =
        spyre_emu::Dl16Encode(static_cast<float>(pr[i]), spyre_emu::Rounding::kNearestAway);
    const bool na = (a & 0x7FFF) == 0x7FFF, nb = (b & 0x7FFF) == 0x7FFF;
    if (na || nb) {
      if (na != nb) return 1 << 20;
      continue;
    }
    worst = std::max(worst, std::abs(Ordered(a) - Ordered(b)));
  }
  return worst;
}

ScopedCores::ScopedCores(int cores) : saved(spyre_emu::CurrentConfig()) {
  spyre_emu::Config c = saved;
  c.cores = cores;
  spyre_emu::SetConfig(c);
}
ScopedCores::~ScopedCores() { spyre_emu::SetConfig(saved); }

ScopedFaults::ScopedFaults(const std::string& spec) : saved(spyre_emu::CurrentConfig()) {
  spyre_emu::Config c = saved;
  c.faults = spec;
  spyre_emu::SetConfig(c);
}
ScopedFaults::~ScopedFaults() { spyre_emu::SetConfig(saved); }

bool BitIdentical(const at::Tensor& a, const at::Tensor& b) {
  if (a.scalar_type() != b.scalar_type() || a.sizes() != b.sizes()) return false;
  // Device values as exact fp32 (DL16 decodes exactly), then compare bits.
  const at::Tensor x = Values(a), y = Values(b);
  return std::memcmp(x.data_ptr(), y.data_ptr(), x.numel() * x.element_size()) == 0;
}

}  // namespace kernels_test
