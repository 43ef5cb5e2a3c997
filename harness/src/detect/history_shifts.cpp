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
double LogSpread(const std::vector<SeriesPoint>& points, int* count) {
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
    SPYRE_ASSIGN_OR_RETURN(auto all, LoadSuiteSeries(store, suite, "", "wall_us_median"));
    // Raw medians of the runs at the baseline's environment: the level at
    // which a candidate's fresh processes are judged against history.
    std::map<int64_t, std::map<std::string, std::map<std::string, double>>>
        op_wall;  // run -> case -> op
    for (const auto& [name, series] : all) {
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
        if (op_wall.count(id) == 0) SPYRE_RETURN_IF_ERROR(LoadOpWall(store, suite, id, &op_wall[id]));
        auto c = op_wall[id].find(name);
        if (c == op_wall[id].end()) continue;
        for (const auto& [op, wall] : c->second) run->op_run_wall[key][op].push_back(wall);
      }
    }
    // The same for wall time less run-queue wait, over the runs that kept it
    // (no host-speed normalisation: the wait removed is most of what a busy
    // host adds).
    SPYRE_ASSIGN_OR_RETURN(auto unqueued,
                           LoadSuiteSeries(store, suite, "", "unqueued_us_median"));
    for (const auto& [name, series] : unqueued) {
      auto at = std::find_if(series.begin(), series.end(),
                             [&](const SeriesPoint& p) { return p.run_id == run->run_id; });
      if (at == series.end()) continue;
      std::vector<double> medians;
      std::vector<SeriesPoint> recent;
      for (auto it = std::make_reverse_iterator(at + 1);
           it != series.rend() && medians.size() < max_runs; ++it) {
        if (!SameEnvironment(it->env, run->env)) continue;
        medians.push_back(it->value);
        recent.insert(recent.begin(), *it);
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
    SPYRE_ASSIGN_OR_RETURN(auto normalized,
                           LoadSuiteSeries(store, suite, "", "wall_us_normalized"));
    // Host-speed normalised medians where the runs have probes: the spread
    // left is the case's own, not the host's.
    for (auto& [name, series] : normalized) {
      if (series.size() >= 3) all[name] = std::move(series);
    }
    for (const auto& [name, series] : all) {
      auto at = std::find_if(series.begin(), series.end(),
                             [&](const SeriesPoint& p) { return p.run_id == run->run_id; });
      if (at == series.end()) continue;
      size_t end = static_cast<size_t>(at - series.begin()) + 1;
      size_t begin = end > max_runs ? end - max_runs : 0;
      int count = 0;
      double sigma = LogSpread(std::vector<SeriesPoint>(series.begin() + static_cast<long>(begin),
                                                        series.begin() + static_cast<long>(end)),
                               &count);
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
  SPYRE_ASSIGN_OR_RETURN(auto all, LoadSuiteSeries(store, suite, "", metric, through_run_id));
  // Runs in order, and for each run the values of the cases it has.
  std::map<int64_t, SeriesPoint> runs;
  std::map<int64_t, std::map<std::string, double>> values;
  for (const auto& [name, series] : all) {
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
