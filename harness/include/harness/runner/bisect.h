#pragma once
// `spyre-regress bisect` on the engine's torch side: the experiment itself
// (what it asks and reports: run/bisect.h).
#include <cstdio>

#include "harness/runner/run.h"
#include "run/bisect.h"

namespace harness {

// Runs the experiment for plan.request (re-created from the candidate run:
// its suites, options and thread count) and records it in the store.
// `log` (may be null): the plan and a progress line per configuration.
StatusOr<BisectOutcome> BisectRecordedRun(const RunPlan& plan, const BisectRequest& request,
                                          std::FILE* log);

}  // namespace harness
