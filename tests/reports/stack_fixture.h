#pragma once
// A store for the stack matrix tests, built through the Store API: suites
// "ops" and "decode" recorded on three stacks (runs tagged stack=NAME, each
// stack its own libtorch / BLAS / compiler / libc / os), plus runs the
// selection must pass over:
//
//   run 1  ubuntu-24  ops     completed, superseded by run 4 (mm.64 wall 999 us)
//   run 2  debian-12  ops     selected: mm.64 (wall 100 us, modeled 10 us, 1 ULP),
//                             mm.128 passed, add, softmax
//   run 3  debian-12  decode  selected
//   run 4  ubuntu-24  ops     selected: mm.64 (wall 150 us, modeled 12.5 us, 2 ULP),
//                             mm.128 FAILED, add; no softmax; gelu (not on debian-12)
//   run 5  ubuntu-24  ops     aborted: never selected
//   run 6  (no tag)   ops     never selected
//   run 7  ubuntu-24  decode  selected
//   run 8  fedora-40  ops     selected: mm.64 (wall 50 us), no libc in its environment
//
// Findings are recorded for run 4 (two) and run 1 (one, not selected).
// With `hostile`, the third stack is named kHostileStack and run 8 adds a
// case kHostileCase whose op is kHostileOp.
#include <string>

namespace reports_test {

inline constexpr const char* kHostileStack = "<img src=x onerror=alert(1)>&\"stack\"";
inline constexpr const char* kHostileCase = "<script>alert(1)</script>";
inline constexpr const char* kHostileOp = "<b>op</b>";

// Creates the store at `path` (which must not exist). Aborts the test on error.
void BuildStackStore(const std::string& path, bool hostile = false);

}  // namespace reports_test
