#pragma once
// The regression hook: after a completed run, detection against a baseline,
// its findings stored with the run (ExecuteRun in run.h calls it, and so does `merge --group`).
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "store/store.h"

namespace harness {

// What detection found against the baseline.
struct BaselineOutcome {
  std::optional<int64_t> baseline_run_id;  // none: "regressions: none (no baseline)"
  std::string reason;                      // why that run (or none) was taken
  int regressions = 0;      // findings
  int regressed_cases = 0;  // the cases they are about: what the summary line counts
  nlohmann::json comparison = nullptr;     // compare --json shape, or null
};

// The regression hook run after a completed run: resolves `baseline` (auto:
// the newest completed run of the same suite key; a run id; none), runs
// detection, stores its findings (Store::RecordRegressions) and returns them.
// A run id that does not exist is NotFound.
StatusOr<BaselineOutcome> DetectRegressionsForRun(Store& store, int64_t run_id,
                                                  const std::string& suite_key,
                                                  const std::string& baseline);

}  // namespace harness
