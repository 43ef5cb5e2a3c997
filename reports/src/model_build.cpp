// Builds the report model: the run, its baseline and comparison, per-suite
// case tables and fallback coverage (charts: model_charts.cpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "detect/attribution.h"
#include "detect/recorded_findings.h"
#include "store/store_queries.h"
#include "model_charts.h"
#include "reports/report_model.h"

namespace reports {
namespace {

using harness::CaseResult;
using harness::CaseStatus;
using harness::Status;
using harness::StatusOr;

StatusOr<RunInfo> LoadRunInfo(harness::Store& store, int64_t run_id) {
  SPYRE_ASSIGN_OR_RETURN(auto view, harness::ReadRunView(store, run_id));
  if (!view) {
    return harness::NotFound("run " + std::to_string(run_id) +
                             " is not in the store (see v_runs for the run ids)");
  }
  RunInfo r;
  r.run_id = view->run_id;
  r.suite = view->suite;
  r.label = view->label;
  r.status = view->status;
  r.started_at = view->started_at;
  r.finished_at = view->finished_at;
  r.fingerprint = view->fingerprint;
  r.env = nlohmann::json::parse(view->env_json, nullptr, /*allow_exceptions=*/false);
  if (r.env.is_discarded()) r.env = nlohmann::json::object();
  // The runner writes its warnings as "warning: A; warning: B".
  const std::string& text = view->note;
  const std::string mark = "warning: ";
  for (size_t at = text.find(mark); at != std::string::npos;) {
    const size_t next = text.find("; " + mark, at);
    r.warnings.push_back(text.substr(at + mark.size(), next == std::string::npos
                                                           ? std::string::npos
                                                           : next - at - mark.size()));
    at = next == std::string::npos ? next : next + 2;
  }
  return r;
}

bool IsFailure(CaseStatus s) {
  return s == CaseStatus::kFailed || s == CaseStatus::kError || s == CaseStatus::kCrashed ||
         s == CaseStatus::kTimeout;
}

void FillSuites(const harness::RunRecord& cand, const harness::RunRecord* base, ReportModel* m) {
  std::map<std::pair<std::string, std::string>, const CaseResult*> base_cases;
  if (base) {
    for (const CaseResult& r : base->cases) base_cases[{r.suite, r.case_id}] = &r;
  }
  std::map<std::pair<std::string, std::string>, int> flagged;
  if (m->comparison) {
    for (const harness::Finding& f : m->comparison->regressions) ++flagged[{f.suite, f.case_id}];
  }
  std::map<std::string, SuiteSection> suites;
  for (const CaseResult& r : cand.cases) {
    SuiteSection& s = suites[r.suite];
    s.name = r.suite;
    s.counts.Add(r.status);
    m->counts.Add(r.status);
    CaseRow row;
    row.result = r;
    row.wall_us = r.WallMedianUs();
    row.base_wall_us = row.base_modeled_us = std::nan("");
    if (auto it = base_cases.find({r.suite, r.case_id}); it != base_cases.end()) {
      row.in_baseline = true;
      row.base_wall_us = it->second->WallMedianUs();
      row.base_modeled_us = it->second->modeled_us;
      row.base_status = it->second->status;
      row.base_metrics = it->second->metrics;
    }
    if (auto it = flagged.find({r.suite, r.case_id}); it != flagged.end())
      row.regressions = it->second;
    if (r.fallback_ops < 0) ++s.cases_without_fallback_counts;
    if (r.fallback_ops > 0) s.fallback_ops += r.fallback_ops;
    if (r.fallback_ops > 0) ++s.cases_with_fallback;
    if (!r.ops.empty()) ++s.cases_with_ops;
    for (const harness::OpSummary& op : r.ops) {
      s.calls_by_op[op.op] += op.calls;
      if (op.fallbacks > 0) s.fallbacks_by_op[op.op] += op.fallbacks;
    }
    s.cases.push_back(std::move(row));
  }
  for (auto& [name, section] : suites) m->suites.push_back(std::move(section));
}

}  // namespace

std::string CaseKindOf(const CaseResult& r) {
  bool tokens = false, latency = false, logits_top1 = false, embeddings = false, kv = false;
  bool timed_trace = false;
  for (const harness::Metric& m : r.metrics) {
    timed_trace = timed_trace || (m.output == "time" && m.name == "modeled_ttft_p50_us");
    kv = kv || m.output == "kv";
    tokens = tokens || m.output == "tokens";
    latency = latency || m.output == "latency";
    logits_top1 = logits_top1 || (m.output == "logits" && m.name == "top1_agreement");
    embeddings = embeddings || m.output == "embeddings";
  }
  if (timed_trace) return "timed_serving";  // a timing case's serving trace
  if (kv && latency) return "serving";      // a serving trace's KV blocks
  if (tokens && latency) return "decode";
  if (logits_top1) return "prefill";
  if (embeddings) return "embed";
  return "op";
}

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPassed:
      return "passed";
    case Verdict::kFailed:
      return "failed";
    case Verdict::kRegressed:
      return "regressed";
    case Verdict::kAborted:
      return "aborted";
    case Verdict::kRunning:
      return "running";
    case Verdict::kPartial:
      return "partial";
  }
  return "failed";
}

