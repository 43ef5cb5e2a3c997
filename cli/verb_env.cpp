// `spyre-regress env [--json] [--tag K=V] [--jobs N]`: the environment
// fingerprint of this machine, as a `run` with the same options records it.
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli.h"
#include "harness/env.h"

namespace harness::cli {
namespace {

struct EnvOptions {
  bool json = false;
  int jobs = 1;
  std::vector<std::string> tags;
};

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

void AddEnvVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<EnvOptions>();
  CLI::App* cmd = app.add_subcommand("env", "print the environment fingerprint of this machine");
  cmd->add_flag("--json", opts->json, "one JSON document on stdout");
  cmd->add_option("--tag", opts->tags, "extra K=V recorded with the fingerprint (repeatable)");
  cmd->add_option("--jobs,-j", opts->jobs,
                  "as for `run`: the fingerprint a run with this many workers records")
      ->check(CLI::Range(1, 256));
  cmd->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> {
      // The threads and jobs a `run` with the same options gives each
      // worker (verb_run.cpp, run_execute.cpp), so that the fingerprints
      // agree: one thread per worker unless --threads says otherwise.
      const int total = global.threads > 0 ? global.threads : 1;
      SPYRE_RETURN_IF_ERROR(ConfigureThreads(std::max(1, total / opts->jobs)).status());
      SPYRE_ASSIGN_OR_RETURN(auto tags, ParseTags(opts->tags));
      SPYRE_ASSIGN_OR_RETURN(auto fp, CollectFingerprint(tags));
      fp["jobs"] = opts->jobs;
      if (opts->json) {
        fp["fingerprint"] = FingerprintHash(fp);
        std::cout << fp.dump(2) << "\n";
      } else {
        PrintHuman(fp);
        std::cout << "fingerprint: " << FingerprintHash(fp) << "\n";
      }
      return 0;
    };
  });
}

SPYRE_REGISTER_VERB(90, AddEnvVerb);

}  // namespace harness::cli
