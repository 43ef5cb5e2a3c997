// Findings to and from the store's rows (detect/recorded_findings.h).
#include "harness/detect/recorded_findings.h"

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
        if (op.is_string()) f.blamed_ops.push_back(op.get<std::string>());
      }
    }
    if (j.contains("env_cause") && j["env_cause"].is_boolean()) f.env_cause = j["env_cause"].get<bool>();
  }
  return f;
}

}  // namespace harness
