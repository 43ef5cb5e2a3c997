// The vectorised special functions (special_arrays.h) against the scalar
// functions of special_math.h, bit for bit: every instruction-set path this
// CPU has, over every DL16 input, a dense fp32 grid and the edge values. And
// the vectorised max / min against their scalar lane order.
#include "core/kernels/special_arrays.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "core/kernels/canonical_sum.h"
#include "core/kernels/special_math.h"
#include "spyre_emu/dl16.h"

namespace {

namespace sp = spyre_emu::special;
using spyre_emu::Isa;

struct ArrayFn {
  const char* name;
  sp::Fn fn;
  float (*scalar)(float);
};

const ArrayFn kArrayFns[] = {
    {"exp", sp::Fn::kExp, sp::Exp},
    {"log", sp::Fn::kLog, sp::Log},
    {"tanh", sp::Fn::kTanh, sp::Tanh},
    {"sigmoid", sp::Fn::kSigmoid, sp::Sigmoid},
    {"erf", sp::Fn::kErf, sp::Erf},
    {"gelu", sp::Fn::kGelu, sp::Gelu},
    {"gelu_tanh", sp::Fn::kGeluTanh, sp::GeluTanh},
    {"silu", sp::Fn::kSilu, sp::Silu},
};

std::vector<Isa> Paths() {
  std::vector<Isa> paths;
  for (Isa isa : {Isa::kPortable, Isa::kAvx2, Isa::kAvx512}) {
    if (spyre_emu::IsaSupported(isa)) paths.push_back(isa);
  }
  return paths;
}

uint32_t Bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}

// Every DL16 value, then the fp32 values the kernels meet besides (fp32
// tensors): a dense grid over [-100, 100], magnitudes from 1e-40 to 3e38 and
// the edges.
std::vector<float> Inputs() {
  std::vector<float> x;
  for (uint32_t code = 0; code < 0x10000; ++code) {
    x.push_back(spyre_emu::Dl16Decode(static_cast<uint16_t>(code)));
  }
  for (int i = -200000; i <= 200000; ++i) x.push_back(static_cast<float>(i) * 5e-4f);
  for (double m = 1e-40; m < 3e38; m *= 1.01) {
    x.push_back(static_cast<float>(m));
    x.push_back(static_cast<float>(-m));
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float e :
       {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
        -std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min(),
        -std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
        std::numeric_limits<float>::lowest(), 88.0f, 88.7228394f, -86.9f, -87.0f, 0.55f, 0.5f,
        1.17549435e-38f}) {
    x.push_back(e);
  }
  return x;
}

TEST(SpecialArraysTest, EveryPathGivesTheScalarBitsOnEveryInput) {
  const std::vector<float> in = Inputs();
  for (Isa isa : Paths()) {
    for (const ArrayFn& fn : kArrayFns) {
      // Offsets 0 and 3 put different elements in the scalar tail.
      for (size_t offset : {size_t{0}, size_t{3}}) {
        std::vector<float> out(in.begin() + static_cast<std::ptrdiff_t>(offset), in.end());
        sp::ApplyArrayWithIsa(isa, fn.fn, out.data(), static_cast<int64_t>(out.size()));
        for (size_t i = 0; i < out.size(); ++i) {
          const float x = in[offset + i];
          ASSERT_EQ(Bits(out[i]), Bits(fn.scalar(x)))
              << fn.name << "(" << x << ") on " << spyre_emu::IsaName(isa) << ": got " << out[i]
              << ", scalar " << fn.scalar(x);
        }
      }
    }
    std::printf("%s: %zu inputs x %zu functions bit-identical\n", spyre_emu::IsaName(isa),
                in.size(), sizeof kArrayFns / sizeof kArrayFns[0]);
  }
}

TEST(SpecialArraysTest, ExpShiftedGivesTheScalarBits) {
  const std::vector<float> in = Inputs();
  for (Isa isa : Paths()) {
    for (float shift : {0.0f, 3.5f, -2.25f, 80.0f, std::numeric_limits<float>::infinity()}) {
      std::vector<float> out = in;
      sp::ExpShiftedArrayWithIsa(isa, out.data(), static_cast<int64_t>(out.size()), shift);
      for (size_t i = 0; i < out.size(); ++i) {
        ASSERT_EQ(Bits(out[i]), Bits(sp::Exp(in[i] - shift)))
            << "exp(" << in[i] << " - " << shift << ") on " << spyre_emu::IsaName(isa);
      }
    }
  }
}

TEST(SpecialArraysTest, TheDefaultPathIsTheBestOne) {
  const std::vector<float> in = Inputs();
  for (const ArrayFn& fn : kArrayFns) {
    std::vector<float> a = in, b = in;
    sp::ApplyArray(fn.fn, a.data(), static_cast<int64_t>(a.size()));
    sp::ApplyArrayWithIsa(spyre_emu::BestIsa(), fn.fn, b.data(), static_cast<int64_t>(b.size()));
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), a.size() * sizeof(float))) << fn.name;
  }
}

// The max / min of the kernels as it was written lane by lane: lane j takes
// elements i % 8 == j of the whole groups of 8, lane 0 the tail, the lanes are
// then combined in order; NaNs are summed per lane.
float ScalarExtreme(const float* x, int64_t n, bool max) {
  float acc[8], nan[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (float& a : acc) a = x[0];
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) {
      const float v = x[i + j];
      acc[j] = max ? (v > acc[j] ? v : acc[j]) : (v < acc[j] ? v : acc[j]);
      nan[j] += (v != v) ? v : 0.0f;
    }
  }
  for (; i < n; ++i) {
    acc[0] = max ? (x[i] > acc[0] ? x[i] : acc[0]) : (x[i] < acc[0] ? x[i] : acc[0]);
    nan[0] += (x[i] != x[i]) ? x[i] : 0.0f;
  }
  float best = acc[0];
  for (int j = 1; j < 8; ++j) best = max ? std::max(best, acc[j]) : std::min(best, acc[j]);
  const float nans =
      ((nan[0] + nan[1]) + (nan[2] + nan[3])) + ((nan[4] + nan[5]) + (nan[6] + nan[7]));
  return std::isnan(nans) ? nans : best;
}

TEST(SpecialArraysTest, ExtremeKeepsItsLaneOrder) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(0, 9);
  std::normal_distribution<float> normal;
  for (int trial = 0; trial < 2000; ++trial) {
    const int64_t n = 1 + trial % 300;
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) {
      const int k = pick(rng);
      // Signed zeros and ties decide which of equal values is kept.
      v = k == 0 ? 0.0f : k == 1 ? -0.0f : k == 2 ? 1.0f : normal(rng);
    }
    if (trial % 7 == 0) x[static_cast<size_t>(trial) % x.size()] = std::nanf("");
    for (bool max : {true, false}) {
      ASSERT_EQ(Bits(spyre_emu::kernels::Extreme(x.data(), n, max)),
                Bits(ScalarExtreme(x.data(), n, max)))
          << "n " << n << " trial " << trial << (max ? " max" : " min");
    }
  }
}

}  // namespace
