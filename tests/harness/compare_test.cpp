// Comparison metrics on hand-computed vectors, each pass criterion failing on
// its own, and the DL16 rounding behind the yardstick.
#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

#include "harness/compare/compare.h"
#include "harness/compare/device_format.h"
#include "harness/compare/tolerance.h"
#include "spyre_emu/dl16.h"

namespace {

using harness::CompareOutput;
using harness::Criterion;
using harness::Tolerance;

at::Tensor T(std::vector<double> v) { return at::tensor(v, at::kDouble); }

Tolerance Loose() {
  Tolerance t;
  t.rtol = 1;
  t.atol_abs = 1;
  t.yardstick = false;
  return t;
}

TEST(CompareTest, MetricsMatchHandComputedValues) {
  // ref (3, 4), out (3, 5): err (0, 1); ||err|| = 1, ||ref|| = 5.
  auto c = CompareOutput("out0", T({3, 5}).to(at::kHalf), T({3, 4}), nullptr, Loose());
  EXPECT_TRUE(c.passed) << c.message;
  EXPECT_DOUBLE_EQ(c.max_abs_err, 1.0);
  EXPECT_DOUBLE_EQ(c.max_rel_err, 0.25);
  EXPECT_DOUBLE_EQ(c.rel_l2, 0.2);
  EXPECT_DOUBLE_EQ(c.cosine, (9.0 + 20.0) / (std::sqrt(34.0) * 5.0));
  // An fp16 output lives as DL16: the ULP at 4 is 2^-7, so an error of 1 is 128 ULPs.
  EXPECT_DOUBLE_EQ(c.max_ulp, 128.0);
  EXPECT_EQ(c.elements, 2);
  // In fp32 the ULP at 4 is 2^-21; in bf16 2^-5 (coarser than DL16).
  EXPECT_DOUBLE_EQ(
      CompareOutput("o", T({3, 5}).to(at::kFloat), T({3, 4}), nullptr, Loose()).max_ulp,
      std::ldexp(1.0, 21));
  EXPECT_DOUBLE_EQ(
      CompareOutput("o", T({3, 5}).to(at::kBFloat16), T({3, 4}), nullptr, Loose()).max_ulp, 32.0);
}

TEST(CompareTest, EdgeCasesOfEmptyAndZeroReferences) {
  auto empty = CompareOutput("o", at::empty({0}), at::empty({0}), nullptr, Loose());
  EXPECT_TRUE(empty.passed);
  EXPECT_EQ(empty.max_abs_err, 0);
  auto zeros = CompareOutput("o", T({0, 0}), T({0, 0}), nullptr, Tolerance{});
  EXPECT_TRUE(zeros.passed) << zeros.message;
  EXPECT_EQ(zeros.cosine, 1.0);
  auto off = CompareOutput("o", T({0, 3}), T({0, 0}), nullptr, Loose());
  EXPECT_EQ(off.rel_l2, 3.0);  // absolute L2 when the reference is all zero
  EXPECT_EQ(off.cosine, 0.0);
}

TEST(CompareTest, ShapeMismatchFails) {
  auto c = CompareOutput("out1", T({1, 2, 3}), T({1, 2}), nullptr, Loose());
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.failed, Criterion::kShape);
  EXPECT_NE(c.message.find("out1 failed shape"), std::string::npos) << c.message;
}

TEST(CompareTest, NonFiniteDisagreementNamesTheFirstIndex) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto agree =
      CompareOutput("o", T({1, nan, inf}).to(at::kHalf), T({1, inf, nan}), nullptr, Loose());
  EXPECT_TRUE(agree.passed) << "DL16 has one NaN/Inf code";
  // fp32 and fp64 tell NaN, +Inf and -Inf apart.
  for (at::ScalarType t : {at::kFloat, at::kDouble}) {
    auto told = CompareOutput("o", T({1, nan, inf}).to(t), T({1, inf, nan}), nullptr, Loose());
    EXPECT_EQ(told.failed, Criterion::kNonFinite) << t;
    EXPECT_EQ(told.nonfinite_mismatches, 2) << t;
    auto sign = CompareOutput("o", T({-inf}).to(t), T({inf}), nullptr, Loose());
    EXPECT_EQ(sign.failed, Criterion::kNonFinite) << t;
    EXPECT_TRUE(CompareOutput("o", T({-inf, nan}).to(t), T({-inf, nan}), nullptr, Loose()).passed);
  }
  auto c = CompareOutput("o", T({1, 2, nan, nan}), T({1, 2, 3, nan}), nullptr, Loose());
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.failed, Criterion::kNonFinite);
  EXPECT_EQ(c.first_fail_index, 2);
  EXPECT_EQ(c.nonfinite_mismatches, 1);
  // A reference beyond fp16's range is expected to be Inf in an fp16 output.
  auto overflow = CompareOutput("o", T({inf}).to(at::kHalf), T({7e4}), nullptr, Loose());
  EXPECT_TRUE(overflow.passed) << overflow.message;
  // bf16 holds 7.9e10, but DL16 on the device does not: expected non-finite.
  auto dl16 = CompareOutput("o", T({nan}).to(at::kBFloat16), T({7.9e10}), nullptr, Loose());
  EXPECT_TRUE(dl16.passed) << dl16.message;
  auto f32 = CompareOutput("o", T({nan}).to(at::kFloat), T({7.9e10}), nullptr, Loose());
  EXPECT_EQ(f32.failed, Criterion::kNonFinite);
}

