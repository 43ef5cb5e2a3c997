#pragma once
// The serving engine's fault points in a fault spec (SPYRE_EMU_FAULTS or
// `run --inject`, the device's syntax and parser; see spyre_emu/faults.h):
//
//   serving_drop:request=R,step=S         request R leaves the running batch
//                                         unfinished at step S
//   serving_free_early:request=R,step=S   request R's first KV block goes back
//                                         to the pool at step S, while R still
//                                         reads it
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

struct ServingFaultSpec {
  SchedulerFaults faults;
  std::string error;  // a fault point without its request= and step=; "" when fine
};

// `requests`: how many requests the trace has.
ServingFaultSpec ParseServingFaults(const std::string& spec, int64_t requests);

}  // namespace suites
