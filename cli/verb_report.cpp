// `spyre-regress report [--run RUN] --out DIR`: writes DIR/index.html,
// junit.xml, summary.md and report.json for one recorded run (reports/).
#include <cstdlib>
#include <iostream>
#include <memory>

#include "cli.h"
#include "harness/store/store.h"
#include "reports/reporter.h"

namespace harness::cli {
namespace {

struct ReportVerbOptions {
  std::string run = "latest";
  std::string out;
};

}  // namespace

void AddReportVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<ReportVerbOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "write DIR/index.html, junit.xml, summary.md and report.json for a recorded run");
  cmd->add_option("--run", opts->run,
                  "the run: an id, latest, ~N (N runs before the newest) or label:NAME")
      ->capture_default_str();
  cmd->add_option("--out", opts->out, "directory to write the reports into (created when missing)")
      ->required();
  cmd->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> {
      SPYRE_ASSIGN_OR_RETURN(auto store, Store::Open(global.db, Store::Mode::kReadOnly));
      SPYRE_ASSIGN_OR_RETURN(auto run, ResolveRunRef(*store, opts->run, "--run"));
      StatusOr<reports::ReportModel> model =
          reports::BuildReportModel(*store, run, reports::ReportOptions{});
      if (!model.ok()) return model.status().WithContext("store '" + global.db + "'");
      SPYRE_RETURN_IF_ERROR(reports::WriteReportFiles(*model, opts->out));
      std::cout << "run " << run << " " << reports::VerdictName(model->verdict) << ": wrote "
                << opts->out << "/index.html, junit.xml, summary.md, report.json\n";
      // The files say what happened; the exit code must not read as a pass.
      if (reports::IsIncomplete(model->verdict)) {
        return InvalidInput(model->incomplete + ", so it has no verdict (the reports in " +
                            opts->out + " say '" + reports::VerdictName(model->verdict) +
                            "'); rerun the suite, or report a completed run with --run RUN");
      }
      return 0;
    };
  });
}

SPYRE_REGISTER_VERB(55, AddReportVerb);

}  // namespace harness::cli
