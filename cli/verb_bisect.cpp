// `spyre-regress bisect [RUN] [--against BASELINE]`: attribution by
// experiment. The findings of RUN against BASELINE (its recorded baseline
// by default) are examined by re-running their cases under configurations
// between the two runs' (runner/bisect.h); each finding gets a verdict,
// recorded in the store and shown with the finding by compare and report.
// The work is the torch part's (TorchBisect).
#include <algorithm>
#include <iostream>
#include <memory>

#include "validators.h"
#include "cli.h"
#include "command_line.h"
#include "run/bisect.h"
#include "store/store.h"
#include "store/store_queries.h"
#include "torch_part.h"

namespace harness::cli {
namespace {

struct BisectFlags {
  std::string run = "latest", against;
  int rounds = 7, max_rounds = 11, repeat = 11;
  double budget_s = 900;
  bool json = false;
  SwapFiles files;
};

StatusOr<int> Bisect(const BisectFlags& f, const GlobalOptions& g) {
  RunRequest request;
  BisectRequest b;
  {
    SPYRE_ASSIGN_OR_RETURN(auto store, Store::Open(g.db, Store::Mode::kReadOnly));
    SPYRE_ASSIGN_OR_RETURN(b.run_id, ResolveRunRef(*store, f.run, "RUN"));
    if (f.against.empty()) {
      SPYRE_ASSIGN_OR_RETURN(const auto recorded, RecordedBaselineRun(*store, b.run_id));
      if (!recorded) {
        return UsageError("run " + std::to_string(b.run_id) +
                          " was not judged against a baseline: name one with --against RUN");
      }
      b.baseline_run_id = *recorded;
    } else {
      SPYRE_ASSIGN_OR_RETURN(b.baseline_run_id, ResolveRunRef(*store, f.against, "--against"));
    }
    if (b.baseline_run_id == b.run_id) {
      return UsageError("--against names run " + std::to_string(b.run_id) +
                        " itself: give the baseline the run was judged against");
    }
    SPYRE_ASSIGN_OR_RETURN(request, RecordedRequest(*store, b.run_id, "bisected"));
  }
  SPYRE_RETURN_IF_ERROR(FillRunPaths(g, &request));
  b.rounds = f.rounds;
  b.max_rounds = std::max(f.rounds, f.max_rounds);
  b.repeat = f.repeat;
  b.budget_s = f.budget_s;
  b.files = f.files;
  SPYRE_ASSIGN_OR_RETURN(const TorchVerbs* torch, TorchPart("bisect"));
  SPYRE_ASSIGN_OR_RETURN(
      const BisectOutcome outcome,
      torch->bisect(request, b, g, [](const std::vector<std::string>& argv) { return RunCommandLine(argv); }));
  if (f.json) {
    std::cout << BisectJson(outcome).dump(2) << "\n";
  } else {
    std::cout << "bisect " << outcome.bisect_id << " of run " << b.run_id << " against run "
              << b.baseline_run_id << "\n"
              << FormatBisect(outcome);
  }
  return 0;
}

}  // namespace

void AddBisectVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto f = std::make_shared<BisectFlags>();
  CLI::App* cmd = app.add_subcommand(
      "bisect",
      "re-run the flagged cases of a comparison, changing one component at a time from the "
      "baseline's configuration to the run's, and record which change caused each finding");
  cmd->add_option("RUN", f->run, "the run whose findings to attribute: an id, latest (default), ~N or label:NAME");
  cmd->add_option("--against", f->against,
                  "the baseline (default: the one the run was judged against): an id, latest, ~N or label:NAME");
  cmd->add_option("--rounds", f->rounds,
                  "fresh processes per configuration for wall-time findings (default 7, the fewest "
                  "that can reach the judge's level)")
      ->check(InRange(7, 100));
  cmd->add_option("--max-rounds", f->max_rounds,
                  "up to this many for a case still undecided in some configuration (default 11)")
      ->check(InRange(7, 100));
  cmd->add_option("--budget", f->budget_s,
                  "seconds the rounds may take; a round under way finishes (default 900)")
      ->check(InRange(1.0, 1e6));
  cmd->add_option("--repeat", f->repeat,
                  "wall samples per process while they take under 0.1 s in all (default 11)")
      ->check(InRange(1, 100000));
  cmd->add_option("--baseline-blas", f->files.baseline_blas,
                  "a copy of the baseline's BLAS library, when its recorded file holds another now");
  cmd->add_option("--candidate-blas", f->files.candidate_blas, "the same for the run's BLAS");
  cmd->add_option("--baseline-device-lib", f->files.baseline_device_lib,
                  "a copy of the baseline's device library (checked against its recorded SHA-256)");
  cmd->add_option("--candidate-device-lib", f->files.candidate_device_lib, "the same for the run's");
  cmd->add_flag("--json", f->json, "print the outcome as one JSON document");
  cmd->callback([f, &global, action] {
    *action = [f, &global]() -> StatusOr<int> { return Bisect(*f, global); };
  });
}

SPYRE_REGISTER_VERB(27, AddBisectVerb);

}  // namespace harness::cli
