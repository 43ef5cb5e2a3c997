#include <thread>

#include <gtest/gtest.h>

#include "spyre_emu/stats.h"
#include "spyre_emu/trace.h"

namespace spyre_emu {
namespace {

TEST(TraceTest, NestedScopesSeeTheirOwnWindow) {
  EXPECT_FALSE(TraceActive());
  TraceEvent e;
  e.op = "before";
  RecordEvent(e);  // no scope: dropped
  TraceScope outer;
  EXPECT_TRUE(TraceActive());
  e.op = "a";
  RecordEvent(e);
  {
    TraceScope inner;
    e.op = "b";
    e.kind = EventKind::kHostToDevice;
    e.bytes = 42;
    std::thread([&] { RecordEvent(e); }).join();  // any thread
    ASSERT_EQ(inner.events().size(), 1u);
    EXPECT_EQ(inner.events()[0].bytes, 42u);
  }
  const auto events = outer.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].op, "a");
  EXPECT_EQ(events[1].op, "b");
  EXPECT_STREQ(EventKindName(events[1].kind), "h2d");
}

TEST(StatsTest, CountsPerOpAndReset) {
  reset_stats();
  CountDeviceKernel("mm");
  CountDeviceKernel("mm");
  CountCpuFallback("cumsum");
  CountHostToDevice(10);
  CountDeviceToHost(20);
  Stats s = stats();
  EXPECT_EQ(s.ops["mm"].device_kernel, 2u);
  EXPECT_EQ(s.ops["cumsum"].cpu_fallback, 1u);
  EXPECT_EQ(s.kernel_calls(), 2u);
  EXPECT_EQ(s.fallback_calls(), 1u);
  EXPECT_EQ(s.h2d_bytes, 10u);
  EXPECT_EQ(s.d2h_bytes, 20u);
  reset_stats();
  EXPECT_TRUE(stats().ops.empty());
  EXPECT_EQ(stats().h2d_bytes, 0u);
}

}  // namespace
}  // namespace spyre_emu
