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

}  // namespace

int ServeWorker(int request_fd, int result_fd, int threads, const CaseExecutor& execute,
                bool device_preloaded) {
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
    CaseResult result = ExecuteGuarded(execute, suite, case_id, timed, judged);
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
