#include "runner/interrupt.h"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>

namespace harness::runner_internal {
namespace {

// A signal handler can reach nothing but globals; these are the only mutable
// globals of the runner, written only while an InterruptWatch is alive.
volatile std::sig_atomic_t g_signal = 0;
int g_pipe[2] = {-1, -1};

void OnSignal(int sig) {
  g_signal = sig;
  if (g_pipe[1] >= 0) {
    char byte = 1;
    ssize_t ignored = ::write(g_pipe[1], &byte, 1);
    (void)ignored;
  }
}

}  // namespace

InterruptWatch::InterruptWatch() {
  g_signal = 0;
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) g_pipe[0] = g_pipe[1] = -1;
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, &old_int_);
  ::sigaction(SIGTERM, &sa, &old_term_);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, &old_pipe_);
}

InterruptWatch::~InterruptWatch() {
  ::sigaction(SIGINT, &old_int_, nullptr);
  ::sigaction(SIGTERM, &old_term_, nullptr);
  ::sigaction(SIGPIPE, &old_pipe_, nullptr);
  for (int& fd : g_pipe) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
}

int InterruptWatch::fd() const { return g_pipe[0]; }
bool InterruptWatch::interrupted() const { return g_signal != 0; }
int InterruptWatch::signal_number() const { return g_signal; }

}  // namespace harness::runner_internal
