// Tests for the forking test main, run by forking_main_test.sh: each test of
// a binary runs in a process of its own. They pass only when that holds (and
// fail when the binary runs them in one process); the Probe tests fail or hang
// on request, to check that the main reports them.
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

namespace {

int touched = 0;        // set by the first test; a fresh process starts at 0
pid_t first_pid = 0;    // the first test's process

TEST(Isolation, AFirstTestChangesProcessState) {
  EXPECT_EQ(touched, 0);
  touched = 1;
  first_pid = getpid();
  setenv("FORKING_MAIN_PROBE_LEAK", "1", 1);
}

TEST(Isolation, TheNextTestSeesNoneOfIt) {
  EXPECT_EQ(touched, 0) << "a global set by another test";
  EXPECT_EQ(std::getenv("FORKING_MAIN_PROBE_LEAK"), nullptr) << "an environment variable set by another test";
  EXPECT_NE(getpid(), first_pid);
}

TEST(Probe, FailsOnRequest) {
  EXPECT_EQ(std::getenv("FORKING_MAIN_PROBE_FAIL"), nullptr) << "asked to fail";
}

TEST(Probe, HangsOnRequest) {
  if (std::getenv("FORKING_MAIN_PROBE_HANG") != nullptr) pause();
  EXPECT_EQ(std::getenv("FORKING_MAIN_PROBE_HANG"), nullptr);
}

TEST(Probe, CrashesOnRequest) {
  if (std::getenv("FORKING_MAIN_PROBE_CRASH") != nullptr) std::abort();
  EXPECT_EQ(std::getenv("FORKING_MAIN_PROBE_CRASH"), nullptr);
}

// gtest's "threadsafe" death tests re-run the binary to reach the statement;
// that run must be plain gtest, not another forking main.
TEST(Probe, ThreadsafeDeathTestsWork) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::abort(), ::testing::KilledBySignal(SIGABRT), "");
}

}  // namespace
