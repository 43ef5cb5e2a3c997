// A serving trace walked through the cost model (serving_timing.h).
#include "serving_timing.h"

#include "base/stats.h"

namespace suites {
namespace {

// What the walk feeds back for every scheduled request: no token id, so
// never a stop token.
constexpr int64_t kUncomputedToken = -1;

}  // namespace

ServingTiming TimeServingTrace(const ModelConfig& config, const std::vector<ServingRequest>& trace,
                               const SchedulerLimits& limits, const spyre_emu::CostProfile& profile,
                               int cores) {
  ServingTiming t;
  ServingScheduler scheduler(trace, limits);
  double clock_us = 0;
  while (!scheduler.Done()) {
    const StepPlan& plan = scheduler.Plan();
    std::vector<SequenceStep> sequences;
    for (const ScheduledWork& w : plan.work) sequences.push_back({w.position, w.tokens});
    const TimingResult step = ServingStepTime(config, sequences, profile, cores);
    t.steps.Add(step);
    clock_us += step.total_us;
    t.step_end_us.push_back(clock_us);
    scheduler.Commit(std::vector<int64_t>(plan.work.size(), kUncomputedToken));
  }
  t.peak_blocks = scheduler.peak_blocks();
  std::vector<double> ttft, gaps;
  for (size_t r = 0; r < trace.size(); ++r) {
    t.records.push_back(scheduler.record(static_cast<int64_t>(r)));
    t.times.push_back(TimesOf(t.records.back(), trace[r], t.step_end_us));
    t.tokens += static_cast<int64_t>(t.records.back().tokens.size());
    ttft.push_back(t.times.back().ttft_us);
    const std::vector<double> own = TokenGaps(t.records.back(), t.step_end_us);
    gaps.insert(gaps.end(), own.begin(), own.end());
  }
  t.ttft_p50_us = harness::Median(ttft);
  t.ttft_p90_us = harness::Quantile(ttft, 0.9);
  t.itl_p50_us = harness::Median(gaps);
  if (clock_us > 0) t.tokens_per_s = static_cast<double>(t.tokens) / (clock_us * 1e-6);
  return t;
}

}  // namespace suites
