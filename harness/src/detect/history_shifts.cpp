// Baseline choice, suite-level series and change points over history.
#include <cmath>
#include <map>
#include <set>

#include <algorithm>
#include <iterator>

#include "harness/detect/stats.h"
#include "harness/store/store.h"
#include "history_internal.h"
#include "store/sql.h"

namespace harness {
namespace {

using history_internal::QueryError;
using store_internal::Stmt;

std::string CpuOf(const std::string& env_json) {
  nlohmann::json j = nlohmann::json::parse(env_json, nullptr, false);
  return j.is_object() ? j.value("cpu", "") : "";
}

std::string FaultsOf(const std::string& env_json) {
  nlohmann::json j = nlohmann::json::parse(env_json, nullptr, false);
  if (!j.is_object() || !j.contains("faults") || !j["faults"].is_string()) return "";
  std::string f = j["faults"].get<std::string>();
  const size_t b = f.find_first_not_of(" ;"), e = f.find_last_not_of(" ;");
  return b == std::string::npos ? "" : f.substr(b, e - b + 1);
}

// Why run `id` cannot be a baseline although it completed: cases it planned
// are missing (a partial run would make the candidate's missing cases look
// new and its verdicts rest on fewer cases than the suite has); "" when it
// is whole or its state cannot be read (the caller's query already knew it).
std::string MissingCases(sqlite3* db, int64_t id) {
  StatusOr<RunState> st = ReadRunState(db, id);
  return st.ok() && !st->Complete() ? st->Describe() : "";
}

}  // namespace

StatusOr<std::optional<int64_t>> ResolveBaseline(sqlite3* db, const std::string& spec,
                                                 int64_t candidate) {
  StatusOr<BaselineChoice> choice = ChooseBaseline(db, spec, candidate);
  if (!choice.ok()) return choice.status();
  return choice->run_id;
}

StatusOr<BaselineChoice> ChooseBaseline(sqlite3* db, const std::string& spec, int64_t candidate) {
  BaselineChoice choice;
  if (spec == "none") {
    choice.reason = "--baseline none";
    return choice;
  }
  if (spec.rfind("label:", 0) == 0) {
    std::string label = spec.substr(6);
    if (label.empty())
      return UsageError("--baseline label: needs a name, e.g. --baseline label:release-1.2");
    Stmt s(db,
           "SELECT id FROM runs WHERE label = ? AND status = 'completed' AND id <> ? "
           "ORDER BY started_at DESC, id DESC");
    s.Bind(1, label).Bind(2, candidate);
    int rc;
    std::string passed_over;
    while ((rc = s.Step()) == SQLITE_ROW) {
      if (std::string missing = MissingCases(db, s.Int(0)); !missing.empty()) {
        if (passed_over.empty()) passed_over = " (passed over " + missing + ")";
        continue;
      }
      choice.run_id = s.Int(0);
      choice.reason = "the newest complete run labelled " + label + passed_over;
      return choice;
    }
    if (rc == SQLITE_DONE) {
      return NotFound("--baseline " + spec +
                      ": no completed run with every planned case has that label" + passed_over);
    }
    return QueryError(db, rc, "looking up the baseline label");
  }
  if (spec != "auto") {
    char* end = nullptr;
    long long id = std::strtoll(spec.c_str(), &end, 10);
    if (spec.empty() || *end != '\0' || id <= 0) {
      return UsageError("--baseline '" + spec + "' is not auto, none, a run id or label:NAME");
    }
    Stmt s(db, "SELECT status FROM runs WHERE id = ?");
    s.Bind(1, static_cast<int64_t>(id));
    int rc = s.Step();
    if (rc == SQLITE_DONE) return NotFound("--baseline " + spec + ": no such run in the store");
    if (rc != SQLITE_ROW) return QueryError(db, rc, "looking up the baseline run");
    if (s.Text(0) != "completed") {
      return InvalidInput("--baseline " + spec + ": that run is " + s.Text(0) +
                          ", not completed; pick a completed run");
    }
    if (std::string missing = MissingCases(db, id); !missing.empty()) {
      return InvalidInput("--baseline " + spec + ": " + missing +
                          "; pick a run that recorded every case it planned");
    }
    choice.run_id = id;
    choice.reason = "given on the command line";
    return choice;
  }
  // auto: the same suite set, earlier, completed with every planned case,
  // sharing a case, with no injected faults and no harness errors (a case that errored, crashed or
  // timed out, or no case passing): a slowed or broken baseline would make
  // a healthy candidate look fine or an unchanged one look better. The same
  // CPU model is preferred.
  Stmt cand(db, "SELECT suite, started_at, env_json FROM runs WHERE id = ?");
  cand.Bind(1, candidate);
  int rc = cand.Step();
  if (rc == SQLITE_DONE)
    return NotFound("run " + std::to_string(candidate) + " is not in the store");
  if (rc != SQLITE_ROW) return QueryError(db, rc, "reading the candidate run");
  std::string suite = cand.Text(0), started = cand.Text(1), cpu = CpuOf(cand.Text(2));
  const std::string own_faults = FaultsOf(cand.Text(2));
  Stmt s(db,
         "SELECT b.id, b.env_json,"
         " (SELECT count(*) FROM results e WHERE e.run_id = b.id AND e.status IN ('error', "
         "'crashed', 'timeout')),"
         " (SELECT count(*) FROM results p WHERE p.run_id = b.id AND p.status = 'passed')"
         " FROM runs b WHERE b.suite = ?1 AND b.status = 'completed' AND b.id <> ?2"
         " AND (b.started_at < ?3 OR (b.started_at = ?3 AND b.id < ?2))"
         " AND EXISTS (SELECT 1 FROM results x JOIN results y ON y.suite = x.suite AND y.case_name "
         "= x.case_name"
         "             WHERE x.run_id = b.id AND y.run_id = ?2)"
         " ORDER BY b.started_at DESC, b.id DESC LIMIT 50");
  s.Bind(1, suite).Bind(2, candidate).Bind(3, started);
  std::optional<int64_t> first;
  std::vector<std::string> skipped;
  while ((rc = s.Step()) == SQLITE_ROW) {
    const int64_t id = s.Int(0);
    const std::string faults = FaultsOf(s.Text(1));
    std::string why;
    // Faults other than the candidate's own: a clean run must not be judged
    // against a slowed one (a run with the very same faults is like for like).
    if (!faults.empty() && faults != own_faults) {
      why = "injected faults '" + faults + "'";
    } else if (s.Int(2) > 0) {
      why = std::to_string(s.Int(2)) + " case(s) errored, crashed or timed out";
    } else if (s.Int(3) == 0) {
      why = "no case passed";
    } else if (std::string missing = MissingCases(db, id); !missing.empty()) {
      why = missing.substr(missing.find(' ', 4) + 1);  // without "run N "
    }
    if (!why.empty()) {
      if (skipped.size() < 3) skipped.push_back("run " + std::to_string(id) + ": " + why);
      continue;
    }
    if (!first) first = id;
    if (CpuOf(s.Text(1)) == cpu) {
      choice.run_id = id;
      break;
    }
  }
  if (rc != SQLITE_DONE && rc != SQLITE_ROW) return QueryError(db, rc, "choosing a baseline");
  if (!choice.run_id) choice.run_id = first;
  std::string skipped_text;
  for (const std::string& x : skipped) skipped_text += (skipped_text.empty() ? "" : "; ") + x;
  if (!choice.run_id) {
    choice.reason = "no completed run of " + suite + " without injected faults or harness errors";
  } else {
    choice.reason =
        "the latest completed run of " + suite + " with no injected faults and no harness errors";
    if (first && *first != *choice.run_id) choice.reason += ", on the same CPU model";
  }
  if (!skipped_text.empty()) choice.reason += " (passed over " + skipped_text + ")";
  return choice;
}

namespace {

// Standard deviation of the logs, the value farthest from the median left
// out when there are five or more (one wild run must not set the floor).
double LogSpread(const std::vector<SeriesPoint>& points) {
  std::vector<double> logs;
  for (const SeriesPoint& p : points) {
    if (p.value > 0) logs.push_back(std::log(p.value));
  }
  if (logs.size() >= 5) {
    double med = Median(logs);
    auto far = std::max_element(logs.begin(), logs.end(), [med](double a, double b) {
      return std::fabs(a - med) < std::fabs(b - med);
    });
    logs.erase(far);
  }
  return logs.size() >= 3 ? std::sqrt(Variance(logs)) : std::nan("");
}

// Whether a run's wall time was taken in the baseline's environment: the
// same fingerprint but for how many workers ran aside and the emulator
// settings that only change the cost model (profile, cores).
bool SameEnvironment(const nlohmann::json& a, const nlohmann::json& b) {
  for (const EnvChange& e : DiffEnvironments(a, b)) {
    if (e.component != "jobs" && e.component != "profile" && e.component != "cores") return false;
  }
  return true;
}

// Per-op wall time of `suite`'s cases in `run_id`: case -> op -> value.
Status LoadOpWall(sqlite3* db, const std::string& suite, int64_t run_id,
                  std::map<std::string, std::map<std::string, double>>* out) {
  Stmt s(db,
         "SELECT r.case_name, o.op, o.wall_us FROM op_summaries o JOIN results r ON r.id = "
         "o.result_id "
         "WHERE r.run_id = ? AND r.suite = ?");
  s.Bind(1, run_id).Bind(2, suite);
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) (*out)[s.Text(0)][s.Text(1)] = s.Real(2);
  return rc == SQLITE_DONE ? Status::Ok()
                           : QueryError(db, rc, "reading the per-op history of suite " + suite);
}

}  // namespace

