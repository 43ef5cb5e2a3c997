// Run-to-run noise, suite-level series and change points over history.
#include <cmath>
#include <map>
#include <set>

#include <algorithm>
#include <iterator>

#include "harness/detect/history.h"
#include "harness/detect/stats.h"

namespace harness {
namespace {

// Standard deviation of the logs, the value farthest from the median left
// out when there are five or more (one wild run must not set the floor).
// *count: how many values it was computed from.
double LogSpread(const std::vector<double>& values, int* count) {
  std::vector<double> logs;
  for (double v : values) {
    if (v > 0) logs.push_back(std::log(v));
  }
  if (logs.size() >= 5) {
    double med = Median(logs);
    auto far = std::max_element(logs.begin(), logs.end(), [med](double a, double b) {
      return std::fabs(a - med) < std::fabs(b - med);
    });
    logs.erase(far);
  }
  *count = static_cast<int>(logs.size());
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

}  // namespace

Status AttachWallNoise(Store& store, RunRecord* run, size_t max_runs) {
  std::set<std::string> suites;
  for (const CaseResult& c : run->cases) suites.insert(c.suite);
  for (const std::string& suite : suites) {
    // Each series table holds a run's environment once; whether a run is in
    // the baseline's environment is decided once per run, not per point.
    SPYRE_ASSIGN_OR_RETURN(SeriesTable wall, LoadSeriesTable(store, suite, "", "wall_us_median"));
    std::map<int64_t, bool> same;  // run id -> in the baseline's environment
    auto same_env = [&](const SeriesTable& t, size_t i) {
      auto it = same.find(t.runs[i].run_id);
      if (it == same.end()) {
        it = same.emplace(t.runs[i].run_id, SameEnvironment(t.runs[i].env, run->env)).first;
      }
      return it->second;
    };
    // The position of the run itself in a case's values (end when absent).
    auto find_run = [&](const SeriesTable& t, const std::vector<std::pair<size_t, double>>& v) {
      return std::find_if(v.begin(), v.end(), [&](const std::pair<size_t, double>& p) {
        return t.runs[p.first].run_id == run->run_id;
      });
    };
    // Raw medians of the runs at the baseline's environment: the level at
    // which a candidate's fresh processes are judged against history.
    std::map<int64_t, std::map<std::string, std::map<std::string, double>>>
        op_wall;  // run -> case -> op
    for (const auto& [name, series] : wall.cases) {
      auto at = find_run(wall, series);
      if (at == series.end()) continue;
      std::vector<double> medians;
      std::vector<int64_t> runs;
      for (auto it = std::make_reverse_iterator(at + 1);
           it != series.rend() && medians.size() < max_runs; ++it) {
        if (!same_env(wall, it->first)) continue;
        medians.push_back(it->second);
        runs.push_back(wall.runs[it->first].run_id);
      }
      if (medians.size() < 3) continue;
      const std::string key = suite + "/" + name;
      run->wall_run_medians[key] = medians;
      for (int64_t id : runs) {
        if (op_wall.count(id) == 0) SPYRE_RETURN_IF_ERROR(LoadOpWall(store, suite, id, &op_wall[id]));
        auto c = op_wall[id].find(name);
        if (c == op_wall[id].end()) continue;
        for (const auto& [op, value] : c->second) run->op_run_wall[key][op].push_back(value);
      }
    }
    // The same for wall time less run-queue wait, over the runs that kept it
    // (no host-speed normalisation: the wait removed is most of what a busy
    // host adds).
    SPYRE_ASSIGN_OR_RETURN(SeriesTable unqueued,
                           LoadSeriesTable(store, suite, "", "unqueued_us_median"));
    for (const auto& [name, series] : unqueued.cases) {
      auto at = find_run(unqueued, series);
      if (at == series.end()) continue;
      std::vector<double> medians, recent;
      for (auto it = std::make_reverse_iterator(at + 1);
           it != series.rend() && medians.size() < max_runs; ++it) {
        if (!same_env(unqueued, it->first)) continue;
        medians.push_back(it->second);
        recent.insert(recent.begin(), it->second);
      }
      if (medians.size() < 3) continue;
      const std::string key = suite + "/" + name;
      run->unqueued_run_medians[key] = medians;
      int count = 0;
      const double sigma = LogSpread(recent, &count);
      if (std::isfinite(sigma)) {
        run->unqueued_run_sigma[key] = sigma;
        run->unqueued_run_count[key] = count;
      }
    }
    SPYRE_ASSIGN_OR_RETURN(SeriesTable normalized,
                           LoadSeriesTable(store, suite, "", "wall_us_normalized"));
    // Host-speed normalised medians where the runs have probes: the spread
    // left is the case's own, not the host's.
    std::map<std::string, std::pair<const SeriesTable*, const std::vector<std::pair<size_t, double>>*>>
        spread;
    for (const auto& [name, series] : wall.cases) spread[name] = {&wall, &series};
    for (const auto& [name, series] : normalized.cases) {
      if (series.size() >= 3) spread[name] = {&normalized, &series};
    }
    for (const auto& [name, pick] : spread) {
      const auto& series = *pick.second;
      auto at = find_run(*pick.first, series);
      if (at == series.end()) continue;
      size_t end = static_cast<size_t>(at - series.begin()) + 1;
      size_t begin = end > max_runs ? end - max_runs : 0;
      std::vector<double> window;
      for (size_t i = begin; i < end; ++i) window.push_back(series[i].second);
      int count = 0;
      double sigma = LogSpread(window, &count);
      if (std::isfinite(sigma)) {
        run->wall_run_sigma[suite + "/" + name] = sigma;
        run->wall_run_count[suite + "/" + name] = count;
      }
    }
  }
  return Status::Ok();
}

StatusOr<std::vector<SeriesPoint>> LoadSuiteGeomeanSeries(Store& store, const std::string& suite,
                                                          const std::string& metric,
                                                          int64_t through_run_id) {
  SPYRE_ASSIGN_OR_RETURN(SeriesTable table,
                         LoadSeriesTable(store, suite, "", metric, through_run_id));
  // The runs that have a value of some case, and each case's value per run
  // (NaN where it has none).
  const size_t n = table.runs.size();
  std::vector<bool> present(n, false);
  std::vector<std::vector<double>> by_case;  // in case-name order
  for (const auto& [name, values] : table.cases) {
    std::vector<double> row(n, std::nan(""));
    for (const auto& [at, v] : values) {
      row[at] = v;
      present[at] = true;
    }
    by_case.push_back(std::move(row));
  }
  // Cases present (with a positive value) in every run.
  std::vector<const std::vector<double>*> common;
  for (const std::vector<double>& row : by_case) {
    bool everywhere = true;
    for (size_t i = 0; i < n && everywhere; ++i) everywhere = !present[i] || row[i] > 0;
    if (everywhere) common.push_back(&row);
  }
  std::vector<SeriesPoint> out;
  if (common.empty()) return out;
  for (size_t i = 0; i < n; ++i) {
    if (!present[i]) continue;
    double log_sum = 0;
    for (const std::vector<double>* row : common) log_sum += std::log((*row)[i]);
    out.push_back(table.Point(i, std::exp(log_sum / static_cast<double>(common.size()))));
  }
  return out;
}

std::vector<HistoryShift> FindShifts(const std::string& suite, const std::string& case_name,
                                     const std::string& metric,
                                     const std::vector<SeriesPoint>& series) {
  ChangePointOptions o;
  std::vector<double> values;
  std::vector<size_t> at;  // series index of each value
  const bool wall = metric == "wall_us_median" || metric == "wall_us_normalized" ||
                    metric == "unqueued_us_median";
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

StatusOr<std::vector<HistoryShift>> SuiteHistory(Store& store, const std::string& suite,
                                                 const std::string& case_name,
                                                 const std::vector<std::string>& metrics) {
  const bool defaults = metrics.empty();
  std::vector<std::string> wanted = metrics;
  if (defaults) {
    wanted = {"modeled_us", "max_ulp", "rel_l2", "fallback_ops", "peak_device_bytes"};
  }
  std::vector<HistoryShift> out;
  for (const std::string& metric : wanted) {
    SPYRE_ASSIGN_OR_RETURN(auto all, LoadSuiteSeries(store, suite, case_name, metric));
    for (const auto& [name, series] : all) {
      for (HistoryShift& s : FindShifts(suite, name, metric, series)) out.push_back(std::move(s));
    }
  }
  if (!defaults) return out;
  // By default one wall-time series per case: the one that covers the most
  // runs, preferring wall time less run-queue wait, then the host-speed
  // normalised wall time, then wall time as measured.
  std::map<std::string, std::pair<std::string, std::vector<SeriesPoint>>> chosen;
  for (const char* metric : {"unqueued_us_median", "wall_us_normalized", "wall_us_median"}) {
    SPYRE_ASSIGN_OR_RETURN(auto all, LoadSuiteSeries(store, suite, case_name, metric));
    for (auto& [name, series] : all) {
      auto it = chosen.find(name);
      if (it == chosen.end() || series.size() > it->second.second.size()) {
        chosen[name] = {metric, std::move(series)};
      }
    }
  }
  for (const auto& [name, pick] : chosen) {
    for (HistoryShift& s : FindShifts(suite, name, pick.first, pick.second)) {
      out.push_back(std::move(s));
    }
  }
  return out;
}

}  // namespace harness