bool IsIncomplete(Verdict v) {
  return v == Verdict::kAborted || v == Verdict::kRunning || v == Verdict::kPartial;
}

int StatusCounts::Of(CaseStatus s) const {
  switch (s) {
    case CaseStatus::kPassed:
      return passed;
    case CaseStatus::kFailed:
      return failed;
    case CaseStatus::kError:
      return error;
    case CaseStatus::kCrashed:
      return crashed;
    case CaseStatus::kTimeout:
      return timeout;
    case CaseStatus::kSkipped:
      return skipped;
  }
  return 0;
}

void StatusCounts::Add(CaseStatus s) {
  switch (s) {
    case CaseStatus::kPassed:
      ++passed;
      break;
    case CaseStatus::kFailed:
      ++failed;
      break;
    case CaseStatus::kError:
      ++error;
      break;
    case CaseStatus::kCrashed:
      ++crashed;
      break;
    case CaseStatus::kTimeout:
      ++timeout;
      break;
    case CaseStatus::kSkipped:
      ++skipped;
      break;
  }
}

const CaseRow* ReportModel::FindCase(const std::string& suite, const std::string& case_id) const {
  for (const SuiteSection& s : suites) {
    if (s.name != suite) continue;
    for (const CaseRow& row : s.cases) {
      if (row.result.case_id == case_id) return &row;
    }
  }
  return nullptr;
}

StatusOr<int64_t> LatestRunId(harness::Store& store) {
  SPYRE_ASSIGN_OR_RETURN(auto latest, harness::LatestRunId(store));
  if (!latest) {
    return harness::NotFound("the store has no runs yet: run `spyre-regress run --suite S` first");
  }
  return *latest;
}

StatusOr<ReportModel> BuildReportModel(harness::Store& store, int64_t run_id,
                                       const ReportOptions& options) {
  ReportModel m;
  SPYRE_ASSIGN_OR_RETURN(auto run, LoadRunInfo(store, run_id));
  m.run = std::move(run);
  SPYRE_ASSIGN_OR_RETURN(auto cand, harness::LoadRunRecord(store, run_id));

  SPYRE_ASSIGN_OR_RETURN(auto recorded, harness::RecordedBaselineRun(store, run_id));
  std::optional<int64_t> base_id = recorded;
  if (!base_id) {
    SPYRE_ASSIGN_OR_RETURN(auto resolved,
                           harness::ResolveBaseline(store, options.baseline, run_id));
    base_id = resolved;
  }
  std::optional<harness::RunRecord> base;
  if (base_id) {
    SPYRE_ASSIGN_OR_RETURN(auto info, LoadRunInfo(store, *base_id));
    m.baseline = std::move(info);
    SPYRE_ASSIGN_OR_RETURN(auto rec, harness::LoadRunRecord(store, *base_id));
    base = std::move(rec);
    // The same run-to-run noise floor as `run` and `compare` judge with.
    if (harness::Status s = harness::AttachWallNoise(store, &*base); !s.ok()) return s;
    m.comparison = harness::CompareRuns(*base, cand, options.thresholds);
    if (recorded && *recorded == *base_id) {
      // The run's own verdict, as it was given: judging again with today's
      // thresholds could make the report disagree with the run's exit code.
      SPYRE_ASSIGN_OR_RETURN(const auto rows, harness::ReadRegressions(store, run_id));
      m.comparison->regressions.clear();
      for (const harness::RegressionRow& r : rows) {
        if (auto f = harness::FindingOfRow(r)) m.comparison->regressions.push_back(std::move(*f));
      }
    }
    SPYRE_ASSIGN_OR_RETURN(const auto causes, harness::ReadAttributions(store, run_id));
    harness::AttachAttributions(causes, &*m.comparison);
    m.attribution = harness::Attribution(*m.comparison);
    for (const auto* list : {&m.comparison->regressions, &m.comparison->improvements}) {
      for (const harness::Finding& f : *list) {
        if (f.kind == harness::FindingKind::kGoldenDrift) m.golden_drift.push_back(f);
      }
    }
  }
  FillSuites(cand, base ? &*base : nullptr, &m);

  bool failed = false;
  for (const CaseResult& r : cand.cases) failed = failed || IsFailure(r.status);
  if (failed) {
    m.verdict = Verdict::kFailed;
  } else if (m.comparison && !m.comparison->regressions.empty()) {
    m.verdict = Verdict::kRegressed;
  }
  // The run's own state comes first: its recorded cases are not all it set
  // out to do.
  SPYRE_ASSIGN_OR_RETURN(auto state, harness::ReadRunState(store, run_id));
  m.state = state;
  const std::string incomplete = state.Verdict();
  if (!incomplete.empty()) {
    // An abandoned run stays `running` until the next writer marks it
    // aborted; the description says its supervisor is gone.
    m.verdict = incomplete == "partial"   ? Verdict::kPartial
                : incomplete == "running" ? Verdict::kRunning
                                          : Verdict::kAborted;
    m.incomplete = state.Describe();
  }
  SPYRE_RETURN_IF_ERROR(internal::LoadCharts(store, options, &m));
  return m;
}

}  // namespace reports
