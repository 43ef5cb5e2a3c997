#pragma once
// Runs a serving trace on a DecoderModel: the scheduler (serving_scheduler.h)
// plans each step, the model computes it over a paged KV cache on the
// model's device (paged_kv_cache.h), and each request's next token is fed
// back, teacher-forced with its golden tokens when they are given.
//
//   ServingRun run = RunServingTrace(model, sc, teachers, {});
//   run.logits[i];          // request i: [1, tokens, V] on the CPU, fp32
//   run.records[i];         // when it was admitted, its tokens, its blocks
//
// Teacher forcing keeps each request's sequence the golden's, so one
// flipped token does not change what follows it (nor when it stops); the
// scheduler retires a request on the fed token.
#include <cstdint>
#include <vector>

#include <ATen/ATen.h>

#include "serving_faults.h"
#include "serving_scheduler.h"
#include "serving_trace.h"
#include "suites/device_under_test.h"
#include "suites/models/decoder.h"

namespace suites {

struct ServingRunOptions {
  SchedulerFaults faults;
  // The step that prefills this request takes `factor` times as long: its
  // host time is stretched by waiting, and its profile's modeled and
  // per-op times are scaled (serving_faults.h).
  SlowPrefill slow_prefill;
  // Each step profiled on the device (ProfileOnDevice): modeled time, peak
  // device bytes and op totals per step in ServingRun::step_profiles.
  bool profile_steps = false;
};

struct ServingRun {
  std::vector<at::Tensor> logits;            // per request [1, tokens, V], fp32 on the CPU
  std::vector<RequestRecord> records;        // per request, as the scheduler left it
  std::vector<double> step_end_us;           // wall time from the start to each step's end
  std::vector<int64_t> blocks_in_use;        // per step, after its allocations
  std::vector<DeviceProfile> step_profiles;  // per step when profile_steps
  int64_t peak_blocks = 0;
  double wall_us = 0;
  FaultsFired fired;  // which of options.faults took effect
};

// teachers[i]: request i's golden tokens [n_i] (int64 CPU), fed after each
// of its steps; an undefined tensor feeds the argmax (greedy).
ServingRun RunServingTrace(DecoderModel& model, const ServingCase& sc,
                           const std::vector<at::Tensor>& teachers,
                           const ServingRunOptions& options);

// A request decoded alone on the CPU reference, greedy until its stop
// token or max_new_tokens: logits [1, n, V] in the model's dtype.
at::Tensor DecodeRequestAlone(DecoderModel& model, const at::Tensor& prompt,
                              const ServingRequest& request);

}  // namespace suites
