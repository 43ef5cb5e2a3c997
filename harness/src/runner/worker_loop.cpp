// The worker boundary: everything a case throws stops here and becomes an
// `error` result, so only a real crash (signal, abort, hang) loses a worker.
#include <unistd.h>

#include <chrono>
#include <exception>
#include <iostream>

#include "harness/runner/worker_loop.h"

namespace harness {
namespace {

CaseResult ExecuteGuarded(const CaseExecutor& execute, const std::string& suite,
                          const std::string& case_id, bool timed, bool judged) {
  try {
    CaseResult r = execute(suite, case_id, timed, judged);
    // The supervisor files the record under what it asked for.
    r.suite = suite;
    r.case_id = case_id;
    return r;
  } catch (const std::exception& e) {
    return CaseResult::Error(std::string("exception escaped the case: ") + e.what(), suite,
                             case_id);
  } catch (...) {
    return CaseResult::Error("a non-standard exception escaped the case", suite, case_id);
  }
}

// Both configurations of a paired request, one after the other in this
// process, so that whatever this process's placement and the machine's
// state do to the case, they do to both (runner/confirm.h).
CaseResult ExecutePaired(const CaseExecutor& execute, const FaultSwitch& switch_faults,
                         const nlohmann::json& paired, const std::string& suite,
                         const std::string& case_id, bool timed, bool judged) {
  if (!switch_faults) {
    return CaseResult::Error("this worker cannot switch injected faults for a paired timing",
                             suite, case_id);
  }
  const std::string specs[2] = {paired.value("baseline_faults", ""),
                                paired.value("candidate_faults", "")};
  const bool baseline_first = paired.value("baseline_first", false);
  CaseResult sides[2];  // [0] the baseline's faults, [1] the candidate's
  for (int k = 0; k < 2; ++k) {
    const int side = (k == 0) == baseline_first ? 0 : 1;
    if (Status s = switch_faults(specs[side]); !s.ok()) {
      (void)switch_faults(specs[1]);
      return CaseResult::Error("paired timing: " + s.message(), suite, case_id);
    }
    sides[side] = ExecuteGuarded(execute, suite, case_id, timed, judged);
  }
  if (Status s = switch_faults(specs[1]); !s.ok()) {
    return CaseResult::Error("paired timing: " + s.message(), suite, case_id);
  }
  CaseResult r = std::move(sides[1]);
  sides[0].extra = nlohmann::json::object();  // its timing is what is wanted
  r.extra["paired_baseline"] = ToJson(sides[0]);
  return r;
}

}  // namespace

int ServeWorker(int request_fd, int result_fd, int threads, const CaseExecutor& execute,
                bool device_preloaded, const FaultSwitch& switch_faults) {
  if (Status s = WriteFrame(result_fd, {{"type", "hello"},
                                        {"pid", ::getpid()},
                                        {"threads", threads},
                                        {"device_preloaded", device_preloaded}});
      !s.ok()) {
    std::cerr << "spyre-regress worker: " << s.message() << "\n";
    return 2;
  }
  for (;;) {
    StatusOr<std::optional<nlohmann::json>> request = ReadFrame(request_fd);
    if (!request.ok()) {
      std::cerr << "spyre-regress worker: " << request.status().message() << "\n";
      return 2;
    }
    if (!request->has_value()) return 0;  // the supervisor closed the pipe: done
    const nlohmann::json& req = **request;
    const std::string suite = req.value("suite", "");
    const std::string case_id = req.value("case", "");
    const bool timed = req.value("timed", true);
    const bool judged = req.value("judged", true);
    const auto start = std::chrono::steady_clock::now();
    const auto paired = req.find("paired");
    CaseResult result = paired != req.end() && paired->is_object()
                            ? ExecutePaired(execute, switch_faults, *paired, suite, case_id,
                                            timed, judged)
                            : ExecuteGuarded(execute, suite, case_id, timed, judged);
    // Time inside the case (inputs, device, reference, comparison): the
    // supervisor's elapsed time minus this is the harness's own overhead.
    result.extra["harness"]["execute_us"] =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    nlohmann::json record = {{"type", "result"}, {"result", ToJson(result)}};
    if (Status s = WriteFrame(result_fd, record); !s.ok()) {
      std::cerr << "spyre-regress worker: " << s.message() << "\n";
      return 2;
    }
  }
}

}  // namespace harness
