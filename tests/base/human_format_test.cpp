// The one formatter of numbers for people (terminal, HTML, Markdown, JUnit).
#include "base/human_format.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace {

using harness::HumanBytes;
using harness::HumanChange;
using harness::HumanDuration;
using harness::HumanMetric;
using harness::HumanNumber;
using harness::HumanPercent;
using harness::HumanPValue;

TEST(HumanFormatTest, NumbersHaveThreeSignificantDigitsAndNoExponent) {
  EXPECT_EQ(HumanNumber(1.2e-7), "0.00000012");
  EXPECT_EQ(HumanNumber(3.4e-9), "0.0000000034");
  EXPECT_EQ(HumanNumber(0.001953125), "0.00195");
  EXPECT_EQ(HumanNumber(12.345), "12.3");
  EXPECT_EQ(HumanNumber(1.5), "1.5");
  EXPECT_EQ(HumanNumber(9.996), "10");
  EXPECT_EQ(HumanNumber(-0.0123), "-0.0123");
  EXPECT_EQ(HumanNumber(64412.7), "64413");
  EXPECT_EQ(HumanNumber(3.2e9 + 0.7), "3200000001");  // rounded, never 3.2e+09
  EXPECT_EQ(HumanNumber(0.0079, 2), "0.0079");
}

TEST(HumanFormatTest, IntegersAreExact) {
  EXPECT_EQ(HumanNumber(1001), "1001");
  EXPECT_EQ(HumanNumber(262144), "262144");
  EXPECT_EQ(HumanNumber(0), "0");
  EXPECT_EQ(HumanNumber(-3), "-3");
}

TEST(HumanFormatTest, ValuesJustBelowOneKeepTheirNines) {
  EXPECT_EQ(HumanNumber(0.9999982), "0.9999982");
  EXPECT_EQ(HumanNumber(0.99991), "0.99991");
  EXPECT_EQ(HumanNumber(0.9375), "0.938");
  EXPECT_EQ(HumanNumber(0.995), "0.995");
  EXPECT_EQ(HumanNumber(1 - 4e-15), "0.999999999");  // never "1", never 15 nines
}

TEST(HumanFormatTest, SpecialValues) {
  EXPECT_EQ(HumanNumber(std::nan("")), "-");
  EXPECT_EQ(HumanNumber(std::numeric_limits<double>::infinity()), "inf");
  EXPECT_EQ(HumanNumber(-std::numeric_limits<double>::infinity()), "-inf");
  EXPECT_EQ(HumanNumber(1e-15), "0");
  EXPECT_EQ(HumanDuration(std::nan("")), "-");
  EXPECT_EQ(HumanChange(std::nan("")), "-");
  EXPECT_EQ(HumanChange(std::numeric_limits<double>::infinity()), "-");
}

TEST(HumanFormatTest, DurationsScaleTheirUnit) {
  EXPECT_EQ(HumanDuration(0.5), "500 ns");
  EXPECT_EQ(HumanDuration(0.0123), "12.3 ns");
  EXPECT_EQ(HumanDuration(2.22), "2.22 us");
  EXPECT_EQ(HumanDuration(150.4), "150 us");
  EXPECT_EQ(HumanDuration(999.7), "1 ms");
  EXPECT_EQ(HumanDuration(2220), "2.22 ms");
  EXPECT_EQ(HumanDuration(64400), "64.4 ms");
  EXPECT_EQ(HumanDuration(15710), "15.7 ms");
  EXPECT_EQ(HumanDuration(1.571e6), "1.57 s");
  EXPECT_EQ(HumanDuration(29.5e6), "29.5 s");
  EXPECT_EQ(HumanDuration(4.2e9), "4200 s");
  EXPECT_EQ(HumanDuration(0), "0 us");
  EXPECT_EQ(HumanDuration(-2.5), "-2.5 us");
}

TEST(HumanFormatTest, ChangesPercentagesAndPValues) {
  EXPECT_EQ(HumanChange(1.792), "+79.2%");
  EXPECT_EQ(HumanChange(1.25), "+25.0%");
  EXPECT_EQ(HumanChange(0.5), "-50.0%");
  EXPECT_EQ(HumanChange(2), "+100%");
  EXPECT_EQ(HumanChange(16), "+1500%");
  EXPECT_EQ(HumanChange(1), "0%");
  // Never "-0.0%": a tiny change keeps two significant digits and its sign.
  EXPECT_EQ(HumanChange(0.99996), "-0.004%");
  EXPECT_EQ(HumanChange(1.00012), "+0.012%");
  EXPECT_EQ(HumanChange(0.9994), "-0.1%");
  EXPECT_EQ(HumanPercent(0.9375), "93.8%");
  EXPECT_EQ(HumanPercent(1), "100%");
  EXPECT_EQ(HumanPValue(0.0079), "p = 0.0079");
  EXPECT_EQ(HumanPValue(0.012), "p = 0.012");
  EXPECT_EQ(HumanPValue(1.1e-5), "p < 0.001");
  // Against a lower level, down to the floor given.
  EXPECT_EQ(HumanPValue(6.7e-4, 5.1e-5), "p = 0.00067");
  EXPECT_EQ(HumanPValue(1.1e-5, 5.1e-5), "p < 0.000051");
}

TEST(HumanFormatTest, BytesMetricsPluralsAndBlankValues) {
  EXPECT_EQ(HumanBytes(262144), "256 KiB");
  EXPECT_EQ(HumanBytes(1000), "1000 B");
  EXPECT_EQ(HumanBytes(3.5 * 1024 * 1024), "3.5 MiB");
  EXPECT_EQ(HumanMetric("wall_us_median", 64400), "64.4 ms");
  EXPECT_EQ(HumanMetric("ttft_us", 2220), "2.22 ms");
  EXPECT_EQ(HumanMetric("peak_device_bytes", 262144), "256 KiB");
  EXPECT_EQ(HumanMetric("out0/max_ulp", 16), "16");
  EXPECT_EQ(harness::Plural(1, "case"), "1 case");
  EXPECT_EQ(harness::Plural(3, "case"), "3 cases");
  EXPECT_EQ(harness::Plural(0, "regression"), "0 regressions");
  EXPECT_EQ(harness::Plural(2, "change point"), "2 change points");
  EXPECT_EQ(harness::EnvValueText(""), "none");
  EXPECT_EQ(harness::EnvValueText("mm:error=1e-2"), "mm:error=1e-2");
}

}  // namespace

namespace harness {
namespace {

TEST(HumanFormatTest, EscapeControlKeepsStoredTextOnOneInertLine) {
  EXPECT_EQ(EscapeControl("nightly 2026-12-06"), "nightly 2026-12-06");
  EXPECT_EQ(EscapeControl("a\nb\tc\rd"), "a\\nb\\tc\\rd");
  EXPECT_EQ(EscapeControl("\x1b]0;owned\x07"), "\\x1b]0;owned\\x07");
  EXPECT_EQ(EscapeControl(std::string("\x7f") + '\0'), std::string("\\x7f\\x00"));
  EXPECT_EQ(EscapeControl("\xc2\x9b" "31m"), "\\u009b31m");     // C1 CSI in UTF-8
  EXPECT_EQ(EscapeControl("caf\xc3\xa9 \xc2\xb5s"), "caf\xc3\xa9 \xc2\xb5s");  // UTF-8 stays
}

}  // namespace
}  // namespace harness
