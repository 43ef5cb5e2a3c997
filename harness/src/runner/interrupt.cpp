#include "runner/interrupt.h"

namespace harness::runner_internal {

InterruptWatch::InterruptWatch() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  ::sigaction(SIGPIPE, &ignore, &old_pipe_);
}

InterruptWatch::~InterruptWatch() { ::sigaction(SIGPIPE, &old_pipe_, nullptr); }

}  // namespace harness::runner_internal
