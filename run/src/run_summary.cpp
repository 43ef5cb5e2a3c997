// A run's summary counts (harness/runner/run.h). Torch-free, apart from the
// rest of the runner: the CLI prints a summary without the torch side.
#include "run/run.h"

namespace harness {

int RunSummary::Count(CaseStatus s) const {
  int n = 0;
  for (const CaseResult& r : results) n += r.status == s ? 1 : 0;
  return n;
}

int RunSummary::Failed() const { return static_cast<int>(results.size()) - Passed() - Skipped(); }

}  // namespace harness
