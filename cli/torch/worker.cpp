// The worker verb in the torch part: loads the device under test and the
// suites, then serves cases on fds 3 and 4 (harness/runner/worker_loop.h).
#include <algorithm>
#include <map>

#include "harness/device/device.h"
#include "harness/env.h"
#include "harness/runner/worker_loop.h"
#include "harness/case_kinds/case_kinds.h"
#include "torch_verbs.h"

namespace harness::cli {
namespace {

// Loads each suite once per worker; a case names its suite and id.
class SuiteCache {
 public:
  SuiteCache(const GlobalOptions& g, const WorkerOptions& w) {
    options_.suites_dir = g.suites_dir;
    options_.golden_dir = g.golden_dir;
    options_.warmup = w.warmup;
    options_.repeat = w.repeat;
    options_.min_sample_us = w.min_sample_us;
    max_repeat_ = w.max_repeat;
    options_.min_repeat = w.min_repeat;
  }

  CaseResult Execute(const std::string& suite_name, const std::string& case_id, bool timed,
                     bool judged) {
    auto it = suites_.find(suite_name);
    if (it == suites_.end()) {
      StatusOr<SuiteSpec> loaded = LoadSuite(options_.suites_dir, suite_name);
      if (!loaded.ok()) return CaseResult::Error(loaded.status().message(), suite_name, case_id);
      it = suites_.emplace(suite_name, std::move(*loaded)).first;
    }
    for (const CaseSpec& c : it->second.cases) {
      if (c.id != case_id) continue;
      ExecOptions options = options_;
      if (max_repeat_ > 0) {
        options.repeat =
            std::min(options.repeat >= 0 ? options.repeat : it->second.repeat, max_repeat_);
      }
      options.timed = timed;
      options.judged = judged;
      return ExecuteCase(it->second, c, options);
    }
    return CaseResult::Error("no case '" + case_id + "' in suite " + suite_name, suite_name,
                             case_id);
  }

 private:
  ExecOptions options_;
  int max_repeat_ = -1;
  std::map<std::string, SuiteSpec> suites_;
};

}  // namespace

StatusOr<int> TorchWorker(const WorkerOptions& options, const GlobalOptions& global) {
  SPYRE_ASSIGN_OR_RETURN(auto threads, ConfigureThreads(global.threads));
  // Mapped already in a worker forked from the run's zygote, which loaded
  // it (runner/zygote.h); said in the hello.
  const bool preloaded = DeviceLibraryMapped();
  // The device first, so the judge's yardstick follows its storage
  // format from the first case on; a device that cannot be loaded makes
  // every case an error naming why (the run checked it already).
  (void)LoadDeviceUnderTest();
  SuiteCache cache(global, options);
  return ServeWorker(
      kWorkerRequestFd, kWorkerResultFd, threads,
      [&cache](const std::string& suite, const std::string& id, bool timed, bool judged) {
        return cache.Execute(suite, id, timed, judged);
      },
      preloaded, [](const std::string& spec) -> Status {
        SPYRE_ASSIGN_OR_RETURN(const DeviceUnderTest* device, LoadDeviceUnderTest());
        SPYRE_RETURN_IF_ERROR(device->InjectFaults(spec));
        // The case kinds' own fault points (the serving engine's) follow.
        SetFaultPointSpec(spec);
        return Status::Ok();
      });
}

}  // namespace harness::cli