// A golden +Inf an output misses is named as the golden has it: "expected
// nan" for an fp16 output would send the reader after a NaN that was never
// there.
TEST(CompareTest, AMissedInfinityIsNamedAsTheGoldenHasIt) {
  const double inf = std::numeric_limits<double>::infinity();
  auto half = CompareOutput("o", T({0.58, 1}).to(at::kHalf), T({inf, inf}), nullptr, Loose());
  ASSERT_EQ(half.failed, Criterion::kNonFinite);
  EXPECT_NE(half.message.find("the golden value inf"), std::string::npos) << half.message;
  EXPECT_NE(half.message.find("got 0.58"), std::string::npos) << half.message;
  EXPECT_EQ(half.message.find("expected nan"), std::string::npos) << half.message;
  auto f32 = CompareOutput("o", T({0.58}).to(at::kFloat), T({inf}), nullptr, Loose());
  ASSERT_EQ(f32.failed, Criterion::kNonFinite);
  EXPECT_NE(f32.message.find("expected inf, got 0.58"), std::string::npos) << f32.message;
  // A finite golden value the dtype cannot hold says so.
  auto over = CompareOutput("o", T({1}).to(at::kFloat), T({1e39}), nullptr, Loose());
  ASSERT_EQ(over.failed, Criterion::kNonFinite);
  EXPECT_NE(over.message.find("overflows the dtype"), std::string::npos) << over.message;
}

TEST(CompareTest, ElementBoundReportsFractionAndFirstIndex) {
  Tolerance t;
  t.rtol = 0.01;
  t.yardstick = false;
  auto c = CompareOutput("o", T({1, 2.1, 3, 4.2}), T({1, 2, 3, 4}), nullptr, t);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.failed, Criterion::kElementBound);
  EXPECT_EQ(c.first_fail_index, 1);
  EXPECT_DOUBLE_EQ(c.fraction_outside, 0.5);
  t.max_fraction_outside = 0.5;
  EXPECT_TRUE(CompareOutput("o", T({1, 2.1, 3, 4.2}), T({1, 2, 3, 4}), nullptr, t).passed);
}

TEST(CompareTest, FailureMessagesNeverWriteAnExponent) {
  // Small values and a small bound: "bound 0.0000356633", never "3.56633e-05".
  Tolerance t;
  t.rtol = 1e-5;
  t.atol_abs = 0;
  t.atol_rms = 0;
  t.yardstick = false;
  auto c = CompareOutput("o", T({3.0e-5, 3.6e-5}), T({3.0e-5, 3.5e-5}), nullptr, t);
  ASSERT_FALSE(c.passed);
  EXPECT_EQ(c.message.find("e-0"), std::string::npos) << c.message;
  EXPECT_EQ(c.message.find("e+"), std::string::npos) << c.message;
  EXPECT_NE(c.message.find("ref 0.000035,"), std::string::npos) << c.message;
}

TEST(CompareTest, YardstickWidensTheBoundWhereTheCpuIsAlsoWrong) {
  Tolerance t;
  t.rtol = 0.001;
  t.m = 2;
  t.floor = 0;
  // The CPU in the device format is off by 0.1 at element 1: the device may be off by 0.2.
  const at::Tensor ref = T({1, 2, 3}), cpu = T({1, 2.1, 3});
  auto ok = CompareOutput("o", T({1, 2.15, 3}), ref, &cpu, t);
  EXPECT_TRUE(ok.passed) << ok.message;
  EXPECT_DOUBLE_EQ(ok.cpu_max_abs_err, 0.1000000000000000888);
  auto bad = CompareOutput("o", T({1.01, 2, 3}), ref, &cpu, t);
  EXPECT_FALSE(bad.passed);
  EXPECT_EQ(bad.failed, Criterion::kElementBound);
  EXPECT_EQ(bad.first_fail_index, 0);
}

