#pragma once
// Runs a program as a child process and captures what it printed, for the
// end-to-end tests of the built CLI.
#include <map>
#include <string>
#include <vector>

namespace spyre_test {

struct CommandResult {
  int exit_code = -1;  // the exit status, or 128 + signal when killed
  std::string out;     // stdout
  std::string err;     // stderr
  long max_rss_kb = 0;  // the child's peak resident set (its own, not its children's)
};

// Runs `argv` (argv[0] is a path) with extra environment variables added to the
// current environment; waits at most `timeout_s` seconds, then kills it.
CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {}, int timeout_s = 300);

// RunCommand on the built spyre-regress with the given arguments (or on the
// binary SPYRE_TEST_CLI names, when set).
CommandResult RunCli(const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& env = {}, int timeout_s = 300);

// Counts the lines of `text`.
int LineCount(const std::string& text);

}  // namespace spyre_test
