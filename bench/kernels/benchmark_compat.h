#pragma once
// Google Benchmark's API differences between the versions this project
// builds against (1.7 in Debian 12, 1.9 in Debian 13 and later), in one place.
// Benchmark has no version macro, so the members are detected.
#include <benchmark/benchmark.h>

namespace bench_compat {

// True when the run errored or was skipped: Run::error_occurred up to 1.7,
// Run::skipped (an enum, 0 when not skipped) from 1.8 on.
template <class Run>
auto RunFailed(const Run& run, int) -> decltype(static_cast<bool>(run.error_occurred)) {
  return run.error_occurred;
}
template <class Run>
bool RunFailed(const Run& run, long) {
  return static_cast<int>(run.skipped) != 0;
}
template <class Run>
bool RunFailed(const Run& run) {
  return RunFailed(run, 0);
}

}  // namespace bench_compat
