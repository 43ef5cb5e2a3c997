#include "detect/changepoint.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "base/stats.h"

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

// A pulse: [first, last) differs from the runs on both sides of it in the
// same direction (a slowdown that lasted a few runs and was then fixed).
// Both edges are tested with one variance, pooled over the three segments
// (n - 3 degrees of freedom): with Welch's test between adjacent segments
// alone, each edge of a four-run pulse has four runs a side and three to six
// degrees of freedom, which a 2x pulse on a loaded host's runs often fails.
struct Pulse {
  double t_in = 0, t_back = 0;  // the two edges' t statistics (inside - before, after - inside)
  double p_in = 1, p_back = 1;
};

// Sums of a segment's values and squares, as prefix sums over the segment
// less its first value (a constant series then sums to exact zeros).
class Moments {
 public:
  Moments(const std::vector<double>& s, size_t begin, size_t end)
      : begin_(begin), sum_(end - begin + 1, 0), sq_(end - begin + 1, 0) {
    const double origin = end > begin ? s[begin] : 0;
    for (size_t i = begin; i < end; ++i) {
      const double x = s[i] - origin;
      sum_[i - begin + 1] = sum_[i - begin] + x;
      sq_[i - begin + 1] = sq_[i - begin] + x * x;
    }
  }
  // Mean (less the origin) and sum of squared deviations of [a, b).
  void Of(size_t a, size_t b, double* mean, double* ss) const {
    const double n = static_cast<double>(b - a);
    const double sum = sum_[b - begin_] - sum_[a - begin_];
    *mean = sum / n;
    *ss = std::max(0.0, sq_[b - begin_] - sq_[a - begin_] - sum * sum / n);
  }

 private:
  size_t begin_;
  std::vector<double> sum_, sq_;
};

// `p_values`: also the two-sided p-values (the search needs only t).
Pulse PulseEdges(const Moments& m, size_t begin, size_t first, size_t last, size_t end,
                 bool p_values = true) {
  double ml, sl, mi, si, mr, sr;
  m.Of(begin, first, &ml, &sl);
  m.Of(first, last, &mi, &si);
  m.Of(last, end, &mr, &sr);
  const double nl = static_cast<double>(first - begin), ni = static_cast<double>(last - first),
               nr = static_cast<double>(end - last);
  const double df = static_cast<double>(end - begin) - 3;
  const double var = (sl + si + sr) / df;
  Pulse p;
  auto edge = [&](double from, double to, double n1, double n2, double* t, double* pv) {
    const double se = std::sqrt(var * (1 / n1 + 1 / n2));
    if (se > 0) {
      *t = (to - from) / se;
      if (p_values) *pv = 2 * (1 - StudentTCdf(std::fabs(*t), df));
    } else {
      // Deterministic series: any difference is a real shift.
      *t = to == from ? 0 : std::copysign(INFINITY, to - from);
      *pv = to == from ? 1 : 0;
    }
  };
  edge(ml, mi, nl, ni, &p.t_in, &p.p_in);
  edge(mi, mr, ni, nr, &p.t_back, &p.p_back);
  return p;
}

// The pulse of [begin, end) whose weaker edge is strongest: a stretch of at
// least min_segment + 1 runs (three slow runs in a row are as often a busy
// spell as a change) with at least min_segment runs on each side, that rises
// from and falls back to both sides (or falls and rises back). O(n^2).
bool FindPulse(const std::vector<double>& s, size_t begin, size_t end, size_t min_segment,
               size_t* first, size_t* last) {
  const size_t n = end - begin;
  if (n < 3 * min_segment + 1) return false;
  const Moments m(s, begin, end);
  double best = 0;
  for (size_t i = begin + min_segment; i + 2 * min_segment + 1 <= end; ++i) {
    for (size_t j = i + min_segment + 1; j + min_segment <= end; ++j) {
      const Pulse p = PulseEdges(m, begin, i, j, end, /*p_values=*/false);
      if (!(p.t_in * p.t_back < 0)) continue;  // not there and back
      const double weaker = std::min(std::fabs(p.t_in), std::fabs(p.t_back));
      if (weaker > best) {
        best = weaker;
        *first = i;
        *last = j;
      }
    }
  }
  return best > 0;
}

