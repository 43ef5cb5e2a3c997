// Run-to-run noise, suite-level series and change points over history.
#include <cmath>
#include <map>
#include <set>

#include <algorithm>
#include <iterator>
#include <tuple>

#include "detect/history.h"
#include "base/stats.h"

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

namespace {

// The shift a wall-time change point needs (and a case moving with the
// suite's level).
constexpr double kWallMinShift = 0.05;

bool IsWallMetric(const std::string& metric) {
  return metric == "wall_us_median" || metric == "wall_us_normalized" ||
         metric == "unqueued_us_median";
}

// The median of the shortest window holding half of `v` and one more: the
// middle of its densest half, which the values outside it cannot move.
double ShortestHalfMedian(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t h = v.size() / 2 + 1;
  size_t best = 0;
  for (size_t i = 1; i + h <= v.size(); ++i) {
    if (v[i + h - 1] - v[i] < v[best + h - 1] - v[best]) best = i;
  }
  return Median(std::vector<double>(v.begin() + static_cast<std::ptrdiff_t>(best),
                                    v.begin() + static_cast<std::ptrdiff_t>(best + h)));
}

// Whether a series' own values moved with a change point of `relative`
// (same direction, at least kWallMinShift): the medians of its logs before
// and after, and *own, the relative change between them.
bool MovesWith(const std::vector<double>& before_logs, const std::vector<double>& after_logs,
               double relative, double* before = nullptr, double* after = nullptr,
               double* own = nullptr) {
  if (before_logs.empty() || after_logs.empty()) return false;
  const double b = Median(before_logs), a = Median(after_logs);
  const double change = std::exp(a - b) - 1;
  if (before) *before = std::exp(b);
  if (after) *after = std::exp(a);
  if (own) *own = change;
  return change * relative > 0 && std::fabs(change) >= kWallMinShift;
}

HistoryShift MakeShift(const std::string& suite, const std::string& case_name,
                       const std::string& metric, const std::vector<SeriesPoint>& series,
                       const ChangePoint& cp) {
  HistoryShift s;
  s.suite = suite;
  s.case_name = case_name;
  s.metric = metric;
  s.point = cp;
  s.first_run_id = series[cp.index].run_id;
  s.previous_run_id = series[cp.index - 1].run_id;
  s.env_change = DiffEnvironments(series[cp.index - 1].env, series[cp.index].env);
  return s;
}

}  // namespace

std::map<int64_t, double> SuiteLogLevels(const std::map<std::string, std::vector<SeriesPoint>>& cases,
                                         size_t min_cases) {
  std::map<int64_t, std::vector<double>> by_run;  // run id -> each case's log less its median
  for (const auto& [name, series] : cases) {
    std::vector<double> logs;
    for (const SeriesPoint& p : series) {
      if (p.value > 0) logs.push_back(std::log(p.value));
    }
    if (logs.empty()) continue;
    const double centre = Median(logs);
    for (const SeriesPoint& p : series) {
      if (p.value > 0) by_run[p.run_id].push_back(std::log(p.value) - centre);
    }
  }
  std::map<int64_t, double> out;
  for (const auto& [run, offsets] : by_run) {
    if (offsets.size() >= std::max<size_t>(min_cases, 1)) out[run] = ShortestHalfMedian(offsets);
  }
  return out;
}

