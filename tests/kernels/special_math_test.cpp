// The special-function approximations against double-precision libm:
// exhaustively over every DL16 input (each result within 1 DL16 ULP of the
// correctly rounded one), and in fp32 ULPs over a dense grid (the bounds
// documented in special_math.h).
#include "core/kernels/special_math.h"

#include <cmath>
#include <cstdio>
#include <functional>

#include <gtest/gtest.h>

#include "spyre_emu/dl16.h"

namespace {

namespace sp = spyre_emu::special;
using spyre_emu::Rounding;

struct Fn {
  const char* name;
  float (*approx)(float);
  std::function<double(double)> exact;
  double max_fp32_ulp;          // the bound documented in special_math.h
  double max_input = INFINITY;  // |x| beyond this is not claimed
  bool absolute = false;        // error measured in ULPs of 1 (sin, cos)
};

double Gelu(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }
// 0.5 x (1 + tanh u) written as x sigmoid(2u): equal, without the double
// cancellation of 1 + tanh(u) in the negative tail.
double GeluTanh(double x) {
  const double u = std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x);
  return x * Sigmoid(2 * u);
}

const Fn kFns[] = {
    {"exp", sp::Exp, [](double x) { return std::exp(x); }, 2},
    {"log", sp::Log, [](double x) { return std::log(x); }, 3},
    {"tanh", sp::Tanh, [](double x) { return std::tanh(x); }, 4},
    {"sigmoid", sp::Sigmoid, Sigmoid, 3},
    {"erf", sp::Erf, [](double x) { return std::erf(x); }, 8},
    {"gelu", sp::Gelu, Gelu, 300},
    {"gelu_tanh", sp::GeluTanh, GeluTanh, 200},
    {"silu", sp::Silu, [](double x) { return x * Sigmoid(x); }, 4},
    {"sin", sp::Sin, [](double x) { return std::sin(x); }, 2, 1e5, true},
    {"cos", sp::Cos, [](double x) { return std::cos(x); }, 2, 1e5, true},
};

// Sign-magnitude DL16 codes as ordered integers: neighbours differ by 1.
int Ordered(uint16_t code) { return (code & 0x8000) ? -(code & 0x7FFF) : (code & 0x7FFF); }

TEST(SpecialMathTest, EveryDl16InputIsWithinOneDl16Ulp) {
  for (const Fn& fn : kFns) {
    int worst = 0;
    for (uint32_t code = 0; code < 0x10000; ++code) {
      const float x = spyre_emu::Dl16Decode(static_cast<uint16_t>(code));
      if (std::fabs(x) > fn.max_input) continue;
      const uint16_t got = spyre_emu::Dl16Encode(fn.approx(x), Rounding::kNearestAway);
      const uint16_t want =
          spyre_emu::Dl16Encode(static_cast<float>(fn.exact(x)), Rounding::kNearestAway);
      const bool got_nan = (got & 0x7FFF) == 0x7FFF, want_nan = (want & 0x7FFF) == 0x7FFF;
      ASSERT_EQ(got_nan, want_nan) << fn.name << "(" << x << ")";
      if (got_nan) continue;
      const int d = std::abs(Ordered(got) - Ordered(want));
      // sin/cos near their zeros: the value is tiny and its DL16 ULP far
      // below the absolute error of the argument reduction; judge those by
      // the absolute bound instead.
      if (fn.absolute && std::fabs(fn.exact(x)) < 1.0 / 64 &&
          std::fabs(spyre_emu::Dl16Decode(got) - fn.exact(x)) < 2.5e-7) {
        continue;
      }
      worst = std::max(worst, d);
      ASSERT_LE(d, 1) << fn.name << "(" << x << "): got " << spyre_emu::Dl16Decode(got) << " want "
                      << spyre_emu::Dl16Decode(want);
    }
    std::printf("%-10s worst DL16 error over all 65536 inputs: %d ULP\n", fn.name, worst);
  }
}

double Fp32Ulps(float got, double want) {
  if (std::isnan(want)) return std::isnan(got) ? 0 : 1e9;
  if (std::isinf(want)) return got == static_cast<float>(want) ? 0 : 1e9;
  const float w = static_cast<float>(want);
  // Below 1e-30 results may be flushed (no fp32 subnormals, exp flushes
  // below ~1.7e-38): only require the result to be tiny too.
  if (std::fabs(want) < 1e-30) return std::fabs(got) < 1e-30 ? 0 : 1e9;
  const double ulp = std::ldexp(1.0, std::ilogb(w) - 23);
  return std::fabs(got - want) / ulp;
}

TEST(SpecialMathTest, Fp32ErrorsStayWithinTheDocumentedUlps) {
  for (const Fn& fn : kFns) {
    double worst = 0, worst_x = 0;
    // Dense grid over [-20, 20] plus a log-spaced sweep of magnitudes.
    auto check = [&](float x) {
      if (std::fabs(x) > fn.max_input) return;
      const double e = fn.absolute ? std::fabs(fn.approx(x) - fn.exact(x)) / std::ldexp(1.0, -23)
                                   : Fp32Ulps(fn.approx(x), fn.exact(x));
      if (e > worst) worst = e, worst_x = x;
    };
    for (int i = -400000; i <= 400000; ++i) check(i * 5e-5f);
    for (double m = 1e-30; m < (fn.absolute ? 1e5 : 80); m *= 1.001) {
      check(static_cast<float>(m));
      check(static_cast<float>(-m));
    }
    std::printf("%-10s worst fp32 error %.2f ULP at x = %g (bound %.0f)\n", fn.name, worst, worst_x,
                fn.max_fp32_ulp);
    EXPECT_LE(worst, fn.max_fp32_ulp) << fn.name << " at " << worst_x;
  }
}

TEST(SpecialMathTest, EdgeValues) {
  EXPECT_EQ(sp::Exp(-INFINITY), 0.0f);
  EXPECT_EQ(sp::Exp(INFINITY), INFINITY);
  EXPECT_TRUE(std::isnan(sp::Exp(NAN)));
  EXPECT_EQ(sp::Exp(0.0f), 1.0f);
  EXPECT_EQ(sp::Log(0.0f), -INFINITY);
  EXPECT_TRUE(std::isnan(sp::Log(-1.0f)));
  EXPECT_EQ(sp::Log(INFINITY), INFINITY);
  EXPECT_EQ(sp::Log(1.0f), 0.0f);
  EXPECT_EQ(sp::Tanh(INFINITY), 1.0f);
  EXPECT_EQ(sp::Tanh(-INFINITY), -1.0f);
  EXPECT_EQ(sp::Sigmoid(-INFINITY), 0.0f);
  EXPECT_EQ(sp::Erf(INFINITY), 1.0f);
  EXPECT_TRUE(std::isnan(sp::Gelu(NAN)));
  EXPECT_TRUE(std::isnan(sp::Tanh(NAN)));
  EXPECT_TRUE(std::isnan(sp::Sin(INFINITY)));
  EXPECT_TRUE(std::isnan(sp::Cos(NAN)));
  EXPECT_EQ(sp::Sin(0.0f), 0.0f);
  EXPECT_EQ(sp::Cos(0.0f), 1.0f);
}

}  // namespace
