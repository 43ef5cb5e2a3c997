// report.json: the report model, machine-readable. The comparison uses the
// contract's compare --json shape (harness::ToJson), so scripts that read
// `compare --json` read this member unchanged.
#include <cmath>

#include "base/human_format.h"
#include "reports/reporter.h"

namespace reports {
namespace {

nlohmann::json Number(double v) {
  if (!std::isfinite(v)) return nullptr;
  return v;
}

// A count the device does not provide is stored as -1: null here.
nlohmann::json Count(int64_t v) {
  if (v < 0) return nullptr;
  return v;
}

// The metrics the run's device does not provide (its fingerprint's
// device.provides): the report says so instead of showing zeros.
nlohmann::json NotProvided(const nlohmann::json& env) {
  nlohmann::json out = nlohmann::json::array();
  if (!env.is_object() || !env.contains("device") || !env["device"].is_object()) return out;
  const nlohmann::json provides = env["device"].value("provides", nlohmann::json::array());
  auto has = [&](const char* what) {
    for (const auto& p : provides) {
      if (p == what) return true;
    }
    return false;
  };
  if (!has("trace")) out.push_back("modeled_us");
  if (!has("op_counts")) out.push_back("fallback_ops");
  if (!has("memory")) out.push_back("peak_device_bytes");
  return out;
}

nlohmann::json RunJson(const RunInfo& r) {
  return {{"run_id", r.run_id},
          {"suite", r.suite},
          {"label", r.label},
          {"status", r.status},
          {"started_at", r.started_at},
          {"finished_at", r.finished_at},
          {"fingerprint", r.fingerprint},
          {"env", r.env},
          {"warnings", r.warnings},
          {"not_provided", NotProvided(r.env)}};
}

nlohmann::json CountsJson(const StatusCounts& c) {
  return {{"total", c.total()},   {"passed", c.passed},   {"failed", c.failed},  {"error", c.error},
          {"crashed", c.crashed}, {"timeout", c.timeout}, {"skipped", c.skipped}};
}

nlohmann::json CaseJson(const CaseRow& row) {
  const harness::CaseResult& r = row.result;
  return {{"case", r.case_id},
          {"kind", CaseKindOf(r)},
          {"status", harness::CaseStatusName(r.status)},
          {"message", r.message},
          {"max_abs_err", Number(r.max_abs_err)},
          {"max_rel_err", Number(r.max_rel_err)},
          {"rel_l2", Number(r.rel_l2)},
          {"max_ulp", Number(r.max_ulp)},
          {"cosine", Number(r.cosine)},
          {"wall_us_median", Number(row.wall_us)},
          {"baseline_wall_us_median", Number(row.base_wall_us)},
          {"modeled_us", Number(r.modeled_us)},
          {"baseline_modeled_us", Number(row.base_modeled_us)},
          {"fallback_ops", Count(r.fallback_ops)},
          {"peak_device_bytes", Count(r.peak_device_bytes)},
          {"regressions", row.regressions}};
}

nlohmann::json ChartJson(const Chart& c) {
  nlohmann::json j = {
      {"title", c.title}, {"suite", c.suite}, {"case", c.case_name}, {"metric", c.metric},
      {"unit", harness::MetricUnit(c.metric)}};
  // A flagged case's chart carries its finding's figures (the same as the
  // finding's own baseline, candidate and caption).
  if (!c.note.empty()) {
    j["finding"] = {{"baseline", Number(c.finding_baseline)},
                    {"candidate", Number(c.finding_candidate)},
                    {"caption", c.note}};
  }
  j["points"] = nlohmann::json::array();
  for (const harness::SeriesPoint& p : c.points) {
    j["points"].push_back({{"run_id", p.run_id},
                           {"started_at", p.started_at},
                           {"label", p.label},
                           {"value", Number(p.value)}});
  }
  j["change_points"] = nlohmann::json::array();
  for (const harness::HistoryShift& s : c.shifts) {
    nlohmann::json env = nlohmann::json::array();
    for (const harness::EnvChange& e : s.env_change) {
      env.push_back({{"component", e.component},
                     {"baseline", e.baseline},
                     {"candidate", e.candidate},
                     {"upstream", e.upstream}});
    }
    j["change_points"].push_back({{"first_run_id", s.first_run_id},
                                  {"previous_run_id", s.previous_run_id},
                                  {"before", Number(s.point.before)},
                                  {"after", Number(s.point.after)},
                                  {"relative", Number(s.point.relative)},
                                  {"p_value", Number(s.point.p_value)},
                                  {"env_change", env}});
  }
  j["version_changes"] = nlohmann::json::array();
  for (const VersionMark& v : c.versions) {
    nlohmann::json changes = nlohmann::json::array();
    for (const harness::EnvChange& e : v.changes) {
      changes.push_back(
          {{"component", e.component}, {"baseline", e.baseline}, {"candidate", e.candidate}});
    }
    j["version_changes"].push_back({{"run_id", c.points[v.index].run_id}, {"changes", changes}});
  }
  return j;
}

class JsonReporter : public Reporter {
 public:
  std::string FileName() const override { return "report.json"; }
  std::string Render(const ReportModel& m) const override {
    nlohmann::json j;
    j["format"] = "spyre-regress-report/1";
    j["verdict"] = VerdictName(m.verdict);
    // Why the run has no pass/fail verdict (aborted, running, partial); null otherwise.
    j["incomplete"] = m.incomplete.empty() ? nlohmann::json() : nlohmann::json(m.incomplete);
    j["planned_cases"] = m.state.planned >= 0 ? nlohmann::json(m.state.planned) : nlohmann::json();
    j["recorded_cases"] = m.state.recorded;
    j["counts"] = CountsJson(m.counts);
    j["run"] = RunJson(m.run);
    j["baseline"] = m.baseline ? RunJson(*m.baseline) : nlohmann::json();
    j["comparison"] = m.comparison ? harness::ToJson(*m.comparison) : nlohmann::json();
    // The unit of every value a case row holds (times in microseconds).
    j["units"] = {{"max_abs_err", ""},       {"max_rel_err", ""},
                  {"rel_l2", ""},            {"max_ulp", "ulp"},
                  {"cosine", ""},            {"wall_us_median", "us"},
                  {"modeled_us", "us"},      {"fallback_ops", "calls"},
                  {"peak_device_bytes", "bytes"}};
    j["attribution"] = m.attribution;
    j["suites"] = nlohmann::json::array();
    for (const SuiteSection& s : m.suites) {
      nlohmann::json suite = {{"name", s.name}, {"counts", CountsJson(s.counts)}};
      suite["cases"] = nlohmann::json::array();
      for (const CaseRow& row : s.cases) suite["cases"].push_back(CaseJson(row));
      suite["fallback"] = {
          {"fallback_ops",
           s.cases_without_fallback_counts > 0 ? nlohmann::json() : nlohmann::json(s.fallback_ops)},
          {"cases_with_fallback", s.cases_with_fallback},
          {"cases_with_ops", s.cases_with_ops},
          {"by_op", s.fallbacks_by_op}};
      suite["charts"] = nlohmann::json::array();
      for (const Chart& c : s.charts) suite["charts"].push_back(ChartJson(c));
      j["suites"].push_back(std::move(suite));
    }
    j["case_charts"] = nlohmann::json::array();
    for (const Chart& c : m.case_charts) j["case_charts"].push_back(ChartJson(c));
    j["golden_drift"] = nlohmann::json::array();
    for (const harness::Finding& f : m.golden_drift) {
      j["golden_drift"].push_back({{"suite", f.suite}, {"case", f.case_id}, {"detail", f.detail}});
    }
    // Messages from crashed workers may hold stray bytes: replace, never throw.
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
};

}  // namespace

std::unique_ptr<Reporter> MakeJsonReporter() { return std::make_unique<JsonReporter>(); }

}  // namespace reports
