#pragma once
// The worker side of `spyre-regress run`: a fresh spyre-regress process that
// answers case requests over the pipes of frames.h until its supervisor
// closes the request pipe.
#include <functional>
#include <string>

#include "base/case_result.h"
#include "harness/runner/frames.h"

namespace harness {

// Runs one case in the worker. Must return a result for every request; a
// throw is caught by ServeWorker and becomes status `error`. `timed`: the
// case's wall time is measured (a latency case) or it runs once (parity
// only; WorkItem::timed). `judged` false: a timing round, whose result
// needs only the timing (WorkItem::judged).
using CaseExecutor = std::function<CaseResult(const std::string& suite, const std::string& case_id,
                                              bool timed, bool judged)>;

// Replaces the faults injected into the device under test (an --inject
// spec; "" for none).
using FaultSwitch = std::function<Status(const std::string& spec)>;

// The worker loop: sends hello (with `threads`, the libtorch thread count the
// caller set, and `device_preloaded`), then answers requests until the
// request pipe closes. Returns the process exit code (0 on a clean end, 2 on
// a protocol error).
//
// A request with "paired" ({"baseline_faults", "candidate_faults",
// "baseline_first"}; WorkItem::paired) runs the case twice in this process,
// once under each fault spec through `switch_faults`, in the order asked,
// and leaves the candidate's faults in force. The answer is the candidate's
// result with the baseline's whole result in extra["paired_baseline"]. A
// worker without `switch_faults`, or a switch that fails, answers `error`.
int ServeWorker(int request_fd, int result_fd, int threads, const CaseExecutor& execute,
                bool device_preloaded = false, const FaultSwitch& switch_faults = {});

}  // namespace harness