std::vector<HistoryShift> FindShifts(const std::string& suite, const std::string& case_name,
                                     const std::string& metric,
                                     const std::vector<SeriesPoint>& series,
                                     const std::map<int64_t, double>* log_levels) {
  ChangePointOptions o;
  std::vector<double> values;
  std::vector<size_t> at;  // series index of each value
  const bool wall = IsWallMetric(metric);
  if (wall) {
    // Wall time is judged on its logs: a 2x shift is as large at 350 us as
    // at 3 ms, and a heavy right tail does not swamp the test.
    o.min_relative_shift = kWallMinShift;
    o.log_scale = true;
  }
  for (size_t i = 0; i < series.size(); ++i) {
    if (wall && !(series[i].value > 0)) continue;
    values.push_back(wall ? std::log(series[i].value) : series[i].value);
    at.push_back(i);
  }
  // The suite's level divided out where every run of the series has one.
  bool leveled = wall && log_levels != nullptr && !values.empty();
  for (size_t k = 0; leveled && k < at.size(); ++k) {
    leveled = log_levels->count(series[at[k]].run_id) > 0;
  }
  std::vector<double> searched = values;
  if (leveled) {
    for (size_t k = 0; k < at.size(); ++k) searched[k] -= log_levels->at(series[at[k]].run_id);
  }
  const std::vector<ChangePoint> found = DetectChangePoints(searched, o);
  std::vector<HistoryShift> out;
  for (size_t f = 0; f < found.size(); ++f) {
    ChangePoint cp = found[f];
    if (leveled) {
      // The series' own medians over the same segments must have moved the
      // same way by as much: a change point only the level made (the suite
      // moved and this case did not) names no change of the case.
      const size_t lo = f == 0 ? 0 : found[f - 1].index;
      const size_t hi = f + 1 == found.size() ? values.size() : found[f + 1].index;
      const auto first = values.begin();
      const std::vector<double> before(first + static_cast<std::ptrdiff_t>(lo),
                                       first + static_cast<std::ptrdiff_t>(cp.index));
      const std::vector<double> after(first + static_cast<std::ptrdiff_t>(cp.index),
                                      first + static_cast<std::ptrdiff_t>(hi));
      if (!MovesWith(before, after, cp.relative, &cp.before, &cp.after, &cp.relative)) continue;
    }
    cp.index = at[cp.index];
    out.push_back(MakeShift(suite, case_name, metric, series, cp));
    out.back().level_removed = leveled;
  }
  return out;
}

const char* LevelCauseName(LevelCause cause) {
  switch (cause) {
    case LevelCause::kHost: return "host";
    case LevelCause::kNotHost: return "not_host";
    case LevelCause::kSmall: return "small";
    case LevelCause::kUnknown: break;
  }
  return "unknown";
}

namespace {

// Per run, the median of its cases' values (at least `min_cases` of them)
// as a log level less the median of those over the runs.
std::map<int64_t, double> CentredRunMedians(const std::map<int64_t, std::vector<double>>& by_run,
                                            size_t min_cases) {
  std::map<int64_t, double> out;
  std::vector<double> all;
  for (const auto& [run, values] : by_run) {
    if (values.size() < std::max<size_t>(min_cases, 1)) continue;
    out[run] = Median(values);
    all.push_back(out[run]);
  }
  if (all.empty()) return out;
  const double usual = Median(all);
  for (auto& [run, level] : out) level -= usual;
  return out;
}

// A witness's change over a level shift as a share of the level's (logs);
// NaN, and *relative NaN, with fewer than kMinWitnessRuns runs on a side.
double WitnessShare(double level_log_shift, const WitnessRuns& w, double* relative) {
  *relative = std::nan("");
  if (w.before.size() < kMinWitnessRuns || w.after.size() < kMinWitnessRuns || level_log_shift == 0) {
    return std::nan("");
  }
  const double shift = Median(w.after) - Median(w.before);
  *relative = std::expm1(shift);
  return shift / level_log_shift;
}

}  // namespace

std::map<int64_t, double> HostProbeLogLevels(const SeriesTable& probes, size_t min_cases) {
  std::map<int64_t, std::vector<double>> by_run;  // run id -> the log probe times of its cases
  for (const auto& [name, values] : probes.cases) {
    for (const auto& [at, v] : values) {
      if (v > 0 && std::isfinite(v)) by_run[probes.runs[at].run_id].push_back(std::log(v));
    }
  }
  return CentredRunMedians(by_run, min_cases);
}

