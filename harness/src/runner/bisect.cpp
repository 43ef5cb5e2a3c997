#include "harness/runner/bisect.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bitset>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "detect/recorded_findings.h"
#include "base/stats.h"
#include "harness/env.h"
#include "base/human_format.h"
#include "store/store_history.h"
#include "store/store_queries.h"
#include "runner/confirm.h"
#include "runner/zygote.h"

extern char** environ;

namespace harness {
namespace {

using CaseKey = std::pair<std::string, std::string>;

// The findings to examine: those recorded for the run when it was judged
// against this baseline; otherwise the judge's findings between the two now.
StatusOr<std::vector<Finding>> FlaggedFindings(Store& store, const RunRecord& base, const RunRecord& cand) {
  SPYRE_ASSIGN_OR_RETURN(const auto recorded_base, RecordedBaselineRun(store, cand.run_id));
  std::vector<Finding> out;
  if (recorded_base && *recorded_base == base.run_id) {
    SPYRE_ASSIGN_OR_RETURN(const auto rows, ReadRegressions(store, cand.run_id));
    for (const RegressionRow& r : rows) {
      if (auto f = FindingOfRow(r)) out.push_back(std::move(*f));
    }
    return out;
  }
  SPYRE_ASSIGN_OR_RETURN(const Thresholds thresholds, Thresholds::Configured());
  return CompareRuns(base, cand, thresholds).regressions;
}

// `program env --json` with `settings` added to the environment: the
// fingerprint a worker of that configuration computes with.
StatusOr<nlohmann::json> FingerprintUnder(const std::string& program, int threads,
                                          const std::map<std::string, std::string>& settings) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string kv = *e;
    const size_t eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : settings) env[k] = v;
  std::vector<std::string> env_text, argv_text = {program, "env", "--json", "--threads",
                                                  std::to_string(threads)};
  for (const auto& [k, v] : env) env_text.push_back(k + "=" + v);
  std::vector<char*> argv, envp;
  for (std::string& a : argv_text) argv.push_back(a.data());
  for (std::string& e : env_text) envp.push_back(e.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  int out[2];
  if (::pipe(out) != 0) return IoError("bisect: cannot create a pipe to check a configuration");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_addclose(&actions, out[0]);
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  if (rc != 0) {
    ::close(out[0]);
    return IoError("bisect: cannot start " + program + " to check a configuration");
  }
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof(buf))) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(out[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !j.is_object()) {
    return InvalidInput("bisect: a worker set up with these settings does not start (" +
                        [&] {
                          std::string s;
                          for (const auto& [k, v] : settings) s += (s.empty() ? "" : " ") + k + "=" + v;
                          return s;
                        }() +
                        "): `spyre-regress env` exited with status " +
                        std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status)));
  }
  return j;
}

// What a component reads as for the check: the BLAS by library, version and
// kernel set (a copy of a library lives at another path), the device by
// its library's contents, the rest as recorded.
std::string Identity(const std::string& component, const nlohmann::json& env) {
  if (!env.is_object() || !env.contains(component)) return "(none)";
  const nlohmann::json& v = env[component];
  if (component == "blas" && v.is_object()) {
    return v.value("name", "?") + " " + v.value("version", "") + " " + v.value("core", "");
  }
  if (component == "device" && v.is_object()) return "sha256 " + v.value("sha256", "");
  return v.is_string() ? v.get<std::string>() : v.dump();
}

