#pragma once
// The serving kind's latency and KV metrics, per request and per trace.
//
//   ServingLatency l = MeasureLatency(sc, timed_runs, profiled_run);
//   AddServingLatencyMetrics(sc, l, &result);   // output "latency"
//   AddKvMetrics(sc, run, &result);             // output "kv"
//
// A request's time to first token runs from the start of its arrival step
// to the end of the step that yielded its first token; its inter-token
// latency is the time from its first token to its last over the tokens
// between (NaN for a request of one token). Wall times are medians over the
// timed runs; modeled times come from a run whose steps were each profiled.
#include <cmath>
#include <vector>

#include "base/case_result.h"
#include "serving_engine.h"
#include "serving_trace.h"

namespace suites {

struct RequestTimes {
  double ttft_us = std::nan("");
  double itl_us = std::nan("");
};

// From the ends of the trace's steps (cumulative from its start).
RequestTimes TimesOf(const RequestRecord& rec, const ServingRequest& req,
                     const std::vector<double>& step_end);

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
