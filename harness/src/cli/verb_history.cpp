// `spyre-regress history --suite S [--case C] [--metric M] [--json]`: change
// points over every recorded run, each with the environment change at it.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli.h"
#include "harness/history.h"
#include "harness/human_format.h"
#include "harness/store.h"

namespace harness::cli {
namespace {

struct HistoryOptions {
  std::string suite;
  std::string case_name;
  std::string metric;
  bool json = false;
};

nlohmann::json ShiftJson(const HistoryShift& s) {
  nlohmann::json env = nlohmann::json::array();
  for (const EnvChange& e : s.env_change) {
    env.push_back({{"component", e.component}, {"baseline", e.baseline}, {"candidate", e.candidate},
                   {"upstream", e.upstream}});
  }
  return {{"suite", s.suite},           {"case", s.case_name},
          {"metric", s.metric},         {"first_run_id", s.first_run_id},
          {"previous_run_id", s.previous_run_id}, {"before", s.point.before},
          {"after", s.point.after},     {"relative", s.point.relative},
          {"p_value", s.point.p_value}, {"env_change", env}};
}

StatusOr<int> RunHistory(const HistoryOptions& o, const GlobalOptions& global) {
  if (!o.metric.empty() && !IsHistoryMetric(o.metric)) {
    return UsageError("--metric '" + o.metric +
                      "' is not recorded per case: use wall_us_median, wall_us_normalized, modeled_us, max_abs_err, max_rel_err, "
                      "rel_l2, max_ulp, cosine, fallback_ops or peak_device_bytes");
  }
  auto store = Store::Open(global.db, Store::Mode::kReadOnly);
  if (!store.ok()) return store.status();
  std::vector<std::string> metrics;
  if (!o.metric.empty()) metrics.push_back(o.metric);
  // A suite neither recorded nor defined is a typo, not an empty history.
  StatusOr<bool> recorded = SuiteHasResults((*store)->handle(), o.suite);
  if (!recorded.ok()) return recorded.status();
  if (!*recorded && !std::filesystem::exists(global.suites_dir + "/" + o.suite + ".json")) {
    return NotFound("--suite '" + o.suite + "': no results of it in " + global.db + " and no " + o.suite +
                    ".json in " + global.suites_dir + "; see `spyre-regress list` for the suites");
  }
  auto shifts = SuiteHistory((*store)->handle(), o.suite, o.case_name, metrics);
  if (!shifts.ok()) return shifts.status();
  if (o.json) {
    nlohmann::json j = {{"suite", o.suite}, {"change_points", nlohmann::json::array()}};
    for (const HistoryShift& s : *shifts) j["change_points"].push_back(ShiftJson(s));
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  for (const HistoryShift& s : *shifts) {
    std::cout << s.suite << "/" << s.case_name << " " << s.metric << ": shift at run "
              << s.first_run_id << " " << HumanMetric(s.metric, s.point.before) << " -> "
              << HumanMetric(s.metric, s.point.after) << " (" << HumanChange(1 + s.point.relative)
              << ", " << HumanPValue(s.point.p_value) << ")";
    std::string changes;
    for (const EnvChange& e : s.env_change) {
      if (!e.upstream) continue;
      changes += (changes.empty() ? "" : ", ") + e.component + " " + e.baseline + " -> " + e.candidate;
    }
    std::cout << (changes.empty() ? ", no upstream change at that run" : ", with " + changes) << "\n";
  }
  std::cout << "change points: " << shifts->size() << "\n";
  return 0;
}

void AddHistoryVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<HistoryOptions>();
  CLI::App* cmd = app.add_subcommand("history", "change points over all recorded runs of a suite");
  cmd->add_option("--suite", opts->suite, "suite name")->required();
  cmd->add_option("--case", opts->case_name, "only this case id");
  cmd->add_option("--metric", opts->metric, "only this metric (default: latency, accuracy, fallback, memory)");
  cmd->add_flag("--json", opts->json, "one JSON document on stdout");
  cmd->callback([opts, &global, action] { *action = [opts, &global] { return RunHistory(*opts, global); }; });
}

}  // namespace

SPYRE_REGISTER_VERB(50, AddHistoryVerb);

}  // namespace harness::cli
