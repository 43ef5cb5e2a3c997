// `spyre-regress compare [--baseline RUN] [--candidate RUN] [--json]`: regressions
// and improvements between two recorded runs, with the environment diff.
#include <iostream>
#include <memory>

#include "cli.h"
#include "detect/attribution.h"
#include "detect/grouping.h"
#include "store/store_queries.h"
#include "detect/history.h"
#include "store/store.h"
#include "store/store_history.h"

namespace harness::cli {
namespace {

struct CompareRefs {
  std::string baseline;  // empty: the one the candidate was judged against, else `auto`
  std::string candidate = "latest";
  bool json = false;
};

struct CompareOptions {
  int64_t baseline = 0;
  int64_t candidate = 0;
  bool json = false;
  std::string baseline_reason;  // set when the baseline was not named
};

StatusOr<int> RunCompare(const CompareOptions& o, Store* opened);

StatusOr<int> RunCompareRefs(const CompareRefs& refs, const GlobalOptions& global) {
  SPYRE_ASSIGN_OR_RETURN(auto store, Store::Open(global.db, Store::Mode::kReadOnly));
  CompareOptions o;
  o.json = refs.json;
  SPYRE_ASSIGN_OR_RETURN(auto cand, ResolveRunRef(*store, refs.candidate, "--candidate"));
  o.candidate = cand;
  if (!refs.baseline.empty()) {
    SPYRE_ASSIGN_OR_RETURN(o.baseline, ResolveRunRef(*store, refs.baseline, "--baseline"));
  } else {
    // Not named: what the candidate was judged against, else the baseline
    // `run` would choose for it (the same suite, never another's).
    SPYRE_ASSIGN_OR_RETURN(const auto recorded, RecordedBaselineRun(*store, cand));
    if (recorded) {
      o.baseline = *recorded;
      o.baseline_reason = "the run " + std::to_string(cand) + " was judged against";
    } else {
      SPYRE_ASSIGN_OR_RETURN(const BaselineChoice choice, ChooseBaseline(*store, "auto", cand));
      if (!choice.run_id) {
        return NotFound("run " + std::to_string(cand) + " has no baseline to compare with (" + choice.reason +
                        "): name one with --baseline RUN");
      }
      o.baseline = *choice.run_id;
      o.baseline_reason = choice.reason;
    }
  }
  return RunCompare(o, store.get());
}

StatusOr<int> RunCompare(const CompareOptions& o, Store* opened) {
  Store* const* store = &opened;
  SPYRE_ASSIGN_OR_RETURN(auto thresholds, Thresholds::Configured());
  SPYRE_ASSIGN_OR_RETURN_CTX(auto base, LoadRunRecord(**store, o.baseline), "--baseline");
  SPYRE_RETURN_IF_ERROR(AttachWallNoise(**store, &base));
  SPYRE_ASSIGN_OR_RETURN_CTX(auto cand, LoadRunRecord(**store, o.candidate), "--candidate");
  // A baseline is a completed run, as for `run --baseline`.
  SPYRE_ASSIGN_OR_RETURN(auto base_state, ReadRunState(**store, o.baseline));
  if (!base_state.Complete()) {
    return InvalidInput("--baseline " + std::to_string(o.baseline) + ": " + base_state.Describe() +
                        "; a baseline must be a completed run: pick another");
  }
  const size_t shared = SharedCases(base, cand);
  if (shared == 0) {
    return InvalidInput(
        "--baseline " + std::to_string(o.baseline) + " (" + base.suite + ") and --candidate " +
        std::to_string(o.candidate) + " (" + cand.suite +
        ") share no case, so there is nothing to compare: pick a baseline of the same suite");
  }
  SPYRE_ASSIGN_OR_RETURN(auto cand_state, ReadRunState(**store, o.candidate));
  const bool complete = cand_state.Complete();
  Comparison c = CompareRuns(base, cand, thresholds);
  SPYRE_ASSIGN_OR_RETURN(const auto causes, ReadAttributions(**store, o.candidate));
  AttachAttributions(causes, &c);
  if (o.json) {
    nlohmann::json j = ToJson(c);
    j["candidate_status"] = complete ? std::string("completed") : cand_state.Verdict();
    j["shared_cases"] = shared;
    std::cout << j.dump(2) << "\n";
  } else {
    if (!o.baseline_reason.empty()) std::cout << "baseline: run " << o.baseline << ", " << o.baseline_reason << "\n";
    std::cout << FormatComparison(c);
    std::string line = RegressionsLine(static_cast<int>(RegressedCases(c.regressions)),
                                       static_cast<int>(c.regressions.size()), o.baseline);
    if (!complete) line.insert(line.size() - 1, "; candidate " + cand_state.Verdict() + ", recorded cases only");
    std::cout << line << "\n";
  }
  // Only the recorded cases were compared: a count of findings is not a verdict.
  if (!complete) {
    return InvalidInput(
        "--candidate " + std::to_string(o.candidate) + ": " + cand_state.Describe() +
        "; only those were compared, so this is not a verdict: compare a completed run");
  }
  return c.regressions.empty() ? 0 : 1;
}

void AddCompareVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<CompareRefs>();
  CLI::App* cmd = app.add_subcommand("compare", "regressions and improvements between two runs");
  cmd->add_option("--baseline", opts->baseline,
                  "baseline run: an id, latest, ~N (N runs before the newest) or label:NAME (default: the "
                  "run the candidate was judged against, else the one `run` would choose)");
  cmd->add_option("--candidate", opts->candidate, "candidate run (same forms as --baseline)")
      ->capture_default_str();
  cmd->add_flag("--json", opts->json, "one JSON document on stdout");
  cmd->callback([opts, &global, action] {
    *action = [opts, &global] { return RunCompareRefs(*opts, global); };
  });
}

}  // namespace

SPYRE_REGISTER_VERB(40, AddCompareVerb);

}  // namespace harness::cli