// Tests the pulse [first, last) of [begin, end), all runs counted, and
// fills its two edges.
bool PulseHoldsWhole(const std::vector<double>& s, size_t begin, size_t first, size_t last, size_t end,
                const ChangePointOptions& o, ChangePoint* in, ChangePoint* back) {
  if (first - begin < o.min_segment || last - first < o.min_segment + 1 ||
      end - last < o.min_segment) {
    return false;
  }
  const Pulse p = PulseEdges(Moments(s, begin, end), begin, first, last, end);
  // The medians, shifts and p-values of each edge against its neighbours.
  Significant(s, begin, first, last, o, in);
  Significant(s, first, last, end, o, back);
  in->p_value = p.p_in;
  back->p_value = p.p_back;
  if (!(p.t_in * p.t_back < 0)) return false;
  for (const ChangePoint* cp : {in, back}) {
    if (cp->p_value >= o.max_p_value || cp->before == cp->after ||
        std::fabs(cp->relative) < o.min_relative_shift) {
      return false;
    }
  }
  // The pooled variance must not hide that the pulse is noisier than what
  // is beside it (a spell of load moves a few runs up and apart): each edge
  // also holds in Welch's test between its two segments, at 1%.
  constexpr double kWelchGuard = 0.01;
  if (WelchTTest(Slice(s, begin, first), Slice(s, first, last)).p_value >= kWelchGuard ||
      WelchTTest(Slice(s, first, last), Slice(s, last, end)).p_value >= kWelchGuard) {
    return false;
  }
  // The medians must go there and back too, not only the means.
  if ((in->after > in->before) != (back->after < back->before)) return false;
  // And the runs at its edges must belong to it: each nearer the pulse's
  // mean than the mean beside it, so that three slow runs and a normal one
  // are not reported as a four-run pulse starting a run early.
  auto mean = [&](size_t a, size_t b) {
    double sum = 0;
    for (size_t i = a; i < b; ++i) sum += s[i];
    return sum / static_cast<double>(b - a);
  };
  const double inside = mean(first, last);
  return std::fabs(s[first] - inside) < std::fabs(s[first] - mean(begin, first)) &&
         std::fabs(s[last - 1] - inside) < std::fabs(s[last - 1] - mean(last, end));
}

// Tests the pulse [first, last) of [begin, end) and fills its two edges. A
// pulse with one run beside it far from the other runs of its side (a busy
// night, the night after the fix that still ran slow) fails on the variance
// that one run inflates, in the pooled test and in Welch's. Such a pulse is
// tested once more without the side run farthest from its side's mean, at
// the level divided by the number of side runs: with any one run fixed in
// advance and left out, the test of the runs that remain is as valid as the
// whole one, so however the run is chosen, the chance that an unchanged
// series passes stays within the level (Bonferroni). A side keeps at least
// min_segment runs; the pulse keeps all of its own.
bool PulseHolds(const std::vector<double>& s, size_t begin, size_t first, size_t last, size_t end,
                const ChangePointOptions& o, ChangePoint* in, ChangePoint* back) {
  if (PulseHoldsWhole(s, begin, first, last, end, o, in, back)) return true;
  size_t odd = end;
  double farthest = -1;
  for (const auto& [a, b] : {std::pair<size_t, size_t>{begin, first}, {last, end}}) {
    if (b - a <= o.min_segment) continue;
    double sum = 0;
    for (size_t i = a; i < b; ++i) sum += s[i];
    const double mean = sum / static_cast<double>(b - a);
    for (size_t i = a; i < b; ++i) {
      if (std::fabs(s[i] - mean) > farthest) {
        farthest = std::fabs(s[i] - mean);
        odd = i;
      }
    }
  }
  if (odd == end) return false;
  std::vector<double> rest = Slice(s, begin, end);
  rest.erase(rest.begin() + static_cast<long>(odd - begin));
  const size_t shift = odd < first ? 1 : 0;
  ChangePointOptions strict = o;
  strict.max_p_value = o.max_p_value / static_cast<double>((first - begin) + (end - last));
  ChangePoint without_in, without_back;
  if (!PulseHoldsWhole(rest, 0, first - begin - shift, last - begin - shift, rest.size(), strict,
                       &without_in, &without_back)) {
    return false;
  }
  // The edges as the runs without the odd one see them, at the series' places.
  without_in.index = first;
  without_back.index = last;
  *in = without_in;
  *back = without_back;
  return true;
}

