#include "runner/timing_rounds.h"

#include <cmath>

#include "harness/detect/stats.h"
#include "harness/host_probe.h"

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
  v.ops.push_back(r.ops);
  const double probe = HostProbeUs(r);
  if (std::isfinite(probe)) v.probe.push_back(probe);
  return true;
}

void TimingRounds::MergeInto(CaseResult* r, int planned, bool include_own) const {
  if (!HasWallSamples(*r)) return;
  Rounds rounds;
  auto it = by_case_.find({r->suite, r->case_id});
  if (it != by_case_.end()) rounds = it->second;
  if (include_own || rounds.samples.empty()) {
    rounds.samples.push_back(r->wall_us);
    rounds.ops.push_back(r->ops);
    const double own_probe = HostProbeUs(*r);
    if (std::isfinite(own_probe)) rounds.probe.push_back(own_probe);
  }
  r->wall_us.clear();
  nlohmann::json sizes = nlohmann::json::array();
  for (const std::vector<double>& round : rounds.samples) {
    r->wall_us.insert(r->wall_us.end(), round.begin(), round.end());
    sizes.push_back(round.size());
  }
  if (!rounds.probe.empty()) r->extra["host_probe_us"] = Median(rounds.probe);
  std::map<std::string, std::vector<double>> op_wall;
  for (const std::vector<OpSummary>& round : rounds.ops) {
    for (const OpSummary& o : round) op_wall[o.op].push_back(o.wall_us);
  }
  r->extra["rounds"] = {{"count", rounds.samples.size()},
                        {"planned", planned},
                        {"samples", sizes},
                        {"op_wall_us", op_wall}};
}

}  // namespace harness::runner_internal
