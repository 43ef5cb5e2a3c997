#pragma once
// The supervisor of `spyre-regress run`: hands cases to worker processes one
// at a time, turns every worker death into a result for the case it was
// running, replaces the worker and goes on.
//
//   SupervisorOptions options;
//   options.worker_argv = {"/path/spyre-regress", "__worker", ...};
//   options.jobs = 4;
//   StatusOr<SupervisorOutcome> out = RunCases(items, options, record, &listener);
//
// Outcomes per case: the worker's own result; `crashed` when the worker dies
// (signal, abort, non-zero exit) with the signal and the worker's last output
// in the message; `timeout` when no result arrives within the case's timeout
// (the worker is killed); `error` when a worker sends a malformed record.
// Ctrl-C / SIGTERM stop every worker and return with `interrupted` set; the
// cases in flight are not recorded. A failing `record` (e.g. disk full) stops
// the run the same way and is returned as the error.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/case_result.h"
#include "base/status.h"

namespace harness {

struct WorkItem {
  std::string suite;
  std::string case_id;
  double timeout_s = 120;
  // The wall-time protocol (warm-up, repeats, batches) for a latency case;
  // false: a parity-only case, run once, its wall time not judged.
  bool timed = true;
  // false: a timing round (runner/timing_rounds.h): the device runs, timed
  // and traced, and nothing is judged (no golden reference, no comparison);
  // the result carries wall samples and op times only.
  bool judged = true;
  // Set: time the case twice in one process, under the baseline's faults and
  // the candidate's, in this order or the other (ServeWorker's "paired").
  struct Paired {
    std::string baseline_faults, candidate_faults;
    bool baseline_first = false;
  };
  std::optional<Paired> paired = std::nullopt;
};

struct SupervisorOptions {
  std::vector<std::string> worker_argv;        // argv[0]: the worker executable's path
  std::map<std::string, std::string> worker_env;  // added to (overriding) the environment
  int jobs = 1;                                 // worker processes at once (>= 1)
  int expected_threads = 0;                     // > 0: a worker reporting another count is an error
  int max_start_failures = 3;                   // workers dying before "hello" in a row -> error
  double start_timeout_s = 120;                 // a worker silent this long after start -> error
  // Every worker exec'd, none forked from the run's zygote: when one side
  // of a comparison must be exec'd (it loads other libraries), the other is
  // started the same way, so that how a process began is not a difference.
  bool exec_workers = false;
};

// Events in firing order, from the supervisor's thread; a no-op base.
class RunListener {
 public:
  virtual ~RunListener() = default;
  virtual void OnCaseStarted(const WorkItem& /*item*/) {}
  // `done` counts finished cases including this one.
  virtual void OnCaseFinished(const CaseResult& /*result*/, size_t /*done*/, size_t /*total*/) {}
  // `run --rounds N`: round `round` of N starts (the last is the main pass,
  // whose cases are reported through the two events above).
  virtual void OnTimingRound(int /*round*/, int /*rounds*/) {}
};

struct SupervisorOutcome {
  size_t finished = 0;       // results handed to `record`
  bool interrupted = false;  // Ctrl-C / SIGTERM
  int signal_number = 0;
  int workers_started = 0;
  int workers_preloaded = 0;      // workers that found the device library mapped at their start
  std::vector<double> startup_s;  // each worker's spawn-to-hello time, in seconds
};

// Records one result (the store write); a non-OK status stops the run.
using RecordFn = std::function<Status(const CaseResult&)>;

StatusOr<SupervisorOutcome> RunCases(const std::vector<WorkItem>& items,
                                     const SupervisorOptions& options, const RecordFn& record,
                                     RunListener* listener);

}  // namespace harness
