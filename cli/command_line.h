#pragma once
// The whole program as a function: what a worker forked from the run's
// zygote runs instead of an exec (harness/runner/zygote.h).
#include <string>
#include <vector>

namespace harness::cli {

// Runs spyre-regress with `argv` (argv[0]: the program), as main does, and
// returns the exit code.
int RunCommandLine(const std::vector<std::string>& argv);

}  // namespace harness::cli
