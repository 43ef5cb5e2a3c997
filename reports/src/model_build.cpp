// Builds the report model: the run, its baseline and comparison, per-suite
// case tables and fallback coverage (charts: model_charts.cpp).
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include "model_charts.h"
#include "reports/report_model.h"

namespace reports {
namespace {

using harness::CaseResult;
using harness::CaseStatus;
using harness::Status;
using harness::StatusOr;

struct StmtDeleter {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtDeleter>;

StatusOr<StmtPtr> Prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &raw, nullptr) != SQLITE_OK) {
    sqlite3_finalize(raw);
    return harness::IoError(std::string("reading the store for a report: ") + sqlite3_errmsg(db));
  }
  return StmtPtr(raw);
}

std::string Text(sqlite3_stmt* s, int col) {
  const unsigned char* t = sqlite3_column_text(s, col);
  return t ? reinterpret_cast<const char*>(t) : "";
}

StatusOr<RunInfo> LoadRunInfo(sqlite3* db, int64_t run_id) {
  auto stmt = Prepare(db,
                      "SELECT run_id, suite, label, status, started_at, finished_at, fingerprint,"
                      " env_json FROM v_runs WHERE run_id = ?");
  if (!stmt.ok()) return stmt.status();
  sqlite3_stmt* s = stmt->get();
  sqlite3_bind_int64(s, 1, run_id);
  if (sqlite3_step(s) != SQLITE_ROW) {
    return harness::NotFound("run " + std::to_string(run_id) +
                             " is not in the store (see v_runs for the run ids)");
  }
  RunInfo r;
  r.run_id = sqlite3_column_int64(s, 0);
  r.suite = Text(s, 1);
  r.label = Text(s, 2);
  r.status = Text(s, 3);
  r.started_at = Text(s, 4);
  r.finished_at = Text(s, 5);
  r.fingerprint = Text(s, 6);
  r.env = nlohmann::json::parse(Text(s, 7), nullptr, /*allow_exceptions=*/false);
  if (r.env.is_discarded()) r.env = nlohmann::json::object();
  auto note = Prepare(db, "SELECT coalesce(note, '') FROM runs WHERE id = ?");
  if (!note.ok()) return note.status();
  sqlite3_bind_int64(note->get(), 1, run_id);
  if (sqlite3_step(note->get()) == SQLITE_ROW) {
    // The runner writes its warnings as "warning: A; warning: B".
    const std::string text = Text(note->get(), 0);
    const std::string mark = "warning: ";
    for (size_t at = text.find(mark); at != std::string::npos;) {
      const size_t next = text.find("; " + mark, at);
      r.warnings.push_back(text.substr(at + mark.size(), next == std::string::npos
                                                             ? std::string::npos
                                                             : next - at - mark.size()));
      at = next == std::string::npos ? next : next + 2;
    }
  }
  return r;
}

// The baseline detection recorded for the run, if any.
StatusOr<std::optional<int64_t>> RecordedBaseline(sqlite3* db, int64_t run_id) {
  auto stmt = Prepare(db, "SELECT baseline_run_id FROM v_regressions WHERE run_id = ? LIMIT 1");
  if (!stmt.ok()) return stmt.status();
  sqlite3_bind_int64(stmt->get(), 1, run_id);
  if (sqlite3_step(stmt->get()) != SQLITE_ROW) return std::optional<int64_t>();
  return std::optional<int64_t>(sqlite3_column_int64(stmt->get(), 0));
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
  bool tokens = false, latency = false, logits_top1 = false, embeddings = false;
  for (const harness::Metric& m : r.metrics) {
    tokens = tokens || m.output == "tokens";
    latency = latency || m.output == "latency";
    logits_top1 = logits_top1 || (m.output == "logits" && m.name == "top1_agreement");
    embeddings = embeddings || m.output == "embeddings";
  }
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

StatusOr<int64_t> LatestRunId(sqlite3* db) {
  auto stmt = Prepare(db, "SELECT max(run_id) FROM v_runs");
  if (!stmt.ok()) return stmt.status();
  if (sqlite3_step(stmt->get()) != SQLITE_ROW ||
      sqlite3_column_type(stmt->get(), 0) == SQLITE_NULL) {
    return harness::NotFound("the store has no runs yet: run `spyre-regress run --suite S` first");
  }
  return static_cast<int64_t>(sqlite3_column_int64(stmt->get(), 0));
}

StatusOr<ReportModel> BuildReportModel(sqlite3* db, int64_t run_id, const ReportOptions& options) {
  ReportModel m;
  auto run = LoadRunInfo(db, run_id);
  if (!run.ok()) return run.status();
  m.run = std::move(*run);
  auto cand = harness::LoadRunRecord(db, run_id);
  if (!cand.ok()) return cand.status();

  auto recorded = RecordedBaseline(db, run_id);
  if (!recorded.ok()) return recorded.status();
  std::optional<int64_t> base_id = *recorded;
  if (!base_id) {
    auto resolved = harness::ResolveBaseline(db, options.baseline, run_id);
    if (!resolved.ok()) return resolved.status();
    base_id = *resolved;
  }
  std::optional<harness::RunRecord> base;
  if (base_id) {
    auto info = LoadRunInfo(db, *base_id);
    if (!info.ok()) return info.status();
    m.baseline = std::move(*info);
    auto rec = harness::LoadRunRecord(db, *base_id);
    if (!rec.ok()) return rec.status();
    base = std::move(*rec);
    // The same run-to-run noise floor as `run` and `compare` judge with.
    if (harness::Status s = harness::AttachWallNoise(db, &*base); !s.ok()) return s;
    m.comparison = harness::CompareRuns(*base, *cand, options.thresholds);
    m.attribution = harness::Attribution(*m.comparison);
    for (const auto* list : {&m.comparison->regressions, &m.comparison->improvements}) {
      for (const harness::Finding& f : *list) {
        if (f.kind == harness::FindingKind::kGoldenDrift) m.golden_drift.push_back(f);
      }
    }
  }
  FillSuites(*cand, base ? &*base : nullptr, &m);

  bool failed = false;
  for (const CaseResult& r : cand->cases) failed = failed || IsFailure(r.status);
  if (failed) {
    m.verdict = Verdict::kFailed;
  } else if (m.comparison && !m.comparison->regressions.empty()) {
    m.verdict = Verdict::kRegressed;
  }
  // The run's own state comes first: its recorded cases are not all it set
  // out to do.
  auto state = harness::ReadRunState(db, run_id);
  if (!state.ok()) return state.status();
  m.state = *state;
  const std::string incomplete = state->Verdict();
  if (!incomplete.empty()) {
    // An abandoned run stays `running` until the next writer marks it
    // aborted; the description says its supervisor is gone.
    m.verdict = incomplete == "partial"   ? Verdict::kPartial
                : incomplete == "running" ? Verdict::kRunning
                                          : Verdict::kAborted;
    m.incomplete = state->Describe();
  }
  SPYRE_RETURN_IF_ERROR(internal::LoadCharts(db, options, &m));
  return m;
}

}  // namespace reports
