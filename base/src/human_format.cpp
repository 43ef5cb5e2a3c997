#include "base/human_format.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace harness {
namespace {

// "12.50" -> "12.5", "3.000" -> "3"; integers untouched.
std::string TrimZeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

// Decimals that give `digits` significant digits at magnitude a > 0.
int DecimalsFor(double a, int digits) {
  return std::max(0, digits - 1 - static_cast<int>(std::floor(std::log10(a))));
}

// `digits` significant digits of a finite v, no exponent, trailing zeros
// dropped; `near_one`: a value just below 1 keeps digits until it differs
// from 1.
std::string Significant(double v, int digits, bool near_one) {
  const double a = std::fabs(v);
  if (a < 1e-12) return "0";
  if (v == std::floor(v) && a < 1e15) return Fixed(v, 0);
  if (a >= 1000) return Fixed(v, 0);
  int decimals = DecimalsFor(a, digits);
  if (near_one && a < 1 && a >= 0.9 && std::stod(Fixed(a, decimals)) >= 1) {
    decimals = DecimalsFor(1 - a, digits);
    // Closer to 1 than 1e-9 (a cosine of identical vectors up to rounding):
    // nine nines, cut rather than rounded up to 1.
    if (decimals > 9) return (v < 0 ? "-" : "") + std::string("0.999999999");
  }
  return TrimZeros(Fixed(v, std::min(decimals, 15)));
}

}  // namespace

std::string HumanNumber(double v, int digits) {
  if (std::isnan(v)) return "-";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return Significant(v, std::clamp(digits, 1, 6), /*near_one=*/true);
}

std::string HumanDuration(double us) {
  if (std::isnan(us)) return "-";
  if (std::isinf(us)) return us > 0 ? "inf" : "-inf";
  const double a = std::fabs(us);
  if (a < 1e-9) return "0 us";
  const std::string sign = us < 0 ? "-" : "";
  // The unit is chosen on the rounded value: 999.7 us reads "1 ms".
  const double r = std::stod(Fixed(a, std::min(DecimalsFor(a, 3), 15)));
  if (r < 1) return sign + Significant(a * 1e3, 3, false) + " ns";
  if (r < 1e3) return sign + Significant(a, 3, false) + " us";
  if (r < 1e6) return sign + Significant(a / 1e3, 3, false) + " ms";
  return sign + Significant(a / 1e6, 3, false) + " s";
}

std::string HumanChange(double ratio) {
  if (!std::isfinite(ratio)) return "-";
  const double pct = (ratio - 1.0) * 100.0;
  if (pct == 0) return "0%";
  // Below 0.05% one decimal would read "-0.0%": two significant digits.
  if (std::fabs(pct) < 0.05) return (pct < 0 ? "-" : "+") + HumanNumber(std::fabs(pct), 2) + "%";
  char buf[48];
  std::snprintf(buf, sizeof(buf), std::fabs(pct) >= 99.95 ? "%+.0f%%" : "%+.1f%%", pct);
  return buf;
}

std::string HumanPercent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  return HumanNumber(fraction * 100) + "%";
}

std::string HumanPValue(double p, double floor) {
  if (std::isnan(p)) return "p = -";
  if (p < floor) return "p < " + HumanNumber(floor, 2);
  return "p = " + HumanNumber(p, 2);
}

std::string HumanBytes(double bytes) {
  if (!std::isfinite(bytes)) return HumanNumber(bytes);
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = std::fabs(bytes);
  size_t u = 0;
  while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
    v /= 1024;
    ++u;
  }
  return (bytes < 0 ? "-" : "") + (u == 0 ? Fixed(v, 0) : HumanNumber(v)) + " " + units[u];
}

std::string MetricUnit(const std::string& metric) {
  auto ends_with = [&](const std::string& tail) {
    return metric.size() >= tail.size() &&
           metric.compare(metric.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (ends_with("_us") || metric.find("_us_") != std::string::npos) return "us";
  if (ends_with("_bytes")) return "bytes";
  if (metric == "fallback_ops") return "calls";
  if (ends_with("max_ulp")) return "ulp";
  return "";
}

std::string HumanMetric(const std::string& metric, double v) {
  const std::string unit = MetricUnit(metric);
  if (unit == "us") return HumanDuration(v);
  if (unit == "bytes") return HumanBytes(v);
  return HumanNumber(v);
}

std::string Plural(int64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many.empty() ? one + "s" : many);
}

std::string EnvValueText(const std::string& v) { return v.empty() ? "none" : v; }

std::string EscapeControl(const std::string& text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const unsigned char next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (c == 0xC2 && next >= 0x80 && next <= 0x9F) {  // U+0080..U+009F, the C1 controls
      out += "\\u00";
      out += kHex[next >> 4];
      out += kHex[next & 15];
      ++i;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7F) {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace harness
