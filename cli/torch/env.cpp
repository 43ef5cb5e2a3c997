// `env` in the torch part: the fingerprint names libtorch, its threads,
// the BLAS and the device under test (harness/env.h).
#include <algorithm>
#include <iostream>

#include "harness/env.h"
#include "torch_verbs.h"

namespace harness::cli {
namespace {

void PrintHuman(const nlohmann::json& fp) {
  for (const auto& [key, value] : fp.items()) {
    if (key == "blas") {
      const std::string core = value.value("core", "");
      std::cout << "blas: " << value["name"].get<std::string>() << " "
                << value["version"].get<std::string>() << (core.empty() ? "" : ", core " + core)
                << " (" << value["path"].get<std::string>() << ")\n";
    } else if (value.is_object()) {
      for (const auto& [k, v] : value.items()) {
        std::cout << key << "." << k << ": " << (v.is_string() ? v.get<std::string>() : v.dump())
                  << "\n";
      }
    } else {
      std::cout << key << ": " << (value.is_string() ? value.get<std::string>() : value.dump())
                << "\n";
    }
  }
}

}  // namespace

StatusOr<int> TorchEnv(const EnvRequest& request, const GlobalOptions& global) {
  // The threads and jobs a `run` with the same options gives each
  // worker (verb_run.cpp, run_execute.cpp), so that the fingerprints
  // agree: one thread per worker unless --threads says otherwise.
  const int total = global.threads > 0 ? global.threads : 1;
  SPYRE_RETURN_IF_ERROR(ConfigureThreads(std::max(1, total / request.jobs)).status());
  SPYRE_ASSIGN_OR_RETURN(auto fp, CollectFingerprint(request.tags));
  fp["jobs"] = request.jobs;
  if (request.json) {
    fp["fingerprint"] = FingerprintHash(fp);
    std::cout << fp.dump(2) << "\n";
  } else {
    PrintHuman(fp);
    std::cout << "fingerprint: " << FingerprintHash(fp) << "\n";
  }
  return 0;
}

}  // namespace harness::cli
