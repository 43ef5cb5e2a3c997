#pragma once
// Ctrl-C, SIGTERM and SIGHUP during a run: while an InterruptWatch lives, they
// set a flag and wake the supervisor's poll through a pipe (a SignalDeferral,
// base/exit_signals.h), so the run can stop its workers and mark itself
// aborted instead of dying with the store mid-write. SIGPIPE is ignored (a
// dead worker's pipe is an error value, not a signal); its previous
// disposition comes back on destruction.
#include <signal.h>

#include "base/exit_signals.h"

namespace harness::runner_internal {

class InterruptWatch {
 public:
  InterruptWatch();
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  int fd() const { return deferral_.fd(); }                    // readable once a signal arrived
  bool interrupted() const { return deferral_.raised(); }      // a signal arrived
  int signal_number() const { return deferral_.signal_number(); }  // which one (0 when none)
  void Handled() { deferral_.Handled(); }  // the run stops because of it

 private:
  mutable SignalDeferral deferral_;
  struct sigaction old_pipe_ {};
};

}  // namespace harness::runner_internal
