// How busy the rest of the machine was while a case was timed
// (base/host_probe.h): ticks from /proc/stat less this process's own.
#include <gtest/gtest.h>

#include <chrono>

#include "base/host_probe.h"

namespace {

using harness::BusyTicks;
using harness::CpuTicks;

TEST(HostBusyTest, OthersAreTheMachinesBusyTicksLessThisProcesss) {
  const CpuTicks a{1000, 5000, 200}, b{1300, 5400, 250};
  const BusyTicks t = harness::OtherBusyTicks(a, b);
  EXPECT_EQ(t.total, 400);
  EXPECT_EQ(t.others, 250);  // 300 busy, 50 of them ours
  // Read a moment apart, ours can look larger than the machine's: none.
  EXPECT_EQ(harness::OtherBusyTicks(a, {1010, 5010, 230}).others, 0);
  // A missing reading: nothing.
  EXPECT_EQ(harness::OtherBusyTicks(a, {1010, 5010, -1}).total, 0);
}

TEST(HostBusyTest, ARecordedShareReadsBackAndAMalformedOneIsNone) {
  harness::CaseResult r;
  EXPECT_EQ(harness::HostBusy(r).total, 0);
  r.extra["host_busy"] = harness::BusyJson({3, 12});
  EXPECT_EQ(harness::HostBusy(r).others, 3);
  EXPECT_EQ(harness::HostBusy(r).total, 12);
  r.extra["host_busy"] = {{"others", 13}, {"ticks", 12}};
  EXPECT_EQ(harness::HostBusy(r).total, 0);
  r.extra["host_busy"] = 0.5;
  EXPECT_EQ(harness::HostBusy(r).total, 0);
}

TEST(HostBusyTest, TheProbeRecordsTheTicksWhileItsCaseWasTimed) {
  const CpuTicks now = harness::ReadCpuTicks();
  ASSERT_GE(now.machine_total, 0) << "/proc/stat unreadable";
  ASSERT_GE(now.self, 0) << "/proc/self/stat unreadable";
  EXPECT_GE(now.machine_total, now.machine_busy);
  harness::HostProbe probe;
  probe.Sample();
  // Busy for long enough that the machine's clock ticks on (10 ms a tick).
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(60);
  volatile double x = 1;
  while (std::chrono::steady_clock::now() < until) x = x * 1.0000001;
  harness::CaseResult r;
  r.wall_us = {60000};
  probe.Record(&r);
  const BusyTicks t = harness::HostBusy(r);
  EXPECT_GT(t.total, 0);
  EXPECT_LE(t.others, t.total);
}

}  // namespace
