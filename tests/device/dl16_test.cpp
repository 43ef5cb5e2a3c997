// DL16 codec: the scalar functions against an independent reference written
// with frexp/ldexp on doubles, and every vector path against the scalar one.
#include "spyre_emu/dl16.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "spyre_emu/float16.h"

namespace spyre_emu {
namespace {

constexpr Rounding kModes[] = {Rounding::kNearestAway, Rounding::kNearestEven, Rounding::kTruncate};

float FromBits(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
uint32_t ToBits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// the format's definition, computed on doubles rather than on bit fields.
uint16_t ReferenceEncode(float x, Rounding rounding) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (!std::isfinite(x) || std::fabs(x) > std::ldexp(1.0 + 510.0 / 512, 32)) return sign | 0x7FFF;
  const double a = std::fabs(static_cast<double>(x));
  if (a == 0) return sign;
  int e = 0;
  const double m = std::frexp(a, &e) * 2;  // a = m * 2^(e-1), m in [1, 2)
  --e;
  const double f = (m - 1) * 512;  // exact: fp32 has 23 fraction bits
  double whole = std::floor(f);
  const double rest = f - whole;
  if (rounding == Rounding::kNearestAway && rest >= 0.5) whole += 1;
  if (rounding == Rounding::kNearestEven &&
      (rest > 0.5 || (rest == 0.5 && std::fmod(whole, 2) == 1))) {
    whole += 1;
  }
  if (whole == 512) {
    whole = 0;
    ++e;
  }
  const int biased = e + 31;
  if (biased < 0) return sign;
  return static_cast<uint16_t>(sign | (biased << 9) | static_cast<int>(whole));
}

TEST(Dl16Test, DecodesAllBitPatterns) {
  for (uint32_t b = 0; b < 65536; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float got = Dl16Decode(h);
    const bool negative = (h & 0x8000) != 0;
    const int e = (h >> 9) & 63;
    const int f = h & 511;
    ASSERT_EQ(std::signbit(got), negative) << std::hex << b;
    if ((h & 0x7FFF) == 0) {
      ASSERT_EQ(got, 0.0f) << std::hex << b;
    } else if ((h & 0x7FFF) == 0x7FFF) {
      ASSERT_TRUE(std::isnan(got)) << std::hex << b;
    } else {
      const double want = std::ldexp(1.0 + f / 512.0, e - 31) * (negative ? -1 : 1);
      ASSERT_EQ(static_cast<double>(got), want) << std::hex << b;
    }
  }
}

TEST(Dl16Test, EncodeInvertsDecodeForEveryFiniteCode) {
  for (Rounding mode : kModes) {
    for (uint32_t b = 0; b < 65536; ++b) {
      if ((b & 0x7FFF) == 0x7FFF) continue;
      ASSERT_EQ(Dl16Encode(Dl16Decode(static_cast<uint16_t>(b)), mode), b) << std::hex << b;
    }
  }
}

TEST(Dl16Test, SpecialValues) {
  for (Rounding mode : kModes) {
    EXPECT_EQ(Dl16Encode(0.0f, mode), 0x0000);
    EXPECT_EQ(Dl16Encode(-0.0f, mode), 0x8000);
    EXPECT_EQ(Dl16Encode(std::numeric_limits<float>::infinity(), mode), 0x7FFF);
    EXPECT_EQ(Dl16Encode(-std::numeric_limits<float>::infinity(), mode), 0xFFFF);
    EXPECT_EQ(Dl16Encode(std::numeric_limits<float>::quiet_NaN(), mode) & 0x7FFF, 0x7FFF);
    EXPECT_EQ(Dl16Encode(1.0f, mode), 31 << 9);
    EXPECT_EQ(Dl16Encode(-2.0f, mode), 0x8000 | (32 << 9));
    // The overflow boundary: 2^32 * (1 + 510/512) is the largest finite value;
    // the next fp32 above it is the NaN/Inf code in every mode.
    EXPECT_EQ(Dl16Encode(kDl16MaxValue, mode), kDl16MaxFinite);
    EXPECT_EQ(Dl16Encode(-kDl16MaxValue, mode), 0xFFFE);
    EXPECT_EQ(Dl16Encode(std::nextafter(kDl16MaxValue, INFINITY), mode), 0x7FFF);
    EXPECT_EQ(Dl16Encode(-std::nextafter(kDl16MaxValue, INFINITY), mode), 0xFFFF);
    // Underflow: 2^-31 * (1 + 1/512) is the smallest nonzero; 2^-32 is zero.
    EXPECT_EQ(Dl16Encode(std::ldexp(1.0f + 1.0f / 512, -31), mode), 0x0001);
    EXPECT_EQ(Dl16Encode(std::ldexp(1.0f, -32), mode), 0x0000);
    EXPECT_EQ(Dl16Encode(-std::ldexp(1.0f, -40), mode), 0x8000);
    EXPECT_EQ(Dl16Encode(-std::numeric_limits<float>::denorm_min(), mode), 0x8000);
    EXPECT_TRUE(std::isnan(Dl16Decode(0x7FFF)));
    EXPECT_TRUE(std::isnan(Dl16Decode(0xFFFF)));
  }
}

TEST(Dl16Test, TiesFollowTheRoundingMode) {
  // 1 + 1/1024 lies halfway between 1 and 1 + 1/512.
  const float tie = 1.0f + 1.0f / 1024;
  EXPECT_EQ(Dl16Encode(tie, Rounding::kNearestAway), (31 << 9) | 1);
  EXPECT_EQ(Dl16Encode(tie, Rounding::kNearestEven), 31 << 9);
  EXPECT_EQ(Dl16Encode(tie, Rounding::kTruncate), 31 << 9);
  const float odd_tie = 1.0f + 3.0f / 1024;  // between f=1 and f=2
  EXPECT_EQ(Dl16Encode(-odd_tie, Rounding::kNearestAway), 0x8000 | (31 << 9) | 2);
  EXPECT_EQ(Dl16Encode(-odd_tie, Rounding::kNearestEven), 0x8000 | (31 << 9) | 2);
  EXPECT_EQ(Dl16Encode(-odd_tie, Rounding::kTruncate), 0x8000 | (31 << 9) | 1);
  // A carry out of the fraction moves to the next binade.
  const float carry = 2.0f - 1.0f / 1024;
  EXPECT_EQ(Dl16Encode(carry, Rounding::kNearestAway), 32 << 9);
  EXPECT_EQ(Dl16Encode(carry, Rounding::kNearestEven), 32 << 9);
  EXPECT_EQ(Dl16Encode(carry, Rounding::kTruncate), (31 << 9) | 511);
}

// >= 10^7 fp32 values per mode: every exponent with random fractions, the exact
// ties and their neighbours, and random bit patterns (NaN, Inf, subnormals).
std::vector<float> EncodeCorpus() {
  std::vector<float> v;
  std::mt19937 rng(20261129);
  for (uint32_t i = 0; i < 6000000; ++i) v.push_back(FromBits(rng()));
  for (uint32_t exp = 0; exp < 256; ++exp) {
    for (uint32_t k = 0; k < 512 * 2; ++k) {
      const uint32_t frac = (k % 512) << 14;
      const uint32_t base = ((k / 512) << 31) | (exp << 23) | frac;
      for (int32_t d : {-1, 0, 1}) v.push_back(FromBits(base + 0x2000 + d));  // ties
      v.push_back(FromBits(base | (rng() & 0x3FFF)));
      v.push_back(FromBits(base | (rng() & 0x3FFF)));
    }
  }
  for (float x : {kDl16MaxValue, -kDl16MaxValue}) {
    uint32_t b = ToBits(x);
    for (uint32_t d = 0; d < 20000; ++d) {
      v.push_back(FromBits(b - d));
      v.push_back(FromBits(b + d));
    }
  }
  return v;
}

TEST(Dl16Test, EncodeMatchesReferenceOnTenMillionValues) {
  const std::vector<float> corpus = EncodeCorpus();
  ASSERT_GE(corpus.size(), 7000000u);
  size_t total = 0;
  for (Rounding mode : kModes) {
    for (float x : corpus) {
      const uint16_t got = Dl16Encode(x, mode);
      const uint16_t want = ReferenceEncode(x, mode);
      if (std::isnan(x)) {
        ASSERT_EQ(got & 0x7FFF, 0x7FFF) << ToBits(x);
      } else {
        ASSERT_EQ(got, want) << RoundingName(mode) << " x=" << x << " bits=" << std::hex
                             << ToBits(x);
      }
      ++total;
    }
  }
  EXPECT_GE(total, 10000000u);
}

TEST(Dl16Test, VectorPathsAreBitIdenticalToScalar) {
  const std::vector<float> corpus = EncodeCorpus();
  std::vector<uint16_t> scalar(corpus.size()), vec(corpus.size());
  int paths = 0;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512}) {
    if (!IsaSupported(isa)) {
      std::printf("note: %s is not supported by this CPU; not compared\n", IsaName(isa));
      continue;
    }
    ++paths;
    for (Rounding mode : kModes) {
      for (size_t i = 0; i < corpus.size(); ++i) scalar[i] = Dl16Encode(corpus[i], mode);
      // An odd length exercises the scalar tail of the vector loops.
      Dl16FromFp32WithIsa(isa, corpus.data(), vec.data(), corpus.size() - 7, mode);
      for (size_t i = 0; i + 7 < corpus.size(); ++i) {
        ASSERT_EQ(vec[i], scalar[i]) << IsaName(isa) << " " << RoundingName(mode) << " at " << i;
      }
    }
    std::vector<uint16_t> codes(65536 + 5);
    for (size_t i = 0; i < codes.size(); ++i) codes[i] = static_cast<uint16_t>(i * 40503u);
    std::vector<float> decoded(codes.size());
    Dl16ToFp32WithIsa(isa, codes.data(), decoded.data(), codes.size());
    for (size_t i = 0; i < codes.size(); ++i) {
      ASSERT_EQ(ToBits(decoded[i]), ToBits(Dl16Decode(codes[i])))
          << IsaName(isa) << " " << codes[i];
    }
  }
  EXPECT_GE(paths, 1);
}

