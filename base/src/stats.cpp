#include "base/stats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace harness {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Continued fraction for the incomplete beta function (modified Lentz).
double BetaContinuedFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    double m2 = 2.0 * m;
    double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + num * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + num / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + num * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + num / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  return h;
}

// Number of ways, for each U, that n1 values rank among n1 + n2 without ties:
// counts[u] for u in [0, n1*n2]. Recurrence f(n1,n2,u) = f(n1-1,n2,u-n2) + f(n1,n2-1,u).
std::vector<double> ExactUCounts(size_t n1, size_t n2) {
  // table[j][u] for the current i, j in [0, n2]
  std::vector<std::vector<double>> prev(n2 + 1), cur(n2 + 1);
  for (size_t j = 0; j <= n2; ++j) prev[j] = {1.0};  // i = 0: U is always 0
  for (size_t i = 1; i <= n1; ++i) {
    cur[0] = {1.0};  // j = 0: U is always 0
    for (size_t j = 1; j <= n2; ++j) {
      std::vector<double> row(i * j + 1, 0.0);
      // the largest value belongs to sample 1 (adds j to U) or to sample 2.
      for (size_t u = 0; u < prev[j].size(); ++u) row[u + j] += prev[j][u];
      for (size_t u = 0; u < cur[j - 1].size(); ++u) row[u] += cur[j - 1][u];
      cur[j] = std::move(row);
    }
    std::swap(prev, cur);
  }
  return prev[n2];
}

}  // namespace

double Median(std::vector<double> v) {
  if (v.empty()) return kNaN;
  size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double hi = v[mid];
  if (v.size() % 2 == 1) return hi;
  return (*std::max_element(v.begin(), v.begin() + mid) + hi) / 2;
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty() || !(q >= 0 && q <= 1)) return kNaN;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

double Mean(const std::vector<double>& v) {
  if (v.empty()) return kNaN;
  return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

double Variance(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double m = Mean(v), s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s / static_cast<double>(v.size() - 1);
}

double RobustSigma(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  double med = Median(v);
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - med));
  return 1.4826 * Median(dev);
}

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double RegularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
                     b * std::log1p(-x);
  double front = std::exp(log_front);
  // The continued fraction converges fast for x < (a+1)/(a+b+2); use symmetry otherwise.
  if (x < (a + 1) / (a + b + 2)) return front * BetaContinuedFraction(a, b, x) / a;
  return 1 - front * BetaContinuedFraction(b, a, 1 - x) / b;
}

double StudentTCdf(double t, double df) {
  if (std::isnan(t) || df <= 0) return kNaN;
  if (std::isinf(df)) return NormalCdf(t);
  double x = df / (df + t * t);
  double tail = 0.5 * RegularizedIncompleteBeta(df / 2, 0.5, x);  // P(T > |t|)
  return t > 0 ? 1 - tail : tail;
}

double StudentTQuantile(double p, double df) {
  if (!(p > 0 && p < 1) || !(df > 0)) return kNaN;
  if (p < 0.5) return -StudentTQuantile(1 - p, df);
  // The CDF is monotonic: bracket the quantile, then bisect it.
  double lo = 0, hi = 1;
  while (StudentTCdf(hi, df) < p && hi < 1e12) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (StudentTCdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  MannWhitneyResult r;
  r.n1 = a.size();
  r.n2 = b.size();
  if (a.empty() || b.empty()) return r;
  std::vector<std::pair<double, int>> all;
  all.reserve(a.size() + b.size());
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end());
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  const double n = n1 + n2;
  double rank_sum_a = 0, tie_term = 0;
  bool ties = false;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    double avg_rank = (static_cast<double>(i + j) + 1) / 2;  // ranks are 1-based
    double t = static_cast<double>(j - i);
    if (t > 1) { ties = true; tie_term += t * t * t - t; }
    for (size_t k = i; k < j; ++k) if (all[k].second == 0) rank_sum_a += avg_rank;
    i = j;
  }
  r.u = rank_sum_a - n1 * (n1 + 1) / 2;
  const double mean_u = n1 * n2 / 2;
  if (!ties && a.size() <= 25 && b.size() <= 25) {
    std::vector<double> counts = ExactUCounts(a.size(), b.size());
    double total = std::accumulate(counts.begin(), counts.end(), 0.0);
    // P(U <= min(u, n1n2 - u)) doubled: the null distribution is symmetric.
    double lo = std::min(r.u, n1 * n2 - r.u);
    double tail = 0;
    for (size_t u = 0; u < counts.size() && static_cast<double>(u) <= lo + 1e-9; ++u) tail += counts[u];
    r.p_value = std::min(1.0, 2 * tail / total);
    r.exact = true;
    return r;
  }
  double var = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (var <= 0) return r;  // every value equal: no evidence of a shift
  double diff = std::fabs(r.u - mean_u) - 0.5;  // continuity correction
  double z = std::max(0.0, diff) / std::sqrt(var);
  r.p_value = std::min(1.0, 2 * (1 - NormalCdf(z)));
  return r;
}

