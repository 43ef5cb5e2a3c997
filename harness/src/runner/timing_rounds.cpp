#include "runner/timing_rounds.h"

#include <cmath>
#include <limits>

#include "base/stats.h"
#include "base/host_probe.h"

namespace harness::runner_internal {
namespace {

bool HasWallSamples(const CaseResult& r) {
  return (r.status == CaseStatus::kPassed || r.status == CaseStatus::kFailed) && !r.wall_us.empty();
}

}  // namespace

bool TimingRounds::Add(const CaseResult& r) {
  if (!HasWallSamples(r)) return false;
  Rounds& v = by_case_[{r.suite, r.case_id}];
  v.samples.push_back(r.wall_us);
  v.queue.push_back(r.HasQueueWait() ? r.queue_us : std::vector<double>());
  v.ops.push_back(r.ops);
  const double probe = HostProbeUs(r);
  if (std::isfinite(probe)) v.probe.push_back(probe);
  const BusyTicks busy = HostBusy(r);
  v.busy.others += busy.others;
  v.busy.total += busy.total;
  return true;
}

void TimingRounds::MergeInto(CaseResult* r, int planned, bool include_own) const {
  if (!HasWallSamples(*r)) return;
  Rounds rounds;
  auto it = by_case_.find({r->suite, r->case_id});
  if (it != by_case_.end()) rounds = it->second;
  if (include_own || rounds.samples.empty()) {
    rounds.samples.push_back(r->wall_us);
    rounds.queue.push_back(r->HasQueueWait() ? r->queue_us : std::vector<double>());
    rounds.ops.push_back(r->ops);
    const double own_probe = HostProbeUs(*r);
    if (std::isfinite(own_probe)) rounds.probe.push_back(own_probe);
    const BusyTicks own_busy = HostBusy(*r);
    rounds.busy.others += own_busy.others;
    rounds.busy.total += own_busy.total;
  }
  r->wall_us.clear();
  r->queue_us.clear();
  nlohmann::json sizes = nlohmann::json::array();
  for (const std::vector<double>& round : rounds.samples) {
    r->wall_us.insert(r->wall_us.end(), round.begin(), round.end());
    sizes.push_back(round.size());
  }
  // Run-queue waits only when every round has them.
  for (const std::vector<double>& round : rounds.queue)
    r->queue_us.insert(r->queue_us.end(), round.begin(), round.end());
  if (r->queue_us.size() != r->wall_us.size()) r->queue_us.clear();
  if (!rounds.probe.empty()) r->extra["host_probe_us"] = Median(rounds.probe);
  if (rounds.busy.total > 0) {
    r->extra["host_busy"] = BusyJson(rounds.busy);
  } else {
    r->extra.erase("host_busy");
  }
  std::map<std::string, std::vector<double>> op_wall;
  for (const std::vector<OpSummary>& round : rounds.ops) {
    for (const OpSummary& o : round) op_wall[o.op].push_back(o.wall_us);
  }
  r->extra["rounds"] = {{"count", rounds.samples.size()},
                        {"planned", planned},
                        {"samples", sizes},
                        {"op_wall_us", op_wall}};
}

double TimingRounds::StandardError(const std::string& suite, const std::string& case_id,
                                   int total) const {
  const auto it = by_case_.find({suite, case_id});
  if (it == by_case_.end() || it->second.samples.size() < 3 || total < 3) {
    return std::numeric_limits<double>::infinity();
  }
  const Rounds& v = it->second;
  bool unqueued = true;
  for (size_t i = 0; i < v.samples.size(); ++i) {
    unqueued = unqueued && v.queue[i].size() == v.samples[i].size();
  }
  std::vector<double> logs;
  for (size_t i = 0; i < v.samples.size(); ++i) {
    CaseResult round;  // the same reading of a round as the judge's
    round.wall_us = v.samples[i];
    if (unqueued) round.queue_us = v.queue[i];
    const double value = Median(unqueued ? round.UnqueuedUs() : round.wall_us);
    if (!(value > 0)) return std::numeric_limits<double>::infinity();
    logs.push_back(std::log(value));
  }
  return std::sqrt(Variance(logs) / total);
}

}  // namespace harness::runner_internal
