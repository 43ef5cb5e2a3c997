// Reading runs, series and baselines back from the store for the judges.
// Table layout: store/src/schema.cpp. Every value is bound; the only identifiers
// spliced into SQL come from the fixed column list below.
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "base/host_probe.h"
#include "store/store_history.h"
#include "extra_sets.h"
#include "packed_rounds.h"
#include "sql.h"

namespace harness {

namespace {

using store_internal::Stmt;

// One line for a failed store query, naming what was being read.
Status QueryError(sqlite3* db, int rc, const std::string& doing) {
  const char* path = sqlite3_db_filename(db, "main");
  return store_internal::SqlStatus(db, rc, path != nullptr ? path : "", doing);
}

nlohmann::json ParseJson(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? nlohmann::json::object() : j;
}

// Columns of `results` a series can follow directly.
const char* ResultColumn(const std::string& metric) {
  static const char* kColumns[] = {"wall_us_median", "unqueued_us_median", "modeled_us", "max_abs_err", "max_rel_err", "rel_l2",
                                   "max_ulp", "cosine", "fallback_ops", "peak_device_bytes"};
  for (const char* c : kColumns) if (metric == c) return c;
  return nullptr;
}

// The wall median at the reference host speed (base/host_probe.h); NULL,
// so left out, for results recorded without a probe.
constexpr const char* kNormalizedWall = "wall_us_normalized";
// (host_probe_us always stays in the result's own extra JSON, never in a
// shared extra set: store/extra_sets.h.)
constexpr const char* kNormalizedWallSql =
    "r.wall_us_median * ?4 / json_extract(r.extra_json, '$.host_probe_us')";
// The probe's own time, for the judges' host-speed series (not a history
// metric of its own: a case's change points are never the probe's).
constexpr const char* kHostProbe = "host_probe_us";
constexpr const char* kHostProbeSql = "json_extract(r.extra_json, '$.host_probe_us')";
// How busy the rest of the machine was while the case was timed
// (base/host_probe.h), another of the host's witnesses: the clock ticks
// other processes used, and the machine's.
constexpr const char* kHostBusy = "host_busy_others";
constexpr const char* kHostBusySql = "json_extract(r.extra_json, '$.host_busy.others')";
constexpr const char* kHostBusyTicks = "host_busy_ticks";
constexpr const char* kHostBusyTicksSql = "json_extract(r.extra_json, '$.host_busy.ticks')";



std::string CpuOf(const std::string& env_json) {
  nlohmann::json j = nlohmann::json::parse(env_json, nullptr, false);
  return j.is_object() ? j.value("cpu", "") : "";
}

// The compiler-stack profile a run's device was emulating ("" when not
// recorded): its modeled times are another stack's.
std::string ProfileOf(const std::string& env_json) {
  nlohmann::json j = nlohmann::json::parse(env_json, nullptr, false);
  return j.is_object() && j.contains("profile") && j["profile"].is_string()
             ? j["profile"].get<std::string>()
             : "";
}

std::string FaultsOf(const std::string& env_json) {
  nlohmann::json j = nlohmann::json::parse(env_json, nullptr, false);
  if (!j.is_object() || !j.contains("faults") || !j["faults"].is_string()) return "";
  std::string f = j["faults"].get<std::string>();
  const size_t b = f.find_first_not_of(" ;"), e = f.find_last_not_of(" ;");
  return b == std::string::npos ? "" : f.substr(b, e - b + 1);
}

// The latency mode a run was planned with (run --latency): "marked"
// when the options do not say (runs recorded before it was an option).
std::string LatencyModeOf(const std::string& options_json) {
  nlohmann::json j = nlohmann::json::parse(options_json, nullptr, false);
  if (!j.is_object() || !j.contains("latency") || !j["latency"].is_string()) return "marked";
  return j["latency"].get<std::string>();
}

// Why run `id` cannot be a baseline although it completed: cases it planned
// are missing (a partial run would make the candidate's missing cases look
// new and its verdicts rest on fewer cases than the suite has); "" when it
// is whole or its state cannot be read (the caller's query already knew it).
std::string MissingCases(Store& store, int64_t id) {
  StatusOr<RunState> st = ReadRunState(store, id);
  return st.ok() && !st->Complete() ? st->Describe() : "";
}

}  // namespace

bool IsHistoryMetric(const std::string& metric) {
  return ResultColumn(metric) != nullptr || metric == kNormalizedWall;
}

StatusOr<bool> SuiteHasResults(Store& store, const std::string& suite) {
  sqlite3* db = store_internal::Access::Db(store);
  Stmt s(db, "SELECT 1 FROM results WHERE suite = ? LIMIT 1");
  s.Bind(1, suite);
  const int rc = s.Step();
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return QueryError(db, rc, "looking for results of suite " + suite);
}

StatusOr<RunRecord> LoadRunRecord(Store& store, int64_t run_id) {
  sqlite3* db = store_internal::Access::Db(store);
  RunRecord run;
  {
    Stmt s(db, "SELECT id, suite, label, env_json FROM runs WHERE id = ?");
    s.Bind(1, run_id);
    int rc = s.Step();
    if (rc == SQLITE_DONE) return NotFound("run " + std::to_string(run_id) + " is not in the store; list runs with `sqlite3 FILE 'SELECT * FROM v_runs'`");
    if (rc != SQLITE_ROW) return QueryError(db, rc, "reading run " + std::to_string(run_id));
    run.run_id = s.Int(0);
    run.suite = s.Text(1);
    run.label = s.Text(2);
    run.env = ParseJson(s.Text(3));
  }
  std::map<int64_t, size_t> index;  // result id -> position in run.cases
  Stmt r(db,
         "SELECT id, suite, case_name, status, message, max_abs_err, max_rel_err, rel_l2, max_ulp, cosine, "
         "modeled_us, fallback_ops, peak_device_bytes, extra_json, rounds_packed,"
         " (SELECT members FROM extra_sets e WHERE e.set_id = results.extra_set)"
         " FROM results WHERE run_id = ? ORDER BY id");
  r.Bind(1, run_id);
  int rc;
  while ((rc = r.Step()) == SQLITE_ROW) {
    CaseResult c;
    c.suite = r.Text(1);
    c.case_id = r.Text(2);
    auto status = ParseCaseStatus(r.Text(3));
    c.status = status.ok() ? *status : CaseStatus::kError;
    c.message = r.Text(4);
    c.max_abs_err = r.Real(5);
    c.max_rel_err = r.Real(6);
    c.rel_l2 = r.Real(7);
    c.max_ulp = r.Real(8);
    c.cosine = r.Real(9);
    c.modeled_us = r.Real(10);
    c.fallback_ops = r.Int(11);
    c.peak_device_bytes = r.Int(12);
    // A pruned result's extra JSON: its own members and its shared set's
    // (store/extra_sets.h).
    c.extra = r.IsNull(15) ? ParseJson(r.Text(13))
                           : store_internal::JoinExtraText(r.Text(13), r.Text(15));
    if (!r.IsNull(14)) {
      // A pruned result (store/packed_rounds.h): its samples, or one value per
      // timing round.
      std::optional<store_internal::PackedRounds> rounds = store_internal::UnpackRounds(r.Blob(14));
      if (!rounds) {
        return InvalidInput("run " + std::to_string(run_id) + ", case " + c.suite + "/" + c.case_id +
                       ": its packed timing rounds are not in a format this build reads; "
                       "open the store with the build that pruned it");
      }
      c.wall_us = std::move(rounds->wall_us);
      c.queue_us = std::move(rounds->queue_us);
      if (c.extra.is_object()) {
        // Raw samples: the round sizes in the extra JSON stand.
        if (!rounds->raw) c.extra["rounds"]["samples"] = std::vector<int64_t>(c.wall_us.size(), 1);
        if (!rounds->op_wall_us.empty()) c.extra["rounds"]["op_wall_us"] = rounds->op_wall_us;
      }
    }
    index[r.Int(0)] = run.cases.size();
    run.cases.push_back(std::move(c));
  }
  if (rc != SQLITE_DONE) return QueryError(db, rc, "reading results");
  // The child tables: each row's first column is its result id.
  auto each_row = [&](const char* sql, const char* doing, auto fill) -> Status {
    Stmt s(db, sql);
    s.Bind(1, run_id);
    int step;
    while ((step = s.Step()) == SQLITE_ROW) {
      auto it = index.find(s.Int(0));
      if (it != index.end()) fill(s, run.cases[it->second]);
    }
    return step == SQLITE_DONE ? Status::Ok() : QueryError(db, step, doing);
  };
  SPYRE_RETURN_IF_ERROR(each_row(
      "SELECT m.result_id, m.output, m.name, m.value, m.limit_value, m.failed FROM metrics m "
      "JOIN results r ON r.id = m.result_id WHERE r.run_id = ? ORDER BY m.rowid",
      "reading metrics", [](const Stmt& s, CaseResult& c) {
        c.metrics.push_back({s.Text(1), s.Text(2), s.Real(3), s.Real(4), s.Int(5) != 0});
      }));
  // A pruned result's metrics are in the metric set it shares (schema 6).
  SPYRE_RETURN_IF_ERROR(each_row(
      "SELECT r.id, m.output, m.name, m.value, m.limit_value, m.failed FROM results r"
      " JOIN metric_set_rows m ON m.set_id = r.metric_set WHERE r.run_id = ?"
      " ORDER BY r.id, m.seq",
      "reading shared metrics", [](const Stmt& s, CaseResult& c) {
        c.metrics.push_back({s.Text(1), s.Text(2), s.Real(3), s.Real(4), s.Int(5) != 0});
      }));
  SPYRE_RETURN_IF_ERROR(each_row(
      "SELECT w.result_id, w.wall_us, w.queue_us FROM wall_samples w JOIN results r ON r.id = "
      "w.result_id WHERE r.run_id = ? ORDER BY w.result_id, w.idx",
      "reading wall samples", [](const Stmt& s, CaseResult& c) {
        c.wall_us.push_back(s.Real(1));
        if (!std::isnan(s.Real(2))) c.queue_us.push_back(s.Real(2));
      }));
  SPYRE_RETURN_IF_ERROR(each_row(
      "SELECT o.result_id, o.op, o.calls, o.modeled_us, o.wall_us, o.fallbacks FROM op_summaries o "
      "JOIN results r ON r.id = o.result_id WHERE r.run_id = ? ORDER BY o.result_id, o.op",
      "reading op summaries", [](const Stmt& s, CaseResult& c) {
        c.ops.push_back({s.Text(1), s.Int(2), s.Real(3), s.Real(4), s.Int(5)});
      }));
  // Run-queue waits only where every sample has one (older results: none).
  for (CaseResult& c : run.cases) {
    if (c.queue_us.size() != c.wall_us.size()) c.queue_us.clear();
  }
  return run;
}

SeriesPoint SeriesTable::Point(size_t run_index, double value) const {
  const SeriesRun& run = runs[run_index];
  SeriesPoint p;
  p.run_id = run.run_id;
  p.started_at = run.started_at;
  p.label = run.label;
  p.value = value;
  p.env = run.env;
  return p;
}

StatusOr<SeriesTable> LoadSeriesTable(Store& store, const std::string& suite,
                                      const std::string& case_name, const std::string& metric,
                                      int64_t through_run_id) {
  sqlite3* db = store_internal::Access::Db(store);
  SeriesTable table;
  // The runs first, each once: ordering narrow rows, and one parse of each
  // environment, rather than carrying it in every result row.
  std::unordered_map<int64_t, size_t> position;
  {
    const std::string sql =
        "SELECT id, started_at, label, env_json FROM runs WHERE status = 'completed'"
        " AND EXISTS (SELECT 1 FROM results x WHERE x.run_id = runs.id AND x.suite = ?1)" +
        std::string(through_run_id > 0 ? " AND (started_at, id) <= "
                                         "(SELECT started_at, id FROM runs WHERE id = ?2)"
                                       : "") +
        " ORDER BY started_at, id";
    Stmt s(db, sql.c_str());
    s.Bind(1, suite);
    if (through_run_id > 0) s.Bind(2, through_run_id);
    int rc;
    while ((rc = s.Step()) == SQLITE_ROW) {
      SeriesRun run;
      run.run_id = s.Int(0);
      run.started_at = s.Text(1);
      run.label = s.Text(2);
      run.env = ParseJson(s.Text(3));
      position.emplace(run.run_id, table.runs.size());
      table.runs.push_back(std::move(run));
    }
    if (rc != SQLITE_DONE) return QueryError(db, rc, "reading the runs of suite " + suite);
  }
  std::string value_sql;
  if (const char* col = ResultColumn(metric)) {
    value_sql = std::string("r.") + col;
  } else if (metric == kNormalizedWall) {
    value_sql = kNormalizedWallSql;
  } else if (metric == kHostProbe) {
    value_sql = kHostProbeSql;
  } else if (metric == kHostBusy) {
    value_sql = kHostBusySql;
  } else if (metric == kHostBusyTicks) {
    value_sql = kHostBusyTicksSql;
  } else {
    // A result's metrics are its rows in `metrics` or, pruned, its shared set.
    const std::string agg = HigherIsBetter(metric) ? "MIN" : "MAX";
    value_sql = "coalesce((SELECT " + agg +
                "(m.value) FROM metrics m WHERE m.result_id = r.id AND m.name = ?3), (SELECT " +
                agg + "(s.value) FROM metric_set_rows s WHERE s.set_id = r.metric_set AND s.name = ?3))";
  }
  // One case: a separate condition so the (suite, case_name) index is used.
  const std::string sql = "SELECT r.case_name, r.run_id, " + value_sql +
                          " FROM results r WHERE r.suite = ?1" +
                          std::string(case_name.empty() ? "" : " AND r.case_name = ?2");
  Stmt s(db, sql.c_str());
  s.Bind(1, suite);
  if (!case_name.empty()) s.Bind(2, case_name);
  if (metric == kNormalizedWall) {
    s.Bind(4, kHostProbeReferenceUs);
  } else if (!ResultColumn(metric) && metric != kHostProbe && metric != kHostBusy &&
             metric != kHostBusyTicks) {
    s.Bind(3, metric);
  }
  std::vector<std::pair<size_t, double>>* values = nullptr;
  std::string last_case;
  int rc;
  while ((rc = s.Step()) == SQLITE_ROW) {
    auto at = position.find(s.Int(1));
    if (at == position.end()) continue;  // not completed, or after through_run_id
    const double v = s.Real(2);
    if (std::isnan(v)) continue;
    std::string name = s.Text(0);
    if (values == nullptr || name != last_case) {
      values = &table.cases[name];
      last_case = std::move(name);
    }
    values->emplace_back(at->second, v);
  }
  if (rc != SQLITE_DONE) return QueryError(db, rc, "reading the history of suite " + suite);
  for (auto& [name, points] : table.cases) {
    std::sort(points.begin(), points.end());
  }
  return table;
}

StatusOr<std::map<std::string, std::vector<SeriesPoint>>> LoadSuiteSeries(
    Store& store, const std::string& suite, const std::string& case_name, const std::string& metric,
    int64_t through_run_id) {
  SPYRE_ASSIGN_OR_RETURN(SeriesTable table,
                         LoadSeriesTable(store, suite, case_name, metric, through_run_id));
  std::map<std::string, std::vector<SeriesPoint>> out;
  for (const auto& [name, values] : table.cases) {
    std::vector<SeriesPoint>& series = out[name];
    series.reserve(values.size());
    for (const auto& [run, value] : values) series.push_back(table.Point(run, value));
  }
  return out;
}

StatusOr<std::vector<SeriesPoint>> LoadSeries(Store& store, const std::string& suite,
                                              const std::string& case_name,
                                              const std::string& metric, int64_t through_run_id) {
  SPYRE_ASSIGN_OR_RETURN(auto all,
                         LoadSuiteSeries(store, suite, case_name, metric, through_run_id));
  auto it = all.find(case_name);
  if (it == all.end()) return std::vector<SeriesPoint>{};
  return it->second;
}


StatusOr<std::optional<int64_t>> ResolveBaseline(Store& store, const std::string& spec,
                                                 int64_t candidate) {
  SPYRE_ASSIGN_OR_RETURN(auto choice, ChooseBaseline(store, spec, candidate));
  return choice.run_id;
}

StatusOr<BaselineChoice> ChooseBaseline(Store& store, const std::string& spec, int64_t candidate) {
  sqlite3* db = store_internal::Access::Db(store);
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
      if (std::string missing = MissingCases(store, s.Int(0)); !missing.empty()) {
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
    if (std::string missing = MissingCases(store, id); !missing.empty()) {
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
  // a healthy candidate look fine or an unchanged one look better. Among
  // those, the same compiler-stack profile is preferred (another profile's
  // modeled times are another stack's, so every case would look changed),
  // then the same latency mode (a parity run times nothing, so a timed
  // candidate judged against it has no latency verdict), then the same CPU
  // model, then the newest.
  Stmt cand(db, "SELECT suite, started_at, env_json, options_json FROM runs WHERE id = ?");
  cand.Bind(1, candidate);
  int rc = cand.Step();
  if (rc == SQLITE_DONE)
    return NotFound("run " + std::to_string(candidate) + " is not in the store");
  if (rc != SQLITE_ROW) return QueryError(db, rc, "reading the candidate run");
  std::string suite = cand.Text(0), started = cand.Text(1), cpu = CpuOf(cand.Text(2));
  const std::string own_faults = FaultsOf(cand.Text(2));
  const std::string own_mode = LatencyModeOf(cand.Text(3));
  const std::string own_profile = ProfileOf(cand.Text(2));
  Stmt s(db,
         "SELECT b.id, b.env_json,"
         " (SELECT count(*) FROM results e WHERE e.run_id = b.id AND e.status IN ('error', "
         "'crashed', 'timeout')),"
         " (SELECT count(*) FROM results p WHERE p.run_id = b.id AND p.status = 'passed'),"
         " b.options_json"
         " FROM runs b WHERE b.suite = ?1 AND b.status = 'completed' AND b.id <> ?2"
         " AND (b.started_at < ?3 OR (b.started_at = ?3 AND b.id < ?2))"
         " AND EXISTS (SELECT 1 FROM results x JOIN results y ON y.suite = x.suite AND y.case_name "
         "= x.case_name"
         "             WHERE x.run_id = b.id AND y.run_id = ?2)"
         " ORDER BY b.started_at DESC, b.id DESC LIMIT 50");
  s.Bind(1, suite).Bind(2, candidate).Bind(3, started);
  struct Eligible {
    int64_t id;
    std::string faults, mode, profile;
    bool same_cpu;
    // Profile, then latency mode, then CPU model: higher is preferred.
    int Preference(const std::string& own_profile, const std::string& own_mode) const {
      return (profile == own_profile ? 4 : 0) + (mode == own_mode ? 2 : 0) + (same_cpu ? 1 : 0);
    }
  };
  std::vector<Eligible> eligible;
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
    } else if (std::string missing = MissingCases(store, id); !missing.empty()) {
      why = missing.substr(missing.find(' ', 4) + 1);  // without "run N "
    }
    if (!why.empty()) {
      if (skipped.size() < 3) skipped.push_back("run " + std::to_string(id) + ": " + why);
      continue;
    }
    eligible.push_back(
        {id, faults, LatencyModeOf(s.Text(4)), ProfileOf(s.Text(1)), CpuOf(s.Text(1)) == cpu});
  }
  if (rc != SQLITE_DONE) return QueryError(db, rc, "choosing a baseline");
  // The newest of the most preferred (eligible is newest first).
  const Eligible* chosen = nullptr;
  for (const Eligible& e : eligible) {
    if (chosen == nullptr || e.Preference(own_profile, own_mode) >
                                 chosen->Preference(own_profile, own_mode)) {
      chosen = &e;
    }
  }
  std::string skipped_text;
  for (const std::string& x : skipped) skipped_text += (skipped_text.empty() ? "" : "; ") + x;
  if (chosen == nullptr) {
    choice.reason = "no completed run of " + suite + " without injected faults or harness errors";
  } else {
    choice.run_id = chosen->id;
    // A candidate with faults is compared like for like when it can be.
    choice.reason = "the latest completed run of " + suite + " with " +
                    (chosen->faults.empty() ? std::string("no injected faults")
                                            : "the same injected faults '" + chosen->faults + "'") +
                    " and no harness errors";
    const bool newest = chosen == &eligible.front();
    if (chosen->profile != own_profile) {
      choice.reason += ", under profile '" + chosen->profile + "' (none was run under '" +
                       own_profile + "')";
    } else if (!newest && eligible.front().profile != own_profile) {
      choice.reason += ", under the same profile";
    }
    if (chosen->mode != own_mode) {
      choice.reason += ", in latency mode '" + chosen->mode + "' (none was run with '" + own_mode + "')";
    } else if (!newest && eligible.front().mode != own_mode) {
      choice.reason += ", with the same latency mode";
    }
    if (!newest && chosen->same_cpu && !eligible.front().same_cpu) choice.reason += ", on the same CPU model";
  }
  if (!skipped_text.empty()) choice.reason += " (passed over " + skipped_text + ")";
  return choice;
}

// Per-op wall time of `suite`'s cases in `run_id`: case -> op -> value.
Status LoadOpWall(Store& store, const std::string& suite, int64_t run_id,
                  std::map<std::string, std::map<std::string, double>>* out) {
  sqlite3* db = store_internal::Access::Db(store);
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

}  // namespace harness
