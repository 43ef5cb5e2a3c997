// `spyre-regress merge --into DB [--group KEY [--baseline B]] SRC.db...`:
// combines shard stores. Without --group every run is copied as it is; with
// it the shard runs of one night become ONE run per suite (shard group KEY),
// which is then compared with its baseline like a finished `run`, its
// findings stored (v_regressions) and summarised with run's closing lines.
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "cli.h"
#include "detect/history.h"
#include "run/regression_hook.h"
#include "store/store.h"

namespace harness::cli {
namespace {

struct MergeOptions {
  std::string into;
  std::string group;
  std::string baseline = "auto";
  std::vector<std::string> sources;
};

// Detection on one completed group run and run's closing lines; returns 1 when
// a case did not pass or something regressed, else 0.
StatusOr<int> JudgeGroupRun(Store& store, const GroupRun& g, const std::string& baseline) {
  SPYRE_ASSIGN_OR_RETURN_CTX(BaselineOutcome outcome,
                             DetectRegressionsForRun(store, g.run_id, g.suite, baseline),
                             "shard group " + g.group);
  SPYRE_ASSIGN_OR_RETURN(auto run, LoadRunRecord(store, g.run_id));
  int passed = 0, failed = 0, skipped = 0;
  for (const CaseResult& c : run.cases) {
    if (c.status == CaseStatus::kPassed) {
      ++passed;
    } else if (c.status == CaseStatus::kSkipped) {
      ++skipped;
    } else {
      ++failed;
    }
  }
  PrintFindings(std::cout, outcome.comparison);
  std::cout << passed << " passed, " << failed << " failed";
  if (skipped > 0) std::cout << ", " << skipped << " skipped";
  std::cout << "\n";
  if (outcome.baseline_run_id) {
    std::cout << RegressionsLine(outcome.regressed_cases, outcome.regressions, *outcome.baseline_run_id)
              << "\n";
  } else {
    std::cout << "regressions: none (no baseline)\n";
  }
  return failed > 0 || outcome.regressions > 0 ? 1 : 0;
}

StatusOr<int> MergeGroup(Store& into, const MergeOptions& o, const GlobalOptions& global) {
  std::map<int64_t, GroupRun> runs;  // by run id, the state after the last source
  for (const std::string& src : o.sources) {
    SPYRE_ASSIGN_OR_RETURN(auto merged, into.MergeGroupFrom(src, o.group));
    for (const GroupRun& g : merged) runs[g.run_id] = g;
    if (!global.quiet) std::cerr << "merged " << src << " into shard group " << o.group << "\n";
  }
  int code = 0;
  std::string incomplete;
  for (const auto& [id, g] : runs) {
    std::cout << "run " << id << " (" << g.suite << "): shard group " << g.group << ", " << g.parts
              << " of " << g.shard_count << " shard(s) (" << g.shards << "), " << g.status
              << ", store " << o.into << "\n";
    if (g.status != "completed") {
      incomplete += (incomplete.empty() ? "" : "; ") + g.note;
      continue;
    }
    SPYRE_ASSIGN_OR_RETURN(auto judged, JudgeGroupRun(into, g, o.baseline));
    code = std::max(code, judged);
  }
  if (!incomplete.empty()) {
    return InvalidInput(incomplete +
                        ": recorded as aborted (never a baseline); merge the missing shard stores"
                        " with the same --group to complete it");
  }
  return code;
}

// Each source once, and none of them the target: the same file named twice
// (through another path, a symlink or a hard link) would be merged twice.
Status CheckDistinctSources(const MergeOptions& o) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (size_t i = 0; i < o.sources.size(); ++i) {
    if (fs::exists(o.into, ec) && fs::exists(o.sources[i], ec) &&
        fs::equivalent(o.into, o.sources[i], ec)) {
      return UsageError("merge: source '" + o.sources[i] + "' is the target --into '" + o.into +
                        "': name each shard store once and a different store to merge into;"
                        " nothing was merged");
    }
    for (size_t j = 0; j < i; ++j) {
      const bool same = o.sources[i] == o.sources[j] ||
                        (fs::exists(o.sources[i], ec) && fs::exists(o.sources[j], ec) &&
                         fs::equivalent(o.sources[i], o.sources[j], ec));
      if (same) {
        return UsageError("merge: source '" + o.sources[i] + "' is named twice (as source " +
                          std::to_string(j + 1) + " and " + std::to_string(i + 1) +
                          "): name each shard store once; nothing was merged");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

void AddMergeVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<MergeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "merge",
      "combine shard stores into one (each run copied once; a run merged before is refused); "
      "--group KEY makes the shard runs of one night one run and compares it with its baseline");
  cmd->add_option("--into", opts->into, "the store to merge into (created when missing)")
      ->required();
  cmd->add_option("--group", opts->group,
                  "shard group key: fold the sources' runs into one run per suite");
  cmd->add_option("--baseline", opts->baseline,
                  "with --group: auto (default), a run id, label:NAME, or none");
  cmd->add_option("sources", opts->sources, "shard stores to read (never modified)")->required();
  cmd->callback([cmd, opts, &global, action] {
    const bool empty_group = cmd->count("--group") > 0 && opts->group.empty();
    *action = [opts, &global, empty_group]() -> StatusOr<int> {
      if (empty_group)
        return UsageError("merge --group is empty: give the night's key, e.g. --group nightly-42");
      if (opts->baseline != "auto" && opts->group.empty()) {
        return UsageError("merge --baseline needs --group: only a shard group's run is compared");
      }
      // The target may be the store itself (merging shards into it), but
      // never a suite, a golden file or something that is not a file.
      ProtectedPaths protect = Protected(global);
      protect.store.clear();
      SPYRE_RETURN_IF_ERROR(CheckOutputFile(opts->into, protect, "merge --into"));
      SPYRE_RETURN_IF_ERROR(CheckDistinctSources(*opts));
      // Every source is opened and checked before the target is opened (or
      // created): a bad source must leave no target behind.
      for (const std::string& src : opts->sources) {
        SPYRE_ASSIGN_OR_RETURN_CTX(auto source, Store::Open(src, Store::Mode::kReadOnly),
                                   "merge source");
        SPYRE_RETURN_IF_ERROR_CTX(source->CheckIntegrity(), "merge source");
      }
      SPYRE_ASSIGN_OR_RETURN(auto into, Store::Open(opts->into));
      if (!opts->group.empty()) return MergeGroup(*into, *opts, global);
      // One transaction for all the sources: either every run is copied or none.
      SPYRE_ASSIGN_OR_RETURN(const std::vector<int> copied, into->MergeFrom(opts->sources));
      // What each source gave, once all are committed: a summary on stdout,
      // not progress.
      int runs = 0;
      for (size_t i = 0; i < copied.size(); ++i) {
        runs += copied[i];
        if (!global.quiet) {
          std::cout << "merged " << copied[i] << " run(s) from " << opts->sources[i] << "\n";
        }
      }
      std::cout << "merged " << runs << " run(s) from " << opts->sources.size() << " store(s) into "
                << opts->into << "\n";
      return 0;
    };
  });
}

SPYRE_REGISTER_VERB(70, AddMergeVerb);

}  // namespace harness::cli
