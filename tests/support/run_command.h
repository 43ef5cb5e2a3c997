#pragma once
// Runs a program as a child process and captures what it printed, for the
// end-to-end tests of the built CLI.
#include <map>
#include <string>
#include <vector>

namespace spyre_test {

struct CommandResult {
  int exit_code = -1;   // the exit status, or 128 + signal when killed
  std::string out;      // stdout
  std::string err;      // stderr
  long max_rss_kb = 0;  // the child's peak resident set (its own, not its children's)
};

// Runs `argv` (argv[0] is a path) with extra environment variables added to the
// current environment; waits at most `timeout_s` seconds, then kills it.
CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env = {}, int timeout_s = 300);

// RunCommand with `cwd` as the child's working directory ("" keeps ours).
CommandResult RunCommandIn(const std::string& cwd, const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& env = {}, int timeout_s = 300);

// The spyre-regress the tests run: the one built with them, or the binary
// SPYRE_REGRESS_TEST_BIN names (to run a test against another build, e.g.
// the one before a fix, and see it fail).
std::string CliPath();

// RunCommand on the built spyre-regress with the given arguments.
CommandResult RunCli(const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& env = {}, int timeout_s = 300);
// The same, run in the directory `cwd`.
CommandResult RunCliIn(const std::string& cwd, const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env = {}, int timeout_s = 300);

// The first of `names` found as an executable in a PATH directory, or "".
std::string FindProgram(const std::vector<std::string>& names);

// Counts the lines of `text`.
int LineCount(const std::string& text);

}  // namespace spyre_test
