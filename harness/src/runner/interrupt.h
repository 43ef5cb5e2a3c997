#pragma once
// Ctrl-C and SIGTERM during a run: while an InterruptWatch lives, SIGINT and
// SIGTERM set a flag and wake the supervisor's poll through a self-pipe, so
// the run can stop its workers and mark itself aborted instead of dying with
// the store mid-write. SIGPIPE is ignored (a dead worker's pipe is an error
// value, not a signal). The previous dispositions come back on destruction.
#include <signal.h>

namespace harness::runner_internal {

class InterruptWatch {
 public:
  InterruptWatch();
  ~InterruptWatch();
  InterruptWatch(const InterruptWatch&) = delete;
  InterruptWatch& operator=(const InterruptWatch&) = delete;

  int fd() const;            // readable once a signal arrived
  bool interrupted() const;  // a signal arrived
  int signal_number() const; // which one (0 when none)

 private:
  struct sigaction old_int_ {}, old_term_ {}, old_pipe_ {};
};

}  // namespace harness::runner_internal