Status AttachWallNoise(sqlite3* db, RunRecord* run, size_t max_runs) {
  std::set<std::string> suites;
  for (const CaseResult& c : run->cases) suites.insert(c.suite);
  for (const std::string& suite : suites) {
    auto all = history_internal::LoadSuiteSeries(db, suite, "", "wall_us_median");
    if (!all.ok()) return all.status();
    // Raw medians of the runs at the baseline's environment: the level at
    // which a candidate's fresh processes are judged against history.
    std::map<int64_t, std::map<std::string, std::map<std::string, double>>>
        op_wall;  // run -> case -> op
    for (const auto& [name, series] : *all) {
      auto at = std::find_if(series.begin(), series.end(),
                             [&](const SeriesPoint& p) { return p.run_id == run->run_id; });
      if (at == series.end()) continue;
      std::vector<double> medians;
      std::vector<int64_t> runs;
      for (auto it = std::make_reverse_iterator(at + 1);
           it != series.rend() && medians.size() < max_runs; ++it) {
        if (!SameEnvironment(it->env, run->env)) continue;
        medians.push_back(it->value);
        runs.push_back(it->run_id);
      }
      if (medians.size() < 3) continue;
      const std::string key = suite + "/" + name;
      run->wall_run_medians[key] = medians;
      for (int64_t id : runs) {
        if (op_wall.count(id) == 0) SPYRE_RETURN_IF_ERROR(LoadOpWall(db, suite, id, &op_wall[id]));
        auto c = op_wall[id].find(name);
        if (c == op_wall[id].end()) continue;
        for (const auto& [op, wall] : c->second) run->op_run_wall[key][op].push_back(wall);
      }
    }
    auto normalized = history_internal::LoadSuiteSeries(db, suite, "", "wall_us_normalized");
    if (!normalized.ok()) return normalized.status();
    // Host-speed normalised medians where the runs have probes: the spread
    // left is the case's own, not the host's.
    for (auto& [name, series] : *normalized) {
      if (series.size() >= 3) (*all)[name] = std::move(series);
    }
    for (const auto& [name, series] : *all) {
      auto at = std::find_if(series.begin(), series.end(),
                             [&](const SeriesPoint& p) { return p.run_id == run->run_id; });
      if (at == series.end()) continue;
      size_t end = static_cast<size_t>(at - series.begin()) + 1;
      size_t begin = end > max_runs ? end - max_runs : 0;
      double sigma = LogSpread(std::vector<SeriesPoint>(series.begin() + static_cast<long>(begin),
                                                        series.begin() + static_cast<long>(end)));
      if (std::isfinite(sigma)) run->wall_run_sigma[suite + "/" + name] = sigma;
    }
  }
  return Status::Ok();
}

