#include "base/exit_signals.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

namespace harness {
namespace {

// A signal handler reaches nothing but these; each is written in a way that
// a handler interrupting the write still reads something whole.
constexpr int kSlots = 64;
constexpr size_t kPathMax = 4096;
// A slot is free (0), being filled (1) or armed (2); a handler removes only
// armed paths, never one half written.
char g_paths[kSlots][kPathMax];
std::atomic<int> g_state[kSlots];

std::atomic<int> g_defer_depth{0};
volatile sig_atomic_t g_signal = 0;
std::atomic<bool> g_handled{false};  // the deferred signal was acted on
int g_pipe[2] = {-1, -1};
std::atomic<pid_t> g_owner{0};
std::atomic<bool> g_installed{false};

void WriteAll(const char* text) {
  size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

const char* NameOf(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "a signal";
  }
}

void OnSignal(int sig) {
  const int saved_errno = errno;
  if (::getpid() != g_owner.load()) {
    // A forked child that kept our handlers: the default action, as if we
    // had never installed any.
    ::signal(sig, SIG_DFL);
    ::raise(sig);
    errno = saved_errno;
    return;
  }
  g_signal = sig;
  if (g_defer_depth.load() > 0) {
    if (g_pipe[1] >= 0) {
      const char byte = 1;
      const ssize_t ignored = ::write(g_pipe[1], &byte, 1);
      (void)ignored;
    }
    errno = saved_errno;
    return;
  }
  int removed = 0;
  for (int i = 0; i < kSlots; ++i) {
    if (g_state[i].load() == 2 && ::unlink(g_paths[i]) == 0) ++removed;
  }
  // Then the directories a verb created for its files, once those are gone:
  // rmdir removes only an empty one, and nested ones go over a few passes.
  for (int pass = 0; pass < 4; ++pass) {
    for (int i = kSlots - 1; i >= 0; --i) {
      if (g_state[i].load() == 2) (void)::rmdir(g_paths[i]);
    }
  }
  WriteAll("spyre-regress: error: stopped by ");
  WriteAll(NameOf(sig));
  WriteAll(removed > 0 ? "; the file it was writing was removed, and a store keeps only what was"
                         " committed before the signal\n"
                       : "; a store keeps only what was committed before the signal\n");
  ::_exit(2);
}

}  // namespace

void InstallExitSignals() {
  g_owner.store(::getpid());
  if (!g_installed.exchange(true) && ::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    g_pipe[0] = g_pipe[1] = -1;
  }
  // Always (re)installed: a library loaded since (libtorch 2.x hooks SIGINT
  // and SIGHUP to set a flag of its own) may have replaced the handlers.
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  // One handler at a time: a second signal waits until the first is handled.
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, sig);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::sigaction(sig, &sa, nullptr);
}

bool ExitSignalsInstalled() { return g_installed.load() && g_owner.load() == ::getpid(); }

std::string SignalName(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(sig);
  }
}

TempFileGuard::TempFileGuard(const std::string& path) {
  if (path.size() >= kPathMax) return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (!g_state[i].compare_exchange_strong(expected, 1)) continue;
    std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
    g_state[i].store(2);
    slot_ = i;
    return;
  }
}

TempFileGuard::~TempFileGuard() {
  if (slot_ >= 0) g_state[slot_].store(0);
}

// The outermost deferral starts with no signal pending; a nested one keeps
// what arrived under the outer one.
SignalDeferral::SignalDeferral() {
  InstallExitSignals();
  if (g_defer_depth.fetch_add(1) == 0) {
    g_signal = 0;
    g_handled.store(false);
    char drain[64];
    while (g_pipe[0] >= 0 && ::read(g_pipe[0], drain, sizeof(drain)) > 0) {
    }
  }
}

// A signal that came while deferred and that nobody acted on is delivered
// again once nothing defers it, and ends the program as it would have.
SignalDeferral::~SignalDeferral() {
  if (g_defer_depth.fetch_sub(1) == 1 && g_signal != 0 && !g_handled.load()) ::raise(g_signal);
}

void SignalDeferral::Handled() { g_handled.store(true); }

int SignalDeferral::fd() const { return g_pipe[0]; }
bool SignalDeferral::raised() const { return g_signal != 0; }
int SignalDeferral::signal_number() const { return g_signal; }

}  // namespace harness
