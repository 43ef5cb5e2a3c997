// `run` in the torch part: the worker zygote, the plan (suites, device,
// golden files) and the run itself, with the progress line. The front
// (cli/verb_run.cpp) prints the summary and writes the reports.
#include <cstdlib>
#include <functional>
#include <iostream>

#include "harness/device/device.h"
#include "harness/runner/bisect.h"
#include "harness/runner/progress.h"
#include "harness/runner/run.h"
#include "harness/runner/zygote.h"
#include "torch_verbs.h"

namespace harness::cli {

namespace {

// Stops the worker zygote when the verb returns.
struct ZygoteEnd {
  ZygoteEnd() = default;
  ZygoteEnd(const ZygoteEnd&) = delete;
  ZygoteEnd& operator=(const ZygoteEnd&) = delete;
  ~ZygoteEnd() { StopWorkerZygote(); }
};

// First, while this process has one thread and has loaded nothing but its
// libraries and this one: every worker is then a fork of it
// (harness/runner/zygote.h).
// The zygote maps the device library once (its kernels registered before
// the fork), so no worker pays for that again: registering them in a
// forked worker writes to dispatcher pages it shares with the zygote, and
// each such page is copied. SPYRE_REGRESS_ZYGOTE_PRELOAD=0 turns it off.
void StartZygote(const RunRequest& request, WorkerEntry entry) {
  const char* preload = std::getenv("SPYRE_REGRESS_ZYGOTE_PRELOAD");
  std::function<void()> prepare;
  if (preload == nullptr || std::string(preload) != "0") prepare = [] { (void)PreloadDeviceLibrary(); };
  StartWorkerZygote(request.worker_exe, std::move(entry), prepare);
}

}  // namespace

StatusOr<BisectOutcome> TorchBisect(const RunRequest& request, const BisectRequest& bisect,
                                    const GlobalOptions& g, WorkerEntry entry) {
  StartZygote(request, std::move(entry));
  const ZygoteEnd zygote_end;
  SPYRE_ASSIGN_OR_RETURN(auto plan, PlanRun(request));
  return BisectRecordedRun(plan, bisect, g.quiet ? nullptr : stderr);
}

StatusOr<RunSummary> TorchRun(const RunRequest& request, const GlobalOptions& g,
                              WorkerEntry entry) {
  StartZygote(request, std::move(entry));
  const ZygoteEnd zygote_end;

  SPYRE_ASSIGN_OR_RETURN(auto plan, PlanRun(request));
  for (const std::string& w : plan.warnings) std::cerr << "spyre-regress: warning: " << w << "\n";
  ProgressPrinter progress(stderr, ChooseProgressStyle(stderr, g.quiet), UseColor(stderr),
                           plan.items.size());
  StatusOr<RunSummary> finished = request.confirm_run > 0 ? ConfirmRecordedRun(plan, &progress)
                                                          : ExecuteRun(plan, &progress);
  progress.Clear();  // the progress line goes before any message, error or not
  return finished;
}

}  // namespace harness::cli
