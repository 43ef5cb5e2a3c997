// `spyre-regress __worker`: the hidden worker verb the run supervisor execs
// (harness/runner/worker_loop.h), or runs in a process forked from the run's
// zygote. Not for people: it speaks frames on fds 3 and 4. The work is the
// torch part's (cli/torch/worker.cpp).
#include <memory>

#include "cli.h"
#include "torch_part.h"

namespace harness::cli {

void AddWorkerVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<WorkerOptions>();
  CLI::App* cmd = app.add_subcommand("__worker", "internal: a run worker process");
  cmd->group("");  // hidden from --help
  cmd->add_option("--warmup", opts->warmup);
  cmd->add_option("--repeat", opts->repeat);
  cmd->add_option("--max-repeat", opts->max_repeat);
  cmd->add_option("--min-repeat", opts->min_repeat);
  cmd->add_option("--min-sample-us", opts->min_sample_us);
  cmd->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> {
      SPYRE_ASSIGN_OR_RETURN(const TorchVerbs* torch, TorchPart("__worker"));
      return torch->worker(*opts, global);
    };
  });
}

SPYRE_REGISTER_VERB(1000, AddWorkerVerb);

}  // namespace harness::cli
