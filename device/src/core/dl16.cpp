// The scalar DL16 codec: the reference every other path must match bit for bit.
#include "spyre_emu/dl16.h"

#include "core/bits.h"
#include "spyre_emu/runtime.h"

namespace spyre_emu {

namespace {
// fp32 bits of 2^32 * (1 + 510/512): biased exponent 159, fraction 510 << 14.
constexpr uint32_t kMaxFiniteFp32Bits = (159u << 23) | (510u << 14);
constexpr uint32_t kRebias = 127u - 31u;
}  // namespace

uint16_t Dl16Encode(float x, Rounding rounding) {
  const uint32_t b = FloatBits(x);
  const uint16_t sign = static_cast<uint16_t>((b >> 16) & 0x8000u);
  const uint32_t mag = b & 0x7FFFFFFFu;
  // Inf (0x7F800000) and NaN compare above the largest finite value too.
  if (mag > kMaxFiniteFp32Bits) return sign | kDl16NanCode;
  uint32_t rounded = mag;
  switch (rounding) {
    case Rounding::kNearestAway:
      rounded = mag + (1u << 13);
      break;
    case Rounding::kNearestEven:
      rounded = mag + 0x1FFFu + ((mag >> 14) & 1u);
      break;
    case Rounding::kTruncate:
      break;
  }
  // mag <= kMaxFiniteFp32Bits, whose low 14 bits are zero, so rounding never
  // reaches exponent 64 nor the NaN code's fraction 511 at exponent 63.
  const uint32_t exp = rounded >> 23;
  if (exp < kRebias) return sign;
  return sign | static_cast<uint16_t>(((exp - kRebias) << 9) | ((rounded >> 14) & 0x1FFu));
}

float Dl16Decode(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t mag = bits & 0x7FFFu;
  if (mag == 0) return BitsFloat(sign);
  if (mag == kDl16NanCode) return BitsFloat(sign | 0x7FC00000u);
  // (e << 9 | f) + (kRebias << 9), shifted by 14, is fp32's (e + 96) << 23 | f << 14.
  return BitsFloat(sign | ((mag + (kRebias << 9)) << 14));
}

float RoundToDl16(float x, Rounding rounding) { return Dl16Decode(Dl16Encode(x, rounding)); }

uint16_t dl16_from_float(float x) { return Dl16Encode(x, CurrentRounding()); }
float dl16_to_float(uint16_t bits) { return Dl16Decode(bits); }

}  // namespace spyre_emu