// Whether a worker of configuration `mask` computes with what the two runs
// recorded; the first difference as an error.
Status CheckConfiguration(const std::string& program, uint32_t mask,
                          const std::vector<SwapComponent>& swappable, int default_threads,
                          const nlohmann::json& base_env, const nlohmann::json& cand_env) {
  std::map<std::string, std::string> settings;
  int threads = default_threads;
  ConfigurationSettings(mask, swappable, &settings, &threads);
  SPYRE_ASSIGN_OR_RETURN(const nlohmann::json got, FingerprintUnder(program, threads, settings));
  for (size_t i = 0; i < swappable.size(); ++i) {
    const std::string& c = swappable[i].component;
    const nlohmann::json& want = ((mask >> i) & 1u) ? cand_env : base_env;
    if (Identity(c, got) != Identity(c, want)) {
      return InvalidInput("bisect: the configuration '" + ConfigurationName(mask, swappable) +
                          "' does not take: its workers report " + c + " " + Identity(c, got) +
                          " where the run recorded " + Identity(c, want) + " (set with " +
                          swappable[i].how + "); give the run's file with --baseline-" + c +
                          " / --candidate-" + c + " where there is such a flag");
    }
  }
  return Status::Ok();
}

// One process's value for the wall-time judge (as a confirmation keeps it).
double ProcessValue(const CaseResult& r) {
  return r.HasQueueWait() ? Median(r.UnqueuedUs()) : Median(r.wall_us);
}

bool Timed(const CaseResult& r) {
  return (r.status == CaseStatus::kPassed || r.status == CaseStatus::kFailed) && !r.wall_us.empty();
}

// Every process's result of one case under one configuration.
using Processes = std::map<CaseKey, std::vector<CaseResult>>;

// The configuration's record of its cases for the judge: the first
// process's result, with every process's wall value as a confirmation
// against the baseline configuration's processes (run id -1).
RunRecord ConfigurationRecord(int64_t id, const Processes& mine, const Processes& reference,
                              const nlohmann::json& env) {
  RunRecord r;
  r.run_id = id;
  r.env = env;
  for (const auto& [key, results] : mine) {
    if (results.empty()) continue;
    CaseResult c = results.front();
    if (id != -1) {
      WallConfirmation w;
      w.baseline_run_id = -1;
      w.unqueued = true;
      for (const CaseResult& p : results) {
        if (!Timed(p)) continue;
        w.values.push_back(ProcessValue(p));
        w.unqueued = w.unqueued && p.HasQueueWait();
        for (const OpSummary& o : p.ops) w.op_wall[o.op].push_back(o.wall_us);
      }
      const auto ref = reference.find(key);
      if (ref != reference.end()) {
        for (const CaseResult& p : ref->second) {
          if (!Timed(p)) continue;
          w.baseline_values.push_back(ProcessValue(p));
          w.unqueued = w.unqueued && p.HasQueueWait();
          for (const OpSummary& o : p.ops) w.baseline_op_wall[o.op].push_back(o.wall_us);
        }
      }
      if (!w.values.empty()) c.extra["confirm"] = WallConfirmationJson(w);
    }
    r.cases.push_back(std::move(c));
  }
  return r;
}

const CaseResult* FindCase(const RunRecord& r, const std::string& suite, const std::string& id) {
  for (const CaseResult& c : r.cases) {
    if (c.suite == suite && c.case_id == id) return &c;
  }
  return nullptr;
}

const Finding* SameFinding(const std::vector<Finding>& found, const Finding& f) {
  for (const Finding& g : found) {
    if (g.suite == f.suite && g.case_id == f.case_id && g.kind == f.kind) return &g;
  }
  return nullptr;
}

