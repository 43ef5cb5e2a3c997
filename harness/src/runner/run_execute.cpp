// ExecuteRun: store, fingerprint, workers, finish, regression hook.
#include <unistd.h>

#include <chrono>
#include <thread>

#include "harness/env.h"
#include "harness/history.h"
#include "harness/run_session.h"

namespace harness {
namespace {

nlohmann::json OptionsJson(const RunPlan& plan, int threads) {
  const RunRequest& r = plan.request;
  return {{"filter", r.filter}, {"warmup", r.warmup}, {"repeat", r.repeat}, {"jobs", plan.jobs},
          {"threads_per_worker", threads}, {"timeout_s", r.timeout_s}, {"shard", r.shard.ToString()},
          {"profile", r.profile}, {"inject", r.inject}, {"baseline", r.baseline},
          {"cases", plan.items.size()}};
}

std::vector<std::string> WorkerArgv(const RunPlan& plan, int threads) {
  const RunRequest& r = plan.request;
  std::vector<std::string> argv = {r.worker_exe, "__worker", "--suites", r.suites_dir,
                                   "--golden", r.golden_dir, "--threads", std::to_string(threads)};
  if (r.warmup >= 0) argv.insert(argv.end(), {"--warmup", std::to_string(r.warmup)});
  if (r.repeat >= 0) argv.insert(argv.end(), {"--repeat", std::to_string(r.repeat)});
  return argv;
}

// A named baseline (run id, label:NAME) that does not exist, or a malformed
// spec, fails before anything runs; "auto" and "none" cannot fail.
Status CheckBaselineExists(Store& store, const std::string& baseline) {
  if (baseline == "auto" || baseline == "none") return Status::Ok();
  StatusOr<std::optional<int64_t>> chosen = ResolveBaseline(store.handle(), baseline, 0);
  return chosen.ok() ? Status::Ok() : chosen.status();
}

}  // namespace

int RunSummary::Count(CaseStatus s) const {
  int n = 0;
  for (const CaseResult& r : results) n += r.status == s ? 1 : 0;
  return n;
}

int RunSummary::Failed() const { return static_cast<int>(results.size()) - Passed() - Skipped(); }

StatusOr<RunSummary> ExecuteRun(const RunPlan& plan, RunListener* listener) {
  const RunRequest& r = plan.request;
  const auto start = std::chrono::steady_clock::now();
  // The emulator settings of the workers are those of this process, so the
  // fingerprint describes exactly what ran.
  if (!r.profile.empty()) ::setenv("SPYRE_EMU_PROFILE", r.profile.c_str(), 1);
  if (!r.inject.empty()) ::setenv("SPYRE_EMU_FAULTS", r.inject.c_str(), 1);

  // The thread budget is split between the workers; each sets its own count
  // explicitly and the fingerprint records the per-worker figure.
  int total = r.threads > 0 ? r.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int per_worker = std::max(1, total / plan.jobs);
  StatusOr<int> threads = ConfigureThreads(per_worker);
  if (!threads.ok()) return threads.status();
  StatusOr<nlohmann::json> env = CollectFingerprint(r.tags);
  if (!env.ok()) return env.status();
  (*env)["jobs"] = plan.jobs;

  StatusOr<std::unique_ptr<Store>> opened = Store::Open(r.db);
  if (!opened.ok()) return opened.status();
  Store& store = **opened;
  SPYRE_RETURN_IF_ERROR(CheckBaselineExists(store, r.baseline));

  RunSummary summary;
  summary.suite = plan.suite_key;
  summary.jobs = plan.jobs;
  summary.threads_per_worker = *threads;
  summary.planned = plan.items.size();
  summary.env = *env;
  summary.fingerprint = FingerprintHash(*env);
  NewRun run;
  run.suite = plan.suite_key;
  run.label = r.label;
  run.fingerprint = summary.fingerprint;
  run.env_json = env->dump();
  run.shard = r.shard.all() ? "" : r.shard.ToString();
  run.options_json = OptionsJson(plan, *threads).dump();
  run.jobs = plan.jobs;
  run.threads = *threads;
  StatusOr<int64_t> run_id = store.BeginRun(run);
  if (!run_id.ok()) return run_id.status();
  summary.run_id = *run_id;

  SupervisorOptions options;
  options.worker_argv = WorkerArgv(plan, *threads);
  options.jobs = plan.jobs;
  options.expected_threads = *threads;
  RecordFn record = [&](const CaseResult& result) -> Status {
    SPYRE_RETURN_IF_ERROR(store.RecordResult(*run_id, result));
    summary.results.push_back(result);
    return Status::Ok();
  };
  StatusOr<SupervisorOutcome> outcome = RunCases(plan.items, options, record, listener);
  summary.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!outcome.ok()) {
    // Best effort: the store may be the thing that failed.
    (void)store.FinishRun(*run_id, RunStatus::kAborted, outcome.status().message());
    return outcome.status().WithContext("run " + std::to_string(*run_id) + " aborted");
  }
  summary.workers_started = outcome->workers_started;
  if (outcome->interrupted) {
    summary.status = RunStatus::kAborted;
    summary.interrupted_by = outcome->signal_number;
    SPYRE_RETURN_IF_ERROR(store.FinishRun(
        *run_id, RunStatus::kAborted, "interrupted by signal " + std::to_string(outcome->signal_number)));
    return summary;
  }
  SPYRE_RETURN_IF_ERROR(store.FinishRun(*run_id, RunStatus::kCompleted));
  StatusOr<BaselineOutcome> baseline = DetectRegressionsForRun(store, *run_id, plan.suite_key, r.baseline);
  if (!baseline.ok()) return baseline.status();
  summary.baseline = std::move(*baseline);
  return summary;
}

}  // namespace harness
