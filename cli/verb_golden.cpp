// `spyre-regress golden generate --suite S [--filter REGEX]` writes golden
// outputs; `golden verify --suite S [--json]` recomputes them on the CPU and
// reports drift per case (exit 1 on drift, 2 when a golden file is missing).
// A case whose values moved by one float32 step at most is listed as
// "rounding" and does not count as drift. The work is the torch part's
// (cli/torch/golden.cpp).
#include <memory>

#include "cli.h"
#include "torch_part.h"

namespace harness::cli {

void AddGoldenVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<GoldenOptions>();
  CLI::App* cmd = app.add_subcommand("golden", "write or verify golden CPU outputs");
  cmd->require_subcommand(1);
  CLI::App* gen = cmd->add_subcommand("generate", "compute and write the golden outputs of a suite");
  gen->add_option("--suite", opts->suite, "suite name")->required();
  gen->add_option("--filter", opts->filter, "only cases whose id matches this regex");
  gen->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> {
      SPYRE_ASSIGN_OR_RETURN(const TorchVerbs* torch, TorchPart("golden generate"));
      return torch->golden_generate(*opts, global);
    };
  });
  CLI::App* ver = cmd->add_subcommand("verify", "recompute the golden outputs and report drift");
  ver->add_option("--suite", opts->suite, "suite name")->required();
  ver->add_flag("--json", opts->json, "one JSON document on stdout");
  ver->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> {
      SPYRE_ASSIGN_OR_RETURN(const TorchVerbs* torch, TorchPart("golden verify"));
      return torch->golden_verify(*opts, global);
    };
  });
}

SPYRE_REGISTER_VERB(60, AddGoldenVerb);

}  // namespace harness::cli
