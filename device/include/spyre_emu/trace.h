#pragma once
// Trace of device activity (torch-free).
//
//   spyre_emu::TraceScope scope;
//   y = model->forward(x);                 // on the device
//   for (const auto& e : scope.events()) ...
//
// Every event recorded while a scope is open goes to every open scope, from
// any thread (the device is one process-wide resource): nested scopes each
// see their own window. With no scope open, recording costs one atomic load.
#include <cstdint>
#include <string>
#include <vector>

namespace spyre_emu {

enum class EventKind {
  kKernel,        // a device kernel
  kCpuFallback,   // an op served by the CPU fallback
  kHostToDevice,  // copy host -> device
  kDeviceToHost,  // copy device -> host
  kDeviceToDevice,
};
const char* EventKindName(EventKind kind);  // "kernel", "fallback", "h2d", "d2h", "d2d"

struct TraceEvent {
  EventKind kind = EventKind::kKernel;
  std::string op;                            // "mm", "_softmax", "copy"...
  std::vector<std::vector<int64_t>> shapes;  // input shapes, in argument order
  std::string dtype;                         // "fp16", "bf16", "fp32", "int64"...
  uint64_t modeled_ns = 0;                   // cost model time (kernels; 0 otherwise)
  uint64_t wall_ns = 0;                      // host wall time
  int cores_used = 0;                        // cores the kernel ran on (0: none)
  bool fallback = false;                     // served by the CPU fallback
  uint64_t bytes = 0;                        // bytes moved (copies) or touched (kernels)
};

// True when at least one scope is open: callers may skip building events.
bool TraceActive();
void RecordEvent(const TraceEvent& event);

class TraceScope {
 public:
  TraceScope();
  ~TraceScope();
  TraceScope(const TraceScope&) = delete;
  TraceScope& operator=(const TraceScope&) = delete;

  // The events recorded so far (a copy; the scope keeps collecting).
  std::vector<TraceEvent> events() const;

 private:
  int id_;
};

}  // namespace spyre_emu
