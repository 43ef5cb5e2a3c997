#include "base/case_result.h"

#include "base/stats.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace harness {
namespace {

// JSON has no NaN/Inf; encode non-finite doubles as strings so the pipe and
// the store keep them.
nlohmann::json Num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

bool ReadNum(const nlohmann::json& j, const char* key, double* out, std::string* error) {
  if (!j.contains(key)) return true;  // optional: keep the default
  const nlohmann::json& v = j.at(key);
  if (v.is_number()) { *out = v.get<double>(); return true; }
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (s == "nan") { *out = std::nan(""); return true; }
    if (s == "inf") { *out = INFINITY; return true; }
    if (s == "-inf") { *out = -INFINITY; return true; }
  }
  *error = std::string("field '") + key + "' is not a number";
  return false;
}

}  // namespace

const char* CaseStatusName(CaseStatus s) {
  switch (s) {
    case CaseStatus::kPassed: return "passed";
    case CaseStatus::kFailed: return "failed";
    case CaseStatus::kError: return "error";
    case CaseStatus::kCrashed: return "crashed";
    case CaseStatus::kTimeout: return "timeout";
    case CaseStatus::kSkipped: return "skipped";
  }
  return "error";
}

StatusOr<CaseStatus> ParseCaseStatus(const std::string& name) {
  for (CaseStatus s : {CaseStatus::kPassed, CaseStatus::kFailed, CaseStatus::kError,
                       CaseStatus::kCrashed, CaseStatus::kTimeout, CaseStatus::kSkipped}) {
    if (name == CaseStatusName(s)) return s;
  }
  return InvalidInput("unknown case status '" + name + "'");
}

double CaseResult::WallMedianUs() const { return Median(wall_us); }

const Metric* CaseResult::FindMetric(const std::string& key) const {
  for (const Metric& m : metrics) {
    if ((m.output.empty() ? m.name : m.output + "/" + m.name) == key) return &m;
  }
  return nullptr;
}

std::vector<double> CaseResult::UnqueuedUs() const {
  std::vector<double> out;
  if (!HasQueueWait()) return out;
  for (size_t i = 0; i < wall_us.size(); ++i) {
    // A wait longer than the sample itself was read around it, not inside
    // it (a case kind that marks its samples with the host probe reads the
    // wait between probes, and a preemption there is not the sample's): that
    // sample keeps its wall time.
    out.push_back(queue_us[i] <= wall_us[i] ? wall_us[i] - queue_us[i] : wall_us[i]);
  }
  return out;
}

double CaseResult::UnqueuedMedianUs() const {
  return HasQueueWait() ? Median(UnqueuedUs()) : std::nan("");
}

CaseResult CaseResult::Error(const std::string& message, const std::string& suite,
                             const std::string& case_id) {
  CaseResult r;
  r.suite = suite;
  r.case_id = case_id;
  r.status = CaseStatus::kError;
  r.message = message;
  return r;
}

nlohmann::json ToJson(const CaseResult& r) {
  nlohmann::json j;
  j["suite"] = r.suite;
  j["case_id"] = r.case_id;
  j["status"] = CaseStatusName(r.status);
  j["message"] = r.message;
  j["max_abs_err"] = Num(r.max_abs_err);
  j["max_rel_err"] = Num(r.max_rel_err);
  j["rel_l2"] = Num(r.rel_l2);
  j["max_ulp"] = Num(r.max_ulp);
  j["cosine"] = Num(r.cosine);
  j["metrics"] = nlohmann::json::array();
  for (const Metric& m : r.metrics) {
    j["metrics"].push_back({{"output", m.output}, {"name", m.name}, {"value", Num(m.value)},
                            {"limit", Num(m.limit)}, {"failed", m.failed}});
  }
  j["wall_us"] = nlohmann::json::array();
  for (double w : r.wall_us) j["wall_us"].push_back(Num(w));
  if (!r.queue_us.empty()) {
    j["queue_us"] = nlohmann::json::array();
    for (double q : r.queue_us) j["queue_us"].push_back(Num(q));
  }
  j["modeled_us"] = Num(r.modeled_us);
  j["fallback_ops"] = r.fallback_ops;
  j["peak_device_bytes"] = r.peak_device_bytes;
  j["ops"] = nlohmann::json::array();
  for (const OpSummary& o : r.ops) {
    j["ops"].push_back({{"op", o.op}, {"calls", o.calls}, {"modeled_us", Num(o.modeled_us)},
                        {"wall_us", Num(o.wall_us)}, {"fallbacks", o.fallbacks}});
  }
  j["extra"] = r.extra;
  return j;
}

