#include "detect/thresholds.h"

#include "base/case_filter.h"
#include "base/input_file.h"

#include <cstdlib>
#include <fstream>
#include <regex>

namespace harness {
namespace {

// Applies the keys of `j` onto *v. Unknown keys and wrong types are errors.
Status Apply(const nlohmann::json& j, const std::string& where, ThresholdValues* v) {
  if (!j.is_object()) return InvalidInput(where + ": expected an object of threshold values");
  for (const auto& [key, value] : j.items()) {
    if (key == "suite" || key == "match") continue;  // selectors of case overrides
    if (key == "accuracy_drift_fails") {
      if (!value.is_boolean()) return InvalidInput(where + "/" + key + ": expected true or false");
      v->accuracy_drift_fails = value.get<bool>();
      continue;
    }
    double* target = nullptr;
    if (key == "modeled_latency") target = &v->modeled_latency;
    else if (key == "wall_min_effect") target = &v->wall_min_effect;
    else if (key == "wall_alpha") target = &v->wall_alpha;
    else if (key == "wall_confirm_alpha") target = &v->wall_confirm_alpha;
    else if (key == "accuracy_rel_margin") target = &v->accuracy_rel_margin;
    else if (key == "accuracy_abs_margin") target = &v->accuracy_abs_margin;
    else if (key == "ulp_margin") target = &v->ulp_margin;
    else if (key == "memory") target = &v->memory;
    else if (key == "fallback") target = &v->fallback;
    else if (key == "wall_noise_k") target = &v->wall_noise_k;
    else if (key == "wall_noise_prior") target = &v->wall_noise_prior;
    else if (key == "wall_min_abs_us") target = &v->wall_min_abs_us;
    else if (key == "wall_run_spread_unknown") target = &v->wall_run_spread_unknown;
    else if (key == "wall_run_spread_min") target = &v->wall_run_spread_min;
    int* whole = key == "wall_min_samples" ? &v->wall_min_samples
                 : key == "wall_min_rounds"  ? &v->wall_min_rounds
                                             : nullptr;
    if (whole != nullptr) {
      if (!value.is_number_integer() || value.get<int>() < 2) {
        return InvalidInput(where + "/" + key + ": expected a whole number >= 2");
      }
      *whole = value.get<int>();
      continue;
    }
    if (target == nullptr) return InvalidInput(where + "/" + key + ": unknown threshold");
    if (!value.is_number() || value.get<double>() < 0) {
      return InvalidInput(where + "/" + key + ": expected a non-negative number");
    }
    *target = value.get<double>();
  }
  if (v->wall_alpha <= 0 || v->wall_alpha >= 1) return InvalidInput(where + "/wall_alpha: must be in (0, 1)");
  if (v->wall_confirm_alpha <= 0 || v->wall_confirm_alpha >= 1) {
    return InvalidInput(where + "/wall_confirm_alpha: must be in (0, 1)");
  }
  return Status::Ok();
}

}  // namespace

StatusOr<Thresholds> Thresholds::FromJson(const nlohmann::json& j, const std::string& origin) {
  Thresholds t;
  if (!j.is_object()) return InvalidInput(origin + ": expected a JSON object");
  for (const auto& [key, value] : j.items()) {
    if (key != "defaults" && key != "suites" && key != "cases" && key != "description") {
      return InvalidInput(origin + ": /" + key + ": unknown section (use defaults, suites, cases)");
    }
  }
  if (j.contains("defaults")) SPYRE_RETURN_IF_ERROR(Apply(j["defaults"], origin + ": /defaults", &t.defaults_));
  if (j.contains("suites")) {
    if (!j["suites"].is_object()) return InvalidInput(origin + ": /suites: expected an object");
    for (const auto& [suite, values] : j["suites"].items()) {
      ThresholdValues probe;
      SPYRE_RETURN_IF_ERROR(Apply(values, origin + ": /suites/" + suite, &probe));
    }
    t.suites_ = j["suites"];
  }
  if (j.contains("cases")) {
    if (!j["cases"].is_array()) return InvalidInput(origin + ": /cases: expected an array");
    for (size_t i = 0; i < j["cases"].size(); ++i) {
      const auto& c = j["cases"][i];
      std::string where = origin + ": /cases/" + std::to_string(i);
      if (!c.is_object() || !c.contains("match") || !c["match"].is_string()) {
        return InvalidInput(where + ": expected an object with a \"match\" regular expression");
      }
      SPYRE_RETURN_IF_ERROR(CompileUserRegex(c["match"].get<std::string>(), where + "/match").status());
      ThresholdValues probe;
      SPYRE_RETURN_IF_ERROR(Apply(c, where, &probe));
      t.cases_.push_back({c.value("suite", ""), c["match"].get<std::string>(), c});
    }
  }
  return t;
}

StatusOr<Thresholds> Thresholds::FromFile(const std::string& path) {
  StatusOr<std::string> text = ReadInputFile(path, kMaxJsonFileBytes, "thresholds file");
  if (!text.ok() && text.status().code() == ErrorCode::kNotFound) {
    return NotFound(path + ": cannot read the thresholds file; check the path or use the defaults");
  }
  if (!text.ok()) return text.status();
  nlohmann::json j =
      nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (j.is_discarded()) return InvalidInput(path + ": not valid JSON");
  return FromJson(j, path);
}

StatusOr<Thresholds> Thresholds::Configured() {
  const char* path = std::getenv("SPYRE_REGRESS_THRESHOLDS");
  if (path == nullptr || *path == '\0') return Thresholds();
  return FromFile(path);
}

ThresholdValues Thresholds::For(const std::string& suite, const std::string& case_id) const {
  ThresholdValues v = defaults_;
  // Already validated at load, so Apply cannot fail here.
  if (suites_.contains(suite)) (void)Apply(suites_[suite], "", &v);
  for (const CaseOverride& c : cases_) {
    if (!c.suite.empty() && c.suite != suite) continue;
    if (std::regex_match(case_id, std::regex(c.match))) (void)Apply(c.values, "", &v);
  }
  return v;
}

}  // namespace harness
