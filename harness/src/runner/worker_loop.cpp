// The worker boundary: everything a case throws stops here and becomes an
// `error` result, so only a real crash (signal, abort, hang) loses a worker.
#include <unistd.h>

#include <chrono>
#include <exception>
#include <iostream>

#include "harness/runner/worker_loop.h"
#include "harness/wall_sampler.h"

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

// Both configurations of a paired request in this process, so that whatever
// this process's placement and the machine's state do to the case, they do
// to both (runner/confirm.h). A kind that samples through TakeWallSamples
// (or alternates the same way in its own loop, as decode does) alternates
// them sample by sample (harness/wall_sampler.h), and the baseline's
// configuration then gets an untimed pass of its own for its traced ops and
// modeled time; any other kind runs the case under one and then the other,
// `baseline_first` saying which goes first.
CaseResult ExecutePaired(const CaseExecutor& execute, const FaultSwitch& switch_faults,
                         const nlohmann::json& paired, const std::string& suite,
                         const std::string& case_id, bool timed, bool judged) {
  if (!switch_faults) {
    return CaseResult::Error("this worker cannot switch injected faults for a paired timing",
                             suite, case_id);
  }
  const std::string specs[2] = {paired.value("baseline_faults", ""),
                                paired.value("candidate_faults", "")};
  const int first = paired.value("baseline_first", false) ? 0 : 1;
  const auto fail = [&](const std::string& why) {
    (void)switch_faults(specs[1]);
    return CaseResult::Error("paired timing: " + why, suite, case_id);
  };
  PairedSides sides;
  sides.first = first;
  sides.set_side = [&](int side) { return switch_faults(specs[side]).ok(); };
  if (Status s = switch_faults(specs[first]); !s.ok()) return fail(s.message());
  CaseResult opened;
  {
    ScopedPairedSides scope(&sides);
    opened = ExecuteGuarded(execute, suite, case_id, timed, judged);
  }
  CaseResult results[2];  // [0] the baseline's faults, [1] the candidate's
  if (sides.used) {
    if (sides.failed) return fail("the device refused to switch faults between samples");
    results[1] = std::move(opened);
    if (Status s = switch_faults(specs[0]); !s.ok()) return fail(s.message());
    results[0] = ExecuteGuarded(execute, suite, case_id, /*timed=*/false, judged);
    nlohmann::json& extra = results[1].extra;
    const auto samples = [&](const char* key) {
      const auto it = extra.find(key);
      std::vector<double> v;
      if (it != extra.end() && it->is_array()) v = it->get<std::vector<double>>();
      extra.erase(key);
      return v;
    };
    results[0].wall_us = samples("paired_wall_us");
    results[0].queue_us = samples("paired_queue_us");
  } else {
    results[first] = std::move(opened);
    if (Status s = switch_faults(specs[1 - first]); !s.ok()) return fail(s.message());
    results[1 - first] = ExecuteGuarded(execute, suite, case_id, timed, judged);
  }
  if (Status s = switch_faults(specs[1]); !s.ok()) return fail(s.message());
  CaseResult r = std::move(results[1]);
  results[0].extra = nlohmann::json::object();  // its timing is what is wanted
  r.extra["paired_baseline"] = ToJson(results[0]);
  r.extra["paired_sampling"] = sides.used ? "interleaved" : "in turn";
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
