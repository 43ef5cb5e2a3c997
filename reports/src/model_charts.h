#pragma once
// History charts of the report model (private to spyre_reports).
#include "reports/report_model.h"

namespace reports::internal {

// The history metric a finding is best followed by; empty when none (status).
std::string ChartMetricFor(const harness::Finding& f);

// A chart of `series`, with its change points and upstream version changes;
// `current_run_id` is highlighted.
Chart MakeChart(std::string title, const std::string& suite, const std::string& case_name,
                const std::string& metric, std::vector<harness::SeriesPoint> series,
                int64_t current_run_id);

// Fills model->case_charts and each suite's charts from the store.
harness::Status LoadCharts(harness::Store& store, const ReportOptions& options, ReportModel* model);

}  // namespace reports::internal
