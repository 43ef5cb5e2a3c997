#include "spyre_emu/trace.h"

#include <atomic>
#include <map>
#include <mutex>

namespace spyre_emu {

namespace {

struct TraceState {
  std::mutex mu;
  std::atomic<int> open{0};
  int next_id = 0;
  std::map<int, std::vector<TraceEvent>> scopes;  // open scopes by id
};

TraceState& GetTraceState() {
  static TraceState* state = new TraceState();  // never destroyed: used by static destructors
  return *state;
}

}  // namespace

const char* EventKindName(EventKind kind) {
  switch (kind) {
    case EventKind::kKernel:
      return "kernel";
    case EventKind::kCpuFallback:
      return "fallback";
    case EventKind::kHostToDevice:
      return "h2d";
    case EventKind::kDeviceToHost:
      return "d2h";
    case EventKind::kDeviceToDevice:
      return "d2d";
  }
  return "kernel";
}

bool TraceActive() { return GetTraceState().open.load(std::memory_order_relaxed) > 0; }

void RecordEvent(const TraceEvent& event) {
  TraceState& t = GetTraceState();
  if (!TraceActive()) return;
  std::lock_guard<std::mutex> lock(t.mu);
  for (auto& [id, events] : t.scopes) events.push_back(event);
}

TraceScope::TraceScope() {
  TraceState& t = GetTraceState();
  std::lock_guard<std::mutex> lock(t.mu);
  id_ = t.next_id++;
  t.scopes[id_];
  ++t.open;
}

TraceScope::~TraceScope() {
  TraceState& t = GetTraceState();
  std::lock_guard<std::mutex> lock(t.mu);
  t.scopes.erase(id_);
  --t.open;
}

std::vector<TraceEvent> TraceScope::events() const {
  TraceState& t = GetTraceState();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.scopes.at(id_);
}

}  // namespace spyre_emu
