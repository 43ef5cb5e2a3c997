// `spyre-regress report [--run RUN] --out DIR`: writes DIR/index.html,
// junit.xml, summary.md and report.json for one recorded run (reports/).
// `report --stacks [--baseline-stack NAME] --out DIR`: writes DIR/stacks.html,
// stacks.md and stacks.json, the stack matrix (reports/stack_model.h).
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli.h"
#include "store/store.h"
#include "reports/reporter.h"
#include "reports/stack_reporter.h"

namespace harness::cli {
namespace {

struct ReportVerbOptions {
  std::string run = "latest";
  std::string out;
  bool stacks = false;
  std::string baseline_stack;
};

}  // namespace

Status CheckReportDir(const std::string& dir, const GlobalOptions& global, const std::string& flag,
                      bool stacks) {
  const ProtectedPaths protect = Protected(global);
  SPYRE_RETURN_IF_ERROR(CheckOutputDir(dir, protect, flag));
  std::vector<std::string> names;
  if (stacks) {
    for (const auto& r : reports::AllStackReporters()) names.push_back(r->FileName());
  } else {
    for (const auto& r : reports::AllReporters()) names.push_back(r->FileName());
  }
  for (const std::string& name : names) {
    SPYRE_RETURN_IF_ERROR(CheckOutputFile(dir + "/" + name, protect, flag));
  }
  return Status::Ok();
}

namespace {

StatusOr<int> ReportRun(const ReportVerbOptions& opts, const GlobalOptions& global) {
  SPYRE_ASSIGN_OR_RETURN(auto store, Store::Open(global.db, Store::Mode::kReadOnly));
  SPYRE_RETURN_IF_ERROR(CheckReportDir(opts.out, global, "report --out", false));
  SPYRE_ASSIGN_OR_RETURN(auto run, ResolveRunRef(*store, opts.run, "--run"));
  // Judged with the thresholds in force, as `run`, `confirm` and `compare`
  // judge: improvements, notes and the detection power are computed here.
  reports::ReportOptions options;
  SPYRE_ASSIGN_OR_RETURN(options.thresholds, Thresholds::Configured());
  SPYRE_ASSIGN_OR_RETURN_CTX(reports::ReportModel model,
                             reports::BuildReportModel(*store, run, options),
                             "store '" + global.db + "'");
  SPYRE_RETURN_IF_ERROR(reports::WriteReportFiles(model, opts.out));
  std::cout << "run " << run << " " << reports::VerdictName(model.verdict) << ": wrote "
            << opts.out << "/index.html, junit.xml, summary.md, report.json\n";
  // The files say what happened; the exit code must not read as a pass.
  if (reports::IsIncomplete(model.verdict)) {
    return InvalidInput(model.incomplete + ", so it has no verdict (the reports in " + opts.out +
                        " say '" + reports::VerdictName(model.verdict) +
                        "'); rerun the suite, or report a completed run with --run RUN");
  }
  return 0;
}

// The matrix judges nothing, so it exits 0 once written, whatever the cells say.
StatusOr<int> ReportStacks(const ReportVerbOptions& opts, const GlobalOptions& global) {
  SPYRE_ASSIGN_OR_RETURN(auto store, Store::Open(global.db, Store::Mode::kReadOnly));
  SPYRE_RETURN_IF_ERROR(CheckReportDir(opts.out, global, "report --out", true));
  reports::StackOptions options;
  options.baseline_stack = opts.baseline_stack;
  SPYRE_ASSIGN_OR_RETURN_CTX(reports::StackMatrix matrix, reports::BuildStackMatrix(*store, options),
                             "store '" + global.db + "'");
  SPYRE_RETURN_IF_ERROR(reports::WriteStackReportFiles(matrix, opts.out));
  std::cout << matrix.stacks.size() << " stack" << (matrix.stacks.size() == 1 ? "" : "s")
            << ", baseline " << matrix.baseline << ", " << matrix.CaseCount() << " cases: wrote "
            << opts.out << "/stacks.html, stacks.md, stacks.json\n";
  return 0;
}

}  // namespace

void AddReportVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<ReportVerbOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report",
      "write DIR/index.html, junit.xml, summary.md and report.json for a recorded run; with "
      "--stacks, DIR/stacks.html, stacks.md and stacks.json comparing stacks");
  CLI::Option* run =
      cmd->add_option("--run", opts->run,
                      "the run: an id, latest, ~N (N runs before the newest) or label:NAME")
          ->capture_default_str();
  cmd->add_option("--out", opts->out, "directory to write the reports into (created when missing)")
      ->required();
  cmd->add_flag("--stacks", opts->stacks,
                "instead of one run, a matrix of stacks: runs tagged with `run --tag stack=NAME`, "
                "each stack's latest completed run of each suite, every case's status, max ULP, "
                "rel L2 and latency ratio against the baseline stack");
  CLI::Option* baseline_stack = cmd->add_option(
      "--baseline-stack", opts->baseline_stack,
      "with --stacks: the stack the others are compared with (default: the stack whose selected "
      "runs are the oldest)");
  cmd->callback([opts, &global, action, run, baseline_stack] {
    const bool run_given = run->count() > 0, baseline_given = baseline_stack->count() > 0;
    *action = [opts, &global, run_given, baseline_given]() -> StatusOr<int> {
      if (opts->stacks && run_given) {
        return UsageError(
            "report: --run and --stacks do not go together: --stacks reports the "
            "latest run of each stack and suite");
      }
      if (!opts->stacks && baseline_given) {
        return UsageError("report: --baseline-stack goes with --stacks: add --stacks");
      }
      return opts->stacks ? ReportStacks(*opts, global) : ReportRun(*opts, global);
    };
  });
}

SPYRE_REGISTER_VERB(55, AddReportVerb);

}  // namespace harness::cli
