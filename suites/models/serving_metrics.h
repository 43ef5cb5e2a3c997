#pragma once
// The serving kind's latency and KV metrics, per request and per trace.
//
//   ServingLatency l = MeasureLatency(sc, timed_runs, profiled_run);
//   AddServingLatencyMetrics(sc, l, &result);   // output "latency"
//   AddKvMetrics(sc, run, &result);             // output "kv"
//
// A request's time to first token and inter-token latency are
// serving_times.h's (its ttft_us and itl_us). Wall times are medians over the
// timed runs; modeled times come from a run whose steps were each profiled.
#include <cmath>
#include <vector>

#include "base/case_result.h"
#include "serving_engine.h"
#include "serving_times.h"
#include "serving_trace.h"

namespace suites {

struct ServingLatency {
  std::vector<RequestTimes> wall, modeled;  // per request
  std::vector<int64_t> first_token_step;    // per request; -1 when it yielded none
  double tokens_per_s = std::nan(""), modeled_tokens_per_s = std::nan("");
};

// `profiled` ran with ServingRunOptions::profile_steps.
ServingLatency MeasureLatency(const ServingCase& sc, const std::vector<ServingRun>& timed,
                              const ServingRun& profiled);

// Per request "<id>.ttft_us", "<id>.itl_us", their modeled twins and
// "<id>.first_token_step" (its prefill step, which findings name), and the
// means over requests ("ttft_us", "itl_us", ...) with the trace's tokens/s.
void AddServingLatencyMetrics(const ServingCase& sc, const ServingLatency& l,
                              harness::CaseResult* r);

// kv_blocks_peak, kv_blocks_mean (over steps) and kv_peak_bytes (the peak
// in whole sticks, KvBlockBytes).
void AddKvMetrics(const ServingCase& sc, const ServingRun& run, harness::CaseResult* r);

}  // namespace suites
