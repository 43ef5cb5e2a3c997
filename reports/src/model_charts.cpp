#include <cmath>
#include <set>
#include <tuple>

#include "model_charts.h"
#include "reports/escape.h"

namespace reports::internal {

std::string ChartMetricFor(const harness::Finding& f) {
  switch (f.kind) {
    case harness::FindingKind::kLatency:  // the quantity judged (with or without queue wait)
      return harness::IsHistoryMetric(f.metric) ? f.metric : "wall_us_median";
    case harness::FindingKind::kModeledLatency:
      return "modeled_us";
    case harness::FindingKind::kFallback:
      return "fallback_ops";
    case harness::FindingKind::kMemory:  // a serving trace's KV blocks have no stored series
      return f.metric == "peak_device_bytes" ? f.metric : "";
    case harness::FindingKind::kAccuracy:
      return harness::IsHistoryMetric(f.metric) ? f.metric : "";
    case harness::FindingKind::kStatus:
    case harness::FindingKind::kGoldenDrift:
      return "";
  }
  return "";
}

Chart MakeChart(std::string title, const std::string& suite, const std::string& case_name,
                const std::string& metric, std::vector<harness::SeriesPoint> series,
                int64_t current_run_id) {
  Chart chart;
  chart.title = std::move(title);
  chart.suite = suite;
  chart.case_name = case_name;
  chart.metric = metric;
  chart.current_run_id = current_run_id;
  chart.shifts = harness::FindShifts(suite, case_name, metric, series);
  // Version changes are marked where an upstream component differs from the
  // previous point: the first place to look when a line moves.
  for (size_t i = 1; i < series.size(); ++i) {
    if (series[i].env == series[i - 1].env) continue;
    VersionMark mark{i, {}};
    for (harness::EnvChange& c : harness::DiffEnvironments(series[i - 1].env, series[i].env)) {
      if (c.upstream) mark.changes.push_back(std::move(c));
    }
    if (!mark.changes.empty()) chart.versions.push_back(std::move(mark));
  }
  chart.points = std::move(series);
  return chart;
}

harness::Status LoadCharts(harness::Store& store, const ReportOptions& options, ReportModel* model) {
  const int64_t run_id = model->run.run_id;
  if (model->comparison) {
    std::set<std::tuple<std::string, std::string, std::string>> seen;
    for (const harness::Finding& f : model->comparison->regressions) {
      if (model->case_charts.size() >= options.max_case_charts) break;
      const std::string metric = ChartMetricFor(f);
      if (metric.empty() || !seen.insert({f.suite, f.case_id, metric}).second) continue;
      SPYRE_ASSIGN_OR_RETURN(auto series,
                             harness::LoadSeries(store, f.suite, f.case_id, metric, run_id));
      model->case_charts.push_back(MakeChart(f.suite + " / " + f.case_id + " — " + metric, f.suite,
                                             f.case_id, metric, std::move(series), run_id));
      Chart& chart = model->case_charts.back();
      if (metric == f.metric && model->baseline) {
        // The finding's figures, exactly as its table row shows them.
        chart.note = harness::FindingFigures(f) + " vs run " + std::to_string(model->baseline->run_id);
        chart.finding_baseline = f.baseline;
        chart.finding_candidate = f.candidate;
      }
    }
  }
  for (SuiteSection& suite : model->suites) {
    for (const std::string& metric : options.suite_chart_metrics) {
      SPYRE_ASSIGN_OR_RETURN(auto series,
                             harness::LoadSuiteGeomeanSeries(store, suite.name, metric, run_id));
      if (series.empty()) continue;
      suite.charts.push_back(MakeChart(suite.name + " — geometric mean of " + metric, suite.name,
                                       "", metric, std::move(series), run_id));
    }
  }
  return harness::Status::Ok();
}

}  // namespace reports::internal