TEST(CompareTest, AggregateYardstickCatchesAUniformSmallError) {
  // Every element 0.5% off, inside a loose element bound, but 5x the CPU's rel_l2.
  Tolerance t;
  t.rtol = 0.01;
  t.m = 3;
  t.floor = 1e-4;
  const at::Tensor ref = T({1, 2, 3, 4}), cpu = ref * (1 + 1e-3);
  auto c = CompareOutput("o", ref * 1.005, ref, &cpu, t);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.failed, Criterion::kYardstickRelL2);
  EXPECT_NEAR(c.rel_l2, 0.005, 1e-12);
  EXPECT_NEAR(c.cpu_rel_l2, 0.001, 1e-12);
  const auto metrics = c.Metrics(t);
  bool flagged = false;
  for (const auto& m : metrics) {
    if (m.name == "rel_l2") {
      flagged = m.failed;
      EXPECT_NEAR(m.limit, 3 * 0.001 + 1e-4, 1e-12);
    }
  }
  EXPECT_TRUE(flagged);
}

TEST(CompareTest, OptionalUlpAndCosineLimits) {
  Tolerance t = Loose();
  t.max_ulp = 1;
  auto c = CompareOutput("o", T({1 + 2.0 / 512}).to(at::kHalf), T({1}), nullptr, t);
  EXPECT_EQ(c.failed, Criterion::kMaxUlp);
  EXPECT_DOUBLE_EQ(c.max_ulp, 2.0);
  t = Loose();
  t.min_cosine = 0.99;
  c = CompareOutput("o", T({1, 0}), T({0, 1}), nullptr, t);
  EXPECT_EQ(c.failed, Criterion::kMinCosine);
}

TEST(DeviceFormatTest, RoundThroughDl16FollowsTheReferenceEncode) {
  const at::Tensor x = at::tensor({1.0f + 1.0f / 1024, -2.002f, 1e-10f, 5e9f, 9e9f,
                                   std::numeric_limits<float>::infinity(), -0.0f});
  const at::Tensor r = harness::RoundThroughDl16(x);
  const float* p = r.data_ptr<float>();
  EXPECT_EQ(p[0], 1.0f + 1.0f / 512);  // a tie rounds away from zero
  EXPECT_EQ(p[1], -2.0f - 2.0f / 512); // 0.512 of a spacing rounds up
  EXPECT_EQ(p[2], 0.0f);               // below 2^-31: zero
  EXPECT_EQ(p[3], std::ldexp(1.0f + 84.0f / 512, 32));
  EXPECT_TRUE(std::isnan(p[4]));       // above 2^32 (1 + 510/512)
  EXPECT_TRUE(std::isnan(p[5]));
  EXPECT_TRUE(std::signbit(p[6]));
  EXPECT_EQ(harness::Dl16Ulp(1.5), 1.0 / 512);
  EXPECT_EQ(harness::Dl16Ulp(-4.0), 1.0 / 128);
}

TEST(DeviceFormatTest, AgreesWithTheEmulatorsCodecInItsReferenceMode) {
  // Every fp32 bit pattern stepping by a prime stride: all exponents, ties,
  // the overflow boundary and non-finite values.
  std::vector<float> values;
  for (uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += 40009) {
    float f;
    const auto b = static_cast<uint32_t>(bits);
    std::memcpy(&f, &b, 4);
    values.push_back(f);
  }
  const at::Tensor r = harness::RoundThroughDl16(at::tensor(values));
  const float* p = r.data_ptr<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    const float want = spyre_emu::RoundToDl16(values[i], spyre_emu::Rounding::kNearestAway);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(p[i])) << values[i];
    } else {
      ASSERT_EQ(p[i], want) << values[i];
      ASSERT_EQ(std::signbit(p[i]), std::signbit(want)) << values[i];
    }
  }
}

TEST(CompareTest, IntegerAndBoolOutputsAreComparedExactly) {
  const at::Tensor ref = at::tensor({1, 729, -3}, at::kLong);
  auto same =
      CompareOutput("o", ref.clone(), ref, nullptr, harness::DefaultTolerance(at::kLong, 1));
  EXPECT_TRUE(same.passed) << same.message;
  // 730 against 729: well inside any relative tolerance, but not equal.
  const at::Tensor off = at::tensor({1, 730, -3}, at::kLong);
  auto c = CompareOutput("o", off, ref, nullptr, Loose());
  EXPECT_EQ(c.failed, Criterion::kExact);
  EXPECT_EQ(c.first_fail_index, 1);
  EXPECT_NE(c.message.find("expected 729, got 730"), std::string::npos) << c.message;
  // int64 beyond 2^53 is compared as int64, not through double.
  const int64_t big = (int64_t{1} << 60) + 1;
  auto wide = CompareOutput("o", at::tensor({big}, at::kLong), at::tensor({big - 1}, at::kLong),
                            nullptr, Loose());
  EXPECT_EQ(wide.failed, Criterion::kExact);
  const at::Tensor mask = at::tensor({1, 0, 1}, at::kLong).to(at::kBool);
  EXPECT_TRUE(CompareOutput("o", mask.clone(), mask, nullptr, Loose()).passed);
  EXPECT_EQ(CompareOutput("o", mask.logical_not(), mask, nullptr, Loose()).failed,
            Criterion::kExact);
}

