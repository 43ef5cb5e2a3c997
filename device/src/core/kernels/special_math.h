#pragma once
// The vector unit's special functions: fp32 in, fp32 out, branch-free. These
// scalar functions define the results; the kernels run them 16 lanes at a
// time (special_math_vec.h, special_arrays.h), bit-identical to these.
//
// Approximations (errors measured by tests/kernels/special_math_test.cpp
// against double-precision libm over dense grids; the test asserts them):
//   exp      2^n * p(r), r = x - n ln2 in [-ln2/2, ln2/2] (Cody-Waite split),
//            p = Taylor polynomial to degree 7: <= 2 fp32 ULP. Results below
//            exp(-86.9) ~ 1.7e-38 flush to 0 (no fp32 subnormals).
//   log      x = 2^e m, m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(s),
//            s = (m-1)/(m+1), odd series to s^11: <= 3 fp32 ULP.
//   tanh     |x| < 0.55: Taylor series to x^15; else 1 - 2 / (exp(2|x|) + 1):
//            <= 4 fp32 ULP.
//   sigmoid  1 / (1 + exp(-x)): <= 3 fp32 ULP.
//   erfc     Chebyshev fit t exp(-z^2 + P(t)), t = 1 / (1 + z/2) (Numerical
//            Recipes' erfcc, fractional error < 1.2e-7 in exact arithmetic);
//            in fp32 the error grows with z^2 (the rounding of z^2).
//   erf      |x| < 0.5: Taylor series to x^11; else sign(x) (1 - erfc(|x|)):
//            <= 8 fp32 ULP (erf saturates before the erfc error grows).
//   gelu     x >= 0: x (1 - erfc(x/sqrt2)/2); x < 0: x erfc(-x/sqrt2)/2 (no
//            cancellation in either tail): a few fp32 ULP for x >= -4; in the
//            negative tail the z^2 rounding grows to <= 300 fp32 ULP (2e-5
//            relative) at x = -13, where |gelu| < 1e-37.
//   gelu(tanh) x * sigmoid(2 sqrt(2/pi) (x + 0.044715 x^3)) (the identity
//            (1 + tanh u)/2 = sigmoid(2u), again without cancellation); the
//            rounding of u grows the error in the negative tail to <= 200 fp32
//            ULP (1e-5 relative) at x = -9, where |gelu| < 1e-28.
//   silu     x * sigmoid(x): <= 4 fp32 ULP.
//   sin, cos x = n pi/2 + r with n and r in double (exact enough for every
//            fp32 input up to 2^32: the error of r is below 2e-7), then
//            Taylor polynomials in fp32 on |r| <= pi/4 and the quadrant's
//            sign/swap: <= 2 fp32 ULP of 1 (absolute 1.2e-7) for |x| <= 1e5;
//            within 1 DL16 ULP of the correctly rounded value on every DL16
//            input up to 1e5 (rotary angles), the same absolute error beyond.
// Every error above is far below half a DL16 ULP (2^-10 relative), so a DL16
// result is the correctly rounded one or its neighbour: over all 65536 DL16
// inputs every function but gelu(tanh) is exactly the correctly rounded DL16
// value, and gelu(tanh) is within 1 DL16 ULP.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/kernels/vector_clones.h"

// Always inlined: a call left in an array loop keeps it scalar.
#define SPYRE_SPECIAL inline __attribute__((always_inline))

namespace spyre_emu::special {

SPYRE_SPECIAL uint32_t Bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
SPYRE_SPECIAL float FromBits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}

SPYRE_SPECIAL float Exp(float x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;  // ln 2 with 12 low bits clear
  constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to integer
  // NaN -> 0 here (the result is patched below) so the int conversion is defined.
  const float xc = x > 88.0f ? 88.0f : (x < -87.0f ? -87.0f : (x != x ? 0.0f : x));
  const float n = (xc * kLog2e + kRound) - kRound;
  const float r = (xc - n * kLn2Hi) - n * kLn2Lo;
  float p = 1.0f / 5040;
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^(n-1) keeps the exponent field in range for n = 128; p * 2 is exact.
  const int32_t ni = static_cast<int32_t>(n);
  const float scale = FromBits(static_cast<uint32_t>(ni + 126) << 23);
  float y = (p * 2.0f) * scale;
  y = x > 88.7228394f ? INFINITY : y;
  y = x < -86.9f ? 0.0f : y;
  return x != x ? x : y;
}

SPYRE_SPECIAL float Log(float x) {
  constexpr float kLn2Hi = 0.693145751953125f;
  constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  // Scale subnormals up by 2^23 so the exponent field is meaningful.
  const bool sub = x < 1.17549435e-38f;
  const float xs = sub ? x * 8388608.0f : x;
  const uint32_t b = Bits(xs);
  int32_t e = static_cast<int32_t>(b >> 23) - 127 - (sub ? 23 : 0);
  float m = FromBits((b & 0x007FFFFFu) | 0x3F800000u);  // [1, 2)
  const bool big = m > 1.41421356f;
  m = big ? m * 0.5f : m;
  e = big ? e + 1 : e;
  const float s = (m - 1.0f) / (m + 1.0f);
  const float s2 = s * s;
  float p = 2.0f / 11;
  p = p * s2 + 2.0f / 9;
  p = p * s2 + 2.0f / 7;
  p = p * s2 + 2.0f / 5;
  p = p * s2 + 2.0f / 3;
  p = p * s2 + 2.0f;
  const float ef = static_cast<float>(e);
  float y = (ef * kLn2Hi + s * p) + ef * kLn2Lo;
  y = x == INFINITY ? x : y;
  y = x == 0.0f ? -INFINITY : y;
  y = (x < 0.0f || x != x) ? NAN : y;
  return y;
}

