#pragma once
// Pieces of index.html (private to spyre_reports): the inline stylesheet and
// script, and the SVG history chart.
#include <string>

#include "reports/escape.h"
#include "reports/report_model.h"

namespace reports::internal {

// The inline <style> contents (screen and print).
extern const char* const kHtmlStyle;
// Installed first: records uncaught errors into #js-errors and the body's
// data-js-errors attribute, so a headless browser's dumped DOM shows them.
extern const char* const kHtmlErrorTrap;
// Sorting and filtering of tables; checks the row count of the page's main
// table against the #report-data JSON ("regressions" for index.html,
// "stacks" for stacks.html); sets data-report-ready="yes" on <body> when it
// ran to the end.
extern const char* const kHtmlScript;

// One chart as an inline <svg> (every label escaped); a short note instead
// when the series has fewer than two points.
std::string RenderSvgChart(const Chart& chart);

}  // namespace reports::internal

namespace reports::internal {

// Sections of the page, top to bottom (html_reporter.cpp, html_sections.cpp).
std::string HtmlVerdict(const ReportModel& m);
std::string HtmlEnvironment(const ReportModel& m);
std::string HtmlRegressions(const ReportModel& m);
std::string HtmlCharts(const ReportModel& m);
std::string HtmlSuites(const ReportModel& m);
std::string HtmlGoldenDrift(const ReportModel& m);
std::string HtmlFallback(const ReportModel& m);

// The exact value for sorting, in plain decimals (never an exponent); empty
// for NaN and infinities.
std::string SortKey(double v);
// "<td class=num data-sort=V>text</td>" for a number (NaN sorts last).
std::string NumCell(double v, const std::string& text);
std::string NumCell(double v);
// HTML-escaped text (EscapeHtml), the short name the sections use.
inline std::string Esc(const std::string& s) { return EscapeHtml(s); }

}  // namespace reports::internal
