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

#include "validators.h"
#include "cli.h"
#include "run/run.h"
#include "store/store.h"
#include "torch_part.h"

namespace harness::cli {
namespace {

struct ConfirmFlags {
  std::string run = "latest", baseline = "auto";
  ConfirmSettings confirm;
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
  request.confirm = f.confirm;
  SPYRE_ASSIGN_OR_RETURN(RunSummary summary, RunInTorchPart(std::move(request), g, "confirm"));
  PrintHumanSummary(std::cout, summary, g.db);
  return summary.Failed() > 0 || summary.baseline.regressions > 0 ? 1 : 0;
}

}  // namespace

void AddConfirmOptions(CLI::App* cmd, ConfirmSettings* settings) {
  const ConfirmSettings defaults;
  cmd->add_option("--confirm-rounds", settings->rounds,
                  "re-time a case whose wall time looks changed in at least N fresh processes per "
                  "side before judging it (default " + DefaultText(defaults.rounds) +
                      ", the fewest that can reach wall_confirm_alpha 0.001; 0: re-time nothing, "
                      "and wall time gets no verdict without timing rounds or history)")
      ->check(InRange(0, 100));
  cmd->add_option("--confirm-max-rounds", settings->max_rounds,
                  "up to this many while a verdict is undecided (default " +
                      DefaultText(defaults.max_rounds) + "; never fewer than --confirm-rounds)")
      ->check(InRange(1, 100));
  cmd->add_option("--confirm-repeat", settings->repeat,
                  "wall samples a side each confirmation process takes of a case, past its repeat "
                  "while they take under 0.1 s in all (default " + DefaultText(defaults.repeat) + ")")
      ->check(InRange(1, 1000000));
  cmd->add_option("--confirm-budget", settings->budget_s,
                  "seconds the confirmation may take before it stops adding rounds (default " +
                      DefaultText(defaults.budget_s) + ")")
      ->check(InRange(0.0, 1e6));
  cmd->add_option("--confirm-jobs", settings->jobs,
                  "worker processes at once while re-timing beside the baseline's configuration "
                  "(both sides in turn, so a busy neighbour moves both alike; against history "
                  "always one) (default " + DefaultText(defaults.jobs) + ")")
      ->check(InRange(1, 64));
  cmd->add_flag("--confirm-all", settings->every_case,
                "beside the baseline's configuration, re-time every timed case, not only the "
                "suspects of the main pass (a plainly unchanged case stops after four pairs)");
}

void AddConfirmVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto f = std::make_shared<ConfirmFlags>();
  CLI::App* cmd = app.add_subcommand(
      "confirm",
      "re-time a recorded run's wall-time suspects on this machine (beside its baseline's "
      "configuration where it can be re-created), store them and judge the run again");
  cmd->add_option("--run", f->run, "the run: an id, latest (default), ~N or label:NAME");
  cmd->add_option("--baseline", f->baseline,
                  "auto (default), a run id, latest, ~N (N runs before the newest) or label:NAME");
  AddConfirmOptions(cmd, &f->confirm);
  cmd->callback([f, &global, action] {
    *action = [f, &global]() -> StatusOr<int> { return Confirm(*f, global); };
  });
}

SPYRE_REGISTER_VERB(25, AddConfirmVerb);

}  // namespace harness::cli
