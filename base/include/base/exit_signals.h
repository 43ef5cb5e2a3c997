#pragma once
// SIGINT, SIGTERM and SIGHUP, from the program's first instruction on.
//
// Outside a run's supervision each of them ends the program at once with one
// line on stderr ("stopped by SIGTERM ...") and exit code 2, after removing
// every temporary file still registered with a TempFileGuard. Nothing else
// needs cleaning: a file is written aside and renamed into place (OutputFile),
// and SQLite discards a transaction that was not committed when the store is
// next opened.
//
// While a SignalDeferral lives (a run's supervisor), the signals only set a
// flag and wake a pipe, so that the run can stop its workers and record
// itself as aborted; the run then exits 2 itself. Deferrals nest: a signal
// that arrives between two supervisors of one run stays pending for the next.
//
// Processes forked from this one without exec (the worker zygote) are never
// ended by these handlers on the parent's behalf: in a child they restore the
// default action and raise the signal again.
#include <string>

namespace harness {

// Installs the handlers, again if a library loaded since replaced them
// (libtorch 2.x hooks SIGINT and SIGHUP); main calls it first thing, the
// CLI again once libtorch is loaded, and every SignalDeferral.
void InstallExitSignals();

// Whether this process installed them (a worker, or a child forked from a
// process that did, has not).
bool ExitSignalsInstalled();

// "SIGTERM", "SIGHUP", "SIGINT", else "signal N".
std::string SignalName(int sig);

// A path the handlers remove (unlink; rmdir for a directory, when empty) if
// a signal ends the program while the guard lives. At most 64 paths are registered at once; one more is ignored
// (registered() says so) and merely not cleaned up on a signal.
class TempFileGuard {
 public:
  explicit TempFileGuard(const std::string& path);
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  bool registered() const { return slot_ >= 0; }

 private:
  int slot_ = -1;
};

// While one lives, the signals are recorded instead of ending the program.
class SignalDeferral {
 public:
  SignalDeferral();
  ~SignalDeferral();
  SignalDeferral(const SignalDeferral&) = delete;
  SignalDeferral& operator=(const SignalDeferral&) = delete;

  int fd() const;             // readable once a signal arrived
  bool raised() const;        // a signal arrived (while deferred)
  int signal_number() const;  // which one (0 when none)
  // The signal was acted on (the run stopped and was recorded as aborted).
  // A signal not marked so is delivered again when the outermost deferral
  // ends, and ends the program as it would have without one.
  void Handled();
};

}  // namespace harness