StatusOr<std::vector<SeriesPoint>> LoadSuiteGeomeanSeries(sqlite3* db, const std::string& suite,
                                                          const std::string& metric,
                                                          int64_t through_run_id) {
  auto all = history_internal::LoadSuiteSeries(db, suite, "", metric, through_run_id);
  if (!all.ok()) return all.status();
  // Runs in order, and for each run the values of the cases it has.
  std::map<int64_t, SeriesPoint> runs;
  std::map<int64_t, std::map<std::string, double>> values;
  for (const auto& [name, series] : *all) {
    for (const SeriesPoint& p : series) {
      runs.emplace(p.run_id, p);
      values[p.run_id][name] = p.value;
    }
  }
  // Cases present (with a positive value) in every run.
  std::set<std::string> common;
  bool first = true;
  for (const auto& [run, cases] : values) {
    std::set<std::string> here;
    for (const auto& [name, v] : cases)
      if (v > 0) here.insert(name);
    if (first) {
      common = here;
      first = false;
      continue;
    }
    std::set<std::string> keep;
    for (const auto& n : common)
      if (here.count(n)) keep.insert(n);
    common.swap(keep);
  }
  std::vector<SeriesPoint> out;
  if (common.empty()) return out;
  for (auto& [run, point] : runs) {
    double log_sum = 0;
    for (const auto& n : common) log_sum += std::log(values[run][n]);
    point.value = std::exp(log_sum / static_cast<double>(common.size()));
    out.push_back(point);
  }
  std::stable_sort(out.begin(), out.end(), [](const SeriesPoint& a, const SeriesPoint& b) {
    return std::tie(a.started_at, a.run_id) < std::tie(b.started_at, b.run_id);
  });
  return out;
}

