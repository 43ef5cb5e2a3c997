#pragma once
// The device's number format as the comparison sees it (DESIGN.md): DL16 has
// 9 fraction bits (relative spacing 2^-9 between 1 and 2), 6 exponent bits
// with bias 31, no subnormals, one NaN/Inf code. fp16 and bf16 tensors live
// on the device as DL16; the Spyre compute path rounds operands to DL16 and
// accumulates in fp32.
//
// RoundThroughDl16 is the harness's own copy of the reference encode
// (nearest-away; the device's rounding setting may differ, which the
// yardstick's factor absorbs). It exists so that the CPU can compute "the
// same case in the device's format" as a yardstick (see compare.h), without
// depending on the device under test.
#include <ATen/ATen.h>

namespace harness {

constexpr double kDl16Spacing = 1.0 / 512;  // 2^-9: spacing of DL16 in [1, 2)

// A float tensor holding every value of `t` rounded to DL16 and back:
// |x| rounding to 2^-31 or below -> signed zero (DL16's zero code); |x| > 2^32 * (1 + 510/512), NaN, Inf -> NaN.
at::Tensor RoundThroughDl16(const at::Tensor& t);

// The DL16 spacing (one ULP) at magnitude |x|; the spacing of the smallest
// normal (2^-40) below 2^-31.
double Dl16Ulp(double x);

// Relative spacing of the format a value of `dtype` ends up in after a trip
// through the device: max(2^-9, the dtype's own spacing). bf16: 2^-7;
// fp16, fp32: 2^-9 (fp32 compute may round operands to DL16).
double DeviceRelativeSpacing(at::ScalarType dtype);

}  // namespace harness
