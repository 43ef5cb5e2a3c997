// A history chart as inline SVG: the series as a line over horizontal
// gridlines at round values, the y axis titled with the quantity and its
// ticks in its unit, the x axis titled "run" with run ids; the reported run
// highlighted, change points (red, dashed) named on the chart with their
// shift, run and the upstream components that changed there, upstream
// version changes (purple, dotted); a flagged case's finding as two
// labelled lines at its baseline and candidate values; details in <title>
// tooltips. Quantities measured from zero are drawn from zero.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <tuple>

#include "detect/detect.h"
#include "base/human_format.h"
#include "html_parts.h"
#include "reports/escape.h"

namespace reports::internal {
namespace {

constexpr double kWidth = 640, kHeight = 250;
constexpr double kLeft = 78, kRight = 14, kTop = 40, kBottom = 40;

std::string Fixed(double v, int decimals = 1) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string Changes(const std::vector<harness::EnvChange>& changes) {
  std::string s;
  for (const harness::EnvChange& c : changes) {
    s += "\n" + c.component + ": " + harness::EnvValueText(c.baseline) + " -> " +
         harness::EnvValueText(c.candidate);
  }
  return s;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The quantity a metric measures, as the y axis is titled.
std::string Quantity(const std::string& metric) {
  if (metric == "wall_us_median") return "wall time (median)";
  if (metric == "unqueued_us_median") return "wall time less run-queue wait (median)";
  if (metric == "wall_us_normalized") return "wall time at reference host speed";
  if (metric == "modeled_us") return "modeled time";
  if (metric == "fallback_ops") return "CPU-fallback calls";
  if (metric == "peak_device_bytes") return "peak device memory";
  return metric;
}

// The axis unit for values up to `top`: a divisor and its name.
struct Unit {
  double divisor = 1;
  const char* name = "";
};

Unit AxisUnit(const std::string& metric, double top) {
  top = std::fabs(top);
  if (EndsWith(metric, "_us") || metric.find("_us_") != std::string::npos) {
    if (top >= 1e6) return {1e6, " s"};
    if (top >= 1e3) return {1e3, " ms"};
    if (top >= 1) return {1, " us"};
    return {1e-3, " ns"};
  }
  if (EndsWith(metric, "_bytes")) {
    if (top >= 1 << 30) return {double(1 << 30), " GiB"};
    if (top >= 1 << 20) return {double(1 << 20), " MiB"};
    if (top >= 1 << 10) return {double(1 << 10), " KiB"};
    return {1, " B"};
  }
  return {1, ""};
}

// A round step (1, 2 or 5 times a power of ten) giving about `count`
// intervals over `range`.
double NiceStep(double range, int count) {
  const double raw = range / count;
  const double p = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * p) return m * p;
  }
  return 10 * p;
}

}  // namespace