SPYRE_SPECIAL float Tanh(float x) {
  const float a = __builtin_fabsf(x);
  const float a2 = a * a;
  // Taylor coefficients of tanh: 1, -1/3, 2/15, -17/315, 62/2835, -1382/155925,
  // 21844/6081075, -929569/638512875.
  float p = -929569.0f / 638512875.0f;
  p = p * a2 + 21844.0f / 6081075.0f;
  p = p * a2 - 1382.0f / 155925.0f;
  p = p * a2 + 62.0f / 2835.0f;
  p = p * a2 - 17.0f / 315.0f;
  p = p * a2 + 2.0f / 15.0f;
  p = p * a2 - 1.0f / 3.0f;
  const float small = a + a * a2 * p;
  const float large = 1.0f - 2.0f / (Exp(2.0f * a) + 1.0f);
  // NaN flows through `large` (Exp(NaN) is NaN); selects stay branch-free.
  return __builtin_copysignf(a < 0.55f ? small : large, x);
}

// A NaN input comes back as itself. Through -x it would come back with its
// sign flipped or not, as the compiler happens to order the operations (IEEE
// leaves the sign of a NaN result open), and the DL16 bits of every path must
// be the same.
SPYRE_SPECIAL float Sigmoid(float x) {
  const float y = 1.0f / (1.0f + Exp(-x));
  return x != x ? x : y;
}

// erfc(z) for z >= 0.
SPYRE_SPECIAL float ErfcNonNegative(float z) {
  const float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  return t * Exp(-z * z + p);
}

SPYRE_SPECIAL float Erf(float x) {
  const float a = __builtin_fabsf(x);
  const float a2 = a * a;
  // 2/sqrt(pi) * (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320)
  float p = -1.0f / 1320;
  p = p * a2 + 1.0f / 216;
  p = p * a2 - 1.0f / 42;
  p = p * a2 + 1.0f / 10;
  p = p * a2 - 1.0f / 3;
  p = p * a2 + 1.0f;
  const float small = 1.12837916709551257f * a * p;
  const float large = 1.0f - ErfcNonNegative(a);
  return __builtin_copysignf(a < 0.5f ? small : large, x);  // NaN flows through `large`
}

SPYRE_SPECIAL float Gelu(float x) {
  const float half_ec = 0.5f * ErfcNonNegative(__builtin_fabsf(x) * 0.70710678118654752f);
  const float positive = x - x * half_ec, negative = x * half_ec;  // NaN: negative is NaN
  return x >= 0.0f ? positive : negative;
}

SPYRE_SPECIAL float GeluTanh(float x) {
  constexpr float kTwoSqrt2OverPi = 2.0f * 0.79788456080286536f;
  const float u = kTwoSqrt2OverPi * (x + 0.044715f * x * x * x);
  const float y = x * Sigmoid(u);
  return x != x ? x : y;
}

SPYRE_SPECIAL float Silu(float x) {
  const float y = x * Sigmoid(x);
  return x != x ? x : y;
}

// sin (cos_wanted = false) or cos of x; NaN and Inf give NaN.
SPYRE_SPECIAL float SinCos(float x, bool cos_wanted) {
  constexpr double kTwoOverPi = 0.63661977236758134308;
  constexpr double kPiOverTwo = 1.57079632679489661923;
  constexpr double kRound = 6755399441055744.0;  // 1.5 * 2^52: adding it rounds to integer
  const double xd = __builtin_fabsf(x) < 4.3e9f ? static_cast<double>(x) : 0.0;
  const double n = (xd * kTwoOverPi + kRound) - kRound;
  const float r = static_cast<float>(xd - n * kPiOverTwo);
  const int64_t q = static_cast<int64_t>(n) + (cos_wanted ? 1 : 0);  // cos x = sin(x + pi/2)
  const float r2 = r * r;
  float s = 1.0f / 362880;
  s = s * r2 - 1.0f / 5040;
  s = s * r2 + 1.0f / 120;
  s = s * r2 - 1.0f / 6;
  s = r + r * r2 * s;
  float c = 1.0f / 40320;
  c = c * r2 - 1.0f / 720;
  c = c * r2 + 1.0f / 24;
  c = c * r2 - 0.5f;
  c = 1.0f + r2 * c;
  const float v = (q & 1) ? c : s;
  const float y = (q & 2) ? -v : v;
  return __builtin_fabsf(x) < 4.3e9f ? y : NAN;  // Inf, NaN and beyond DL16's range
}
SPYRE_SPECIAL float Sin(float x) { return SinCos(x, false); }
SPYRE_SPECIAL float Cos(float x) { return SinCos(x, true); }

}  // namespace spyre_emu::special