// The change configuration `cfg` made to the finding's metric against the
// baseline configuration `ref`, as the judge saw it (`c`): its own figure
// where it found the same finding, measured directly otherwise (so that
// "+2% without" has a figure too). Status and accuracy read as the value
// under the configuration ("failed", "out0/max_ulp 12").
StepEffect MeasureEffect(const Finding& f, const Comparison& c, const RunRecord& ref, const RunRecord& cfg) {
  StepEffect e;
  const CaseResult* b = FindCase(ref, f.suite, f.case_id);
  const CaseResult* k = FindCase(cfg, f.suite, f.case_id);
  const Finding* same = SameFinding(c.regressions, f);
  e.reproduced = same != nullptr;
  if (b == nullptr || k == nullptr) return e;
  const auto ratio = [](double x, double y) {
    return x > 0 && std::isfinite(x) && std::isfinite(y) ? y / x : 1.0;
  };
  switch (f.kind) {
    case FindingKind::kStatus: e.status = CaseStatusName(k->status); break;
    case FindingKind::kAccuracy:
      if (const Metric* m = k->FindMetric(f.metric)) {
        e.status = f.metric + " " + HumanNumber(m->value);
      } else {
        e.status = f.metric + " not recorded";
      }
      break;
    case FindingKind::kLatency: {
      if (same != nullptr) {
        e.ratio = same->ratio;
      } else if (const auto w = ReadWallConfirmation(*k); w && w->values.size() >= 3 && w->baseline_values.size() >= 3) {
        e.ratio = std::exp(TestConfirmation(w->baseline_values, w->values, w->paired).shift);
      }
      break;
    }
    case FindingKind::kModeledLatency: e.ratio = ratio(b->modeled_us, k->modeled_us); break;
    case FindingKind::kMemory: {
      if (f.metric == "peak_device_bytes") {
        e.ratio = ratio(static_cast<double>(b->peak_device_bytes), static_cast<double>(k->peak_device_bytes));
        break;
      }
      // A per-output count (a serving trace's kv/kv_blocks_peak).
      const Metric* before = b->FindMetric(f.metric);
      const Metric* after = k->FindMetric(f.metric);
      if (before != nullptr && after != nullptr) e.ratio = ratio(before->value, after->value);
      break;
    }
    case FindingKind::kFallback:
      e.status = std::to_string(k->fallback_ops) + " fallback call(s)";
      break;
    case FindingKind::kGoldenDrift: break;
  }
  return e;
}

bool Deterministic(FindingKind k) { return k != FindingKind::kLatency; }

}  // namespace

