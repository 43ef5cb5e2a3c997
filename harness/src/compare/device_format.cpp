#include "harness/compare/device_format.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>

namespace harness {
namespace {

float RoundOne(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  const uint32_t sign = bits & 0x80000000u;
  uint32_t mag = bits & 0x7FFFFFFFu;
  if (mag >= 0x7F800000u) return std::numeric_limits<float>::quiet_NaN();  // NaN, Inf
  // Round half away from zero at fraction bit 14 (fp32 has 23, DL16 keeps 9);
  // a carry out of the fraction bumps the exponent, as on the device.
  mag = (mag + (1u << 13)) & ~((1u << 14) - 1);
  const int exponent = static_cast<int>(mag >> 23) - 127;
  // Below DL16's smallest value: signed zero. Exponent 0 with fraction 0
  // (2^-31) is the zero code itself, so it flushes too.
  if (exponent < -31 || (exponent == -31 && (mag & 0x7FFFFF) == 0)) mag = 0;
  // Largest DL16 value: 2^32 * (1 + 510/512); 511 is the NaN/Inf code.
  if (exponent > 32 || (exponent == 32 && ((mag >> 14) & 0x1FF) == 0x1FF)) {
    return std::numeric_limits<float>::quiet_NaN();
  }
  bits = sign | mag;
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

// What the device under test declared (device/device.h sets it when the
// device is loaded); DL16 until then, as on the emulator.
std::atomic<bool> g_fp16_dl16{true};
std::atomic<bool> g_bf16_dl16{true};

}  // namespace

void SetDeviceStorage(bool fp16_as_dl16, bool bf16_as_dl16) {
  g_fp16_dl16 = fp16_as_dl16;
  g_bf16_dl16 = bf16_as_dl16;
}

bool StoredAsDl16(at::ScalarType dtype) {
  if (dtype == at::kHalf) return g_fp16_dl16;
  if (dtype == at::kBFloat16) return g_bf16_dl16;
  return false;
}

at::Tensor RoundThroughDl16(const at::Tensor& t) {
  at::Tensor f = t.to(at::kFloat).contiguous().clone();
  float* p = f.data_ptr<float>();
  for (int64_t i = 0, n = f.numel(); i < n; ++i) p[i] = RoundOne(p[i]);
  return f;
}

double Dl16Ulp(double x) {
  const double a = std::fabs(x);
  if (!(a >= std::ldexp(1.0, -31))) return std::ldexp(1.0, -40);
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  return std::ldexp(1.0, e - 1 - 9);
}

FormatKind FormatKindOf(at::ScalarType dtype) {
  if (StoredAsDl16(dtype)) return FormatKind::kDl16;
  if (at::isFloatingType(dtype)) return FormatKind::kIeee;
  return FormatKind::kExact;
}

const char* FormatName(at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return StoredAsDl16(dtype) ? "DL16" : "fp16";
    case at::kBFloat16:
      return "bf16";
    case at::kFloat:
      return "fp32";
    case at::kDouble:
      return "fp64";
    default:
      return "exact";
  }
}

double FormatUlp(double x, at::ScalarType dtype) {
  const double a = std::fabs(x);
  int e = -100000;                                   // zero, NaN, Inf: the smallest spacing
  if (a > 0 && std::isfinite(a)) std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  switch (dtype) {
    case at::kHalf:
      return StoredAsDl16(dtype) ? Dl16Ulp(x) : std::ldexp(1.0, std::max(e, -13) - 1 - 10);
    case at::kBFloat16:
      return std::max(StoredAsDl16(dtype) ? Dl16Ulp(x) : 0.0,
                      std::ldexp(1.0, std::max(e, -125) - 1 - 7));
    case at::kFloat:
      return std::ldexp(1.0, std::max(e, -125) - 1 - 23);
    case at::kDouble:
      return std::ldexp(1.0, std::max(e, -1021) - 1 - 52);
    default:
      return 1.0;
  }
}

double DeviceRelativeSpacing(at::ScalarType dtype) {
  switch (dtype) {
    case at::kHalf:
      return StoredAsDl16(dtype) ? kDl16Spacing : 1.0 / 1024;
    case at::kBFloat16:
      return 1.0 / 128;
    case at::kFloat:
      return std::ldexp(1.0, -23);
    case at::kDouble:
      return std::ldexp(1.0, -52);
    default:
      return 0.0;
  }
}

}  // namespace harness
