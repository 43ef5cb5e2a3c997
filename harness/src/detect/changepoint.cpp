#include "harness/detect/changepoint.h"

#include <algorithm>
#include <cmath>

#include "harness/detect/stats.h"

namespace harness {
namespace {

std::vector<double> Slice(const std::vector<double>& v, size_t begin, size_t end) {
  return std::vector<double>(v.begin() + static_cast<long>(begin), v.begin() + static_cast<long>(end));
}

// Tests a candidate split of [begin, end) at `t` and fills the change point.
bool Significant(const std::vector<double>& s, size_t begin, size_t t, size_t end,
                 const ChangePointOptions& o, ChangePoint* cp) {
  std::vector<double> left = Slice(s, begin, t), right = Slice(s, t, end);
  cp->index = t;
  cp->before = Median(left);
  cp->after = Median(right);
  cp->relative = o.log_scale       ? std::expm1(cp->after - cp->before)
                 : cp->before != 0 ? cp->after / cp->before - 1
                                   : 0;
  cp->p_value = WelchTTest(left, right).p_value;
  if (cp->p_value >= o.max_p_value) return false;
  if (cp->before == cp->after) return false;  // a mean shift driven by outliers, not the bulk
  return std::fabs(cp->relative) >= o.min_relative_shift;
}

// The stretch [*first, *last) of [begin, end), with at least `min_segment`
// values inside and on each side, whose mean differs most from the mean of
// the rest in Welch's t (sums of x and x^2 kept as prefix sums, so O(n^2)).
bool InnerStretch(const std::vector<double>& s, size_t begin, size_t end, size_t min_segment,
                  size_t* first, size_t* last) {
  const size_t n = end - begin;
  if (n < 3 * min_segment) return false;
  std::vector<double> sum(n + 1, 0), sq(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    sum[i + 1] = sum[i] + s[begin + i];
    sq[i + 1] = sq[i] + s[begin + i] * s[begin + i];
  }
  auto moments = [](double total, double squares, double count, double* mean, double* var) {
    *mean = total / count;
    *var = count > 1 ? std::max(0.0, (squares - total * total / count) / (count - 1)) : 0;
  };
  double best = 0;
  for (size_t i = min_segment; i + 2 * min_segment <= n; ++i) {
    for (size_t j = i + min_segment; j + min_segment <= n; ++j) {
      double mi, vi, mo, vo;
      const double ni = static_cast<double>(j - i), no = static_cast<double>(n - (j - i));
      moments(sum[j] - sum[i], sq[j] - sq[i], ni, &mi, &vi);
      moments(sum[n] - sum[j] + sum[i], sq[n] - sq[j] + sq[i], no, &mo, &vo);
      const double se = std::sqrt(vi / ni + vo / no);
      const double t = se > 0 ? std::fabs(mi - mo) / se : (mi != mo ? INFINITY : 0);
      if (t > best) {
        best = t;
        *first = begin + i;
        *last = begin + j;
      }
    }
  }
  return best > 0;
}

void Split(const std::vector<double>& s, size_t begin, size_t end, const ChangePointOptions& o,
           std::vector<ChangePoint>* out) {
  if (end - begin < 2 * o.min_segment) return;
  std::vector<double> q = EDivisiveStatistic(Slice(s, begin, end), o.min_segment);
  size_t best = 0;
  for (size_t t = o.min_segment; t + o.min_segment <= end - begin; ++t) {
    if (best == 0 || q[t] > q[best]) best = t;
  }
  ChangePoint cp;
  if (best != 0 && q[best] > 0 && Significant(s, begin, begin + best, end, o, &cp)) {
    out->push_back(cp);
    Split(s, begin, begin + best, o, out);
    Split(s, begin + best, end, o, out);
    return;
  }
  // No single split holds. A regime inside the segment that ends before it
  // does (a slowdown lasting four runs, then fixed) leaves both sides of
  // any one split mixed: look for the inner stretch that differs most from
  // the rest, and keep it when both of its edges hold.
  size_t first = 0, last = 0;
  if (!InnerStretch(s, begin, end, o.min_segment, &first, &last)) return;
  ChangePoint in, back;
  if (!Significant(s, begin, first, last, o, &in) || !Significant(s, first, last, end, o, &back))
    return;
  out->push_back(in);
  out->push_back(back);
  Split(s, begin, first, o, out);
  Split(s, first, last, o, out);
  Split(s, last, end, o, out);
}

}  // namespace

std::vector<double> EDivisiveStatistic(const std::vector<double>& x, size_t min_segment) {
  const size_t n = x.size();
  std::vector<double> q(n + 1, 0.0);
  if (n < 2 * std::max<size_t>(min_segment, 1)) return q;
  // Sums of |xi - xj| within the left part, within the right part and
  // between them, updated as the split point moves right one value at a time.
  double within_left = 0, within_right = 0, between = 0;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) within_right += std::fabs(x[i] - x[j]);
  }
  for (size_t t = 1; t < n; ++t) {
    // Move x[t-1] from the right part to the left part.
    const size_t p = t - 1;
    double to_left = 0, to_right = 0;
    for (size_t i = 0; i < p; ++i) to_left += std::fabs(x[i] - x[p]);
    for (size_t j = p + 1; j < n; ++j) to_right += std::fabs(x[p] - x[j]);
    within_right -= to_right;
    between += to_right - to_left;
    within_left += to_left;
    if (t < min_segment || n - t < min_segment) continue;
    const double m = static_cast<double>(t), k = static_cast<double>(n - t);
    double cross = 2 * between / (m * k);
    double left = m > 1 ? within_left / (m * (m - 1) / 2) : 0;
    double right = k > 1 ? within_right / (k * (k - 1) / 2) : 0;
    q[t] = m * k / (m + k) * (cross - left - right);
  }
  return q;
}

std::vector<ChangePoint> DetectChangePoints(const std::vector<double>& series,
                                            const ChangePointOptions& options) {
  ChangePointOptions o = options;
  o.min_segment = std::max<size_t>(o.min_segment, 1);
  std::vector<ChangePoint> found;
  Split(series, 0, series.size(), o, &found);
  std::sort(found.begin(), found.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.index < b.index; });
  // Re-test each change point between its neighbours; drop the weakest
  // failure and repeat until every one holds.
  for (;;) {
    int weakest = -1;
    double weakest_p = -1;
    std::vector<ChangePoint> retested = found;
    for (size_t i = 0; i < found.size(); ++i) {
      size_t begin = i == 0 ? 0 : found[i - 1].index;
      size_t end = i + 1 == found.size() ? series.size() : found[i + 1].index;
      if (!Significant(series, begin, found[i].index, end, o, &retested[i]) &&
          retested[i].p_value > weakest_p) {
        weakest = static_cast<int>(i);
        weakest_p = retested[i].p_value;
      }
    }
    if (weakest < 0) {
      if (o.log_scale) {
        for (ChangePoint& cp : retested) {
          cp.before = std::exp(cp.before);
          cp.after = std::exp(cp.after);
        }
      }
      return retested;
    }
    found.erase(found.begin() + weakest);
  }
}

}  // namespace harness