StatusOr<BisectOutcome> BisectRecordedRun(const RunPlan& plan, const BisectRequest& req, std::FILE* log) {
  const RunRequest& r = plan.request;
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  SPYRE_ASSIGN_OR_RETURN(const std::unique_ptr<Store> opened, Store::Open(r.db));
  Store& store = *opened;
  SPYRE_ASSIGN_OR_RETURN(const RunRecord cand, LoadRunRecord(store, req.run_id));
  SPYRE_ASSIGN_OR_RETURN(const RunRecord base, LoadRunRecord(store, req.baseline_run_id));
  SPYRE_ASSIGN_OR_RETURN(const Thresholds thresholds, Thresholds::Configured());
  SPYRE_ASSIGN_OR_RETURN(const std::vector<Finding> flagged, FlaggedFindings(store, base, cand));

  BisectOutcome out;
  out.budget_s = req.budget_s;
  std::set<CaseKey> wanted, timed_cases;
  std::vector<Finding> findings;
  for (const Finding& f : flagged) {
    if (f.kind == FindingKind::kGoldenDrift) {
      out.skipped.push_back(f.suite + "/" + f.case_id +
                            " golden_drift: a change of the golden files, not of a component");
      continue;
    }
    findings.push_back(f);
    wanted.insert({f.suite, f.case_id});
    if (!Deterministic(f.kind)) timed_cases.insert({f.suite, f.case_id});
  }
  std::vector<WorkItem> items;
  for (WorkItem item : plan.items) {
    if (wanted.erase({item.suite, item.case_id}) == 0) continue;
    item.judged = true;
    items.push_back(item);
  }
  for (const CaseKey& gone : wanted) {
    out.skipped.push_back(gone.first + "/" + gone.second + ": no longer in the suite files");
    findings.erase(std::remove_if(findings.begin(), findings.end(),
                                  [&](const Finding& f) { return f.suite == gone.first && f.case_id == gone.second; }),
                   findings.end());
  }
  if (findings.empty()) {
    return InvalidInput("run " + std::to_string(req.run_id) + " has no finding against run " +
                        std::to_string(req.baseline_run_id) +
                        " that bisect can examine: nothing to attribute (see `spyre-regress compare`)");
  }

  SPYRE_ASSIGN_OR_RETURN(const int threads, ConfigureThreads(r.threads > 0 ? r.threads : 1));
  nlohmann::json tags = nlohmann::json::object();
  std::map<std::string, std::string> tag_map;
  if (cand.env.contains("tags") && cand.env["tags"].is_object()) {
    for (const auto& [k, v] : cand.env["tags"].items()) tag_map[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  SPYRE_ASSIGN_OR_RETURN(const nlohmann::json here, CollectFingerprint(tag_map));
  out.components = PlanSwaps(base.env, cand.env, here, req.files);
  std::vector<SwapComponent> swappable;
  std::vector<std::string> unswapped;
  for (const SwapComponent& s : out.components) {
    if (s.swappable) {
      swappable.push_back(s);
    } else if (s.component != "os" && s.component.rfind("tag:", 0) != 0) {
      // A tag names the runs, not something they ran with: never a cause.
      unswapped.push_back(s.component);
    }
  }
  if (swappable.size() > 12) return InvalidInput("bisect: more than 12 swappable components differ");
  // Whether this machine stands where the candidate stood in every
  // component that cannot be swapped: then the baseline's configuration
  // run here, judged against the recorded baseline, says whether those
  // components carry a deterministic finding, and the candidate's, whether
  // the finding is there at all.
  bool here_is_candidate = true;
  for (const EnvChange& e : DiffEnvironments(cand.env, here)) {
    if (std::find(unswapped.begin(), unswapped.end(), e.component) != unswapped.end()) here_is_candidate = false;
  }

  const std::vector<uint32_t> masks = ConfigurationMasks(static_cast<int>(swappable.size()));
  out.configurations = static_cast<int>(masks.size());
  std::map<uint32_t, SupervisorOptions> options;
  bool exec = false;
  for (uint32_t m : masks) {
    SupervisorOptions o;
    int t = threads;
    ConfigurationSettings(m, swappable, &o.worker_env, &t);
    o.worker_argv = runner_internal::WorkerArgv(plan, t);
    o.worker_argv.insert(o.worker_argv.end(), {"--min-repeat", std::to_string(req.repeat)});
    o.expected_threads = t;
    o.jobs = 1;
    for (const auto& [k, v] : o.worker_env) exec = exec || runner_internal::LoadTimeVariable(k);
    options[m] = std::move(o);
  }
  for (auto& [m, o] : options) o.exec_workers = exec;

  if (log != nullptr) {
    std::fprintf(log, "bisect: run %lld against run %lld: %zu finding(s) in %zu case(s), %d configuration(s)\n",
                 static_cast<long long>(req.run_id), static_cast<long long>(req.baseline_run_id),
                 findings.size(), items.size(), out.configurations);
    for (const SwapComponent& s : out.components) {
      std::fprintf(log, "  %s %s: %s -> %s (%s)\n", s.swappable ? "swap" : "cannot swap", s.component.c_str(),
                   EnvValueText(s.baseline).c_str(), EnvValueText(s.candidate).c_str(),
                   (s.swappable ? s.how : s.why_not).c_str());
    }
    std::fflush(log);
  }
  for (uint32_t m : masks) {
    SPYRE_RETURN_IF_ERROR(CheckConfiguration(r.worker_exe, m, swappable, threads, base.env, cand.env));
  }

  // Rounds: every configuration once per round, in turn, the order
  // reversed every other round (A B B A).
  const bool tty = log != nullptr && ::isatty(::fileno(log)) != 0;
  std::map<uint32_t, Processes> runs;
  std::map<uint32_t, double> seconds;
  const auto run_round = [&](int round, const std::vector<WorkItem>& pending, const char* why) -> Status {
    std::vector<uint32_t> order = masks;
    if (round % 2 == 0) std::reverse(order.begin(), order.end());
    for (size_t i = 0; i < order.size(); ++i) {
      const uint32_t m = order[i];
      // One line rewritten in place on a terminal; a line a round elsewhere.
      if (log != nullptr && (tty || i == 0)) {
        std::fprintf(log, "%sbisect: round %d%s, %zu case(s), configuration %zu of %zu (%s), %.0f s of %.0f s%s",
                     tty ? "\r\033[K" : "", round, why, pending.size(), i + 1, order.size(),
                     ConfigurationName(m, swappable).c_str(), elapsed(), req.budget_s, tty ? "" : "\n");
        std::fflush(log);
      }
      const double t0 = elapsed();
      RecordFn keep = [&](const CaseResult& c) -> Status {
        runs[m][{c.suite, c.case_id}].push_back(c);
        return Status::Ok();
      };
      SPYRE_ASSIGN_OR_RETURN(const SupervisorOutcome done, RunCases(pending, options[m], keep, nullptr));
      seconds[m] += elapsed() - t0;
      if (done.interrupted) {
        if (tty) std::fputs("\n", log);
        return IoError("bisect interrupted by signal " + std::to_string(done.signal_number) +
                       ": nothing of it was recorded");
      }
    }
    return Status::Ok();
  };
  const int deterministic_rounds = 2;
  const int max_rounds = timed_cases.empty() ? deterministic_rounds : std::max(req.rounds, deterministic_rounds);
  const std::string of_rounds = " of " + std::to_string(max_rounds);
  for (int round = 1; round <= max_rounds; ++round) {
    if (round > 1 && elapsed() > req.budget_s) break;
    std::vector<WorkItem> pending;
    for (const WorkItem& item : items) {
      if (round <= deterministic_rounds || timed_cases.count({item.suite, item.case_id}) != 0) pending.push_back(item);
    }
    SPYRE_RETURN_IF_ERROR(run_round(round, pending, of_rounds.c_str()));
    out.rounds = round;
  }
  const bool rounds_short = out.rounds < max_rounds;

  // Judge every configuration against the baseline's, as `run` judges.
  RunRecord reference;
  std::map<uint32_t, RunRecord> records;
  std::map<uint32_t, Comparison> judged;
  const auto judge = [&] {
    reference = ConfigurationRecord(-1, runs[0], runs[0], base.env);
    for (uint32_t m : masks) {
      if (m == 0) continue;
      records[m] = ConfigurationRecord(-2 - static_cast<int64_t>(m), runs[m], runs[0], cand.env);
      judged[m] = CompareRuns(reference, records[m], thresholds);
    }
  };
  judge();
  // A sequential design: a wall-time finding with a configuration whose
  // estimate is a finding's size while its evidence falls short of the
  // judge's level (one slow process among seven) is undecided there, and
  // its case gets more rounds, up to max_rounds, while the budget lasts.
  while (!rounds_short && out.rounds < req.max_rounds && elapsed() <= req.budget_s) {
    std::set<CaseKey> undecided;
    for (const Finding& f : findings) {
      if (Deterministic(f.kind)) continue;
      const double line = std::log1p(thresholds.For(f.suite, f.case_id).wall_min_effect);
      for (const auto& [m, c] : judged) {
        const StepEffect e = MeasureEffect(f, c, reference, records[m]);
        if (!e.reproduced && std::isfinite(e.ratio) && e.ratio > 0 && std::log(e.ratio) >= line) {
          undecided.insert({f.suite, f.case_id});
        }
      }
    }
    if (undecided.empty()) break;
    std::vector<WorkItem> pending;
    for (const WorkItem& item : items) {
      if (undecided.count({item.suite, item.case_id}) != 0) pending.push_back(item);
    }
    SPYRE_RETURN_IF_ERROR(run_round(out.rounds + 1, pending, " (undecided cases)"));
    ++out.rounds;
    judge();
  }
  // The faults alone, still undecided: a fault can be switched inside one
  // process, so each process times the case under both fault settings in
  // turn (as a run's confirmation does) and the pairs are judged with the
  // paired test, which has the power separate processes lack.
  int fault_bit = -1;
  for (size_t i = 0; i < swappable.size(); ++i) {
    if (swappable[i].component == "faults") fault_bit = static_cast<int>(i);
  }
  if (fault_bit >= 0 && swappable.size() > 1 && elapsed() <= req.budget_s) {
    const uint32_t fm = 1u << fault_bit;
    std::set<CaseKey> undecided;
    for (const Finding& f : findings) {
      if (Deterministic(f.kind) || judged.count(fm) == 0) continue;
      const StepEffect e = MeasureEffect(f, judged[fm], reference, records[fm]);
      const double line = std::log1p(thresholds.For(f.suite, f.case_id).wall_min_effect);
      if (!e.reproduced && std::isfinite(e.ratio) && e.ratio > 0 && std::fabs(std::log(e.ratio)) >= line) {
        undecided.insert({f.suite, f.case_id});
      }
    }
    if (!undecided.empty()) {
      const SwapComponent& faults = swappable[static_cast<size_t>(fault_bit)];
      WorkItem::Paired pair;
      pair.baseline_faults = faults.baseline_env.count("SPYRE_EMU_FAULTS") ? faults.baseline_env.at("SPYRE_EMU_FAULTS") : "";
      pair.candidate_faults =
          faults.candidate_env.count("SPYRE_EMU_FAULTS") ? faults.candidate_env.at("SPYRE_EMU_FAULTS") : "";
      std::map<CaseKey, std::vector<CaseResult>> pairs;
      for (int round = 1; round <= req.max_rounds && elapsed() <= req.budget_s; ++round) {
        std::vector<WorkItem> pending;
        for (const WorkItem& item : items) {
          if (undecided.count({item.suite, item.case_id}) == 0) continue;
          WorkItem p = item;
          p.judged = false;
          p.paired = pair;
          p.paired->baseline_first = round % 2 == 1;
          pending.push_back(std::move(p));
        }
        if (log != nullptr && (tty || round == 1)) {
          std::fprintf(log, "%sbisect: faults alone, paired in one process, round %d of %d, %zu case(s), %.0f s of %.0f s%s",
                       tty ? "\r\033[K" : "", round, req.max_rounds, pending.size(), elapsed(), req.budget_s,
                       tty ? "" : "\n");
          std::fflush(log);
        }
        const double t0 = elapsed();
        RecordFn keep = [&](const CaseResult& c) -> Status {
          pairs[{c.suite, c.case_id}].push_back(c);
          return Status::Ok();
        };
        SPYRE_ASSIGN_OR_RETURN(const SupervisorOutcome done, RunCases(pending, options[0], keep, nullptr));
        seconds[fm] += elapsed() - t0;
        if (done.interrupted) {
          return IoError("bisect interrupted by signal " + std::to_string(done.signal_number) +
                         ": nothing of it was recorded");
        }
      }
      // The faults-alone configuration's evidence for those cases: the pairs.
      for (CaseResult& c : records[fm].cases) {
        const auto it = pairs.find({c.suite, c.case_id});
        if (it == pairs.end()) continue;
        WallConfirmation w;
        w.baseline_run_id = -1;
        w.paired = true;
        w.unqueued = true;
        for (const CaseResult& p : it->second) {
          const auto b = p.extra.find("paired_baseline");
          if (b == p.extra.end() || !Timed(p)) continue;
          StatusOr<CaseResult> side = CaseResultFromJson(*b);
          if (!side.ok() || !Timed(*side)) continue;
          w.values.push_back(ProcessValue(p));
          w.baseline_values.push_back(ProcessValue(*side));
          w.unqueued = w.unqueued && p.HasQueueWait() && side->HasQueueWait();
        }
        if (w.values.size() >= 3) c.extra["confirm"] = WallConfirmationJson(w);
      }
      judged[fm] = CompareRuns(reference, records[fm], thresholds);
    }
  }
  if (tty) std::fputs("\r\033[K", log);

  // Deterministic findings where this machine is the candidate's: the
  // configurations against the recorded baseline.
  const auto against_recorded = [&](uint32_t m, const Finding& f) -> bool {
    RunRecord one;
    one.run_id = -100;
    const auto it = runs[m].find({f.suite, f.case_id});
    if (it == runs[m].end() || it->second.empty()) return false;
    one.cases = {it->second.front()};
    RunRecord recorded;
    recorded.run_id = base.run_id;
    if (const CaseResult* b = FindCase(base, f.suite, f.case_id)) recorded.cases = {*b};
    return SameFinding(CompareRuns(recorded, one, thresholds).regressions, f) != nullptr;
  };
  const uint32_t full = swappable.empty() ? 1u : (1u << swappable.size()) - 1;
  BisectRecord record;
  record.run_id = req.run_id;
  record.baseline_run_id = req.baseline_run_id;
  for (const Finding& f : findings) {
    std::map<uint32_t, StepEffect> steps;
    for (const auto& [m, c] : judged) steps[m] = MeasureEffect(f, c, reference, records[m]);
    std::optional<bool> unswapped_reproduced;
    bool flake = false;
    if (Deterministic(f.kind) && here_is_candidate) {
      if (!unswapped.empty()) unswapped_reproduced = against_recorded(0, f);
      flake = !against_recorded(full, f) && !(steps.count(full) != 0 && steps[full].reproduced);
      // Two processes of one configuration that disagree: not a change.
      for (const auto& [m, procs] : runs) {
        const auto it = procs.find({f.suite, f.case_id});
        if (it == procs.end()) continue;
        for (const CaseResult& p : it->second) flake = flake || p.status != it->second.front().status;
      }
    }
    BisectFinding bf;
    bf.finding = f;
    if (flake) {
      bf.attribution = Attribute(swappable, {}, steps, std::nullopt, false);
      bf.attribution.verdict = CauseVerdict::kNotReproduced;
      bf.attribution.components.clear();
      bf.attribution.text = "not reproduced: this machine, set up as the candidate, does not show it "
                            "every time or at all (a flake)";
    } else {
      bf.attribution = Attribute(swappable, unswapped, steps, unswapped_reproduced,
                                 rounds_short && !Deterministic(f.kind));
    }
    AttributionRow row;
    row.run_id = req.run_id;
    row.baseline_run_id = req.baseline_run_id;
    row.suite = f.suite;
    row.case_name = f.case_id;
    row.kind = FindingKindName(f.kind);
    row.metric = f.metric;
    row.verdict = CauseVerdictName(bf.attribution.verdict);
    for (const std::string& c : bf.attribution.components) row.components += (row.components.empty() ? "" : ",") + c;
    row.text = bf.attribution.text;
    row.evidence_json = bf.attribution.evidence.dump();
    record.attributions.push_back(std::move(row));
    bf.finding.cause_verdict = CauseVerdictName(bf.attribution.verdict);
    bf.finding.cause = bf.attribution.text;
    out.findings.push_back(std::move(bf));
  }

  // What each component cost: a configuration's time shared among the
  // components it swaps.
  std::map<std::string, double> per_component;
  for (const auto& [m, s] : seconds) {
    const int n = static_cast<int>(std::bitset<32>(m).count());
    if (m == 0 || swappable.empty()) {
      per_component["baseline configuration"] += s;
      continue;
    }
    for (size_t i = 0; i < swappable.size(); ++i) {
      if ((m >> i) & 1u) per_component[swappable[i].component] += s / n;
    }
  }
  out.seconds.assign(per_component.begin(), per_component.end());
  out.elapsed_s = elapsed();
  record.elapsed_s = out.elapsed_s;
  record.budget_s = req.budget_s;
  record.rounds = out.rounds;
  nlohmann::json summary = BisectJson(out);
  summary.erase("findings");
  record.summary_json = summary.dump();
  SPYRE_ASSIGN_OR_RETURN(out.bisect_id, store.RecordBisect(record));
  return out;
}

}  // namespace harness