std::vector<HistoryShift> FindShifts(const std::string& suite, const std::string& case_name,
                                     const std::string& metric,
                                     const std::vector<SeriesPoint>& series) {
  ChangePointOptions o;
  std::vector<double> values;
  std::vector<size_t> at;  // series index of each value
  const bool wall = metric == "wall_us_median" || metric == "wall_us_normalized";
  if (wall) {
    // Wall time is judged on its logs: a 2x shift is as large at 350 us as
    // at 3 ms, and a heavy right tail does not swamp the test.
    o.min_relative_shift = 0.05;
    o.log_scale = true;
  }
  for (size_t i = 0; i < series.size(); ++i) {
    if (wall && !(series[i].value > 0)) continue;
    values.push_back(wall ? std::log(series[i].value) : series[i].value);
    at.push_back(i);
  }
  std::vector<HistoryShift> out;
  for (ChangePoint cp : DetectChangePoints(values, o)) {
    cp.index = at[cp.index];
    HistoryShift s;
    s.suite = suite;
    s.case_name = case_name;
    s.metric = metric;
    s.point = cp;
    s.first_run_id = series[cp.index].run_id;
    s.previous_run_id = series[cp.index - 1].run_id;
    s.env_change = DiffEnvironments(series[cp.index - 1].env, series[cp.index].env);
    out.push_back(std::move(s));
  }
  return out;
}

StatusOr<std::vector<HistoryShift>> SuiteHistory(sqlite3* db, const std::string& suite,
                                                 const std::string& case_name,
                                                 const std::vector<std::string>& metrics) {
  const bool defaults = metrics.empty();
  std::vector<std::string> wanted = metrics;
  if (defaults) {
    wanted = {"modeled_us", "wall_us_normalized", "wall_us_median",   "max_ulp",
              "rel_l2",     "fallback_ops",       "peak_device_bytes"};
  }
  std::vector<HistoryShift> out;
  std::set<std::string> normalized;  // cases judged on wall_us_normalized
  for (const std::string& metric : wanted) {
    auto all = history_internal::LoadSuiteSeries(db, suite, case_name, metric);
    if (!all.ok()) return all.status();
    for (const auto& [name, series] : *all) {
      // By default one wall series per case: normalised when it was probed.
      if (defaults && metric == "wall_us_normalized" && series.size() >= 2) normalized.insert(name);
      if (defaults && metric == "wall_us_median" && normalized.count(name)) continue;
      for (HistoryShift& s : FindShifts(suite, name, metric, series)) out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace harness