TEST(CompareTest, DtypesOfTheOutputAndTheReferenceAreChecked) {
  const at::Tensor ref = at::tensor({1, 2, 3}, at::kLong);
  // An op returning float where int64 is expected fails on its dtype.
  auto c = CompareOutput("o", ref.to(at::kFloat), ref, nullptr, Loose(), at::kLong);
  EXPECT_EQ(c.failed, Criterion::kDtype);
  EXPECT_NE(c.message.find("expected Long"), std::string::npos) << c.message;
  // A reference that cannot serve the output: float for int64, int64 or
  // fp16 for a floating output, fp32 for an fp64 output.
  EXPECT_EQ(CompareOutput("o", ref, ref.to(at::kFloat), nullptr, Loose()).failed,
            Criterion::kDtype);
  EXPECT_EQ(CompareOutput("o", ref.to(at::kFloat), ref, nullptr, Loose()).failed,
            Criterion::kDtype);
  EXPECT_EQ(CompareOutput("o", ref.to(at::kHalf), ref.to(at::kHalf), nullptr, Loose()).failed,
            Criterion::kDtype);
  EXPECT_EQ(CompareOutput("o", ref.to(at::kDouble), ref.to(at::kFloat), nullptr, Loose()).failed,
            Criterion::kDtype);
  EXPECT_TRUE(CompareOutput("o", ref.to(at::kHalf), ref.to(at::kFloat), nullptr, Loose()).passed);
  EXPECT_EQ(harness::ReferenceDtypeProblem(at::kDouble, at::kFloat), "");
}

TEST(CompareTest, AWrongGoldenCannotWidenItsOwnBound) {
  // The yardstick is right and so is the device; the golden value is off by
  // 1e-3 relative. Measured against the golden, the yardstick's "error"
  // would let the device be 3e-3 off; measured against the fresh reference
  // it is zero, and the golden fails.
  const at::Tensor truth = T({1, 2, 3, 4}).to(at::kFloat);
  const at::Tensor golden = T({1, 2 * (1 + 1e-3), 3, 4}).to(at::kFloat);
  const Tolerance t = harness::DefaultTolerance(at::kFloat, 1);
  auto judged_by_golden = CompareOutput("o", truth, golden, &truth, t, at::kFloat);
  EXPECT_TRUE(judged_by_golden.passed) << "the bound follows the golden without cpu_ref";
  const at::Tensor fresh = truth.to(at::kDouble);
  auto c = CompareOutput("o", truth, golden, &truth, t, at::kFloat, &fresh);
  EXPECT_EQ(c.failed, Criterion::kElementBound);
  EXPECT_EQ(c.first_fail_index, 1);
  EXPECT_EQ(c.cpu_rel_l2, 0.0);
}

TEST(ToleranceTest, DefaultsFollowTheDeviceFormatAndGrowWithTheReduction) {
  const Tolerance f32 = harness::DefaultTolerance(at::kFloat, 1);
  EXPECT_EQ(f32.rtol, 8 * std::ldexp(1.0, -23));
  EXPECT_EQ(harness::DefaultTolerance(at::kLong, 1).yardstick, false);
  const Tolerance f16 = harness::DefaultTolerance(at::kHalf, 1);
  EXPECT_EQ(f16.rtol, 1.0 / 512);
  EXPECT_EQ(harness::DefaultTolerance(at::kBFloat16, 1).rtol, 1.0 / 128);
  EXPECT_GT(harness::DefaultTolerance(at::kHalf, 4096).atol_rms, f16.atol_rms);
  EXPECT_EQ(harness::DefaultTolerance(at::kHalf, 4096).atol_rms, 13 * f16.atol_rms);
  Tolerance t = f16;
  ASSERT_TRUE(harness::ApplyToleranceOverrides({{"rtol", 0.5}, {"yardstick", false}}, "/t", &t).ok());
  EXPECT_EQ(t.rtol, 0.5);
  EXPECT_FALSE(t.yardstick);
  auto bad = harness::ApplyToleranceOverrides({{"rtoll", 1}}, "/cases/2/tolerance", &t);
  EXPECT_NE(bad.message().find("/cases/2/tolerance/rtoll: unknown tolerance field"), std::string::npos);
  bad = harness::ApplyToleranceOverrides({{"m", "3"}}, "/t", &t);
  EXPECT_EQ(bad.message(), "/t/m: expected a number");
}

}  // namespace
