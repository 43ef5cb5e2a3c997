// The torch part's entry point: its verbs as the program loads them
// (cli/torch_part.h). A libtorch exception that leaves a verb becomes the
// one-line error the program prints (exit 2), as any failure of a verb.
#include <string>
#include <utility>

#include <c10/util/Exception.h>

#include "base/build_info.h"
#include "torch_verbs.h"

namespace harness::cli {
namespace {

// What the program prints for a libtorch exception: its first line (the
// message carries a backtrace after it).
Status LibtorchFailure(const c10::Error& e) {
  const std::string what = e.what_without_backtrace();
  return InternalError("unexpected failure in libtorch: " + what.substr(0, what.find('\n')));
}

template <auto Fn, typename... Args>
auto Guarded(Args... args) -> decltype(Fn(std::forward<Args>(args)...)) {
  try {
    return Fn(std::forward<Args>(args)...);
  } catch (const c10::Error& e) {
    return LibtorchFailure(e);
  }
}

TorchVerbs MakeTorchVerbs() {
  TorchVerbs v;
  v.version = HarnessVersion();
  v.revision = HarnessGitRevision();
  v.run = Guarded<TorchRun, const RunRequest&, const GlobalOptions&, WorkerEntry>;
  v.golden_generate = Guarded<TorchGoldenGenerate, const GoldenOptions&, const GlobalOptions&>;
  v.golden_verify = Guarded<TorchGoldenVerify, const GoldenOptions&, const GlobalOptions&>;
  v.list = Guarded<TorchList, const ListOptions&, const GlobalOptions&>;
  v.env = Guarded<TorchEnv, const EnvRequest&, const GlobalOptions&>;
  v.worker = Guarded<TorchWorker, const WorkerOptions&, const GlobalOptions&>;
  v.bisect = Guarded<TorchBisect, const RunRequest&, const BisectRequest&, const GlobalOptions&, WorkerEntry>;
  return v;
}

}  // namespace
}  // namespace harness::cli

extern "C" __attribute__((visibility("default"))) const harness::cli::TorchVerbs*
spyre_regress_torch_verbs() {
  static const harness::cli::TorchVerbs verbs = harness::cli::MakeTorchVerbs();
  return &verbs;
}
