#pragma once
// Change-point detection over one metric's history (one value per run, in run
// order), in the manner of Apache Otava: E-divisive means finds the most
// likely split of a segment, a Welch t-test between the two sides decides
// whether it is real, and the search recurses into both sides. A final pass
// re-tests every change point against its neighbours' segments and drops the
// weakest insignificant one until all hold. When no single split of a segment
// holds, a pulse (a stretch of at least min_segment + 1 values that differs
// from both sides in the same direction, e.g. a slowdown lasting four runs)
// is kept when both of its edges hold in a t-test with the variance pooled
// over the three segments; its edges are re-tested together.
//
// Robust to single outliers: a segment must hold at least `min_segment`
// values (default 3), so one odd run can never be a segment of its own, and a
// shift must move the segment medians by at least `min_relative_shift`.
#include <cstddef>
#include <vector>

namespace harness {

struct ChangePointOptions {
  double max_p_value = 0.001;       // significance required of the t-test
  size_t min_segment = 3;           // values on each side of a change point
  double min_relative_shift = 0.0;  // |median after / median before - 1| required
  // The series is the log of a positive metric (wall time): the tests run on
  // the logs, so a multiplicative shift weighs the same at any scale and one
  // slow run's long tail does not hide it; before/after are reported as
  // values again and `relative` is their ratio - 1.
  bool log_scale = false;
};

struct ChangePoint {
  size_t index = 0;      // first value of the new regime
  double before = 0;     // median of the segment before
  double after = 0;      // median of the segment after
  double relative = 0;   // after / before - 1 (0 when before is 0)
  double p_value = 1;    // Welch t-test between the adjacent segments
};

// Change points in ascending index order. Series shorter than
// 2 * min_segment have none. NaN values must be removed by the caller.
std::vector<ChangePoint> DetectChangePoints(const std::vector<double>& series,
                                            const ChangePointOptions& options = {});

// The E-divisive statistic (alpha = 1) of every split of `series`:
// q[t] for the split into [0, t) and [t, n), for t in [min_segment, n - min_segment];
// other entries are 0. Exposed for tests.
std::vector<double> EDivisiveStatistic(const std::vector<double>& series, size_t min_segment);

}  // namespace harness
