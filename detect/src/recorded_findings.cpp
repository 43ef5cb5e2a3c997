// Findings to and from the store's rows (detect/recorded_findings.h).
#include "detect/recorded_findings.h"

#include <cmath>

namespace harness {

std::optional<FindingKind> FindingKindFromName(const std::string& name) {
  for (FindingKind k : {FindingKind::kStatus, FindingKind::kAccuracy, FindingKind::kLatency,
                        FindingKind::kModeledLatency, FindingKind::kFallback, FindingKind::kMemory,
                        FindingKind::kGoldenDrift}) {
    if (name == FindingKindName(k)) return k;
  }
  return std::nullopt;
}

RegressionRow RegressionRowOf(const Finding& f) {
  RegressionRow row;
  row.suite = f.suite;
  row.case_name = f.case_id;
  row.kind = FindingKindName(f.kind);
  row.metric = f.metric;
  row.detail = f.detail;
  row.baseline_value = f.baseline;
  row.candidate_value = f.candidate;
  row.ratio = f.ratio;
  nlohmann::json j = FindingToJson(f);
  j.erase("cause");  // a bisect's word is kept with the bisect, not here
  row.finding_json = j.dump();
  return row;
}

std::optional<Finding> FindingOfRow(const RegressionRow& row) {
  const auto kind = FindingKindFromName(row.kind);
  if (!kind) return std::nullopt;
  Finding f;
  f.suite = row.suite;
  f.case_id = row.case_name;
  f.kind = *kind;
  f.metric = row.metric;
  f.baseline = row.baseline_value;
  f.candidate = row.candidate_value;
  f.ratio = row.ratio;
  f.detail = row.detail;
  const nlohmann::json j = nlohmann::json::parse(row.finding_json, nullptr, false);
  if (j.is_object()) {
    if (j.contains("blamed_ops") && j["blamed_ops"].is_array()) {
      for (const auto& op : j["blamed_ops"]) {
        if (op.is_object() && op.contains("op") && op["op"].is_string()) {
          BlamedOp b{op["op"].get<std::string>(), std::nan(""), op.value("unit", "")};
          if (op.contains("delta") && op["delta"].is_number()) b.delta = op["delta"].get<double>();
          f.blamed_ops.push_back(std::move(b));
        } else if (op.is_string()) {
          // Recorded before blamed ops were structured: "mm (+2.5 us)"; the
          // name is what groups and exports need.
          const std::string text = op.get<std::string>();
          f.blamed_ops.push_back({text.substr(0, text.find(' ')), std::nan(""), ""});
        }
      }
    }
    if (j.contains("statistic") && j["statistic"].is_string()) f.statistic = j["statistic"].get<std::string>();
    if (j.contains("env_cause") && j["env_cause"].is_boolean()) f.env_cause = j["env_cause"].get<bool>();
  }
  return f;
}

}  // namespace harness
