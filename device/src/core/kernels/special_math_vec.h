#pragma once
// The special functions of special_math.h on 16 fp32 lanes at once (GCC
// vector extensions), step for step the same IEEE operations in the same
// order: every lane gives exactly the bits of the scalar function on that
// input. Selects replace the scalar ternaries (both sides are computed, as
// the scalar code does too), masks are the lanes' comparison results.
//
// Included by special_arrays.cpp only, where the loops are compiled for
// AVX-512, AVX2 and the SSE2 baseline. The build turns off fused multiply-add
// contraction (-ffp-contract=off) for the core: AVX-512 has FMA instructions,
// and a contracted a * b + c would round once where the scalar code rounds
// twice. tests/kernels/special_arrays_test.cpp holds every path to the scalar
// bits over all 65536 DL16 inputs and a dense fp32 grid.
#include <cstdint>
#include <cstring>

#include "core/kernels/special_math.h"

// A 64-byte vector passed between non-inlined functions without AVX-512 would
// change the calling convention; these functions are always inlined. (GCC
// reports it at the end of the translation unit, so the warning stays off for
// the rest of the including file.)
#pragma GCC diagnostic ignored "-Wpsabi"

namespace spyre_emu::special::vec {

constexpr int kLanes = 16;
typedef float F __attribute__((vector_size(4 * kLanes)));
typedef int32_t I __attribute__((vector_size(4 * kLanes)));
typedef uint32_t U __attribute__((vector_size(4 * kLanes)));

// c in every lane (F{} + c would turn -0 into +0).
SPYRE_SPECIAL F Splat(float c) {
  F v;
  for (int i = 0; i < kLanes; ++i) v[i] = c;
  return v;
}
SPYRE_SPECIAL F Select(I mask, F a, F b) { return mask ? a : b; }
SPYRE_SPECIAL U BitsOf(F x) {
  U b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
SPYRE_SPECIAL F FromBits(U b) {
  F x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
SPYRE_SPECIAL F Abs(F x) { return FromBits(BitsOf(x) & 0x7FFFFFFFu); }
// |v| with the sign of s (__builtin_copysignf lane by lane).
SPYRE_SPECIAL F CopySign(F v, F s) {
  return FromBits((BitsOf(v) & 0x7FFFFFFFu) | (BitsOf(s) & 0x80000000u));
}

SPYRE_SPECIAL F Exp(F x) {
  constexpr float kLog2e = 1.44269504088896341f;
  constexpr float kLn2Hi = 0.693145751953125f;
  constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  constexpr float kRound = 12582912.0f;
  const F xc =
      Select(x > 88.0f, Splat(88.0f), Select(x < -87.0f, Splat(-87.0f), Select(x != x, F{}, x)));
  const F n = (xc * kLog2e + kRound) - kRound;
  const F r = (xc - n * kLn2Hi) - n * kLn2Lo;
  F p = Splat(1.0f / 5040);
  p = p * r + 1.0f / 720;
  p = p * r + 1.0f / 120;
  p = p * r + 1.0f / 24;
  p = p * r + 1.0f / 6;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  const I ni = __builtin_convertvector(n, I);
  const F scale = FromBits((reinterpret_cast<const U&>(ni) + 126u) << 23);
  F y = (p * 2.0f) * scale;
  y = Select(x > 88.7228394f, Splat(__builtin_inff()), y);
  y = Select(x < -86.9f, F{}, y);
  return Select(x != x, x, y);
}

SPYRE_SPECIAL F Log(F x) {
  constexpr float kLn2Hi = 0.693145751953125f;
  constexpr float kLn2Lo = 1.42860682030941723212e-6f;
  const I sub = x < 1.17549435e-38f;
  const F xs = Select(sub, x * 8388608.0f, x);
  const U b = BitsOf(xs);
  const U shifted = b >> 23;
  I e = reinterpret_cast<const I&>(shifted) - 127 - (sub & 23);
  F m = FromBits((b & 0x007FFFFFu) | 0x3F800000u);
  const I big = m > 1.41421356f;
  m = Select(big, m * 0.5f, m);
  e = big ? e + 1 : e;
  const F s = (m - 1.0f) / (m + 1.0f);
  const F s2 = s * s;
  F p = Splat(2.0f / 11);
  p = p * s2 + 2.0f / 9;
  p = p * s2 + 2.0f / 7;
  p = p * s2 + 2.0f / 5;
  p = p * s2 + 2.0f / 3;
  p = p * s2 + 2.0f;
  const F ef = __builtin_convertvector(e, F);
  F y = (ef * kLn2Hi + s * p) + ef * kLn2Lo;
  y = Select(x == __builtin_inff(), x, y);
  y = Select(x == 0.0f, Splat(-__builtin_inff()), y);
  y = Select((x < 0.0f) | (x != x), Splat(__builtin_nanf("")), y);
  return y;
}

SPYRE_SPECIAL F Tanh(F x) {
  const F a = Abs(x);
  const F a2 = a * a;
  F p = Splat(-929569.0f / 638512875.0f);
  p = p * a2 + 21844.0f / 6081075.0f;
  p = p * a2 - 1382.0f / 155925.0f;
  p = p * a2 + 62.0f / 2835.0f;
  p = p * a2 - 17.0f / 315.0f;
  p = p * a2 + 2.0f / 15.0f;
  p = p * a2 - 1.0f / 3.0f;
  const F small = a + a * a2 * p;
  const F large = 1.0f - 2.0f / (Exp(2.0f * a) + 1.0f);
  return CopySign(Select(a < 0.55f, small, large), x);
}

SPYRE_SPECIAL F Sigmoid(F x) { return Select(x != x, x, 1.0f / (1.0f + Exp(-x))); }

SPYRE_SPECIAL F ErfcNonNegative(F z) {
  const F t = 1.0f / (1.0f + 0.5f * z);
  F p = Splat(0.17087277f);
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

SPYRE_SPECIAL F Erf(F x) {
  const F a = Abs(x);
  const F a2 = a * a;
  F p = Splat(-1.0f / 1320);
  p = p * a2 + 1.0f / 216;
  p = p * a2 - 1.0f / 42;
  p = p * a2 + 1.0f / 10;
  p = p * a2 - 1.0f / 3;
  p = p * a2 + 1.0f;
  const F small = 1.12837916709551257f * a * p;
  const F large = 1.0f - ErfcNonNegative(a);
  return CopySign(Select(a < 0.5f, small, large), x);
}

SPYRE_SPECIAL F Gelu(F x) {
  const F half_ec = 0.5f * ErfcNonNegative(Abs(x) * 0.70710678118654752f);
  const F positive = x - x * half_ec, negative = x * half_ec;
  return Select(x >= 0.0f, positive, negative);
}

SPYRE_SPECIAL F GeluTanh(F x) {
  constexpr float kTwoSqrt2OverPi = 2.0f * 0.79788456080286536f;
  const F u = kTwoSqrt2OverPi * (x + 0.044715f * x * x * x);
  return Select(x != x, x, x * Sigmoid(u));
}

SPYRE_SPECIAL F Silu(F x) { return Select(x != x, x, x * Sigmoid(x)); }

}  // namespace spyre_emu::special::vec
