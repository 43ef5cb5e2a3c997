// IEEE fp16 / bf16 bit conversions, checked against the definition and, where
// the CPU has F16C, against the hardware conversion.
#include "spyre_emu/float16.h"

#include <cmath>
#include <cstring>
#include <random>

#include <gtest/gtest.h>
#include <immintrin.h>

namespace spyre_emu {
namespace {

TEST(Float16Test, Fp16DecodeMatchesDefinition) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const int e = (b >> 10) & 31, f = b & 1023;
    const float got = Fp16ToFloat(static_cast<uint16_t>(b));
    const double sign = (b & 0x8000) ? -1 : 1;
    if (e == 31) {
      ASSERT_EQ(std::isnan(got), f != 0) << b;
      continue;
    }
    const double want =
        e == 0 ? sign * std::ldexp(f, -24) : sign * std::ldexp(1 + f / 1024.0, e - 15);
    ASSERT_EQ(static_cast<double>(got), want) << b;
    ASSERT_EQ(FloatToFp16(got), b) << "round trip " << b;
  }
}

__attribute__((target("f16c"))) uint16_t HardwareFp16(float x) {
  return static_cast<uint16_t>(_cvtss_sh(x, _MM_FROUND_TO_NEAREST_INT));
}

TEST(Float16Test, Fp16EncodeMatchesHardware) {
  if (!__builtin_cpu_supports("f16c")) GTEST_SKIP() << "this CPU has no F16C to compare with";
  std::mt19937 rng(7);
  for (int i = 0; i < 2000000; ++i) {
    uint32_t b = rng();
    float x;
    std::memcpy(&x, &b, sizeof x);
    if (std::isnan(x)) continue;
    ASSERT_EQ(FloatToFp16(x), HardwareFp16(x)) << std::hex << b;
  }
  // Ties between fp16 neighbours, including in the subnormal range.
  for (float x :
       {1.0f + 1.0f / 2048, 1.0f + 3.0f / 2048, 0x1p-25f, 3 * 0x1p-25f, 65520.0f, 65519.0f}) {
    EXPECT_EQ(FloatToFp16(x), HardwareFp16(x)) << x;
  }
}

TEST(Float16Test, Bf16) {
  EXPECT_EQ(Bf16ToFloat(0x3F80), 1.0f);
  EXPECT_EQ(FloatToBf16(1.0f), 0x3F80);
  EXPECT_EQ(FloatToBf16(1.0f + 0x1p-8f), 0x3F80);      // tie -> even
  EXPECT_EQ(FloatToBf16(1.0f + 3 * 0x1p-8f), 0x3F82);  // tie -> even (up)
  EXPECT_TRUE(std::isnan(Bf16ToFloat(FloatToBf16(NAN))));
  EXPECT_EQ(FloatToBf16(INFINITY), 0x7F80);
  for (uint32_t b = 0; b < 65536; ++b) {
    const float v = Bf16ToFloat(static_cast<uint16_t>(b));
    if (!std::isnan(v)) {
      ASSERT_EQ(FloatToBf16(v), b);
    }
  }
}

}  // namespace
}  // namespace spyre_emu
