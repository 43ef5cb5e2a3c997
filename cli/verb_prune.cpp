// `spyre-regress prune [--keep-runs N] [--keep-rounds N] [--keep-label NAME]...
// [--dry-run] [--no-vacuum] [--json]`: retention in three tiers. The newest
// runs of each suite, their baselines, the newest run of each label and runs
// still running keep everything; older runs keep one value per timing round;
// the oldest keep run medians, spread, metrics and op summaries. Compacted
// results share their metrics. No run is deleted.
#include <iostream>
#include <memory>

#include "validators.h"
#include "cli.h"
#include "base/human_format.h"
#include "store/store.h"

namespace harness::cli {
namespace {

struct PruneOptions {
  PrunePolicy policy;
  bool no_vacuum = false;
  bool verbose = false;
  bool json = false;
};

StatusOr<int> RunPrune(PruneOptions o, const GlobalOptions& global) {
  o.policy.vacuum = !o.no_vacuum;
  SPYRE_ASSIGN_OR_RETURN(const std::unique_ptr<Store> store,
                         Store::Open(global.db, Store::Mode::kReadWrite));
  SPYRE_ASSIGN_OR_RETURN(const PruneReport r, store->Prune(o.policy));
  if (o.json) {
    nlohmann::json kept = nlohmann::json::array();
    for (const auto& [id, why] : r.kept) kept.push_back({{"run_id", id}, {"why", why}});
    std::cout << nlohmann::json{{"store", global.db},
                                {"dry_run", o.policy.dry_run},
                                {"runs_examined", r.runs_examined},
                                {"runs_kept_whole", r.runs_kept},
                                {"runs_compacted", r.runs_compacted},
                                {"results_compacted", r.results_compacted},
                                {"results_rounds_dropped", r.results_rounds_dropped},
                                {"results_packed_whole", r.results_packed_whole},
                                {"metric_rows_shared", r.metric_rows_shared},
                                {"metric_sets_added", r.metric_sets_added},
                                {"samples_before", r.samples_before},
                                {"samples_after", r.samples_after},
                                {"bytes_before", r.bytes_before},
                                {"bytes_freed", r.bytes_freed},
                                {"bytes_after", r.bytes_after},
                                {"kept", kept}}
                     .dump(2)
              << "\n";
    return 0;
  }
  const bool dry = o.policy.dry_run;
  std::cout << "store " << global.db << "\n"
            << Plural(r.runs_examined, "run") << ": " << r.runs_kept << " keep every sample, "
            << (dry ? "would compact " : "compacted ") << Plural(r.runs_compacted, "run") << "\n"
            << "  " << (dry ? "would fold " : "folded ") << Plural(r.results_compacted, "result")
            << " to one value per round (" << HumanNumber(r.samples_after) << " round values)\n"
            << "  " << (dry ? "would drop " : "dropped ")
            << "the round values of " << Plural(r.results_rounds_dropped, "result")
            << " older than the newest " << o.policy.keep_rounds
            << " runs of their suite (run median, spread and metrics stay)\n"
            << "  " << (dry ? "would pack " : "packed ") << "the samples of "
            << Plural(r.results_packed_whole, "result")
            << " as recorded (runs kept whole, samples that do not fold)\n"
            << "  " << HumanNumber(r.samples_before) << " wall samples or round values "
            << (dry ? "would go" : "went") << "; " << HumanNumber(r.metric_rows_shared)
            << " metrics rows " << (dry ? "would move" : "moved") << " into "
            << Plural(r.metric_sets_added, "new shared metric set") << "\n";
  if (o.verbose) {
    for (const auto& [id, why] : r.kept) std::cout << "  run " << id << ": " << why << "\n";
  }
  if (o.policy.dry_run) {
    std::cout << "size " << HumanBytes(static_cast<double>(r.bytes_before)) << ", about "
              << HumanBytes(static_cast<double>(r.bytes_after)) << " after pruning, "
              << HumanBytes(static_cast<double>(r.bytes_before - r.bytes_after))
              << " saved (dry run: nothing was changed)\n";
  } else {
    std::cout << "size " << HumanBytes(static_cast<double>(r.bytes_before)) << " -> "
              << HumanBytes(static_cast<double>(r.bytes_after))
              << (o.policy.vacuum ? "" : " (not vacuumed: the file shrinks at the next VACUUM)")
              << "\n";
  }
  return 0;
}

}  // namespace

void AddPruneVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<PruneOptions>();
  CLI::App* cmd = app.add_subcommand(
      "prune",
      "compact old runs: one value per timing round, then run medians only (no run is deleted)");
  cmd->add_option("--keep-runs", opts->policy.keep_runs,
                  "the newest N runs of each suite (and their baselines) keep every sample "
                  "(default 30)")
      ->check(InRange(1, 1000000));
  cmd->add_option("--keep-rounds", opts->policy.keep_rounds,
                  "the newest N runs of each suite keep one value per timing round; older ones "
                  "keep run medians, spread and metrics only (default 90)")
      ->check(InRange(1, 1000000));
  cmd->add_option("--keep-label", opts->policy.keep_labels,
                  "every run with this label keeps every sample (repeatable)");
  cmd->add_flag("--dry-run", opts->policy.dry_run,
                "say what would be compacted and the size after; change nothing");
  cmd->add_flag("--no-vacuum", opts->no_vacuum, "do not VACUUM afterwards");
  cmd->add_flag("--verbose,-v", opts->verbose, "list the runs kept whole and why");
  cmd->add_flag("--json", opts->json, "one JSON document on stdout");
  cmd->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> { return RunPrune(*opts, global); };
  });
}

SPYRE_REGISTER_VERB(75, AddPruneVerb);

}  // namespace harness::cli
