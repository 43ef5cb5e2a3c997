#pragma once
// Statistics for regression detection: pure functions over samples.
// Edge cases are stated per function; none of them throws.
//
//   harness::MannWhitneyResult mw = harness::MannWhitneyU(baseline, candidate);
//   if (mw.p_value < 0.01 && ...) flag it;
#include <cstddef>
#include <vector>

namespace harness {

// Median; NaN for an empty sample.
double Median(std::vector<double> v);
// The q-quantile (0 <= q <= 1), interpolated linearly between the two order
// statistics around position q * (n - 1): Quantile(v, 0.5) is the median.
// NaN for an empty sample or a q outside [0, 1].
double Quantile(std::vector<double> v, double q);
// Arithmetic mean; NaN for an empty sample.
double Mean(const std::vector<double>& v);
// Sample variance (n - 1 denominator); 0 for fewer than two values.
double Variance(const std::vector<double>& v);
// Median absolute deviation scaled to the normal sigma (1.4826 * MAD); 0 for
// fewer than two values.
double RobustSigma(const std::vector<double>& v);

// Standard normal CDF.
double NormalCdf(double z);
// Student's t CDF with `df` degrees of freedom (df > 0; df = inf allowed).
double StudentTCdf(double t, double df);
// The quantile of Student's t: the t with StudentTCdf(t, df) = p, for
// 0 < p < 1 and df > 0 (df = inf: the normal quantile); NaN otherwise.
double StudentTQuantile(double p, double df);
// Regularised incomplete beta function I_x(a, b), a, b > 0, 0 <= x <= 1.
double RegularizedIncompleteBeta(double a, double b, double x);

struct MannWhitneyResult {
  double u = 0;        // U statistic of the first sample
  double p_value = 1;  // two-sided
  bool exact = false;  // exact distribution (small samples without ties) or normal approximation
  size_t n1 = 0, n2 = 0;
};
// Two-sided Mann-Whitney U test. Exact null distribution when both samples
// have at most 25 values and there are no ties; otherwise the normal
// approximation with tie and continuity correction. An empty sample gives
// p_value = 1. NaN values must be removed by the caller.
MannWhitneyResult MannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

struct ShiftEstimate {
  double estimate = 0;  // Hodges-Lehmann estimate of (b - a)
  double lower = 0;     // distribution-free confidence interval (Moses), two-sided
  double upper = 0;
};
// Hodges-Lehmann shift of b relative to a (median of all pairwise b_j - a_i)
// with a two-sided confidence interval at level 1 - alpha. Pass log samples to
// get a log-ratio. Empty input gives all zeros.
ShiftEstimate HodgesLehmannShift(const std::vector<double>& a, const std::vector<double>& b,
                                 double alpha);

struct WelchResult {
  double t = 0;
  double df = 0;
  double p_value = 1;  // two-sided
};
// Welch's unequal-variance t-test. With fewer than two values on a side the
// missing variance is taken from the other side; when both variances are zero
// the p-value is 0 if the means differ and 1 if they are equal (a
// deterministic series, e.g. modeled latency, shifts exactly).
WelchResult WelchTTest(const std::vector<double>& a, const std::vector<double>& b);

struct PairedShift {
  double estimate = 0;  // median of the Walsh averages (one-sample Hodges-Lehmann)
  double t = 0;
  double p_value = 1;  // two-sided one-sample t-test of a zero mean
  size_t n = 0;
};
// Differences of pairs measured together (log ratios of two configurations
// timed in one process): the one-sample t-test of a zero mean and a robust
// estimate of the shift. Fewer than two values give p_value = 1 (the
// estimate is the one value, or 0); when all differences are equal the
// p-value is 0 unless they are 0 (a deterministic shift).
PairedShift PairedShiftTest(const std::vector<double>& d);

// log(cand[i] / base[i]) for each pair i that has both values positive and
// finite, in order (the others are left out, never shifted onto a neighbour's
// partner); pairs beyond the shorter side are ignored.
std::vector<double> PairLogRatios(const std::vector<double>& base, const std::vector<double>& cand);

}  // namespace harness
