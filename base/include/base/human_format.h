#pragma once
// Numbers as people read them, shared by the terminal output, the HTML,
// Markdown and JUnit reports and the findings' sentences: three significant
// digits, never an exponent, times in the unit that fits.
//
//   HumanNumber(1.2e-7)      -> "0.00000012"     HumanNumber(0.9999982) -> "0.9999982"
//   HumanNumber(1001)        -> "1001"           HumanNumber(64412.7)   -> "64413"
//   HumanDuration(2.22)      -> "2.22 us"        HumanDuration(64400)   -> "64.4 ms"
//   HumanDuration(0.5)       -> "500 ns"         HumanDuration(1.57e6)  -> "1.57 s"
//   HumanChange(1.792)       -> "+79.2%"         HumanChange(0.5)       -> "-50.0%"
//   HumanChange(0.99996)     -> "-0.004%"        HumanChange(1)         -> "0%"
//   HumanPercent(0.9375)     -> "93.8%"          HumanPValue(0.0079)    -> "p = 0.0079"
//   HumanBytes(262144)       -> "256 KiB"        Plural(1, "case")      -> "1 case"
//
// Edge cases: NaN is "-", infinities "inf" / "-inf"; integers are exact up
// to 1e15 (counts, ULPs); a non-integer of 1000 or more is rounded to an
// integer (more digits than three, never an exponent); a value just below 1
// keeps digits until it differs from 1 (cosine 0.9999982, not "1"), at most
// nine ("0.999999999" for anything closer to 1, never rounded up); a value
// below 1e-12 in magnitude reads "0" with its sign dropped.
#include <cstdint>
#include <string>

namespace harness {

// `digits` significant digits (1-6), trailing zeros dropped.
std::string HumanNumber(double v, int digits = 3);

// A time given in microseconds: ns below 1 us, us below 1 ms, ms below 1 s,
// else s; 3 significant digits.
std::string HumanDuration(double us);

// A ratio (candidate / baseline) as a signed change: one decimal below
// +-100%, none from there ("+250%"), two significant digits below 0.05%
// (never "-0.0%"). "-" for NaN or infinite ratios.
std::string HumanChange(double ratio);

// A fraction as a percentage with 3 significant digits ("93.8%", "100%").
std::string HumanPercent(double fraction);

// "p = 0.0079"; "p < 0.001" below that, or below `floor` when given (a
// p-value judged at a lower level than 0.001 is shown against that level:
// "p = 0.00067" beside a level of 0.00051).
std::string HumanPValue(double p, double floor = 0.001);

// Bytes in B, KiB, MiB or GiB.
std::string HumanBytes(double bytes);

// A metric's unit as JSON and exports name it: "us" for "_us" metrics,
// "bytes" for "_bytes", "calls" for fallback_ops, "ulp" for max_ulp, ""
// for a dimensionless value (errors, cosine, agreement).
std::string MetricUnit(const std::string& metric);

// A metric's value in its unit (MetricUnit): microseconds as durations,
// bytes as bytes, everything else as a number.
std::string HumanMetric(const std::string& metric, double v);

// "1 case", "3 cases" (plural: `one` + "s" unless given).
std::string Plural(int64_t n, const std::string& one, const std::string& many = "");

// An environment value as shown: a blank one reads "none".
std::string EnvValueText(const std::string& v);

// Text recorded from a user (a label, a suite name, a note) made safe to show
// on one line of a terminal: control characters (C0, DEL and the C1 range
// in UTF-8: line breaks, escape sequences that recolour the terminal or set
// its title) are written as "\n", "\t", "\r", "\xNN" or "\u00NN". Other text,
// UTF-8 included, is unchanged.
std::string EscapeControl(const std::string& text);

}  // namespace harness
