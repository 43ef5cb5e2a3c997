#pragma once
// One `spyre-regress run`, in two steps so that everything that can be wrong
// with the command line, the suites or the store fails before a worker
// starts:
//
//   StatusOr<RunPlan> plan = PlanRun(request);          // suites, filter, shard
//   ProgressPrinter progress(stderr, style, color, plan->items.size());
//   StatusOr<RunSummary> summary = ExecuteRun(*plan, &progress);
//
// ExecuteRun opens the store, records the run with its fingerprint, runs the
// cases through the supervisor (harness/runner/supervisor.h), finishes the run and calls
// the regression hook. The run ends `completed`, or `aborted` when
// interrupted or when the store fails (then the error is returned and what was
// recorded stays).
#include <string>
#include <vector>

#include "harness/runner/supervisor.h"
#include "run/run.h"
#include "suite_file/suite_file.h"

namespace harness {

struct RunPlan {
  RunRequest request;
  std::vector<SuiteSpec> suites;
  std::vector<WorkItem> items;  // the selected cases of this shard, in suite order
  int jobs = 1;                 // after the latency rule
  bool latency = false;         // some case is timed (WorkItem::timed)
  size_t timed = 0;             // items timed; the others are parity only
  std::string suite_key;        // the suite names joined with ','
  // Said before the run and in its summary: e.g. timed cases that cannot
  // collect enough samples for a verdict with the repeats asked for.
  std::vector<std::string> warnings;
};

// Loads and validates the suites, the filter, the shard, --profile and
// --inject. Every problem is a usage / invalid-input Status (exit 2).
StatusOr<RunPlan> PlanRun(const RunRequest& request);

StatusOr<RunSummary> ExecuteRun(const RunPlan& plan, RunListener* listener);

// `spyre-regress confirm`: plan.request.confirm_run names a completed run
// (the caller checks that it is: cli/verb_confirm.cpp)
// (plan: its suites, latency mode and options). Its own configuration is
// re-created in fresh workers (emulator settings, faults, BLAS:
// BaselineWorkerSettings; anything else that differs from this machine is an
// error), its wall-time suspects are confirmed as at the end of a `run`
// (runner/confirm.h) against plan.request.baseline, and the run is judged
// again; its new findings replace the old. The summary describes that run
// (results as recorded, with their confirmation).
StatusOr<RunSummary> ConfirmRecordedRun(const RunPlan& plan, RunListener* listener);

}  // namespace harness