std::map<int64_t, double> RunQueueLogLevels(const SeriesTable& wall, const SeriesTable& unqueued,
                                            size_t min_cases) {
  std::map<int64_t, std::vector<double>> by_run;  // run id -> log(wall / unqueued) of its cases
  for (const auto& [name, values] : unqueued.cases) {
    auto w = wall.cases.find(name);
    if (w == wall.cases.end()) continue;
    std::map<int64_t, double> wall_of;
    for (const auto& [at, v] : w->second) wall_of[wall.runs[at].run_id] = v;
    for (const auto& [at, v] : values) {
      auto it = wall_of.find(unqueued.runs[at].run_id);
      if (it == wall_of.end() || !(v > 0) || !(it->second > 0)) continue;
      by_run[it->first].push_back(std::log(it->second / v));
    }
  }
  return CentredRunMedians(by_run, min_cases);
}

std::map<int64_t, double> HostBusyLevels(const SeriesTable& others, const SeriesTable& ticks,
                                         size_t min_cases) {
  struct Pooled {
    double others = 0, ticks = 0;
    size_t cases = 0;
  };
  std::map<int64_t, Pooled> by_run;
  for (const auto& [name, values] : ticks.cases) {
    auto o = others.cases.find(name);
    if (o == others.cases.end()) continue;
    std::map<int64_t, double> others_of;
    for (const auto& [at, v] : o->second) others_of[others.runs[at].run_id] = v;
    for (const auto& [at, t] : values) {
      const int64_t run = ticks.runs[at].run_id;
      auto it = others_of.find(run);
      if (it == others_of.end() || !(t > 0) || !(it->second >= 0) || it->second > t) continue;
      Pooled& p = by_run[run];
      p.others += it->second;
      p.ticks += t;
      ++p.cases;
    }
  }
  std::map<int64_t, double> out;
  for (const auto& [run, p] : by_run) {
    if (p.cases >= std::max<size_t>(min_cases, 1) && p.ticks >= kMinBusyTicks) {
      out[run] = p.others / p.ticks;
    }
  }
  return out;
}

LevelCause AttributeLevelShift(double level_log_shift, const LevelWitnesses& w,
                               WitnessChange* change) {
  *change = WitnessChange();
  const double by_probe = WitnessShare(level_log_shift, w.probe, &change->probe_relative);
  const double by_queue = WitnessShare(level_log_shift, w.queue, &change->queue_relative);
  bool busy_moved = false;
  if (w.busy.before.size() >= kMinWitnessRuns && w.busy.after.size() >= kMinWitnessRuns) {
    change->busy_before = Median(w.busy.before);
    change->busy_after = Median(w.busy.after);
    busy_moved = std::fabs(change->busy_after - change->busy_before) >= kHostBusyShift &&
                 std::fabs(level_log_shift) <= std::log1p(kHostBusyMaxStep);
  }
  // NaN compares false: a witness without runs cannot say "host".
  if (by_probe >= kHostWitnessShare || by_queue >= kHostWitnessShare || busy_moved) {
    return LevelCause::kHost;
  }
  if (std::isnan(by_probe) || std::isnan(by_queue)) return LevelCause::kUnknown;
  if (std::fabs(level_log_shift) < std::log1p(kMinCaseLevelStep)) return LevelCause::kSmall;
  return LevelCause::kNotHost;
}

