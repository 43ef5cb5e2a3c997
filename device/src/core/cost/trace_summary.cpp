#include "spyre_emu/trace_summary.h"

#include <algorithm>
#include <map>

namespace spyre_emu {

TraceSummary SummarizeTrace(const std::vector<TraceEvent>& events) {
  TraceSummary s;
  std::map<std::string, OpTotals> ops;
  for (const TraceEvent& e : events) {
    s.wall_ns += e.wall_ns;
    switch (e.kind) {
      case EventKind::kHostToDevice:
      case EventKind::kDeviceToHost:
      case EventKind::kDeviceToDevice:
        s.copy_bytes += e.bytes;
        continue;
      case EventKind::kKernel:
      case EventKind::kCpuFallback:
        break;
      default:
        continue;
    }
    OpTotals& t = ops[e.op];
    t.op = e.op;
    t.wall_ns += e.wall_ns;
    t.bytes += e.bytes;
    if (e.kind == EventKind::kKernel && !e.fallback) {
      ++t.kernel_calls;
      ++s.kernel_calls;
      t.modeled_ns += e.modeled_ns;
      s.modeled_ns += e.modeled_ns;
      s.kernel_bytes += e.bytes;
      s.max_cores_used = std::max(s.max_cores_used, e.cores_used);
    } else {
      ++t.fallback_calls;
      ++s.fallback_calls;
    }
  }
  for (auto& [name, totals] : ops) s.ops.push_back(totals);
  std::sort(s.ops.begin(), s.ops.end(), [](const OpTotals& a, const OpTotals& b) {
    if (a.modeled_ns != b.modeled_ns) return a.modeled_ns > b.modeled_ns;
    if (a.wall_ns != b.wall_ns) return a.wall_ns > b.wall_ns;
    return a.op < b.op;
  });
  return s;
}

}  // namespace spyre_emu
