#pragma once
// What a run is, torch-free: the request `run` and `confirm` build from the
// command line, the options a run records, and the summary a finished run
// hands back. The engine's torch side plans and executes a request
// (harness/runner/run.h); the program users run only describes it and reads
// the summary.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/case_result.h"
#include "run/regression_hook.h"
#include "run/shard.h"
#include "store/store.h"

namespace harness {

// Which cases get the wall-time protocol and a latency verdict (--latency):
// the suites and cases marked `latency` in their suite file, all, or none.
// The others are parity only: run once, wall time not judged.
enum class LatencyMode { kMarked, kAll, kNone };
const char* LatencyModeName(LatencyMode m);  // "marked", "all", "none"
std::optional<LatencyMode> ParseLatencyMode(const std::string& name);

// Confirmation of wall-time suspects (runner/confirm.h), as `run` and
// `confirm` take it (--confirm-rounds, --confirm-max-rounds,
// --confirm-repeat, --confirm-budget, --confirm-jobs, --confirm-all): the one place its
// defaults live.
struct ConfirmSettings {
  // At least this many fresh processes per side (0: off; 7 is the fewest
  // that can reach wall_confirm_alpha 0.001 by a rank test; paired cases
  // clearly changed or bounded unchanged stop from four), up to max_rounds
  // while a verdict is undecided and the budget (seconds) lasts.
  int rounds = 7;
  int max_rounds = 11;
  double budget_s = 120;
  // Wall samples each side of a confirmation process takes of a case, past
  // the case's repeat while they are short (SamplingPlan::min_repeat; 0:
  // the case's repeat).
  int repeat = 11;
  // Worker processes at once while re-timing beside the baseline's
  // configuration (paired or interleaved: both sides see the same machine,
  // so a neighbour on the other core moves both alike). Re-timing against
  // history stays at one, as the history was timed.
  int jobs = 1;
  // Beside the baseline's configuration, re-time every timed case rather
  // than the main pass's suspects: the screen of a few rounds misses some
  // real changes, and the sequential rounds stop a plainly unchanged case
  // after four pairs.
  bool every_case = false;
};

struct RunRequest {
  std::vector<std::string> suites;
  std::string filter;       // ECMAScript regex searched in "<suite>/<case id>"; empty: all
  int warmup = -1;          // -1: each suite's default
  int repeat = -1;
  // Timing rounds: each case is timed in this many fresh worker processes
  // and its wall samples are one value per round (runner/timing_rounds.h).
  int rounds = 1;
  // `--rounds MIN-MAX`: from rounds_min rounds on, a case whose round values
  // pin their mean log within round_precision (standard error) gets no
  // more rounds; 0: every case gets `rounds`.
  int rounds_min = 0;
  double round_precision = 0.01;
  // Samples per case in rounds 1..N-1 (at most; the main pass takes the
  // suite's repeat): one value per round is what the judge tests, and the
  // variance between processes, not within one, limits it.
  int round_repeat = 3;
  double min_sample_us = -1;  // -1: the workers' default (harness/wall_sampler.h)
  int jobs = 1;             // a run with a timed case uses one worker
  LatencyMode latency = LatencyMode::kMarked;
  Shard shard;
  double timeout_s = 0;     // > 0: overrides every suite's per-case timeout
  std::string profile;      // non-empty: SPYRE_EMU_PROFILE for the workers and fingerprint
  std::string inject;       // non-empty: SPYRE_EMU_FAULTS likewise
  std::string label;
  std::map<std::string, std::string> tags;
  std::string baseline = "auto";  // auto | <run id> | none
  ConfirmSettings confirm;
  // > 0: record no new run; re-time this completed run's wall-time suspects
  // on this machine beside its baseline's configuration, store that
  // evidence and judge the run again (`spyre-regress confirm`,
  // ConfirmRecordedRun). The other fields then describe that run.
  int64_t confirm_run = 0;
  std::string db, suites_dir, golden_dir;
  int threads = 0;          // libtorch threads shared by the workers (0: online cores)
  std::string worker_exe;   // the spyre-regress binary to exec as `__worker`
};

// The request's options as a run records them (runs.options_json), and the
// options read back from such a record into `request` (what re-creates the
// run's plan for `confirm` and `bisect`: filter, latency, warm-up, repeat,
// minimum sample, timeout and threads per worker). One place for both, so a
// key is spelt once.
nlohmann::json RequestOptionsJson(const RunRequest& request);
void ApplyRecordedOptions(const nlohmann::json& options, RunRequest* request);

struct RunSummary {
  int64_t run_id = 0;
  std::string suite;
  RunStatus status = RunStatus::kCompleted;
  int jobs = 1;
  int threads_per_worker = 1;
  int workers_started = 0;
  double elapsed_s = 0;
  size_t planned = 0;
  size_t timed = 0;             // planned cases timed for a latency verdict
  std::string latency_mode;     // RunRequest::latency
  // Worker start-up (spawn to its hello), seconds, in start order: the
  // first pays what the later ones are spared (runner/zygote.h).
  std::vector<double> worker_startup_s;
  std::string worker_spawn;     // "zygote" or "exec": how workers were started
  int workers_preloaded = 0;    // workers that found the device library already mapped
  std::vector<CaseResult> results;  // in the order they finished
  nlohmann::json env;
  std::string fingerprint;
  BaselineOutcome baseline;
  // What the confirmation of wall-time suspects did, one line ("" when
  // nothing was suspect), and injected faults that matched no call.
  std::string confirmation;
  std::vector<std::string> warnings;
  int interrupted_by = 0;  // signal number when interrupted

  int Count(CaseStatus s) const;
  int Passed() const { return Count(CaseStatus::kPassed); }
  int Skipped() const { return Count(CaseStatus::kSkipped); }
  int Failed() const;  // everything neither passed nor skipped
};

// Runs the program with `argv` (argv[0]: the program) inside a worker process
// and returns its exit code: how the engine starts a worker without exec.
using WorkerEntry = std::function<int(const std::vector<std::string>& argv)>;

}  // namespace harness
