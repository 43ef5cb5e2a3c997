#include "spyre_emu/float16.h"

#include "core/bits.h"

namespace spyre_emu {

float Fp16ToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1Fu;
  const uint32_t frac = h & 0x3FFu;
  if (exp == 0x1F) return BitsFloat(sign | 0x7F800000u | (frac << 13));
  if (exp == 0) {
    // Zero or subnormal: frac * 2^-24, exact in fp32.
    const float v = static_cast<float>(frac) * 0x1p-24f;
    return sign ? -v : v;
  }
  return BitsFloat(sign | ((exp + (127 - 15)) << 23) | (frac << 13));
}

uint16_t FloatToFp16(float x) {
  const uint32_t b = FloatBits(x);
  const uint16_t sign = static_cast<uint16_t>((b >> 16) & 0x8000u);
  const uint32_t mag = b & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) return sign | 0x7E00u | ((mag >> 13) & 0x3FFu);  // quiet NaN
  if (mag >= 0x477FF000u) return sign | 0x7C00u;                          // >= 65520 rounds to Inf
  if (mag < 0x38800000u) {
    // Below 2^-14: fp16 subnormal. Adding 0.5f puts the value where one fp32
    // ulp is 2^-24 (the fp16 subnormal step), so the hardware's
    // round-to-nearest-even does the rounding; a result of 0x400 is the
    // smallest normal, which is the right bit pattern too.
    const float shifted = BitsFloat(mag) + 0.5f;
    return sign | static_cast<uint16_t>(FloatBits(shifted) - FloatBits(0.5f));
  }
  const uint32_t rebased = mag - ((127u - 15u) << 23);
  const uint32_t rounded = rebased + 0xFFFu + ((rebased >> 13) & 1u);
  return sign | static_cast<uint16_t>(rounded >> 13);
}

float Bf16ToFloat(uint16_t bits) { return BitsFloat(static_cast<uint32_t>(bits) << 16); }

uint16_t FloatToBf16(float x) {
  const uint32_t b = FloatBits(x);
  if ((b & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<uint16_t>((b >> 16) | 0x40u);
  return static_cast<uint16_t>((b + 0x7FFFu + ((b >> 16) & 1u)) >> 16);
}

}  // namespace spyre_emu
