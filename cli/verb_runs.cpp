// `spyre-regress runs [--suite S] [--label L] [--limit N] [--json]`: the
// recorded runs, newest first, with their status, suite, label, baseline,
// findings and a summary of the environment they ran in.
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include "validators.h"
#include "cli.h"
#include "base/human_format.h"
#include "store/store.h"
#include "store/store_queries.h"
#include "base/suggest.h"

namespace harness::cli {
namespace {

struct RunsOptions {
  std::string suite;
  std::string label;
  int limit = 20;
  bool all = false;
  bool json = false;
};

// The environment in a few words: what a reader scans a run list for.
std::string EnvSummary(const nlohmann::json& env, const std::string& fingerprint) {
  std::vector<std::string> parts;
  auto add = [&](const char* key, const char* name) {
    if (!env.is_object() || !env.contains(key)) return;
    const nlohmann::json& v = env[key];
    const std::string text = v.is_string() ? v.get<std::string>() : v.dump();
    if (!text.empty()) parts.push_back(std::string(name) + " " + text);
  };
  add("libtorch", "libtorch");
  // The BLAS by name, version and kernel set: a run list is where a BLAS
  // switch between two nights is first looked for.
  if (env.is_object() && env.contains("blas") && env["blas"].is_object()) {
    const nlohmann::json& b = env["blas"];
    std::string text = "blas " + b.value("name", "?");
    if (!b.value("version", "").empty()) text += " " + b.value("version", "");
    if (!b.value("core", "").empty()) text += " " + b.value("core", "");
    parts.push_back(text);
  }
  if (env.is_object() && env.contains("device") && env["device"].is_object() &&
      env["device"].value("kind", "") != "emulator") {
    parts.push_back("device " + env["device"].value("name", "?") + " " +
                    env["device"].value("version", ""));
  }
  add("spyre_emu", "spyre-emu");
  add("profile", "profile");
  add("faults", "faults");
  if (env.is_object() && env.contains("tags") && env["tags"].is_object()) {
    for (const auto& [k, v] : env["tags"].items()) {
      parts.push_back(k + "=" + (v.is_string() ? v.get<std::string>() : v.dump()));
    }
  }
  if (!fingerprint.empty()) parts.push_back("fingerprint " + fingerprint.substr(0, 12));
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

struct RunLine {
  int64_t id = 0;
  std::string started, finished, status, suite, label, shard, note, fingerprint;
  nlohmann::json env;
  int64_t recorded = 0, planned = -1, regressions = 0;
  std::optional<int64_t> baseline;
};

StatusOr<std::vector<RunLine>> ReadRuns(Store& store, const RunsOptions& o) {
  SPYRE_ASSIGN_OR_RETURN(auto listed,
                         ListRuns(store, RunListQuery{o.suite, o.label, o.all ? -1 : o.limit}));
  std::vector<RunLine> lines;
  for (const RunListing& r : listed) {
    RunLine l;
    l.id = r.id;
    l.started = r.started;
    l.finished = r.finished;
    l.suite = r.suite;
    l.label = r.label;
    l.shard = r.shard;
    l.fingerprint = r.fingerprint;
    l.env = nlohmann::json::parse(r.env_json, nullptr, false);
    const nlohmann::json options = nlohmann::json::parse(r.options_json, nullptr, false);
    l.regressions = r.regressions;
    if (options.is_object() && options.contains("baseline_run_id") &&
        options["baseline_run_id"].is_number_integer()) {
      l.baseline = options["baseline_run_id"].get<int64_t>();
    } else {
      l.baseline = r.regressions_baseline;
    }
    lines.push_back(std::move(l));
  }
  // Status as the other read-only views report it: a run whose supervisor
  // is gone is aborted, one with cases missing is partial.
  for (RunLine& l : lines) {
    SPYRE_ASSIGN_OR_RETURN(auto state, ReadRunState(store, l.id));
    l.recorded = state.recorded;
    l.planned = state.planned;
    l.note = state.note;
    l.status = state.Complete() ? "completed" : state.Verdict();
  }
  return lines;
}

nlohmann::json LineJson(const RunLine& l) {
  return {{"run_id", l.id},
          {"started_at", l.started},
          {"finished_at", l.finished},
          {"status", l.status},
          {"note", l.note},
          {"suite", l.suite},
          {"label", l.label},
          {"shard", l.shard},
          {"cases_recorded", l.recorded},
          {"cases_planned", l.planned < 0 ? nlohmann::json() : nlohmann::json(l.planned)},
          {"baseline_run_id", l.baseline ? nlohmann::json(*l.baseline) : nlohmann::json()},
          {"regressions", l.regressions},
          {"fingerprint", l.fingerprint},
          {"env_summary", EnvSummary(l.env, l.fingerprint)}};
}

// "2026-12-01T18:20:11Z" -> "2026-12-01 18:20:11"
std::string ShortTime(std::string t) {
  if (t.size() >= 19) t = t.substr(0, 19);
  if (t.size() > 10 && t[10] == 'T') t[10] = ' ';
  return t;
}

StatusOr<int> RunRuns(const RunsOptions& o, const GlobalOptions& global) {
  SPYRE_ASSIGN_OR_RETURN(auto store, Store::Open(global.db, Store::Mode::kReadOnly));
  SPYRE_ASSIGN_OR_RETURN(auto lines, ReadRuns(*store, o));
  if (lines.empty() && (!o.suite.empty() || !o.label.empty())) {
    // A suite or label no run has is most likely a typo.
    const bool by_suite = !o.suite.empty();
    SPYRE_ASSIGN_OR_RETURN(auto known, DistinctRunValues(*store, by_suite ? "suite" : "label"));
    const std::string& word = by_suite ? o.suite : o.label;
    return NotFound(std::string(by_suite ? "--suite '" : "--label '") + word + "': no run in " +
                    global.db + " has it" + DidYouMean(word, known) +
                    " (see 'spyre-regress runs')");
  }
  if (o.json) {
    nlohmann::json doc = {{"store", global.db},
                          {"store_found_by", global.db_origin},
                          {"runs", nlohmann::json::array()}};
    for (const RunLine& l : lines) doc["runs"].push_back(LineJson(l));
    std::cout << doc.dump(2) << "\n";
    return 0;
  }
  std::cout << "store " << global.db << " (" << global.db_origin << ")\n";
  if (lines.empty()) {
    std::cout << (o.suite.empty() && o.label.empty()
                      ? "no runs yet: `spyre-regress run --suite S` records one"
                      : "no run matches")
              << "\n";
    return 0;
  }
  std::ostringstream table;
  table << std::left << std::setw(5) << "run" << std::setw(21) << "started (UTC)" << std::setw(11)
        << "status" << std::setw(14) << "suite" << std::setw(14) << "label" << std::setw(9)
        << "cases" << std::setw(10) << "baseline" << std::setw(6) << "regr."
        << "environment\n";
  for (const RunLine& l : lines) {
    const std::string cases =
        std::to_string(l.recorded) + (l.planned >= 0 ? "/" + std::to_string(l.planned) : "");
    table << std::left << std::setw(5) << l.id << std::setw(21) << ShortTime(l.started)
          << std::setw(11) << l.status << std::setw(14)
          << (l.suite.empty() ? "-" : EscapeControl(l.suite)) << std::setw(14)
          << (l.label.empty() ? "-" : EscapeControl(l.label)) << std::setw(9) << cases
          << std::setw(10) << (l.baseline ? std::to_string(*l.baseline) : "-") << std::setw(6)
          << l.regressions << EnvSummary(l.env, l.fingerprint) << "\n";
  }
  std::cout << table.str();
  return 0;
}

}  // namespace

void AddRunsVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<RunsOptions>();
  CLI::App* cmd = app.add_subcommand("runs", "list the recorded runs, newest first");
  cmd->add_option("--suite", opts->suite, "only runs of this suite");
  cmd->add_option("--label", opts->label, "only runs with this label");
  cmd->add_option("--limit,-n", opts->limit, "at most this many runs (default 20)")
      ->check(InRange(1, 1000000));
  cmd->add_flag("--all", opts->all, "every run");
  cmd->add_flag("--json", opts->json, "one JSON document on stdout");
  cmd->callback([opts, &global, action] {
    *action = [opts, &global]() -> StatusOr<int> { return RunRuns(*opts, global); };
  });
}

SPYRE_REGISTER_VERB(35, AddRunsVerb);

}  // namespace harness::cli