StatusOr<CaseResult> CaseResultFromJson(const nlohmann::json& j) {
  try {
    CaseResult r;
    std::string error;
    r.suite = j.at("suite").get<std::string>();
    r.case_id = j.at("case_id").get<std::string>();
    SPYRE_ASSIGN_OR_RETURN(auto status, ParseCaseStatus(j.at("status").get<std::string>()));
    r.status = status;
    r.message = j.value("message", "");
    for (auto [key, field] : {std::pair{"max_abs_err", &r.max_abs_err}, {"max_rel_err", &r.max_rel_err},
                              {"rel_l2", &r.rel_l2}, {"max_ulp", &r.max_ulp}, {"cosine", &r.cosine},
                              {"modeled_us", &r.modeled_us}}) {
      if (!ReadNum(j, key, field, &error)) return InvalidInput(error);
    }
    for (const auto& m : j.value("metrics", nlohmann::json::array())) {
      Metric metric;
      metric.output = m.at("output").get<std::string>();
      metric.name = m.at("name").get<std::string>();
      if (!ReadNum(m, "value", &metric.value, &error) || !ReadNum(m, "limit", &metric.limit, &error)) {
        return InvalidInput(error);
      }
      metric.failed = m.value("failed", false);
      r.metrics.push_back(metric);
    }
    for (const auto& w : j.value("wall_us", nlohmann::json::array())) {
      double v = 0;
      nlohmann::json holder = {{"v", w}};
      if (!ReadNum(holder, "v", &v, &error)) return InvalidInput(error);
      r.wall_us.push_back(v);
    }
    for (const auto& q : j.value("queue_us", nlohmann::json::array())) {
      double v = 0;
      nlohmann::json holder = {{"v", q}};
      if (!ReadNum(holder, "v", &v, &error)) return InvalidInput(error);
      r.queue_us.push_back(v);
    }
    r.fallback_ops = j.value("fallback_ops", int64_t{0});
    r.peak_device_bytes = j.value("peak_device_bytes", int64_t{0});
    for (const auto& o : j.value("ops", nlohmann::json::array())) {
      OpSummary op;
      op.op = o.at("op").get<std::string>();
      op.calls = o.value("calls", int64_t{0});
      op.fallbacks = o.value("fallbacks", int64_t{0});
      if (!ReadNum(o, "modeled_us", &op.modeled_us, &error) || !ReadNum(o, "wall_us", &op.wall_us, &error)) {
        return InvalidInput(error);
      }
      r.ops.push_back(op);
    }
    r.extra = j.value("extra", nlohmann::json::object());
    return r;
  } catch (const nlohmann::json::exception& e) {
    return InvalidInput(std::string("malformed case result: ") + e.what());
  }
}

bool HigherIsBetter(const std::string& metric) {
  static const std::set<std::string> kHigher = {"cosine",     "top1_agreement",     "topk_overlap",
                                                "agreement",  "min_top_k_overlap",  "mean_top_k_overlap",
                                                "min_cosine"};
  return kHigher.count(metric) != 0;
}

std::optional<std::vector<size_t>> RoundSizes(const nlohmann::json& extra, size_t samples) {
  auto rounds = extra.find("rounds");
  if (rounds == extra.end() || !rounds->is_object()) return std::nullopt;
  auto sizes = rounds->find("samples");
  if (sizes == rounds->end() || !sizes->is_array()) return std::nullopt;
  std::vector<size_t> out;
  size_t total = 0;
  for (const nlohmann::json& size : *sizes) {
    if (!size.is_number_integer() || size.get<int64_t>() <= 0 ||
        total + size.get<uint64_t>() > samples) {
      return std::nullopt;
    }
    out.push_back(size.get<size_t>());
    total += out.back();
  }
  if (total != samples) return std::nullopt;
  return out;
}

}  // namespace harness
