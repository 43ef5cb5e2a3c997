// SIGINT, SIGTERM and SIGHUP: one line and exit 2 outside a deferral, a
// recorded signal inside one, temporary files removed either way.
#include "base/exit_signals.h"

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace harness {
namespace {

// Runs `body` in a child with stderr in `err`; returns its wait status.
template <typename F>
int InChild(const std::string& err, F body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    std::freopen(err.c_str(), "w", stderr);
    body();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(ExitSignalsTest, ASignalEndsTheProgramWithOneLineAndRemovesGuardedFiles) {
  spyre_test::TempDir dir;
  for (int sig : {SIGTERM, SIGHUP, SIGINT}) {
    const std::string tmp = dir.File("out.partial"), err = dir.File("err");
    std::ofstream(tmp) << "half";
    const int status = InChild(err, [&] {
      InstallExitSignals();
      TempFileGuard guard(tmp);
      ::raise(sig);
      ::_exit(7);  // not reached
    });
    ASSERT_TRUE(WIFEXITED(status)) << SignalName(sig);
    EXPECT_EQ(WEXITSTATUS(status), 2);
    EXPECT_FALSE(std::filesystem::exists(tmp)) << SignalName(sig);
    const std::string line = spyre_test::ReadFile(err);
    EXPECT_EQ(line.find("spyre-regress: error: stopped by " + SignalName(sig)), 0u) << line;
    EXPECT_EQ(line.find('\n'), line.size() - 1) << "one line: " << line;
  }
}

TEST(ExitSignalsTest, ADeferredSignalIsRecordedAndDeliveredIfNotHandled) {
  spyre_test::TempDir dir;
  const std::string err = dir.File("err");
  // Handled: the program goes on.
  int status = InChild(err, [] {
    InstallExitSignals();
    {
      SignalDeferral d;
      ::raise(SIGTERM);
      if (!d.raised() || d.signal_number() != SIGTERM) ::_exit(3);
      d.Handled();
    }
    ::_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // Not handled: delivered when the outermost deferral ends.
  status = InChild(err, [] {
    InstallExitSignals();
    {
      SignalDeferral outer;
      {
        SignalDeferral inner;
        ::raise(SIGHUP);
      }
      if (!outer.raised()) ::_exit(3);  // kept for the outer one
    }
    ::_exit(0);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(spyre_test::ReadFile(err).find("stopped by SIGHUP"), std::string::npos);
}

TEST(ExitSignalsTest, AForkedChildDiesOfTheSignalAsIfNoHandlerWereThere) {
  spyre_test::TempDir dir;
  const int status = InChild(dir.File("err"), [] {
    InstallExitSignals();
    const pid_t child = ::fork();
    if (child == 0) {
      ::raise(SIGTERM);
      ::_exit(5);
    }
    int s = 0;
    ::waitpid(child, &s, 0);
    ::_exit(WIFSIGNALED(s) && WTERMSIG(s) == SIGTERM ? 0 : 4);
  });
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace harness
