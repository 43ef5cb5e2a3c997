// `spyre-regress history --suite S [--case C] [--metric M] [--json]`: change
// points over every recorded run, each with the environment change at it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli.h"
#include "detect/changepoint.h"
#include "detect/history.h"
#include "base/human_format.h"
#include "store/store.h"
#include "store/store_queries.h"
#include "base/suggest.h"
#include "suite_file/suite_file.h"

namespace harness::cli {
namespace {

struct HistoryOptions {
  std::string suite;
  std::string case_name;
  std::string metric;
  bool json = false;
};

// NaN (no probe) as null.
nlohmann::json NumberOrNull(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

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
          {"p_value", s.point.p_value}, {"level_removed", s.level_removed},
          {"suite_level", s.suite_level}, {"moved_with", s.moved_with},
          {"level_cases", s.level_cases},
          {"level_cause", s.suite_level ? nlohmann::json(LevelCauseName(s.level_cause)) : nlohmann::json()},
          {"probe_relative", NumberOrNull(s.probe_relative)},
          {"queue_relative", NumberOrNull(s.queue_relative)},
          {"busy_before", NumberOrNull(s.busy_before)},
          {"busy_after", NumberOrNull(s.busy_after)},
          {"env_change", env}};
}

// Why a suite-level shift was or was not divided out of the cases.
std::string LevelCauseText(const HistoryShift& s) {
  auto change = [](double relative) {
    return std::isfinite(relative) ? HumanChange(1 + relative) : std::string("not recorded");
  };
  std::string witnesses = "host probe " + change(s.probe_relative) + ", run-queue wait " +
                          change(s.queue_relative);
  if (std::isfinite(s.busy_before) && std::isfinite(s.busy_after)) {
    witnesses += ", rest of the machine busy " + HumanPercent(s.busy_before) + " -> " +
                 HumanPercent(s.busy_after);
  }
  switch (s.level_cause) {
    case LevelCause::kHost:
      return "; the host moved with it (" + witnesses + "): divided out of the cases";
    case LevelCause::kNotHost:
      return "; not the host: neither the host probe nor the run-queue wait moved with it, nor "
             "the rest of the machine's load (" +
             witnesses + "), so it stays in each case's series";
    case LevelCause::kSmall:
      return "; no witness moved with it (" + witnesses +
             "), but a whole suite moves that little on a shared host for reasons none of them "
             "see: said for the suite, divided out of the cases (a step of 10% or more stays in "
             "each case's series)";
    case LevelCause::kUnknown:
      break;
  }
  return "; too few runs with the host's witnesses (" + witnesses +
         ") to tell the host from a change of the build";
}

const std::vector<std::string>& ResultMetrics() {
  static const std::vector<std::string> kNames = {"wall_us_median", "unqueued_us_median",
                                                  "wall_us_normalized",
                                                  "modeled_us",     "max_abs_err",
                                                  "max_rel_err",    "rel_l2",
                                                  "max_ulp",        "cosine",
                                                  "fallback_ops",   "peak_device_bytes"};
  return kNames;
}

StatusOr<int> RunHistory(const HistoryOptions& o, const GlobalOptions& global) {
  SPYRE_ASSIGN_OR_RETURN(auto store, Store::Open(global.db, Store::Mode::kReadOnly));
  Store& reader = *store;
  std::vector<std::string> metrics;
  if (!o.metric.empty()) metrics.push_back(o.metric);
  // A suite neither recorded nor defined is a typo, not an empty history.
  SPYRE_ASSIGN_OR_RETURN(auto recorded, SuiteHasResults(reader, o.suite));
  const bool defined = std::filesystem::exists(global.suites_dir + "/" + o.suite + ".json");
  if (!recorded && !defined) {
    SPYRE_ASSIGN_OR_RETURN(auto known, SuitesWithResults(reader));
    for (const std::string& s : ListSuites(global.suites_dir)) known.push_back(s);
    return NotFound("--suite '" + o.suite + "': no results of it in " + global.db + " and no " +
                    o.suite + ".json in " + global.suites_dir + DidYouMean(o.suite, known) +
                    " (see `spyre-regress list` for the suites)");
  }
  // Likewise a case that is neither recorded nor in the suite file.
  if (!o.case_name.empty()) {
    SPYRE_ASSIGN_OR_RETURN(auto cases, CasesWithResults(reader, o.suite));
    if (defined) {
      StatusOr<SuiteSpec> suite = ReadSuiteFile(global.suites_dir, o.suite);
      if (suite.ok()) {
        for (const CaseSpec& c : suite->cases) cases.push_back(c.id);
      }
    }
    if (std::find(cases.begin(), cases.end(), o.case_name) == cases.end()) {
      return NotFound("--case '" + o.case_name + "': suite " + o.suite + " has no such case" +
                      DidYouMean(o.case_name, cases) + " (see 'spyre-regress list --suite " +
                      o.suite + "')");
    }
  }
  // A metric is a result column or one a case kind records (decode:
  // tokens_per_s, ttft_us, ...); those are found in the store.
  if (!o.metric.empty() && !IsHistoryMetric(o.metric)) {
    SPYRE_ASSIGN_OR_RETURN(auto recorded_metrics, RecordedMetricNames(reader, o.suite));
    if (std::find(recorded_metrics.begin(), recorded_metrics.end(), o.metric) ==
        recorded_metrics.end()) {
      std::vector<std::string> known = ResultMetrics();
      for (const std::string& m : recorded_metrics) {
        if (std::find(known.begin(), known.end(), m) == known.end()) known.push_back(m);
      }
      std::string list;
      for (const std::string& m : known) list += (list.empty() ? "" : ", ") + m;
      return UsageError("--metric '" + o.metric + "' is not recorded for suite " + o.suite +
                        DidYouMean(o.metric, known) + " (known: " + list + ")");
    }
  }
  std::vector<SuiteLevelPoint> levels;
  SPYRE_ASSIGN_OR_RETURN(auto shifts, SuiteHistory(reader, o.suite, o.case_name, metrics, &levels));
  if (o.json) {
    nlohmann::json j = {{"suite", o.suite},
                        {"change_points", nlohmann::json::array()},
                        {"levels", nlohmann::json::array()}};
    for (const HistoryShift& s : shifts) j["change_points"].push_back(ShiftJson(s));
    for (const SuiteLevelPoint& p : levels) {
      j["levels"].push_back({{"run_id", p.run_id},
                             {"level", p.level},
                             {"divided", p.divided},
                             {"probe", NumberOrNull(p.probe)},
                             {"queue", NumberOrNull(p.queue)},
                             {"busy", NumberOrNull(p.busy)}});
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  for (const HistoryShift& s : shifts) {
    if (s.suite_level) {
      std::cout << s.suite << ", every case together: wall-time level shift at run "
                << s.first_run_id << " x" << HumanNumber(s.point.before) << " -> x"
                << HumanNumber(s.point.after) << " of the cases' usual ("
                << HumanChange(1 + s.point.relative) << ", " << HumanPValue(s.point.p_value) << "; "
                << s.moved_with.size() << " of " << Plural(static_cast<int64_t>(s.level_cases), "case")
                << " moved with it" << (o.case_name.empty() ? "" : ", " + o.case_name + " among them")
                << LevelCauseText(s) << ")";
    } else {
      std::cout << s.suite << "/" << s.case_name << " " << s.metric << ": shift at run "
                << s.first_run_id << " " << HumanMetric(s.metric, s.point.before) << " -> "
                << HumanMetric(s.metric, s.point.after) << " (" << HumanChange(1 + s.point.relative)
                << ", " << HumanPValue(s.point.p_value) << ")";
    }
    std::string changes;
    for (const EnvChange& e : s.env_change) {
      if (!e.upstream) continue;
      changes += (changes.empty() ? "" : ", ") + e.component + " " + e.baseline + " -> " + e.candidate;
    }
    std::cout << (changes.empty() ? ", no upstream change at that run" : ", with " + changes) << "\n";
  }
  std::cout << "change points: " << shifts.size();
  if (shifts.empty()) {
    // Zero means something only over enough runs: say how many there are.
    SPYRE_ASSIGN_OR_RETURN(const int64_t runs, CompletedRunsOfSuite(reader, o.suite));
    std::cout << " over " << Plural(runs, "completed run") << " of " << o.suite;
    const int64_t kMinRunsPerSide = static_cast<int64_t>(ChangePointOptions().min_segment);
    if (runs < 2 * kMinRunsPerSide) {
      std::cout << " (a change point needs at least " << kMinRunsPerSide << " runs on each side of it, "
                << 2 * kMinRunsPerSide << " in all: " << (2 * kMinRunsPerSide - runs)
                << " more run(s) before one can be found)";
    }
  }
  std::cout << "\n";
  return 0;
}

void AddHistoryVerb(CLI::App& app, GlobalOptions& global, VerbAction* action) {
  auto opts = std::make_shared<HistoryOptions>();
  CLI::App* cmd = app.add_subcommand("history", "change points over all recorded runs of a suite");
  cmd->add_option("--suite", opts->suite, "suite name")->required();
  cmd->add_option("--case", opts->case_name, "only this case id");
  cmd->add_option("--metric", opts->metric,
                  "only this metric: a result column (wall_us_median, max_ulp, ...) or one the "
                  "case kind records (decode: tokens_per_s, ttft_us, itl_us, ...); default: "
                  "latency, accuracy, fallback, memory");
  cmd->add_flag("--json", opts->json, "one JSON document on stdout");
  cmd->callback([opts, &global, action] { *action = [opts, &global] { return RunHistory(*opts, global); }; });
}

}  // namespace

SPYRE_REGISTER_VERB(50, AddHistoryVerb);

}  // namespace harness::cli
