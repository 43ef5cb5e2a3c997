// A run request's options as JSON: what a run records (runs.options_json)
// and what `confirm` and `bisect` read back to re-create its plan.
#include <algorithm>

#include "run/run.h"

namespace harness {

const char* LatencyModeName(LatencyMode m) {
  switch (m) {
    case LatencyMode::kMarked: return "marked";
    case LatencyMode::kAll: return "all";
    case LatencyMode::kNone: return "none";
  }
  return "marked";
}

std::optional<LatencyMode> ParseLatencyMode(const std::string& name) {
  for (LatencyMode m : {LatencyMode::kMarked, LatencyMode::kAll, LatencyMode::kNone}) {
    if (name == LatencyModeName(m)) return m;
  }
  return std::nullopt;
}

nlohmann::json RequestOptionsJson(const RunRequest& r) {
  return {{"filter", r.filter},
          {"warmup", r.warmup},
          {"repeat", r.repeat},
          {"rounds", r.rounds},
          {"rounds_min", r.rounds_min > 0 ? r.rounds_min : r.rounds},
          {"round_precision", r.rounds_min > 0 ? nlohmann::json(r.round_precision) : nlohmann::json()},
          {"round_repeat", r.rounds > 1 ? nlohmann::json(r.round_repeat) : nlohmann::json()},
          {"latency", LatencyModeName(r.latency)},
          {"min_sample_us", r.min_sample_us},
          {"timeout_s", r.timeout_s},
          {"shard", r.shard.ToString()},
          {"profile", r.profile},
          {"inject", r.inject},
          {"baseline", r.baseline},
          {"confirm_rounds", r.confirm.rounds},
          {"confirm_max_rounds", std::max(r.confirm.rounds, r.confirm.max_rounds)},
          {"confirm_budget_s", r.confirm.budget_s},
          {"confirm_repeat", r.confirm.repeat},
          {"confirm_jobs", r.confirm.jobs},
          {"confirm_all", r.confirm.every_case}};
}

void ApplyRecordedOptions(const nlohmann::json& options, RunRequest* request) {
  const auto number = [&](const char* key, auto fallback) {
    const auto it = options.find(key);
    return it != options.end() && it->is_number() ? it->get<decltype(fallback)>() : fallback;
  };
  request->filter = options.value("filter", "");
  request->latency =
      ParseLatencyMode(options.value("latency", "marked")).value_or(LatencyMode::kMarked);
  request->warmup = number("warmup", -1);
  request->repeat = number("repeat", -1);
  request->min_sample_us = number("min_sample_us", -1.0);
  request->timeout_s = number("timeout_s", 0.0);
  request->threads = number("threads_per_worker", request->threads);
}

}  // namespace harness