TEST(Dl16Test, Fp16InputDropsTheTenthFractionBit) {
  const uint16_t h = FloatToFp16(-2.002f);
  EXPECT_EQ(Fp16ToFloat(h), -2.001953125f);
  uint16_t d = 0;
  Dl16FromFp16(&h, &d, 1, kFp16InputRounding);
  EXPECT_EQ(Dl16Decode(d), -2.0f);
}

// fp16 and bf16 arrays on every path (tables, AVX2 + F16C, AVX-512) over all
// 65,536 bit patterns, against the scalar codec. The length 65,536 + 5 also
// runs the vector loops' scalar tails.
TEST(Dl16Test, HalfArraysMatchTheScalarCodecOnEveryPath) {
  const size_t n = 65536 + 5;
  std::vector<uint16_t> all(n), out(n), back(n);
  for (size_t i = 0; i < n; ++i) all[i] = static_cast<uint16_t>(i);
  int paths = 0;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512}) {
    if (!IsaSupported(isa)) {
      std::printf("note: %s is not supported by this CPU; not compared\n", IsaName(isa));
      continue;
    }
    ++paths;
    for (Rounding mode : kModes) {
      Dl16FromFp16WithIsa(isa, all.data(), out.data(), n, mode);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], Dl16Encode(Fp16ToFloat(all[i]), mode)) << IsaName(isa) << " fp16 " << i;
      }
      Dl16FromBf16WithIsa(isa, all.data(), out.data(), n, mode);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], Dl16Encode(Bf16ToFloat(all[i]), mode)) << IsaName(isa) << " bf16 " << i;
      }
    }
    Dl16ToFp16WithIsa(isa, all.data(), out.data(), n);
    Dl16ToBf16WithIsa(isa, all.data(), back.data(), n);
    for (size_t i = 0; i < n; ++i) {
      const float v = Dl16Decode(all[i]);
      ASSERT_EQ(out[i], FloatToFp16(v)) << IsaName(isa) << " " << i;
      ASSERT_EQ(back[i], FloatToBf16(v)) << IsaName(isa) << " " << i;
      // DL16's 10-bit significand fits fp16's 11: exact in fp16's normal range.
      if (std::fabs(v) >= 0x1p-14f && std::fabs(v) <= 65504.0f) {
        ASSERT_EQ(Fp16ToFloat(out[i]), v);
      }
    }
  }
  EXPECT_GE(paths, 1);
}

TEST(Dl16Test, RoundThroughDl16MatchesScalar) {
  std::vector<float> v = {1.0f + 1.0f / 1024, -3.14159f, 1e20f, 0.0f, 65504.0f};
  for (int i = 0; i < 3000; ++i) v.push_back(static_cast<float>(i) * 0.37f - 500.0f);
  std::vector<float> r = v;
  RoundThroughDl16(r.data(), r.size(), Rounding::kNearestEven);
  for (size_t i = 0; i < v.size(); ++i) {
    ASSERT_EQ(ToBits(r[i]), ToBits(RoundToDl16(v[i], Rounding::kNearestEven))) << v[i];
  }
}

}  // namespace
}  // namespace spyre_emu
