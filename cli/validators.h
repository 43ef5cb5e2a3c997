#pragma once
// Range checks on numeric options whose messages say the range in words
// ("--timeout: must be a number above 0 (got 0)"), where CLI11's own print
// the limits of a double in full.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>

namespace harness::cli {

inline std::string RangeNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.15g", v);
  return text;
}

// A number as a help text shows a default ("7", "0.01", "120").
inline std::string DefaultText(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

// A value v with lo <= v <= hi (lo < v when `above`); hi may be infinity.
inline CLI::Validator InRange(double lo, double hi, bool above = false) {
  std::string words;
  if (std::isinf(hi)) {
    words = above ? "a number above " + RangeNumber(lo) : "a number of at least " + RangeNumber(lo);
  } else {
    words = "a number from " + RangeNumber(lo) + " to " + RangeNumber(hi);
  }
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        if (text.empty() || end == nullptr || *end != '\0' || std::isnan(v)) {
          return "'" + text + "' is not a number; give " + words;
        }
        if (v < lo || v > hi || (above && v == lo)) return "must be " + words + " (got " + text + ")";
        return "";
      },
      words);
}
inline CLI::Validator AtLeast(double lo) {
  return InRange(lo, std::numeric_limits<double>::infinity());
}
inline CLI::Validator Above(double lo) {
  return InRange(lo, std::numeric_limits<double>::infinity(), true);
}

}  // namespace harness::cli
