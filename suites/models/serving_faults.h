#pragma once
// The serving engine's fault points in a fault spec (SPYRE_EMU_FAULTS or
// `run --inject`, the device's syntax and parser; see spyre_emu/faults.h):
//
//   serving_drop:request=R,step=S         request R leaves the running batch
//                                         unfinished at step S
//   serving_free_early:request=R,step=S   request R's first KV block goes back
//                                         to the pool at step S, while R still
//                                         reads it
//   serving_slow_prefill:request=R,slow=F the engine step that prefills
//                                         request R takes F times as long,
//                                         wall and modeled (F > 1): a slow
//                                         prefill holds up the whole batch
//                                         it runs in
//
// R is the request's index in the trace (0 for the first). Entries for ATen
// ops are the device's and passed over here; so is a fault point whose
// request is beyond a trace (the spec reaches every case of a run).
#include <cstdint>
#include <string>

#include "serving_scheduler.h"

namespace suites {

inline constexpr const char* kServingDropPoint = "serving_drop";
inline constexpr const char* kServingFreeEarlyPoint = "serving_free_early";
inline constexpr const char* kServingSlowPrefillPoint = "serving_slow_prefill";

// The engine's own fault: the step that prefills `request` is stretched.
struct SlowPrefill {
  int64_t request = -1;  // -1: none
  double factor = 1;     // wall and modeled time of that step x factor
};

struct ServingFaultSpec {
  SchedulerFaults faults;
  SlowPrefill slow_prefill;
  std::string error;  // a fault point without its request= and step=; "" when fine
};

// `requests`: how many requests the trace has. A fault point missing what
// it needs (request= and step=; serving_slow_prefill: request= and slow=,
// and no step=, its step is the request's prefill) is an error.
ServingFaultSpec ParseServingFaults(const std::string& spec, int64_t requests);

}  // namespace suites
