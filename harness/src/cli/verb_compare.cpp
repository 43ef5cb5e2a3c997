// `spyre-regress compare --baseline RUN --candidate RUN [--json]`: regressions
// and improvements between two recorded runs, with the environment diff.
#include <iostream>
#include <memory>

#include "cli.h"
#include "harness/history.h"
#include "harness/store.h"

namespace harness::cli {
namespace {

struct CompareOptions {
  int64_t baseline = 0;
  int64_t candidate = 0;
  bool json = false;
};

StatusOr<int> RunCompare(const CompareOptions& o, const GlobalOptions& global) {
  auto store = Store::Open(global.db, Store::Mode::kReadOnly);
  if (!store.ok()) return store.status();
  auto thresholds = Thresholds::Configured();
  if (!thresholds.ok()) return thresholds.status();
  auto base = LoadRunRecord((*store)->handle(), o.baseline);
  if (!base.ok()) return base.status().WithContext("--baseline");
  SPYRE_RETURN_IF_ERROR(AttachWallNoise((*store)->handle(), &*base));
  auto cand = LoadRunRecord((*store)->handle(), o.candidate);
  if (!cand.ok()) return cand.status().WithContext("--candidate");
  Comparison c = CompareRuns(*base, *cand, *thresholds);
  if (o.json) {
    std::cout << ToJson(c).dump(2) << "\n";
  } else {
    std::cout << FormatComparison(c);
    std::cout << "regressions: " << c.regressions.size() << " (baseline run " << o.baseline << ")\n";
  }
  return c.regressions.empty() ? 0 : 1;
}

void AddCompareVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<CompareOptions>();
  CLI::App* cmd = app.add_subcommand("compare", "regressions and improvements between two runs");
  cmd->add_option("--baseline", opts->baseline, "baseline run id")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--candidate", opts->candidate, "candidate run id")->required()->check(CLI::PositiveNumber);
  cmd->add_flag("--json", opts->json, "one JSON document on stdout");
  cmd->callback([opts, &global, action] { *action = [opts, &global] { return RunCompare(*opts, global); }; });
}

}  // namespace

SPYRE_REGISTER_VERB(40, AddCompareVerb);

}  // namespace harness::cli
