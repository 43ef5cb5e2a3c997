// The lower sections of index.html: history charts, per-suite case tables,
// golden drift and CPU-fallback coverage.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <sstream>

#include "base/human_format.h"
#include "html_parts.h"
#include "reports/escape.h"

namespace reports::internal {
namespace {

std::string Figure(const Chart& c) {
  return "<figure>" + RenderSvgChart(c) + "<figcaption>" + Esc(c.title) + " &middot; " +
         harness::Plural(static_cast<int64_t>(c.points.size()), "run") + ", " +
         harness::Plural(static_cast<int64_t>(c.shifts.size()), "change point") + ", " +
         harness::Plural(static_cast<int64_t>(c.versions.size()), "version change") +
         "</figcaption></figure>";
}

// The findings of one case, both directions, for styling its cells: only a
// cell a finding is about is styled, so noise within the thresholds reads
// as plain text.
struct CaseFindings {
  std::vector<const harness::Finding*> worse, better;
};
using FindingIndex = std::map<std::pair<std::string, std::string>, CaseFindings>;

FindingIndex IndexFindings(const ReportModel& m) {
  FindingIndex index;
  if (!m.comparison) return index;
  for (const harness::Finding& f : m.comparison->regressions)
    index[{f.suite, f.case_id}].worse.push_back(&f);
  for (const harness::Finding& f : m.comparison->improvements)
    index[{f.suite, f.case_id}].better.push_back(&f);
  return index;
}

// What a column shows, for matching findings: a finding kind, and for
// accuracy the metric's name (an output's "out0/max_ulp" matches "max_ulp").
struct ColumnKey {
  harness::FindingKind kind;
  std::string metric;  // accuracy only
};

bool Matches(const harness::Finding& f, const ColumnKey& key) {
  if (f.kind != key.kind) return false;
  if (key.kind != harness::FindingKind::kAccuracy) return true;
  const size_t slash = f.metric.rfind('/');
  return (slash == std::string::npos ? f.metric : f.metric.substr(slash + 1)) == key.metric;
}

// " worse", " better" or "" for a cell showing `key` of a case.
std::string FindingClass(const CaseFindings* cf, const std::optional<ColumnKey>& key) {
  if (cf == nullptr || !key) return "";
  for (const harness::Finding* f : cf->worse) {
    if (Matches(*f, *key)) return " worse";
  }
  for (const harness::Finding* f : cf->better) {
    if (Matches(*f, *key)) return " better";
  }
  return "";
}

std::string Cell(const std::string& col, double sort, const std::string& text,
                 const std::string& cls, const std::string& title = "") {
  std::string s =
      "<td class=\"num" + cls + "\" data-col=\"" + col + "\" data-sort=\"" + SortKey(sort) + "\"";
  if (!title.empty()) s += " title=\"" + Esc(title) + "\"";
  return s + ">" + text + "</td>";
}

// The worst value of a metric over the case's outputs and the limit it was
// held to (NaN when none); `found` false when the case has no such metric.
struct MetricValue {
  double value = std::nan("");
  double limit = std::nan("");
  bool found = false;
};

MetricValue FindMetric(const std::vector<harness::Metric>& metrics, const std::string& name) {
  MetricValue out;
  const bool higher = harness::HigherIsBetter(name) || name == "min_top_k_overlap";
  for (const harness::Metric& x : metrics) {
    if (x.name != name || std::isnan(x.value)) continue;
    const bool worse = !out.found || (higher ? x.value < out.value : x.value > out.value);
    if (worse) {
      out.value = x.value;
      out.limit = x.limit;
      out.found = true;
    }
  }
  return out;
}

// "0.0123 (limit 0.04)", or the value alone without a limit.
std::string WithLimit(double value, double limit) {
  std::string s = FormatNumber(value);
  if (std::isfinite(limit)) s += " (limit " + FormatNumber(limit) + ")";
  return s;
}

// A value beside its baseline: "64.4 ms (+87.8%)", the change in muted
// text; styled only when `cls` says a finding is about it.
std::string VersusCell(const std::string& col, double value, double base,
                       std::string (*format)(double), const std::string& cls) {
  if (!std::isfinite(value)) return Cell(col, value, "-", cls);
  std::string text = Esc(format(value));
  std::string title;
  if (std::isfinite(base) && base != 0) {
    text += " <span class=\"chg\">(" + FormatChange(value / base) + ")</span>";
    title = "baseline " + format(base);
  }
  return Cell(col, value, text, cls, title);
}

std::string Duration(double us) { return harness::HumanDuration(us); }
std::string Number(double v) { return FormatNumber(v); }

using harness::FindingKind;

// One table column: its header (HTML), tooltip, and cell.
struct Column {
  const char* header;
  const char* title;
  std::function<std::string(const CaseRow&, const CaseFindings*)> cell;
};

Column Accuracy(const char* header, const char* title, const char* col, const std::string& name,
                double harness::CaseResult::*summary, bool limit) {
  return {header, title, [=](const CaseRow& row, const CaseFindings* cf) {
            const harness::CaseResult& r = row.result;
            MetricValue v = FindMetric(r.metrics, name);
            if (summary != nullptr && !std::isnan(r.*summary)) {
              if (!v.found || !limit) v.limit = std::nan("");
              v.value = r.*summary;
            }
            const std::string cls = FindingClass(cf, ColumnKey{FindingKind::kAccuracy, name});
            return Cell(col, v.value, Esc(limit ? WithLimit(v.value, v.limit) : Number(v.value)),
                        cls);
          }};
}

// A latency metric the case reports (decode), beside the baseline's.
Column Latency(const char* header, const char* title, const char* col, const std::string& name,
               std::string (*format)(double)) {
  return {header, title, [=](const CaseRow& row, const CaseFindings*) {
            const MetricValue v = FindMetric(row.result.metrics, name);
            const MetricValue b = FindMetric(row.base_metrics, name);
            return VersusCell(col, v.value, b.value, format, "");
          }};
}

std::vector<Column> ColumnsFor(const std::string& kind) {
  using harness::CaseResult;
  const Column wall = {"wall", "median device wall time of one repeat, beside the baseline's",
                       [](const CaseRow& row, const CaseFindings* cf) {
                         return VersusCell("wall", row.wall_us, row.base_wall_us, Duration,
                                           FindingClass(cf, ColumnKey{FindingKind::kLatency, ""}));
                       }};
  const Column modeled = {
      "modeled", "modeled device time of one repeat (cost model), beside the baseline's",
      [](const CaseRow& row, const CaseFindings* cf) {
        return VersusCell("modeled", row.result.modeled_us, row.base_modeled_us, Duration,
                          FindingClass(cf, ColumnKey{FindingKind::kModeledLatency, ""}));
      }};
  const Column fallbacks = {"fallbacks", "CPU-fallback calls in one repeat",
                            [](const CaseRow& row, const CaseFindings* cf) {
                              const double n = static_cast<double>(row.result.fallback_ops);
                              return Cell("fallbacks", n, n < 0 ? "not provided" : Number(n),
                                          FindingClass(cf, ColumnKey{FindingKind::kFallback, ""}));
                            }};
  const Column max_abs = Accuracy("max abs err", "largest |device - golden| over the outputs",
                                  "max_abs_err", "max_abs_err", &CaseResult::max_abs_err, false);
  const Column rel_l2 = Accuracy("rel L2", "||device - golden|| / ||golden||", "rel_l2", "rel_l2",
                                 &CaseResult::rel_l2, false);
  const Column cosine = Accuracy("cosine", "cosine similarity with the golden output", "cosine",
                                 "cosine", &CaseResult::cosine, false);
  if (kind == "decode") {
    return {{"top-1 agreement", "share of (step, sequence) pairs whose top-1 token matches",
             [](const CaseRow& row, const CaseFindings* cf) {
               const MetricValue v = FindMetric(row.result.metrics, "top1_agreement");
               return Cell("top1", v.value, v.found ? harness::HumanPercent(v.value) : "-",
                           FindingClass(cf, ColumnKey{FindingKind::kAccuracy, "top1_agreement"}));
             }},
            {"first divergence", "first decode step with any top-1 flip (near ties included)",
             [](const CaseRow& row, const CaseFindings*) {
               const MetricValue v = FindMetric(row.result.metrics, "first_divergence_step");
               const std::string text = !v.found      ? "-"
                                        : v.value < 0 ? "none"
                                                      : "step " + Number(v.value);
               return Cell("divergence", v.value < 0 ? 1e18 : v.value, text, "");
             }},
            {"max logprob diff",
             "largest |logprob difference| over steps, with its limit: a multiple of the "
             "yardstick (the CPU computing the case in the device's format), at least a floor",
             [](const CaseRow& row, const CaseFindings* cf) {
               const MetricValue v = FindMetric(row.result.metrics, "max_logprob_diff");
               const MetricValue y = FindMetric(row.result.metrics, "logprob_yardstick");
               std::string text = WithLimit(v.value, v.limit);
               if (y.found) text += " (yardstick " + Number(y.value) + ")";
               return Cell("logprob", v.value, Esc(text),
                           FindingClass(cf, ColumnKey{FindingKind::kAccuracy, "max_logprob_diff"}));
             }},
            Latency("tokens/s", "generated tokens per second (median of the repeats)", "tps",
                    "tokens_per_s", Number),
            Latency("time to first token", "prefill time (median of the repeats)", "ttft",
                    "ttft_us", Duration),
            Latency("inter-token latency", "time per decode step after the first", "itl", "itl_us",
                    Duration),
            wall,
            modeled,
            fallbacks};
  }
  if (kind == "serving") {
    return {
        {"failed requests", "requests whose tokens or logits depart from the request decoded alone",
         [](const CaseRow& row, const CaseFindings* cf) {
           const MetricValue v = FindMetric(row.result.metrics, "failed_requests");
           return Cell("failed", v.value, v.found ? Number(v.value) : "-",
                       FindingClass(cf, ColumnKey{FindingKind::kAccuracy, "failed_requests"}));
         }},
        Latency("peak KV blocks", "most KV cache blocks held at once, beside the baseline's", "kv",
                "kv_blocks_peak", Number),
        Latency("tokens/s", "generated tokens per second over the trace (median of the repeats)",
                "tps", "tokens_per_s", Number),
        Latency("time to first token", "mean over requests, from arrival to first token", "ttft",
                "ttft_us", Duration),
        Latency("inter-token latency", "mean over requests of the time per token after the first",
                "itl", "itl_us", Duration),
        Latency("modeled TTFT", "time to first token on the modeled clock", "mttft",
                "modeled_ttft_us", Duration),
        wall,
        modeled,
        fallbacks};
  }
  if (kind == "timed_serving") {
    return {Latency("modeled TTFT p50",
                    "median over requests of the modeled time from arrival to first token", "mttft",
                    "modeled_ttft_p50_us", Duration),
            Latency("modeled TTFT p90", "90th percentile of the same", "mttft90",
                    "modeled_ttft_p90_us", Duration),
            Latency("modeled ITL p50",
                    "median modeled gap between two tokens, over every request's gaps", "mitl",
                    "modeled_itl_p50_us", Duration),
            Latency("modeled tokens/s", "tokens generated over the trace's modeled time", "mtps",
                    "modeled_tokens_per_s", Number),
            modeled};
  }
  if (kind == "prefill") {
    return {{"top-1 agreement", "share of positions whose top-1 logit matches the golden's",
             [](const CaseRow& row, const CaseFindings* cf) {
               const MetricValue v = FindMetric(row.result.metrics, "top1_agreement");
               return Cell("top1", v.value, v.found ? harness::HumanPercent(v.value) : "-",
                           FindingClass(cf, ColumnKey{FindingKind::kAccuracy, "top1_agreement"}));
             }},
            max_abs,
            rel_l2,
            cosine,
            wall,
            modeled,
            fallbacks};
  }
  if (kind == "embed") {
    return {Accuracy("min cosine",
                     "lowest cosine similarity of a sequence's embedding, with its "
                     "limit",
                     "min_cosine", "min_cosine", nullptr, true),
            max_abs,
            rel_l2,
            wall,
            modeled,
            fallbacks};
  }
  return {max_abs,
          rel_l2,
          Accuracy("max ULP &sup1;", "largest error in ULPs of the output's device format",
                   "max_ulp", "max_ulp", &CaseResult::max_ulp, true),
          cosine,
          wall,
          modeled,
          fallbacks};
}

const char* KindTitle(const std::string& kind) {
  if (kind == "decode") return "decode cases";
  if (kind == "prefill") return "prefill cases";
  if (kind == "embed") return "embedding cases";
  if (kind == "serving") return "serving traces";
  if (kind == "timed_serving") return "serving traces, timed only";
  return "op cases";
}

// What the columns of a kind's table mean, under the table.
std::string KindNote(const std::string& kind) {
  if (kind == "decode") {
    return "Decode is teacher-forced with the golden tokens: top-1 agreement and the first "
           "divergence count flips of the greedy token (near ties are reported, not failed); "
           "the case fails on a hard flip, on max logprob diff above its limit (the case's "
           "logprob_m times the yardstick's own max logprob diff, at least logprob_floor) or on "
           "too little top-k overlap. Times are medians of the repeats; wall is one whole decode.";
  }
  if (kind == "serving") {
    return "A serving trace runs requests of their own lengths through continuous batching over a "
           "paged KV cache; each request is judged by the decode rules against itself decoded "
           "alone, and the trace fails when any request does (the message names the request and "
           "the step). Times to first token are from a request's arrival; wall is one whole "
           "trace.";
  }
  if (kind == "timed_serving") {
    return "A timed serving trace walks the serving scheduler over a model of any size through "
           "the cost model, computing nothing: every figure is modeled, the same on every "
           "machine. Modeled is the whole trace, which is what is judged against the baseline; "
           "each request's times are among the case's metrics.";
  }
  if (kind == "embed") {
    return "An embedding case fails when the cosine similarity of any sequence's embedding falls "
           "below its limit (min cosine).";
  }
  if (kind == "prefill") {
    return "Prefill logits are held to the element bound and the rel L2 yardstick; top-1 "
           "agreement is reported (a flip between near ties is expected).";
  }
  return "&sup1; max ULP is the largest error in units in the last place of the output's format "
         "on the device: DL16 for float16 outputs (for bfloat16 the coarser of DL16 and "
         "bfloat16), IEEE for float32. It is reported, not a pass criterion, unless the case's "
         "tolerance sets max_ulp; then the cell shows the limit. One ULP is tiny near zero, so "
         "an element inside the absolute part of the bound can count hundreds or thousands of "
         "ULPs on a passing case. Cases pass on the element bound (atol + rtol &middot; |golden|, "
         "widened by the CPU's own error in the device format) and the rel L2 yardstick.";
}

}  // namespace

std::string HtmlCharts(const ReportModel& m) {
  std::ostringstream out;
  out << "<section id=\"history\"><h2>History</h2><p class=\"legend\">"
      << "<span>&#9679; this run in red</span><span>red dashed: change point</span>"
      << "<span>purple dotted: upstream version change</span>"
      << "<span>hover for details</span></p>";
  if (!m.case_charts.empty()) {
    out << "<h3>Flagged cases</h3><div class=\"charts\">";
    for (const Chart& c : m.case_charts) out << Figure(c);
    out << "</div>";
  }
  out << "<h3>Suite geometric means</h3><div class=\"charts\">";
  for (const SuiteSection& s : m.suites) {
    for (const Chart& c : s.charts) out << Figure(c);
  }
  out << "</div></section>";
  return out.str();
}

std::string HtmlSuites(const ReportModel& m) {
  const FindingIndex findings = IndexFindings(m);
  std::ostringstream out;
  out << "<section id=\"suites\"><h2>Cases</h2>";
  int n = 0;
  for (const SuiteSection& s : m.suites) {
    const StatusCounts& c = s.counts;
    out << "<h3>" << Esc(s.name) << "</h3><p class=\"meta\">" << harness::Plural(c.total(), "case")
        << ": " << c.passed << " passed, " << c.failed << " failed, " << c.error << " error, "
        << c.crashed << " crashed, " << c.timeout << " timeout, " << c.skipped << " skipped</p>";
    // One table per kind of case, in the order the kinds first appear.
    std::vector<std::string> kinds;
    for (const CaseRow& row : s.cases) {
      const std::string kind = CaseKindOf(row.result);
      if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
    }
    for (const std::string& kind : kinds) {
      const std::string id = "cases-" + std::to_string(n++);
      const std::vector<Column> columns = ColumnsFor(kind);
      if (kinds.size() > 1) out << "<h4>" << KindTitle(kind) << "</h4>";
      out << "<input class=\"filter\" type=\"search\" data-table=\"" << id
          << "\" placeholder=\"filter cases\" aria-label=\"filter cases of " << Esc(s.name)
          << "\"><table id=\"" << id << "\" data-kind=\"" << kind
          << "\" class=\"sortable cases\"><thead><tr><th>case</th><th>status</th>";
      for (const Column& col : columns) {
        out << "<th class=\"num\" title=\"" << Esc(col.title) << "\">" << col.header << "</th>";
      }
      out << "<th class=\"num\">regr.</th><th>message</th></tr></thead><tbody>";
      for (const CaseRow& row : s.cases) {
        if (CaseKindOf(row.result) != kind) continue;
        const harness::CaseResult& r = row.result;
        const std::string st = harness::CaseStatusName(r.status);
        auto it = findings.find({s.name, r.case_id});
        const CaseFindings* cf = it == findings.end() ? nullptr : &it->second;
        out << "<tr><td>" << Esc(r.case_id) << "</td><td><span class=\"tag s-" << st << "\">" << st
            << "</span></td>";
        for (const Column& col : columns) out << col.cell(row, cf);
        out << NumCell(row.regressions, row.regressions ? std::to_string(row.regressions) : "")
            << "<td class=\"msg\">" << Esc(r.message) << "</td></tr>";
      }
      out << "</tbody></table><p class=\"note\">" << KindNote(kind) << "</p>";
    }
  }
  out << "</section>";
  return out.str();
}

std::string HtmlGoldenDrift(const ReportModel& m) {
  std::ostringstream out;
  out << "<section id=\"golden-drift\"><h2>Golden drift</h2>";
  if (!m.comparison) {
    out << "<p>No baseline to compare golden outputs with.</p>";
  } else if (m.golden_drift.empty()) {
    out << "<p>Golden outputs unchanged since baseline run " << m.baseline->run_id << ".</p>";
  } else {
    out << "<table><thead><tr><th>suite</th><th>case</th><th>detail</th></tr></thead><tbody>";
    for (const harness::Finding& f : m.golden_drift) {
      out << "<tr><td>" << Esc(f.suite) << "</td><td>" << Esc(f.case_id) << "</td><td>"
          << Esc(f.detail) << "</td></tr>";
    }
    out << "</tbody></table>";
  }
  out << "</section>";
  return out.str();
}

std::string HtmlFallback(const ReportModel& m) {
  std::ostringstream out;
  out << "<section id=\"fallback\"><h2>CPU-fallback coverage</h2><table><thead><tr>"
      << "<th>suite</th><th class=\"num\">cases</th><th class=\"num\">cases on the fallback</th>"
      << "<th class=\"num\">fallback calls</th><th>ops on the fallback (fallback / all calls)</th>"
      << "</tr></thead><tbody>";
  for (const SuiteSection& s : m.suites) {
    std::string ops;
    for (const auto& [op, n] : s.fallbacks_by_op) {
      auto all = s.calls_by_op.find(op);
      ops += (ops.empty() ? "" : ", ") + op + " " + std::to_string(n) + "/" +
             std::to_string(all == s.calls_by_op.end() ? n : all->second);
    }
    out << "<tr><td>" << Esc(s.name) << "</td>" << NumCell(s.counts.total())
        << NumCell(s.cases_with_fallback);
    if (s.cases_without_fallback_counts > 0) {
      out << "<td class=\"num\">not provided</td><td>not provided by the device</td></tr>";
      continue;
    }
    out << NumCell(static_cast<double>(s.fallback_ops)) << "<td>"
        << (ops.empty() ? "none" : Esc(ops)) << "</td></tr>";
  }
  out << "</tbody></table></section>";
  return out.str();
}

}  // namespace reports::internal
