// `spyre-regress env [--json] [--tag K=V] [--jobs N]`: the environment
// fingerprint of this machine, as a `run` with the same options records it.
// It names libtorch and the device under test: the work is the torch
// part's (cli/torch/env.cpp).
#include <memory>

#include "validators.h"
#include "cli.h"
#include "torch_part.h"

namespace harness::cli {
namespace {

struct EnvOptions {
  bool json = false;
  int jobs = 1;
  std::vector<std::string> tags;
};

}  // namespace

void AddEnvVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<EnvOptions>();
  CLI::App* cmd = app.add_subcommand("env", "print the environment fingerprint of this machine");
  cmd->add_flag("--json", opts->json, "one JSON document on stdout");
  cmd->add_option("--tag", opts->tags, "extra K=V recorded with the fingerprint (repeatable)");
  cmd->add_option("--jobs,-j", opts->jobs,
                  "as for `run`: the fingerprint a run with this many workers records")
      ->check(InRange(1, 256));
  cmd->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> {
      EnvRequest request;
      request.json = opts->json;
      request.jobs = opts->jobs;
      SPYRE_ASSIGN_OR_RETURN(request.tags, ParseTags(opts->tags));
      SPYRE_ASSIGN_OR_RETURN(const TorchVerbs* torch, TorchPart("env"));
      return torch->env(request, global);
    };
  });
}

SPYRE_REGISTER_VERB(90, AddEnvVerb);

}  // namespace harness::cli