ShiftEstimate HodgesLehmannShift(const std::vector<double>& a, const std::vector<double>& b,
                                 double alpha) {
  ShiftEstimate s;
  if (a.empty() || b.empty()) return s;
  std::vector<double> diffs;
  diffs.reserve(a.size() * b.size());
  for (double y : b) for (double x : a) diffs.push_back(y - x);
  std::sort(diffs.begin(), diffs.end());
  s.estimate = Median(diffs);
  const double n1 = static_cast<double>(a.size()), n2 = static_cast<double>(b.size());
  // Moses: the CI ends are the C-th smallest and C-th largest pairwise
  // differences, C from the normal approximation of U's null distribution.
  double p = 1 - alpha / 2;
  // Inverse normal CDF by bisection (accurate enough for a rank position).
  double lo = -10, hi = 10;
  for (int i = 0; i < 100; ++i) {
    double mid = (lo + hi) / 2;
    (NormalCdf(mid) < p ? lo : hi) = mid;
  }
  double z = (lo + hi) / 2;
  double c = n1 * n2 / 2 - z * std::sqrt(n1 * n2 * (n1 + n2 + 1) / 12);
  size_t k = c < 1 ? 0 : static_cast<size_t>(std::floor(c)) - 1;
  k = std::min(k, diffs.size() - 1);
  s.lower = diffs[k];
  s.upper = diffs[diffs.size() - 1 - k];
  return s;
}

WelchResult WelchTTest(const std::vector<double>& a, const std::vector<double>& b) {
  WelchResult r;
  if (a.empty() || b.empty()) return r;
  double ma = Mean(a), mb = Mean(b);
  double va = Variance(a), vb = Variance(b);
  if (a.size() < 2) va = vb;
  if (b.size() < 2) vb = va;
  double sa = va / static_cast<double>(a.size()), sb = vb / static_cast<double>(b.size());
  double se2 = sa + sb;
  if (se2 <= 0) {
    // Deterministic series: any difference in means is a real shift.
    r.p_value = (ma == mb) ? 1 : 0;
    r.t = (ma == mb) ? 0 : std::copysign(std::numeric_limits<double>::infinity(), mb - ma);
    r.df = static_cast<double>(a.size() + b.size() - 2);
    return r;
  }
  r.t = (mb - ma) / std::sqrt(se2);
  double den = 0;
  if (a.size() > 1) den += sa * sa / static_cast<double>(a.size() - 1);
  if (b.size() > 1) den += sb * sb / static_cast<double>(b.size() - 1);
  r.df = den > 0 ? se2 * se2 / den : 1;
  r.p_value = 2 * (1 - StudentTCdf(std::fabs(r.t), r.df));
  return r;
}

std::vector<double> PairLogRatios(const std::vector<double>& base, const std::vector<double>& cand) {
  std::vector<double> d;
  for (size_t i = 0; i < base.size() && i < cand.size(); ++i) {
    if (base[i] > 0 && cand[i] > 0 && std::isfinite(base[i]) && std::isfinite(cand[i])) {
      d.push_back(std::log(cand[i] / base[i]));
    }
  }
  return d;
}

PairedShift PairedShiftTest(const std::vector<double>& d) {
  PairedShift r;
  r.n = d.size();
  if (d.empty()) return r;
  std::vector<double> walsh;
  walsh.reserve(d.size() * (d.size() + 1) / 2);
  for (size_t i = 0; i < d.size(); ++i) {
    for (size_t j = i; j < d.size(); ++j) walsh.push_back((d[i] + d[j]) / 2);
  }
  r.estimate = Median(std::move(walsh));
  if (d.size() < 2) return r;
  const double mean = Mean(d), se = std::sqrt(Variance(d) / static_cast<double>(d.size()));
  if (!(se > 0)) {
    r.p_value = mean == 0 ? 1 : 0;
    r.t = mean == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), mean);
    return r;
  }
  r.t = mean / se;
  r.p_value = 2 * (1 - StudentTCdf(std::fabs(r.t), static_cast<double>(d.size() - 1)));
  return r;
}

}  // namespace harness