SuiteLevelSplit SplitSuiteLevel(const std::string& suite,
                                const std::map<std::string, std::vector<SeriesPoint>>& cases,
                                const std::map<int64_t, double>& levels, const HostSignals& host) {
  SuiteLevelSplit split;
  split.divided = levels;
  if (levels.empty()) return split;
  std::map<int64_t, const SeriesPoint*> run_points;  // a point of each run, for its environment
  for (const auto& [name, series] : cases) {
    for (const SeriesPoint& p : series) run_points.emplace(p.run_id, &p);
  }
  std::vector<SeriesPoint> level_series;
  for (const auto& [run, level] : levels) {
    SeriesPoint p = *run_points.at(run);
    p.value = std::exp(level);
    level_series.push_back(std::move(p));
  }
  // In run order, as every series is.
  std::sort(level_series.begin(), level_series.end(), [](const SeriesPoint& a, const SeriesPoint& b) {
    return std::tie(a.started_at, a.run_id) < std::tie(b.started_at, b.run_id);
  });
  std::map<int64_t, size_t> position;  // run id -> index in level_series
  for (size_t i = 0; i < level_series.size(); ++i) position[level_series[i].run_id] = i;
  split.shifts = FindShifts(suite, "", "wall_us_median", level_series);
  for (size_t k = 0; k < split.shifts.size(); ++k) {
    HistoryShift& s = split.shifts[k];
    s.metric = "wall_level";
    s.suite_level = true;
    // The runs of the segments on both sides of this change point.
    const size_t at = position.at(s.first_run_id);
    const size_t lo = k == 0 ? 0 : position.at(split.shifts[k - 1].first_run_id);
    const size_t hi = k + 1 == split.shifts.size() ? level_series.size()
                                                   : position.at(split.shifts[k + 1].first_run_id);
    for (const auto& [name, series] : cases) {
      std::vector<double> before, after;
      for (const SeriesPoint& p : series) {
        auto it = position.find(p.run_id);
        if (it == position.end() || !(p.value > 0)) continue;
        const size_t i = it->second;
        if (i >= lo && i < at) before.push_back(std::log(p.value));
        if (i >= at && i < hi) after.push_back(std::log(p.value));
      }
      if (before.empty() || after.empty()) continue;
      ++s.level_cases;
      if (MovesWith(before, after, s.point.relative)) s.moved_with.push_back(name);
    }
    // Whether the host's witnesses moved with it over the same runs.
    LevelWitnesses w;
    for (size_t i = lo; i < hi; ++i) {
      const int64_t run = level_series[i].run_id;
      const auto add = [&](const std::map<int64_t, double>& levels, WitnessRuns* runs) {
        if (auto v = levels.find(run); v != levels.end()) {
          (i < at ? runs->before : runs->after).push_back(v->second);
        }
      };
      add(host.probe, &w.probe);
      add(host.queue, &w.queue);
      add(host.busy, &w.busy);
    }
    const double step = std::log(s.point.after) - std::log(s.point.before);
    WitnessChange change;
    s.level_cause = AttributeLevelShift(step, w, &change);
    s.probe_relative = change.probe_relative;
    s.queue_relative = change.queue_relative;
    s.busy_before = change.busy_before;
    s.busy_after = change.busy_after;
    // A shift the host did not make stays in the cases: from its first run
    // on, the level divided out is lower by its step.
    if (s.level_cause == LevelCause::kNotHost) {
      for (size_t i = at; i < level_series.size(); ++i) split.divided[level_series[i].run_id] -= step;
    }
  }
  return split;
}

namespace {

// The level's own change points, said once for the suite with the cases
// that moved with them rather than as a change point of each. With
// `case_name`, only those it moved with.
void AddSuiteLevelShifts(const std::string& case_name, std::vector<HistoryShift> shifts,
                         std::vector<HistoryShift>* out) {
  for (HistoryShift& s : shifts) {
    if (!case_name.empty() &&
        std::find(s.moved_with.begin(), s.moved_with.end(), case_name) == s.moved_with.end()) {
      continue;
    }
    out->push_back(std::move(s));
  }
}

// Wall time of every case of `all` (only `case_name` when not empty), each
// searched with the suite's level divided out but for the shifts of it the
// host's witnesses did not share, then the level's own change points.
void SearchWallSeries(const std::string& suite, const std::string& case_name,
                      const std::map<std::string, std::vector<SeriesPoint>>& all,
                      const std::map<std::string, std::string>& metric_of, const HostSignals& host,
                      std::vector<HistoryShift>* out, std::vector<SuiteLevelPoint>* levels_out) {
  const std::map<int64_t, double> levels = SuiteLogLevels(all);
  SuiteLevelSplit split = SplitSuiteLevel(suite, all, levels, host);
  for (const auto& [name, series] : all) {
    if (!case_name.empty() && name != case_name) continue;
    for (HistoryShift& s : FindShifts(suite, name, metric_of.at(name), series, &split.divided)) {
      out->push_back(std::move(s));
    }
  }
  AddSuiteLevelShifts(case_name, std::move(split.shifts), out);
  if (levels_out == nullptr) return;
  levels_out->clear();
  for (const auto& [run, level] : levels) {
    SuiteLevelPoint p;
    p.run_id = run;
    p.level = std::exp(level);
    p.divided = std::exp(split.divided.at(run));
    if (auto probe = host.probe.find(run); probe != host.probe.end()) p.probe = std::exp(probe->second);
    if (auto queue = host.queue.find(run); queue != host.queue.end()) p.queue = std::exp(queue->second);
    if (auto busy = host.busy.find(run); busy != host.busy.end()) p.busy = busy->second;
    levels_out->push_back(p);
  }
}

}  // namespace

