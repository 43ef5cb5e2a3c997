#pragma once
// A per-scope summary of trace events (torch-free): the modeled total, the
// per-op breakdown, the fallback count and the bytes moved.
//
//   spyre_emu::TraceScope scope;
//   ... run ...
//   spyre_emu::TraceSummary s = spyre_emu::SummarizeTrace(scope.events());
//   s.modeled_ns; s.fallback_calls; s.ops[0].op;   // the costliest op first
#include <cstdint>
#include <string>
#include <vector>

#include "spyre_emu/trace.h"

namespace spyre_emu {

struct OpTotals {
  std::string op;
  uint64_t kernel_calls = 0;
  uint64_t fallback_calls = 0;
  uint64_t modeled_ns = 0;  // kernels only (fallbacks and copies have no modeled time)
  uint64_t wall_ns = 0;
  uint64_t bytes = 0;
};

struct TraceSummary {
  uint64_t modeled_ns = 0;  // sum over device kernels
  uint64_t wall_ns = 0;     // sum over every event
  uint64_t kernel_calls = 0;
  uint64_t fallback_calls = 0;
  uint64_t copy_bytes = 0;    // host<->device and device<->device copies
  uint64_t kernel_bytes = 0;  // bytes touched by device kernels
  int max_cores_used = 0;
  // Kernels and fallbacks per op (copies are not ops), ordered by modeled
  // time, then wall time, then name (so the order is deterministic).
  std::vector<OpTotals> ops;
};

// Events of no kind listed in trace.h are ignored. Empty input -> all zero.
TraceSummary SummarizeTrace(const std::vector<TraceEvent>& events);

}  // namespace spyre_emu
