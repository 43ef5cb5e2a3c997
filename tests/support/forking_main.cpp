// The main() of every test binary: each selected test runs alone in a child
// process forked from this one. A test gets a fresh process, as if the binary
// were started once per test, but libtorch's start-up (loading and relocating
// its ~290 shared libraries, about a CPU second) is paid once per binary.
// The parent runs no test and no kernel before it forks, so the children
// start from the state a fresh process would have.
//
//   cli_tests                        every test, one child each
//   cli_tests --gtest_filter='Cli*'  the tests that match
//   SPYRE_TEST_SHARDS=3 SPYRE_TEST_SHARD=0 cli_tests
//                                    every third test, from the first (how
//                                    ctest splits a binary over its jobs)
//   SPYRE_TEST_IN_PROCESS=1 cli_tests
//                                    plain gtest: every test in this process
//   SPYRE_TEST_TIMEOUT=S             seconds one test may take (600)
//
// Listing (--gtest_list_tests) and gtest's death-test children run in
// process as gtest does.
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace {

// gtest's filter syntax: positive patterns, then '-' and negative patterns,
// each ':'-separated; '*' any run of characters, '?' one character.
bool GlobMatches(const char* pattern, const char* end, const char* name) {
  while (pattern != end) {
    if (*pattern == '*') {
      for (const char* rest = name;; ++rest) {
        if (GlobMatches(pattern + 1, end, rest)) return true;
        if (*rest == '\0') return false;
      }
    }
    if (*name == '\0' || (*pattern != '?' && *pattern != *name)) return false;
    ++pattern;
    ++name;
  }
  return *name == '\0';
}

bool AnyMatches(const std::string& patterns, const std::string& name) {
  size_t from = 0;
  while (from <= patterns.size()) {
    size_t to = patterns.find(':', from);
    if (to == std::string::npos) to = patterns.size();
    if (GlobMatches(patterns.data() + from, patterns.data() + to, name.c_str())) return true;
    from = to + 1;
  }
  return false;
}

bool FilterSelects(const std::string& filter, const std::string& name) {
  const size_t dash = filter.find('-');
  const std::string positive = dash == std::string::npos ? filter : filter.substr(0, dash);
  const std::string negative = dash == std::string::npos ? "" : filter.substr(dash + 1);
  if (!AnyMatches(positive.empty() ? "*" : positive, name)) return false;
  return negative.empty() || !AnyMatches(negative, name);
}

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  if (*end != '\0' || n < 0 || n > 1000000) {
    std::cerr << "forking test main: " << name << "='" << v << "' is not a count\n";
    std::exit(2);
  }
  return static_cast<int>(n);
}

// Asked before InitGoogleTest, which takes gtest's flags out of argv: a
// "threadsafe" death test re-runs this binary with an internal flag, and
// that run must be plain gtest.
bool IsDeathTestChild(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--gtest_internal_run_death_test", 31) == 0) return true;
  }
  return false;
}

bool WantsInProcess() {
  const char* v = std::getenv("SPYRE_TEST_IN_PROCESS");
  return (v != nullptr && std::strcmp(v, "1") == 0) || GTEST_FLAG_GET(list_tests);
}

// The selected tests' full names, in gtest's order.
std::vector<std::string> SelectedTests(int shards, int shard) {
  const std::string filter = GTEST_FLAG_GET(filter);
  const bool disabled_too = GTEST_FLAG_GET(also_run_disabled_tests);
  const testing::UnitTest& unit = *testing::UnitTest::GetInstance();
  std::vector<std::string> names;
  int index = 0;
  for (int s = 0; s < unit.total_test_suite_count(); ++s) {
    const testing::TestSuite& suite = *unit.GetTestSuite(s);
    for (int t = 0; t < suite.total_test_count(); ++t) {
      const testing::TestInfo& info = *suite.GetTestInfo(t);
      const std::string name = std::string(suite.name()) + "." + info.name();
      const bool disabled = std::strncmp(suite.name(), "DISABLED_", 9) == 0 ||
                            std::strncmp(info.name(), "DISABLED_", 9) == 0;
      if (disabled && !disabled_too) continue;
      if (!FilterSelects(filter, name)) continue;
      if (index++ % shards == shard) names.push_back(name);
    }
  }
  return names;
}

// Runs one test in a child; returns a description of its failure, or "".
std::string RunInChild(const std::string& name, int timeout_s) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) return std::string("fork failed: ") + std::strerror(errno);
  if (pid == 0) {
    setpgid(0, 0);  // the test and whatever it starts, killed together on timeout
    GTEST_FLAG_SET(filter, name);
    const int rc = RUN_ALL_TESTS();
    std::fflush(nullptr);
    _exit(rc);
  }
  setpgid(pid, pid);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  auto pause = std::chrono::milliseconds(1);
  for (;;) {
    const pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == pid) break;
    if (got < 0 && errno != EINTR) return std::string("waitpid failed: ") + std::strerror(errno);
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      return "timed out after " + std::to_string(timeout_s) + " s (SPYRE_TEST_TIMEOUT)";
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  if (WEXITSTATUS(status) != 0) return "exit code " + std::to_string(WEXITSTATUS(status));
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  const bool death_test_child = IsDeathTestChild(argc, argv);
  testing::InitGoogleTest(&argc, argv);
  if (death_test_child || WantsInProcess()) return RUN_ALL_TESTS();

  const int shards = std::max(1, EnvInt("SPYRE_TEST_SHARDS", 1));
  const int shard = EnvInt("SPYRE_TEST_SHARD", 0);
  if (shard >= shards) {
    std::cerr << "forking test main: SPYRE_TEST_SHARD=" << shard << " is not below SPYRE_TEST_SHARDS="
              << shards << "\n";
    return 2;
  }
  const int timeout_s = std::max(1, EnvInt("SPYRE_TEST_TIMEOUT", 600));
  const std::vector<std::string> names = SelectedTests(shards, shard);

  std::vector<std::string> failed;
  const auto start = std::chrono::steady_clock::now();
  for (const std::string& name : names) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string failure = RunInChild(name, timeout_s);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("[ %s ] %s (%.2f s)%s%s\n", failure.empty() ? "    OK    " : "  FAILED  ", name.c_str(),
                s, failure.empty() ? "" : ": ", failure.c_str());
    if (!failure.empty()) failed.push_back(name);
  }
  const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("forking test main: %zu tests in %.1f s, one process each (shard %d of %d); %zu failed\n",
              names.size(), total, shard + 1, shards, failed.size());
  for (const std::string& name : failed) std::printf("  FAILED %s\n", name.c_str());
  std::fflush(nullptr);
  return failed.empty() ? 0 : 1;
}
