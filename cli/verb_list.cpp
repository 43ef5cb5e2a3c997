// `spyre-regress list [--suite S] [--json]`: the suites, their cases, kinds
// and tags. Loading validates each suite, so a broken suite file is reported
// here (exit 2) before anything runs. Loading a suite parses each case with
// its kind: the work is the torch part's (cli/torch/list.cpp).
#include <memory>

#include "cli.h"
#include "torch_part.h"

namespace harness::cli {

void AddListVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<ListOptions>();
  CLI::App* cmd = app.add_subcommand("list", "list suites, their cases, kinds and tags");
  cmd->add_option("--suite", opts->suite, "list the cases of this suite");
  cmd->add_flag("--cases", opts->cases, "list the cases of every suite");
  cmd->add_flag("--json", opts->json, "one JSON document on stdout");
  cmd->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> {
      SPYRE_ASSIGN_OR_RETURN(const TorchVerbs* torch, TorchPart("list"));
      return torch->list(*opts, global);
    };
  });
}

SPYRE_REGISTER_VERB(10, AddListVerb);

}  // namespace harness::cli
