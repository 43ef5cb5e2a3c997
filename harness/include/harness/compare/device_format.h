#pragma once
// The number format each output dtype has on the device, as the comparison
// sees it.
//
// DL16 has 9 fraction bits (relative spacing 2^-9 between 1 and 2), 6
// exponent bits with bias 31, no subnormals, one NaN/Inf code. fp16 and bf16
// tensors live on the device as DL16; the Spyre compute path rounds their
// operands to DL16 and accumulates in fp32. fp32 tensors stay fp32 in,
// through and out of every kernel, and tell NaN, +Inf and -Inf apart.
// Integer and bool tensors hold exact values.
//
// RoundThroughDl16 is the harness's own copy of the reference encode
// (nearest-away; the device's rounding setting may differ, which the
// yardstick's factor absorbs). It exists so that the CPU can compute "the
// same case in the device's format" as a yardstick (see compare.h), without
// depending on the device under test.
#include <ATen/ATen.h>

namespace harness {

constexpr double kDl16Spacing = 1.0 / 512;  // 2^-9: spacing of DL16 in [1, 2)

// The device under test's storage of fp16 and bf16 (device/device.h sets it
// from the device when it is loaded; DL16 until then, as on the emulator). A
// device that stores them in their own format is judged in that format:
// fp16 with IEEE half spacing (2^-10, subnormals from 2^-14), bf16 with bf16
// spacing; NaN, +Inf and -Inf told apart.
void SetDeviceStorage(bool fp16_as_dl16, bool bf16_as_dl16);
bool StoredAsDl16(at::ScalarType dtype);

// How an output of a given dtype is judged (docs/judging.md).
enum class FormatKind {
  kDl16,   // fp16, bf16 stored as DL16 on the device; one NaN/Inf code
  kIeee,   // fp32, fp64 (and fp16, bf16 stored natively): NaN, +Inf and -Inf told apart
  kExact,  // integer and bool: compared exactly
};
FormatKind FormatKindOf(at::ScalarType dtype);
const char* FormatName(at::ScalarType dtype);  // "DL16", "bf16", "fp32", "fp64", "exact"

// A float tensor holding every value of `t` rounded to DL16 and back:
// |x| rounding to 2^-31 or below -> signed zero (DL16's zero code); |x| > 2^32 * (1 + 510/512), NaN, Inf -> NaN.
at::Tensor RoundThroughDl16(const at::Tensor& t);

// The DL16 spacing (one ULP) at magnitude |x|; the spacing of the smallest
// normal (2^-40) below 2^-31.
double Dl16Ulp(double x);

// One ULP of the device's format for `dtype` at magnitude |x|: DL16 for
// fp16, the coarser of DL16 and bf16 for bf16, IEEE spacing (subnormal
// spacing near zero) for fp32 and fp64, 1 for integers and bool.
double FormatUlp(double x, at::ScalarType dtype);

// Relative spacing (one ULP in [1, 2)) of the format a value of `dtype` ends
// up in on the device: fp16 2^-9 (DL16), bf16 2^-7, fp32 2^-23, fp64 2^-52;
// 0 for integers and bool (exact).
double DeviceRelativeSpacing(at::ScalarType dtype);

}  // namespace harness