// A change point found, and whether it opens a pulse (it and the next one
// are the two edges of one stretch, re-tested together).
struct Found {
  ChangePoint cp;
  bool opens_pulse = false;
};

void Split(const std::vector<double>& s, size_t begin, size_t end, const ChangePointOptions& o,
           std::vector<Found>* out) {
  if (end - begin < 2 * o.min_segment) return;
  std::vector<double> q = EDivisiveStatistic(Slice(s, begin, end), o.min_segment);
  size_t best = 0;
  for (size_t t = o.min_segment; t + o.min_segment <= end - begin; ++t) {
    if (best == 0 || q[t] > q[best]) best = t;
  }
  ChangePoint cp;
  size_t first = 0, last = 0;
  ChangePoint in, back;
  if (best != 0 && q[best] > 0 && Significant(s, begin, begin + best, end, o, &cp)) {
    // The best split may be one edge of a pulse next to a level shift (a
    // slowdown of four runs that also ended higher or lower than it began):
    // its other edge, inside one side, would then face Welch's test between
    // the pulse and the few runs beside it alone. When a pulse with that
    // edge holds, its two edges are kept together.
    if (FindPulse(s, begin, end, o.min_segment, &first, &last) &&
        (first == begin + best || last == begin + best) &&
        PulseHolds(s, begin, first, last, end, o, &in, &back)) {
      out->push_back({in, true});
      out->push_back({back, false});
      Split(s, begin, first, o, out);
      Split(s, first, last, o, out);
      Split(s, last, end, o, out);
      return;
    }
    out->push_back({cp, false});
    Split(s, begin, begin + best, o, out);
    Split(s, begin + best, end, o, out);
    return;
  }
  // No single split holds. A regime inside the segment that ends before it
  // does (a slowdown lasting four runs, then fixed) leaves both sides of
  // any one split mixed: look for the pulse, and keep it when both of its
  // edges hold.
  if (!FindPulse(s, begin, end, o.min_segment, &first, &last)) return;
  if (!PulseHolds(s, begin, first, last, end, o, &in, &back)) return;
  out->push_back({in, true});
  out->push_back({back, false});
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
  std::vector<Found> found;
  Split(series, 0, series.size(), o, &found);
  std::sort(found.begin(), found.end(),
            [](const Found& a, const Found& b) { return a.cp.index < b.cp.index; });
  // Re-test each change point between its neighbours (a pulse's two edges
  // together, between the change points around the pulse); drop the weakest
  // failure (both edges of a pulse) and repeat until every one holds.
  for (;;) {
    int weakest = -1;
    double weakest_p = -1;
    std::vector<Found> retested = found;
    for (size_t i = 0; i < found.size(); ++i) {
      const size_t begin = i == 0 ? 0 : found[i - 1].cp.index;
      bool holds = false;
      if (found[i].opens_pulse && i + 1 < found.size()) {
        const size_t end = i + 2 < found.size() ? found[i + 2].cp.index : series.size();
        holds = PulseHolds(series, begin, found[i].cp.index, found[i + 1].cp.index, end, o,
                           &retested[i].cp, &retested[i + 1].cp);
        const double p = std::max(retested[i].cp.p_value, retested[i + 1].cp.p_value);
        if (!holds && p > weakest_p) {
          weakest = static_cast<int>(i);
          weakest_p = p;
        }
        ++i;  // the closing edge was tested with it
        continue;
      }
      const size_t end = i + 1 == found.size() ? series.size() : found[i + 1].cp.index;
      holds = Significant(series, begin, found[i].cp.index, end, o, &retested[i].cp);
      if (!holds && retested[i].cp.p_value > weakest_p) {
        weakest = static_cast<int>(i);
        weakest_p = retested[i].cp.p_value;
      }
    }
    if (weakest < 0) {
      std::vector<ChangePoint> out;
      for (Found& f : retested) {
        if (o.log_scale) {
          f.cp.before = std::exp(f.cp.before);
          f.cp.after = std::exp(f.cp.after);
        }
        out.push_back(f.cp);
      }
      return out;
    }
    if (found[static_cast<size_t>(weakest)].opens_pulse) {
      // A pulse that no longer holds as one: its edges are re-tested as
      // plain change points from now on.
      found[static_cast<size_t>(weakest)].opens_pulse = false;
    } else {
      found.erase(found.begin() + weakest);
    }
  }
}

}  // namespace harness
