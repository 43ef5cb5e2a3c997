#pragma once
// A serving trace timed without computing anything, at any model size: the
// serving kind's scheduler (serving_scheduler.h) plans every step as it does
// for a computed trace, and each step is costed as the engine issues its
// kernels (ServingStepTime, timing_model.h). The steps' modeled end times
// give each request's time to first token and its gaps between tokens
// (serving_times.h), and the trace's figures over them.
//
//   ServingTiming t = TimeServingTrace(granite8b, requests, limits, inductor, 32);
//   t.times[i].ttft_us;  t.ttft_p50_us;  t.itl_p50_us;  t.steps.kernels
//
// Nothing is generated, so no request meets a stop token: each runs to its
// max_new_tokens.
#include <cmath>
#include <cstdint>
#include <vector>

#include <spyre_emu/cost_model.h>

#include "serving_scheduler.h"
#include "serving_times.h"
#include "suites/models/timing_model.h"

namespace suites {

struct ServingTiming {
  std::vector<RequestRecord> records;  // per request, as the scheduler left it
  std::vector<RequestTimes> times;     // per request, on the modeled clock
  std::vector<double> step_end_us;     // from the trace's start to each step's end
  // Every step's kernels added up: steps.total_us is the trace's modeled
  // time, steps.roofline_us the sum of the steps' rooflines.
  TimingResult steps;
  int64_t tokens = 0;       // generated over the trace
  int64_t peak_blocks = 0;  // KV blocks held at once
  // Over requests: the median and 90th percentile of the times to first
  // token; over every gap of every request: the median inter-token gap.
  double ttft_p50_us = std::nan("");
  double ttft_p90_us = std::nan("");
  double itl_p50_us = std::nan("");
  double tokens_per_s = std::nan("");  // tokens over the trace's modeled time
};

// `trace` and `limits` as TraceProblem accepts them (ParseTimedTrace checks).
ServingTiming TimeServingTrace(const ModelConfig& config, const std::vector<ServingRequest>& trace,
                               const SchedulerLimits& limits, const spyre_emu::CostProfile& profile,
                               int cores);

}  // namespace suites
