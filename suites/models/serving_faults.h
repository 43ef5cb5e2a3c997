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
// ops are the device's and passed over here. A fault point whose request
// the trace does not have, or whose step finds its request gone or not yet
// holding blocks, would leave the trace clean and the run green: it is
// refused, with the range that would hit.
#include <cstdint>
#include <string>
#include <vector>

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
// and no step=, its step is the request's prefill), or naming a request
// past the trace's last, is an error.
ServingFaultSpec ParseServingFaults(const std::string& spec, int64_t requests);

// After a run of the trace with `faults`: "" when each fault point took
// effect (`fired`), else why one did not and which steps it would hit.
// records: the run's, per request; steps: how many steps the run took.
std::string UnfiredServingFault(const SchedulerFaults& faults, const FaultsFired& fired,
                                const std::vector<RequestRecord>& records,
                                const std::vector<ServingRequest>& trace, int64_t steps);

}  // namespace suites
