#include "wall_power.h"

#include <cmath>

#include "base/stats.h"

namespace harness::detect_rules {

const char* PowerBasisName(PowerBasis basis) {
  switch (basis) {
    case PowerBasis::kPaired: return "paired";
    case PowerBasis::kInterleaved: return "interleaved";
    case PowerBasis::kHistory: return "history";
    case PowerBasis::kRounds: return "rounds";
    case PowerBasis::kScreen: return "screen";
  }
  return "?";
}

double DetectableLogShift(double se, double df, double level, double floor) {
  if (!std::isfinite(se) || se < 0 || !(df >= 1) || !(level > 0 && level < 1)) return std::nan("");
  constexpr double kPower = 0.95;
  const double needed = (StudentTQuantile(1 - level / 2, df) + StudentTQuantile(kPower, df)) * se;
  return std::fmax(needed, floor);
}

ShiftError PairedShiftError(const std::vector<double>& base_logs,
                            const std::vector<double>& cand_logs) {
  ShiftError out;
  if (base_logs.size() != cand_logs.size() || base_logs.size() < 2) return out;
  std::vector<double> d(base_logs.size());
  for (size_t i = 0; i < d.size(); ++i) d[i] = cand_logs[i] - base_logs[i];
  const double n = static_cast<double>(d.size());
  out.se = std::sqrt(Variance(d) / n);
  out.df = n - 1;
  return out;
}

ShiftError IndependentShiftError(const std::vector<double>& base_logs,
                                 const std::vector<double>& cand_logs) {
  ShiftError out;
  const double na = static_cast<double>(base_logs.size()), nb = static_cast<double>(cand_logs.size());
  if (na < 2 || nb < 2) return out;
  const double pooled =
      ((na - 1) * Variance(base_logs) + (nb - 1) * Variance(cand_logs)) / (na + nb - 2);
  // A rank test needs pi/3 times the samples a t-test does for the same
  // power under normal noise: its standard error is sqrt(pi/3) wider.
  const double efficiency = std::sqrt(M_PI / 3);
  out.se = std::sqrt(pooled * (1 / na + 1 / nb)) * efficiency;
  out.df = na + nb - 2;
  return out;
}

}  // namespace harness::detect_rules
