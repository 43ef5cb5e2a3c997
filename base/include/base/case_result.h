#pragma once
// The one record a worker sends back per case, and what the store keeps.
// Serialised as JSON over the worker pipe (ToJson / CaseResultFromJson are
// exact inverses; NaN and infinities survive the trip).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace harness {

enum class CaseStatus { kPassed, kFailed, kError, kCrashed, kTimeout, kSkipped };
const char* CaseStatusName(CaseStatus s);  // "passed", "failed", ...
StatusOr<CaseStatus> ParseCaseStatus(const std::string& name);

// One metric of one output, e.g. output "out0", name "max_ulp".
struct Metric {
  std::string output;
  std::string name;
  double value = std::numeric_limits<double>::quiet_NaN();
  double limit = std::numeric_limits<double>::quiet_NaN();  // the tolerance it was held to, NaN if none
  bool failed = false;
};

// Per-op totals from the device trace of one case (one repeat).
struct OpSummary {
  std::string op;         // ATen operator name, e.g. "mm"
  int64_t calls = 0;
  double modeled_us = 0;  // deterministic cost-model time
  double wall_us = 0;     // host wall time
  int64_t fallbacks = 0;  // calls that ran on the CPU fallback
};

struct CaseResult {
  std::string suite;
  std::string case_id;
  CaseStatus status = CaseStatus::kError;
  std::string message;  // why it failed / errored / crashed; empty when passed

  // Worst values over all outputs (NaN when not applicable, e.g. model cases
  // report their own metrics in `metrics`).
  double max_abs_err = std::numeric_limits<double>::quiet_NaN();
  double max_rel_err = std::numeric_limits<double>::quiet_NaN();
  double rel_l2 = std::numeric_limits<double>::quiet_NaN();
  double max_ulp = std::numeric_limits<double>::quiet_NaN();
  double cosine = std::numeric_limits<double>::quiet_NaN();
  std::vector<Metric> metrics;  // every metric of every output

  std::vector<double> wall_us;   // one sample per timed repeat (device execution only)
  // Per sample, the part of wall_us the timing thread spent runnable but
  // waiting on a run queue for a CPU (base/host_probe.h); empty where the
  // kernel does not report it and in results recorded before it was kept.
  std::vector<double> queue_us;
  double modeled_us = std::numeric_limits<double>::quiet_NaN();  // modeled device time of one repeat
  int64_t fallback_ops = 0;      // CPU-fallback calls in one repeat
  int64_t peak_device_bytes = 0;
  std::vector<OpSummary> ops;    // per-op trace summary of one repeat

  nlohmann::json extra = nlohmann::json::object();  // kind-specific details (tokens, steps...)

  double WallMedianUs() const;  // NaN when there are no samples
  // The metric a finding names by "output/name" ("name" alone when its
  // output is empty); nullptr when the result has none.
  const Metric* FindMetric(const std::string& key) const;
  // queue_us has one value per wall sample.
  bool HasQueueWait() const { return !wall_us.empty() && queue_us.size() == wall_us.size(); }
  // Wall time less run-queue wait, per sample ("unqueued" time: on a CPU or
  // blocked of its own accord; a sample whose recorded wait exceeds it keeps
  // its wall time); empty unless HasQueueWait().
  std::vector<double> UnqueuedUs() const;
  double UnqueuedMedianUs() const;  // NaN unless HasQueueWait()

  // A case that could not be judged: status `error` with `message` (suite
  // and case id may be left for the caller to fill in).
  static CaseResult Error(const std::string& message, const std::string& suite = "",
                          const std::string& case_id = "");
};

// True for metrics where larger is better (cosine, top-1 agreement, top-k
// overlap); every other metric is an error, smaller is better.
bool HigherIsBetter(const std::string& metric);

// The rounds' sizes recorded in `extra` (extra["rounds"]["samples"]) when
// they add up to `samples` stored samples, every size a positive integer;
// nullopt otherwise. What the judges fold samples by (detect/), and what `prune` checks
// before it folds.
std::optional<std::vector<size_t>> RoundSizes(const nlohmann::json& extra, size_t samples);

nlohmann::json ToJson(const CaseResult& r);
StatusOr<CaseResult> CaseResultFromJson(const nlohmann::json& j);

}  // namespace harness
