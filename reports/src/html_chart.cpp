// A history chart as inline SVG: the series as a line, the reported run
// highlighted, change points (red, dashed, with their shift) and upstream
// version changes (purple, dotted) marked; details in <title> tooltips.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "html_parts.h"
#include "reports/escape.h"

namespace reports::internal {
namespace {

constexpr double kWidth = 640, kHeight = 210;
constexpr double kLeft = 64, kRight = 12, kTop = 22, kBottom = 30;

std::string Fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f", v);
  return buf;
}

std::string Changes(const std::vector<harness::EnvChange>& changes) {
  std::string s;
  for (const harness::EnvChange& c : changes) {
    s += "\n" + c.component + ": " + c.baseline + " -> " + c.candidate;
  }
  return s;
}

}  // namespace

std::string RenderSvgChart(const Chart& chart) {
  const auto& pts = chart.points;
  if (pts.size() < 2) {
    return "<p class=\"meta\">Not enough history yet (" + std::to_string(pts.size()) + " run).</p>";
  }
  double lo = pts[0].value, hi = pts[0].value;
  for (const auto& p : pts) {
    lo = std::min(lo, p.value);
    hi = std::max(hi, p.value);
  }
  // A flat line sits mid-height rather than on an axis.
  const double pad = hi > lo ? (hi - lo) * 0.08 : std::max(std::fabs(hi) * 0.1, 1e-9);
  lo -= pad;
  hi += pad;
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  const auto x = [&](size_t i) {
    return kLeft + plot_w * static_cast<double>(i) / (pts.size() - 1);
  };
  const auto y = [&](double v) { return kTop + plot_h * (hi - v) / (hi - lo); };
  const double bottom = kTop + plot_h;

  std::ostringstream svg;
  svg << "<svg class=\"chart\" viewBox=\"0 0 " << kWidth << " " << kHeight
      << "\" role=\"img\" aria-label=\"" << EscapeHtml(chart.title) << "\">"
      << "<title>" << EscapeHtml(chart.title) << "</title>";
  svg << "<line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft
      << "\" y2=\"" << bottom << "\"/><line class=\"axis\" x1=\"" << kLeft << "\" y1=\"" << bottom
      << "\" x2=\"" << kWidth - kRight << "\" y2=\"" << bottom << "\"/>";
  svg << "<text x=\"" << kLeft - 4 << "\" y=\"" << kTop + 4 << "\" text-anchor=\"end\">"
      << FormatNumber(hi - pad) << "</text><text x=\"" << kLeft - 4 << "\" y=\"" << bottom
      << "\" text-anchor=\"end\">" << FormatNumber(lo + pad) << "</text>";
  svg << "<text x=\"" << kLeft << "\" y=\"" << kHeight - 8 << "\">run " << pts.front().run_id
      << "</text><text x=\"" << kWidth - kRight << "\" y=\"" << kHeight - 8
      << "\" text-anchor=\"end\">run " << pts.back().run_id << "</text>";

  for (const VersionMark& v : chart.versions) {
    const std::string vx = Fixed(x(v.index));
    svg << "<line class=\"ver\" x1=\"" << vx << "\" y1=\"" << kTop << "\" x2=\"" << vx << "\" y2=\""
        << bottom << "\"><title>"
        << EscapeHtml("version change at run " + std::to_string(pts[v.index].run_id) +
                      Changes(v.changes))
        << "</title></line>";
  }
  for (const harness::HistoryShift& s : chart.shifts) {
    if (s.point.index >= pts.size()) continue;
    const std::string cx = Fixed(x(s.point.index));
    const std::string label =
        FormatChange(s.point.before != 0 ? s.point.after / s.point.before : NAN);
    svg << "<line class=\"cp\" x1=\"" << cx << "\" y1=\"" << kTop << "\" x2=\"" << cx << "\" y2=\""
        << bottom << "\"><title>"
        << EscapeHtml("change point at run " + std::to_string(s.first_run_id) + ": " +
                      FormatNumber(s.point.before) + " -> " + FormatNumber(s.point.after) + " (" +
                      label + ")" + Changes(s.env_change))
        << "</title></line><text class=\"cpl\" x=\"" << cx << "\" y=\"" << kTop - 6
        << "\" text-anchor=\"middle\">" << EscapeHtml(label) << "</text>";
  }
  svg << "<polyline class=\"line\" points=\"";
  for (size_t i = 0; i < pts.size(); ++i)
    svg << (i ? " " : "") << Fixed(x(i)) << "," << Fixed(y(pts[i].value));
  svg << "\"/>";
  // Dots carry the per-run tooltip; on long histories only every few runs get
  // one, so the file stays small.
  const size_t step = pts.size() > 120 ? pts.size() / 60 : 1;
  for (size_t i = 0; i < pts.size(); ++i) {
    const bool current = pts[i].run_id == chart.current_run_id;
    if (!current && i % step != 0) continue;
    svg << "<circle class=\"" << (current ? "cur" : "pt") << "\" cx=\"" << Fixed(x(i)) << "\" cy=\""
        << Fixed(y(pts[i].value)) << "\" r=\"" << (current ? 4.5 : 2) << "\"><title>"
        << EscapeHtml("run " + std::to_string(pts[i].run_id) +
                      (pts[i].label.empty() ? "" : " (" + pts[i].label + ")") + " " +
                      pts[i].started_at + ": " + FormatNumber(pts[i].value))
        << "</title></circle>";
  }
  svg << "</svg>";
  return svg.str();
}

}  // namespace reports::internal
