// `spyre-regress run`: runs suites in worker processes, records every result
// in the store and ends with the contract's summary lines (docs/cli.md). The
// run itself is the torch part's (torch_part.h, cli/torch/run.cpp); its
// flags, summary and reports are here.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>
#include <regex>
#include <sstream>

#include "validators.h"
#include "cli.h"
#include "base/exit_signals.h"
#include "command_line.h"
#include "run/run.h"
#include "store/store.h"
#include "reports/reporter.h"
#include "torch_part.h"

namespace harness::cli {
namespace {

// What `run` is given: the options that are a field of the request are
// bound to it (its defaults are the only ones); the others are parsed into
// it by Run.
struct RunFlags {
  RunRequest request;
  std::vector<std::string> suites, tags;
  std::string shard = "1/1", rounds, report;
  std::string latency = LatencyModeName(RunRequest().latency);  // checked by the parser
  bool json = false;
};

// `--rounds N` or `--rounds MIN-MAX` (1 <= MIN <= MAX <= 1000).
Status ParseRounds(const std::string& spec, RunRequest* request) {
  static const std::regex kRounds("([0-9]{1,4})(?:-([0-9]{1,4}))?");
  std::smatch m;
  if (std::regex_match(spec, m, kRounds)) {
    const int hi = std::stoi(m[2].matched ? m[2].str() : m[1].str());
    const int lo = std::stoi(m[1]);
    if (lo >= 1 && lo <= hi && hi <= 1000) {
      request->rounds = hi;
      request->rounds_min = lo < hi ? lo : 0;
      return Status::Ok();
    }
  }
  return UsageError("--rounds '" + spec +
                    "' is not a round count: give N or MIN-MAX, whole numbers from 1 to 1000 "
                    "with MIN <= MAX (e.g. --rounds 20 or --rounds 10-20)");
}

nlohmann::json ResultJson(const CaseResult& r) {
  return {{"suite", r.suite}, {"case", r.case_id}, {"status", CaseStatusName(r.status)},
          {"message", r.message}, {"max_abs_err", r.max_abs_err}, {"rel_l2", r.rel_l2},
          {"max_ulp", r.max_ulp}, {"cosine", r.cosine}, {"wall_us_median", r.WallMedianUs()},
          {"modeled_us", r.modeled_us}, {"fallback_ops", r.fallback_ops},
          {"peak_device_bytes", r.peak_device_bytes}};
}

// NaN has no JSON spelling; nlohmann writes it as null, which is what we want.
nlohmann::json SummaryJson(const RunSummary& s, const std::string& db) {
  nlohmann::json counts = nlohmann::json::object();
  for (CaseStatus st : {CaseStatus::kPassed, CaseStatus::kFailed, CaseStatus::kError,
                        CaseStatus::kCrashed, CaseStatus::kTimeout, CaseStatus::kSkipped}) {
    counts[CaseStatusName(st)] = s.Count(st);
  }
  nlohmann::json results = nlohmann::json::array();
  for (const CaseResult& r : s.results) results.push_back(ResultJson(r));
  return {
      {"run_id", s.run_id},
      {"suite", s.suite},
      {"status", RunStatusName(s.status)},
      {"store", db},
      {"jobs", s.jobs},
      {"threads_per_worker", s.threads_per_worker},
      {"workers_started", s.workers_started},
      {"worker_spawn", s.worker_spawn},
      {"workers_device_preloaded", s.workers_preloaded},
      {"worker_startup_s", s.worker_startup_s},
      {"latency", {{"mode", s.latency_mode},
                   {"timed", s.timed},
                   {"not_judged", s.planned - s.timed}}},
      {"elapsed_s", s.elapsed_s},
      {"fingerprint", s.fingerprint},
      {"env", s.env},
      {"passed", s.Passed()},
      {"failed", s.Failed()},
      {"skipped", s.Skipped()},
      {"counts", counts},
      {"results", results},
      {"baseline_run_id", s.baseline.baseline_run_id ? nlohmann::json(*s.baseline.baseline_run_id)
                                                     : nlohmann::json(nullptr)},
      {"regressions", s.baseline.regressions},
      {"comparison", s.baseline.comparison},
      {"baseline_reason", s.baseline.reason},
      {"confirmation", s.confirmation},
      {"warnings", s.warnings}};
}

// The run's reports (reports/), read back from the store like `report` does.
Status WriteRunReports(const std::string& db, int64_t run_id, const std::string& dir) {
  SPYRE_ASSIGN_OR_RETURN(auto store, Store::Open(db, Store::Mode::kReadOnly));
  reports::ReportOptions options;
  SPYRE_ASSIGN_OR_RETURN(options.thresholds, Thresholds::Configured());
  return reports::WriteReports(*store, run_id, dir, options);
}

StatusOr<int> Run(const RunFlags& f, const GlobalOptions& g) {
  // A report that could never be written is refused before the run, not after.
  if (!f.report.empty()) SPYRE_RETURN_IF_ERROR(CheckReportDir(f.report, g, "run --report", false));
  RunRequest request = f.request;
  for (const std::string& list : f.suites) {
    std::stringstream in(list);
    for (std::string name; std::getline(in, name, ',');) {
      if (!name.empty()) request.suites.push_back(name);
    }
  }
  SPYRE_ASSIGN_OR_RETURN(auto shard, ParseShard(f.shard));
  SPYRE_ASSIGN_OR_RETURN(auto tags, ParseTags(f.tags));
  SPYRE_RETURN_IF_ERROR(CheckLabelText(request.label, "--label"));
  if (request.baseline.empty()) {
    return UsageError("--baseline is empty: use auto, none, a run id, latest, ~N or label:NAME");
  }
  if (IsRelativeRunRef(request.baseline)) {
    // Resolved now, before this run is recorded and becomes the newest.
    SPYRE_ASSIGN_OR_RETURN(auto store, Store::Open(g.db, Store::Mode::kReadOnly));
    SPYRE_ASSIGN_OR_RETURN(auto id, ResolveRunRef(*store, request.baseline, "--baseline"));
    request.baseline = std::to_string(id);
  }
  if (!f.rounds.empty()) SPYRE_RETURN_IF_ERROR(ParseRounds(f.rounds, &request));
  request.latency = ParseLatencyMode(f.latency).value_or(request.latency);
  request.shard = shard;
  request.tags = tags;
  request.threads = g.threads;

  SPYRE_ASSIGN_OR_RETURN(RunSummary summary, RunInTorchPart(std::move(request), g, "run"));
  std::ostream& human = f.json ? std::cerr : std::cout;
  Status reported = f.report.empty() ? Status::Ok() : WriteRunReports(g.db, summary.run_id, f.report);
  if (!f.report.empty() && reported.ok()) {
    human << "reports: " << f.report << "/index.html, junit.xml, summary.md, report.json\n";
  }
  if (f.json) std::cout << SummaryJson(summary, g.db).dump(2) << "\n";
  PrintHumanSummary(human, summary, g.db);
  if (!reported.ok()) return reported;  // the results are recorded; `report` can retry
  if (summary.interrupted_by != 0) {
    return IoError("stopped by " + SignalName(summary.interrupted_by) + ": run " +
                   std::to_string(summary.run_id) + " marked aborted; its " +
                   std::to_string(summary.results.size()) + " recorded result(s) are kept");
  }
  const bool bad = summary.Failed() > 0 || summary.baseline.regressions > 0;
  return bad ? 1 : 0;
}

}  // namespace

StatusOr<RunSummary> RunInTorchPart(RunRequest request, const GlobalOptions& g, const char* verb) {
  SPYRE_RETURN_IF_ERROR(FillRunPaths(g, &request));
  SPYRE_ASSIGN_OR_RETURN(const TorchVerbs* torch, TorchPart(verb));
  return torch->run(request, g,
                    [](const std::vector<std::string>& argv) { return RunCommandLine(argv); });
}

// The contract's last two lines, after a one-line account of the run.
void PrintHumanSummary(std::ostream& out, const RunSummary& s, const std::string& db) {
  char elapsed[32];
  std::snprintf(elapsed, sizeof(elapsed), "%.1f", s.elapsed_s);
  out << "run " << s.run_id << " (" << s.suite << "): " << s.results.size() << " case(s) in "
      << elapsed << " s, " << s.jobs << " worker(s) x " << s.threads_per_worker
      << " thread(s), store " << db << "\n";
  std::ostringstream breakdown;
  for (CaseStatus st : {CaseStatus::kFailed, CaseStatus::kError, CaseStatus::kCrashed, CaseStatus::kTimeout}) {
    if (s.Count(st) > 0) breakdown << (breakdown.tellp() > 0 ? ", " : "") << s.Count(st) << " " << CaseStatusName(st);
  }
  if (s.Failed() > 0) out << "not passed: " << breakdown.str() << "\n";
  if (s.timed < s.planned) {
    // Never a silent gap: the cases whose wall time got no verdict, and why.
    out << "wall time not judged for " << (s.planned - s.timed) << " of " << s.planned
        << " case(s): parity only, each run once ("
        << (s.latency_mode == "none" ? std::string("--latency none")
                                     : std::string("not marked for latency; --latency all times them"))
        << ")\n";
  }
  for (const std::string& w : s.warnings) out << "warning: " << w << "\n";
  if (s.baseline.baseline_run_id) {
    out << "baseline: run " << *s.baseline.baseline_run_id << ", " << s.baseline.reason << "\n";
  } else if (!s.baseline.reason.empty()) {
    out << "baseline: none, " << s.baseline.reason << "\n";
  }
  if (!s.confirmation.empty()) out << s.confirmation << "\n";
  PrintFindings(out, s.baseline.comparison);
  out << s.Passed() << " passed, " << s.Failed() << " failed";
  if (s.Skipped() > 0) out << ", " << s.Skipped() << " skipped";
  out << "\n";
  if (s.baseline.baseline_run_id) {
    out << RegressionsLine(s.baseline.regressed_cases, s.baseline.regressions, *s.baseline.baseline_run_id) << "\n";
  } else {
    out << "regressions: none (no baseline)\n";
  }
}

void AddRunVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto f = std::make_shared<RunFlags>();
  RunRequest* r = &f->request;
  const RunRequest defaults;
  CLI::App* cmd = app.add_subcommand("run", "run suites, record the results, compare with the baseline");
  cmd->add_option("--suite", f->suites, "suite name(s), comma-separated or repeated")->required();
  cmd->add_option("--filter", r->filter, "only cases whose <suite>/<case id> matches this regex");
  cmd->add_option("--warmup", r->warmup, "warm-up iterations per case (default: the suite's)")
      ->check(AtLeast(0));
  cmd->add_option("--repeat", r->repeat, "timed repeats per case (default: the suite's)")
      ->check(Above(0));
  cmd->add_option("--rounds", f->rounds,
                  "time every case in N fresh worker processes; its wall samples are one value per "
                  "round (default " + DefaultText(defaults.rounds) + "). MIN-MAX: after MIN rounds a case whose rounds agree within "
                  "--round-precision gets no more (the nightly uses 10-20)");
  cmd->add_option("--round-precision", r->round_precision,
                  "with --rounds MIN-MAX: the standard error of a case's mean log round value "
                  "at which it stops (default " + DefaultText(defaults.round_precision) + ")")
      ->check(InRange(0.0, 1.0));
  cmd->add_option("--round-repeat", r->round_repeat,
                  "with --rounds: samples per case in the rounds before the main pass, at most "
                  "(default " + DefaultText(defaults.round_repeat) + "; the main pass takes the suite's repeat)")
      ->check(InRange(1, 1000000));
  cmd->add_option("--latency", f->latency,
                  "which cases are timed and get a wall-time verdict: marked (default: the suites "
                  "and cases marked latency in their suite file), all, or none; the others are "
                  "parity only, run once")
      ->check(CLI::IsMember({LatencyModeName(LatencyMode::kMarked), LatencyModeName(LatencyMode::kAll),
                             LatencyModeName(LatencyMode::kNone)}));
  AddConfirmOptions(cmd, &r->confirm);
  cmd->add_option("--min-sample-us", r->min_sample_us,
                  "a wall sample times a batch of calls lasting at least this long (default 1000; 0: one "
                  "call per sample)")
      ->check(InRange(0.0, 1e7));
  cmd->add_option("--jobs,-j", r->jobs, "worker processes (accuracy suites; latency suites use 1)")
      ->check(InRange(1, 256));
  cmd->add_option("--shard", f->shard, "run shard I of N (deterministic split by case id)");
  cmd->add_option("--timeout", r->timeout_s, "per-case timeout in seconds (default: the suite's)")
      ->check(Above(0));
  cmd->add_option("--profile", r->profile, "compiler-stack profile: inductor or sendnn");
  cmd->add_option("--inject", r->inject, "fault injection spec (SPYRE_EMU_FAULTS syntax)");
  cmd->add_option("--label", r->label, "free text stored with the run");
  cmd->add_option("--tag", f->tags, "K=V added to the fingerprint (repeatable)");
  cmd->add_option(
      "--baseline", r->baseline,
      "auto (default), none, a run id, latest, ~N (N runs before the newest) or label:NAME");
  cmd->add_option("--report", f->report, "also write DIR/index.html, junit.xml, summary.md, report.json");
  cmd->add_flag("--json", f->json, "one JSON document on stdout; human text on stderr");
  cmd->callback([f, &global, action] {
    *action = [f, &global]() -> StatusOr<int> { return Run(*f, global); };
  });
}

SPYRE_REGISTER_VERB(20, AddRunVerb);

}  // namespace harness::cli
