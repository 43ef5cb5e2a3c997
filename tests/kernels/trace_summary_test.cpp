#include "spyre_emu/trace_summary.h"

#include <gtest/gtest.h>

namespace {

using spyre_emu::EventKind;
using spyre_emu::TraceEvent;

TraceEvent Event(EventKind kind, const char* op, uint64_t modeled, uint64_t wall, uint64_t bytes,
                 int cores = 0) {
  TraceEvent e;
  e.kind = kind;
  e.op = op;
  e.modeled_ns = modeled;
  e.wall_ns = wall;
  e.bytes = bytes;
  e.cores_used = cores;
  e.fallback = kind == EventKind::kCpuFallback;
  return e;
}

TEST(TraceSummaryTest, TotalsPerOpFallbacksAndCopies) {
  const std::vector<TraceEvent> events = {
      Event(EventKind::kHostToDevice, "copy", 0, 10, 1000),
      Event(EventKind::kKernel, "mm", 500, 40, 300, 8),
      Event(EventKind::kKernel, "add", 50, 5, 30, 2),
      Event(EventKind::kKernel, "mm", 700, 60, 300, 16),
      Event(EventKind::kCpuFallback, "cumsum", 0, 90, 64),
      Event(EventKind::kDeviceToHost, "copy", 0, 7, 500),
  };
  const spyre_emu::TraceSummary s = spyre_emu::SummarizeTrace(events);
  EXPECT_EQ(s.modeled_ns, 1250u);
  EXPECT_EQ(s.wall_ns, 212u);
  EXPECT_EQ(s.kernel_calls, 3u);
  EXPECT_EQ(s.fallback_calls, 1u);
  EXPECT_EQ(s.copy_bytes, 1500u);
  EXPECT_EQ(s.kernel_bytes, 630u);
  EXPECT_EQ(s.max_cores_used, 16);
  ASSERT_EQ(s.ops.size(), 3u);
  EXPECT_EQ(s.ops[0].op, "mm");
  EXPECT_EQ(s.ops[0].kernel_calls, 2u);
  EXPECT_EQ(s.ops[0].modeled_ns, 1200u);
  EXPECT_EQ(s.ops[1].op, "add");
  EXPECT_EQ(s.ops[2].op, "cumsum");
  EXPECT_EQ(s.ops[2].fallback_calls, 1u);
}

TEST(TraceSummaryTest, EmptyIsZero) {
  const spyre_emu::TraceSummary s = spyre_emu::SummarizeTrace({});
  EXPECT_EQ(s.modeled_ns, 0u);
  EXPECT_TRUE(s.ops.empty());
}

}  // namespace