std::string RenderSvgChart(const Chart& chart) {
  const auto& pts = chart.points;
  if (pts.size() < 2) {
    return "<p class=\"meta\">Not enough history yet (" +
           harness::Plural(static_cast<int64_t>(pts.size()), "run") + ").</p>";
  }
  double lo = pts[0].value, hi = pts[0].value;
  for (const auto& p : pts) {
    lo = std::min(lo, p.value);
    hi = std::max(hi, p.value);
  }
  const bool marked = std::isfinite(chart.finding_baseline) && std::isfinite(chart.finding_candidate);
  if (marked) {
    lo = std::min({lo, chart.finding_baseline, chart.finding_candidate});
    hi = std::max({hi, chart.finding_baseline, chart.finding_candidate});
  }
  // Quantities measured from zero (times, bytes, counts, errors) are drawn
  // from zero, so a line's height reads as its size; a similarity near 1
  // (cosine, agreement) keeps its own range or every change would vanish.
  const bool from_zero = lo >= 0 && !harness::HigherIsBetter(chart.metric);
  // A flat line sits mid-height rather than on an axis.
  const double pad = hi > lo ? (hi - lo) * 0.08 : std::max(std::fabs(hi) * 0.1, 1e-9);
  lo = from_zero ? 0 : lo - pad;
  hi += pad;
  const Unit unit = AxisUnit(chart.metric, std::max(std::fabs(lo), std::fabs(hi)));
  // At least three gridlines: a finer step when the round one gives fewer.
  double step = NiceStep((hi - lo) / unit.divisor, 4) * unit.divisor;
  for (int count = 8; std::floor(hi / step) - std::ceil(lo / step) + 1 < 3 && count <= 32;
       count *= 2) {
    step = NiceStep((hi - lo) / unit.divisor, count) * unit.divisor;
  }
  const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step / unit.divisor))));
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const auto x = [&](size_t i) {
    return kLeft + plot_w * static_cast<double>(i) / static_cast<double>(pts.size() - 1);
  };
  const auto y = [&](double v) { return kTop + plot_h * (hi - v) / (hi - lo); };
  const double bottom = kTop + plot_h, right = kWidth - kRight;

  std::ostringstream svg;
  svg << "<svg class=\"chart\" viewBox=\"0 0 " << kWidth << " " << kHeight
      << "\" role=\"img\" aria-label=\"" << EscapeHtml(chart.title) << "\">"
      << "<title>" << EscapeHtml(chart.title) << "</title>";
  // Gridlines and tick labels at round values, in the axis unit.
  for (double t = std::ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
    const std::string ty = Fixed(y(t));
    const double shown = std::fabs(t / unit.divisor) < 1e-12 ? 0 : t / unit.divisor;
    svg << "<line class=\"grid\" x1=\"" << kLeft << "\" y1=\"" << ty << "\" x2=\"" << right
        << "\" y2=\"" << ty << "\"/><text class=\"tick\" x=\"" << kLeft - 5 << "\" y=\""
        << Fixed(y(t) + 3.5) << "\" text-anchor=\"end\">" << Fixed(shown, decimals) << unit.name
        << "</text>";
  }
  svg << "<line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft
      << "\" y2=\"" << bottom << "\"/><line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << bottom
      << "\" x2=\"" << right << "\" y2=\"" << bottom << "\"/>";
  // Axis titles: the quantity (rotated, left) and the runs (below).
  const double ymid = kTop + plot_h / 2;
  svg << "<text class=\"ytitle\" x=\"14\" y=\"" << Fixed(ymid)
      << "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " << Fixed(ymid) << ")\">"
      << EscapeHtml(Quantity(chart.metric)) << "</text>";
  svg << "<text class=\"xtitle\" x=\"" << Fixed(kLeft + plot_w / 2) << "\" y=\"" << kHeight - 4
      << "\" text-anchor=\"middle\">run</text>";
  // Run ids under the x axis: the first, the last and a few between.
  const size_t every = std::max<size_t>(1, (pts.size() + 7) / 8);
  for (size_t i = 0; i < pts.size(); ++i) {
    if (i % every != 0 && i + 1 != pts.size()) continue;
    if (i + 1 != pts.size() && pts.size() - 1 - i < every / 2 + 1 && i != 0) continue;
    svg << "<line class=\"axis\" x1=\"" << Fixed(x(i)) << "\" y1=\"" << bottom << "\" x2=\""
        << Fixed(x(i)) << "\" y2=\"" << bottom + 4 << "\"/><text class=\"tick\" x=\"" << Fixed(x(i))
        << "\" y=\"" << bottom + 15 << "\" text-anchor=\"middle\">" << pts[i].run_id << "</text>";
  }

  for (const VersionMark& v : chart.versions) {
    const std::string vx = Fixed(x(v.index));
    svg << "<line class=\"ver\" x1=\"" << vx << "\" y1=\"" << kTop << "\" x2=\"" << vx << "\" y2=\""
        << bottom << "\"><title>"
        << EscapeHtml("version change at run " + std::to_string(pts[v.index].run_id) +
                      Changes(v.changes))
        << "</title></line>";
  }
  // Change points, named where they are: "+25.0% at run 6 (blas)".
  int nth = 0;
  for (const harness::HistoryShift& s : chart.shifts) {
    if (s.point.index >= pts.size()) continue;
    const double px = x(s.point.index);
    const std::string cx = Fixed(px);
    const std::string change =
        FormatChange(s.point.before != 0 ? s.point.after / s.point.before : NAN);
    std::string why;
    for (const harness::EnvChange& e : s.env_change) {
      if (e.upstream) why += (why.empty() ? "" : ", ") + e.component;
    }
    const std::string label = change + " at run " + std::to_string(s.first_run_id) +
                              (why.empty() ? "" : " (" + why + ")");
    const bool right_half = px > kLeft + plot_w / 2;
    svg << "<line class=\"cp\" x1=\"" << cx << "\" y1=\"" << kTop << "\" x2=\"" << cx << "\" y2=\""
        << bottom << "\"><title>"
        << EscapeHtml("change point at run " + std::to_string(s.first_run_id) + ": " +
                      harness::HumanMetric(chart.metric, s.point.before) + " -> " +
                      harness::HumanMetric(chart.metric, s.point.after) + " (" + change + ")" +
                      Changes(s.env_change))
        << "</title></line><text class=\"cpl\" x=\"" << Fixed(px + (right_half ? -4 : 4))
        << "\" y=\"" << Fixed(kTop - 8 - 13 * (nth++ % 2)) << "\" text-anchor=\""
        << (right_half ? "end" : "start") << "\">" << EscapeHtml(label) << "</text>";
  }
  // The finding's own two values, labelled at the right edge: the figures
  // its table row shows, which may be another statistic than the run
  // medians the line follows.
  if (marked) {
    const double yb = y(chart.finding_baseline), yc = y(chart.finding_candidate);
    const bool apart = std::fabs(yb - yc) >= 12;
    for (const auto& [cls, value, word, yy] :
         {std::tuple{"fb", chart.finding_baseline, "baseline ", yb},
          std::tuple{"fc", chart.finding_candidate, "candidate ", yc}}) {
      const std::string text = word + harness::HumanMetric(chart.metric, value);
      const double label_y = apart || std::string(cls) == "fc" ? yy - 3 : yy + 11;
      svg << "<line class=\"" << cls << "\" x1=\"" << kLeft << "\" y1=\"" << Fixed(yy)
          << "\" x2=\"" << right << "\" y2=\"" << Fixed(yy) << "\"><title>"
          << EscapeHtml("finding " + text) << "</title></line><text class=\"" << cls
          << "l\" x=\"" << Fixed(right - 4) << "\" y=\"" << Fixed(label_y)
          << "\" text-anchor=\"end\">" << EscapeHtml(text) << "</text>";
    }
  }
  svg << "<polyline class=\"line\" points=\"";
  for (size_t i = 0; i < pts.size(); ++i)
    svg << (i ? " " : "") << Fixed(x(i)) << "," << Fixed(y(pts[i].value));
  svg << "\"/>";
  // Dots carry the per-run tooltip; on long histories only every few runs get
  // one, so the file stays small.
  const size_t dot_step = pts.size() > 120 ? pts.size() / 60 : 1;
  for (size_t i = 0; i < pts.size(); ++i) {
    const bool current = pts[i].run_id == chart.current_run_id;
    if (!current && i % dot_step != 0) continue;
    svg << "<circle class=\"" << (current ? "cur" : "pt") << "\" cx=\"" << Fixed(x(i)) << "\" cy=\""
        << Fixed(y(pts[i].value)) << "\" r=\"" << (current ? 4.5 : 2) << "\"><title>"
        << EscapeHtml("run " + std::to_string(pts[i].run_id) +
                      (pts[i].label.empty() ? "" : " (" + pts[i].label + ")") + " " +
                      pts[i].started_at + ": " + harness::HumanMetric(chart.metric, pts[i].value))
        << "</title></circle>";
    if (current && !chart.note.empty()) {
      // The finding this chart follows, beside the reported run.
      const bool right_half = x(i) > kLeft + plot_w / 2;
      const double ny = y(pts[i].value) + (y(pts[i].value) < kTop + 14 ? 16 : -9);
      svg << "<text class=\"curl\" x=\"" << Fixed(x(i) + (right_half ? -8 : 8)) << "\" y=\""
          << Fixed(ny) << "\" text-anchor=\"" << (right_half ? "end" : "start") << "\">"
          << EscapeHtml(chart.note) << "</text>";
    }
  }
  svg << "</svg>";
  return svg.str();
}

}  // namespace reports::internal
