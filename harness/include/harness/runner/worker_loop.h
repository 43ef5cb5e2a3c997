#pragma once
// The worker side of `spyre-regress run`: a fresh spyre-regress process that
// answers case requests over the pipes of frames.h until its supervisor
// closes the request pipe.
#include <functional>
#include <string>

#include "harness/case_result.h"
#include "harness/runner/frames.h"

namespace harness {

// Runs one case in the worker. Must return a result for every request; a
// throw is caught by ServeWorker and becomes status `error`. `timed`: the
// case's wall time is measured (a latency case) or it runs once (parity
// only; WorkItem::timed). `judged` false: a timing round, whose result
// needs only the timing (WorkItem::judged).
using CaseExecutor = std::function<CaseResult(const std::string& suite, const std::string& case_id,
                                              bool timed, bool judged)>;

// The worker loop: sends hello (with `threads`, the libtorch thread count the
// caller set, and `device_preloaded`), then answers requests until the
// request pipe closes. Returns the process exit code (0 on a clean end, 2 on
// a protocol error).
int ServeWorker(int request_fd, int result_fd, int threads, const CaseExecutor& execute,
                bool device_preloaded = false);

}  // namespace harness
