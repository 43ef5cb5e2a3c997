#include "suites/device_under_test.h"

#include <map>

#include <spyre_emu/spyre_emu.h>

namespace suites {

c10::Device DeviceUnderTest() { return spyre_emu::device(); }

DeviceProfile ProfileOnDevice(const std::function<void()>& fn) {
  spyre_emu::reset_stats();
  std::vector<spyre_emu::TraceEvent> events;
  {
    spyre_emu::TraceScope scope;
    fn();
    events = scope.events();
  }
  const spyre_emu::Stats stats = spyre_emu::stats();
  DeviceProfile p;
  p.fallback_ops = static_cast<int64_t>(stats.fallback_calls());
  p.peak_device_bytes = static_cast<int64_t>(stats.peak_bytes);
  std::map<std::string, harness::OpSummary> by_op;
  for (const auto& e : events) {
    if (e.kind != spyre_emu::EventKind::kKernel && e.kind != spyre_emu::EventKind::kCpuFallback) {
      continue;  // copies are not ops of the case
    }
    harness::OpSummary& s = by_op[e.op];
    s.op = e.op;
    ++s.calls;
    s.modeled_us += static_cast<double>(e.modeled_ns) / 1000.0;
    s.wall_us += static_cast<double>(e.wall_ns) / 1000.0;
    if (e.fallback || e.kind == spyre_emu::EventKind::kCpuFallback) ++s.fallbacks;
    p.modeled_us += static_cast<double>(e.modeled_ns) / 1000.0;
  }
  for (auto& [name, s] : by_op) p.ops.push_back(std::move(s));
  return p;
}

}  // namespace suites