StatusOr<std::vector<HistoryShift>> SuiteHistory(Store& store, const std::string& suite,
                                                 const std::string& case_name,
                                                 const std::vector<std::string>& metrics,
                                                 std::vector<SuiteLevelPoint>* levels) {
  const bool defaults = metrics.empty();
  std::vector<std::string> wanted = metrics;
  if (defaults) {
    wanted = {"modeled_us", "max_ulp", "rel_l2", "fallback_ops", "peak_device_bytes"};
  }
  // The host's witnesses per run, read once for any wall series.
  HostSignals host;
  bool host_read = false;
  auto read_host = [&]() -> Status {
    if (host_read) return Status::Ok();
    SPYRE_ASSIGN_OR_RETURN(SeriesTable probes, LoadSeriesTable(store, suite, "", "host_probe_us"));
    host.probe = HostProbeLogLevels(probes);
    SPYRE_ASSIGN_OR_RETURN(SeriesTable wall, LoadSeriesTable(store, suite, "", "wall_us_median"));
    SPYRE_ASSIGN_OR_RETURN(SeriesTable unqueued,
                           LoadSeriesTable(store, suite, "", "unqueued_us_median"));
    host.queue = RunQueueLogLevels(wall, unqueued);
    SPYRE_ASSIGN_OR_RETURN(SeriesTable others,
                           LoadSeriesTable(store, suite, "", "host_busy_others"));
    SPYRE_ASSIGN_OR_RETURN(SeriesTable ticks, LoadSeriesTable(store, suite, "", "host_busy_ticks"));
    host.busy = HostBusyLevels(others, ticks);
    host_read = true;
    return Status::Ok();
  };
  std::vector<HistoryShift> out;
  for (const std::string& metric : wanted) {
    if (!IsWallMetric(metric)) {
      SPYRE_ASSIGN_OR_RETURN(auto all, LoadSuiteSeries(store, suite, case_name, metric));
      for (const auto& [name, series] : all) {
        for (HistoryShift& s : FindShifts(suite, name, metric, series)) out.push_back(std::move(s));
      }
      continue;
    }
    // A wall metric's level is the whole suite's, whichever case is asked for.
    SPYRE_ASSIGN_OR_RETURN(auto all, LoadSuiteSeries(store, suite, "", metric));
    SPYRE_RETURN_IF_ERROR(read_host());
    std::map<std::string, std::string> metric_of;
    for (const auto& [name, series] : all) metric_of[name] = metric;
    SearchWallSeries(suite, case_name, all, metric_of, host, &out, levels);
  }
  if (!defaults) return out;
  // By default one wall-time series per case: the one that covers the most
  // runs, preferring wall time less run-queue wait, then the host-speed
  // normalised wall time, then wall time as measured.
  std::map<std::string, std::vector<SeriesPoint>> picked;
  std::map<std::string, std::string> metric_of;
  for (const char* metric : {"unqueued_us_median", "wall_us_normalized", "wall_us_median"}) {
    SPYRE_ASSIGN_OR_RETURN(auto all, LoadSuiteSeries(store, suite, "", metric));
    for (auto& [name, series] : all) {
      auto it = picked.find(name);
      if (it == picked.end() || series.size() > it->second.size()) {
        picked[name] = std::move(series);
        metric_of[name] = metric;
      }
    }
  }
  SPYRE_RETURN_IF_ERROR(read_host());
  SearchWallSeries(suite, case_name, picked, metric_of, host, &out, levels);
  return out;
}

}  // namespace harness
