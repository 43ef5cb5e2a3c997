// `spyre-regress confirm [--run RUN] [--baseline B]`: re-times a recorded
// run's wall-time suspects on this machine, beside its baseline's
// configuration where this binary can re-create it, stores that evidence
// with the run's results and judges the run again (its findings replace the
// earlier ones). It is what a `run` does after its main pass, for a run
// that was judged without it: the shards of a night run with no baseline
// and are judged when they are merged, so the nightly confirms the merged
// run (ci/nightly). The work is the torch part's (ConfirmRecordedRun).
#include <iostream>
#include <memory>
#include <sstream>

#include "validators.h"
#include "cli.h"
#include "harness/runner/run.h"
#include "harness/store/store.h"
#include "torch_part.h"

namespace harness::cli {
namespace {

struct ConfirmFlags {
  std::string run = "latest", baseline = "auto";
  int confirm_rounds = 7, confirm_max_rounds = 11, confirm_repeat = 11;
  double confirm_budget_s = 120;
};

StatusOr<int> Confirm(const ConfirmFlags& f, const GlobalOptions& g) {
  if (f.baseline.empty()) {
    return UsageError("--baseline is empty: use auto, a run id, latest, ~N or label:NAME");
  }
  RunRequest request;
  {
    SPYRE_ASSIGN_OR_RETURN(auto store, Store::Open(g.db, Store::Mode::kReadOnly));
    SPYRE_ASSIGN_OR_RETURN(const int64_t id, ResolveRunRef(*store, f.run, "--run"));
    SPYRE_ASSIGN_OR_RETURN(request, RecordedRequest(*store, id, "confirmed"));
    request.confirm_run = id;
    request.baseline = f.baseline;
    if (IsRelativeRunRef(f.baseline)) {
      SPYRE_ASSIGN_OR_RETURN(auto base, ResolveRunRef(*store, f.baseline, "--baseline"));
      request.baseline = std::to_string(base);
    }
  }
  request.confirm_rounds = f.confirm_rounds;
  request.confirm_max_rounds = std::max(f.confirm_rounds, f.confirm_max_rounds);
  request.confirm_repeat = f.confirm_repeat;
  request.confirm_budget_s = f.confirm_budget_s;
  SPYRE_ASSIGN_OR_RETURN(RunSummary summary, RunInTorchPart(std::move(request), g, "confirm"));
  PrintHumanSummary(std::cout, summary, g.db);
  return summary.Failed() > 0 || summary.baseline.regressions > 0 ? 1 : 0;
}

}  // namespace

void AddConfirmVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto f = std::make_shared<ConfirmFlags>();
  CLI::App* cmd = app.add_subcommand(
      "confirm",
      "re-time a recorded run's wall-time suspects on this machine (beside its baseline's "
      "configuration where it can be re-created), store them and judge the run again");
  cmd->add_option("--run", f->run, "the run: an id, latest (default), ~N or label:NAME");
  cmd->add_option("--baseline", f->baseline,
                  "auto (default), a run id, latest, ~N (N runs before the newest) or label:NAME");
  cmd->add_option("--confirm-rounds", f->confirm_rounds,
                  "fresh processes per side at least (default 7; 0: re-time nothing, judge again)")
      ->check(InRange(0, 100));
  cmd->add_option("--confirm-max-rounds", f->confirm_max_rounds,
                  "up to this many while a verdict is undecided (default 11)")
      ->check(InRange(1, 100));
  cmd->add_option("--confirm-repeat", f->confirm_repeat,
                  "wall samples a side each process takes of a case, past its repeat while they "
                  "take under 0.1 s in all (default 11)")
      ->check(InRange(1, 1000000));
  cmd->add_option("--confirm-budget", f->confirm_budget_s,
                  "seconds the confirmation may take before it stops adding rounds (default 120)")
      ->check(InRange(0.0, 1e6));
  cmd->callback([f, &global, action] {
    *action = [f, &global]() -> StatusOr<int> { return Confirm(*f, global); };
  });
}

SPYRE_REGISTER_VERB(25, AddConfirmVerb);

}  // namespace harness::cli
