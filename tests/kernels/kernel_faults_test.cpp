// Fault injection on the device kernels: every kind of SPYRE_EMU_FAULTS.
// abort, segv and hang run in a child process (fault_child) with a timeout.
#include <ATen/ATen.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "glue/kernels/kernel_support.h"
#include "op_test_util.h"
#include "support/run_command.h"

namespace {

using kernels_test::Random;
using kernels_test::ScopedFaults;
using kernels_test::ToDevice;
using kernels_test::Values;
using ::testing::HasSubstr;

struct Timing {
  uint64_t modeled_ns = 0, wall_ns = 0;
  // Wall time less the thread's run-queue wait over the call: what the op
  // took of its own, which a busy host does not inflate (the quantity a
  // slowed op is stretched in).
  int64_t own_ns = 0;
};

// Runs f under a trace scope and returns the event of `op`.
template <class F>
Timing Timed(const std::string& op, F f) {
  spyre_emu::TraceScope trace;
  const int64_t waited_before = spyre_emu::device_kernels::ThreadQueueWaitNs();
  f();
  const int64_t waited_after = spyre_emu::device_kernels::ThreadQueueWaitNs();
  Timing t;
  for (const auto& e : trace.events()) {
    if (e.op == op) t.modeled_ns = e.modeled_ns, t.wall_ns = e.wall_ns;
  }
  const int64_t waited =
      waited_before >= 0 && waited_after >= waited_before ? waited_after - waited_before : 0;
  t.own_ns = std::max<int64_t>(static_cast<int64_t>(t.wall_ns) - waited, 0);
  return t;
}

const at::Tensor& A() {
  static const at::Tensor a = ToDevice(Random({256, 256}, 1));
  return a;
}

Timing Median(std::vector<Timing> runs) {
  std::sort(runs.begin(), runs.end(),
            [](const Timing& a, const Timing& b) { return a.own_ns < b.own_ns; });
  return runs[runs.size() / 2];
}

TEST(KernelFaultsTest, SlowMultipliesModeledAndWallTime) {
  at::mm(A(), A());  // warm up, so the baseline is not a cold call
  // Plain and slowed calls alternate, so a change in the host's load reaches
  // both sides alike; medians of 7 drop the odd descheduled call.
  std::vector<Timing> plain, slowed;
  for (int i = 0; i < 7; ++i) {
    plain.push_back(Timed("mm", [] { at::mm(A(), A()); }));
    ScopedFaults faults("mm:slow=50");
    slowed.push_back(Timed("mm", [] { at::mm(A(), A()); }));
  }
  const Timing base = Median(plain), slow = Median(slowed);
  EXPECT_NEAR(static_cast<double>(slow.modeled_ns), 50.0 * base.modeled_ns, 25.0);
  // The extra time is slept, 49x each call's own compute time, so only a
  // tenfold swing in host speed between neighbouring calls could bring the
  // ratio under 5x. Own time, not wall time: on a busy host a plain call's
  // wall time is mostly run-queue wait, which the stretch does not multiply.
  EXPECT_GT(slow.own_ns, 5 * base.own_ns);
}

TEST(KernelFaultsTest, DelayMultipliesWallTimeOnlyAndLeavesOutputsAlone) {
  const at::Tensor plain_out = at::mm(A(), A()).cpu();  // also the warm-up
  std::vector<Timing> plain, delayed;
  at::Tensor delayed_out;
  for (int i = 0; i < 7; ++i) {
    plain.push_back(Timed("mm", [] { at::mm(A(), A()); }));
    ScopedFaults faults("mm:delay=50");
    delayed.push_back(Timed("mm", [&] { delayed_out = at::mm(A(), A()); }));
  }
  const Timing base = Median(plain), slow = Median(delayed);
  // The modeled time is the device's: a host-side delay does not reach it.
  EXPECT_EQ(slow.modeled_ns, base.modeled_ns);
  EXPECT_TRUE(at::equal(delayed_out.cpu(), plain_out));
  // As for slow=50 above: only a tenfold swing in host speed between
  // neighbouring calls could bring the ratio of own times under 5x.
  EXPECT_GT(slow.own_ns, 5 * base.own_ns);
}

// A fake thread clock: every reading of the time advances it by `step_ns`,
// of which `queued_per_step_ns` (from the second reading on: the stretch's
// own steps) is spent waiting on a run queue (a loaded host), and sleeps
// advance it by what was asked.
struct FakeThreadClock {
  int64_t now = 0, queued = 0, readings = 0, queue_readings = 0;
  int64_t step_ns = 1000, queued_per_step_ns = 0;
  std::vector<int64_t> sleeps;
  bool queue_known = true;
  spyre_emu::device_kernels::StretchClock Clock() {
    return {[this] {
              now += step_ns;
              if (readings++ > 0) queued += queued_per_step_ns;
              return now;
            },
            [this] {
              ++queue_readings;
              return queue_known ? queued : int64_t{-1};
            },
            [this](int64_t ns) {
              sleeps.push_back(ns);
              now += ns;
            }};
  }
};

TEST(KernelFaultsTest, SlowStretchesTheOpsTimeLessItsRunQueueWait) {
  using spyre_emu::device_kernels::StretchOp;
  // An op of 10 ms of wall time, 6 ms of which it waited on a run queue: its
  // own time is 4 ms, so slow=2 adds 4 ms of its own, not 10.
  FakeThreadClock c;
  c.queued = 6'000'000;
  EXPECT_EQ(StretchOp(2.0, 10'000'000, /*queued_at_start_ns=*/0, /*overhead_ns=*/0, c.Clock()), 4'000'000);
  ASSERT_EQ(c.sleeps.size(), 1u);
  EXPECT_EQ(c.sleeps[0], 3'000'000);  // the bulk slept, the last millisecond spun
  // The same op where the wait cannot be read: wall time.
  FakeThreadClock wall;
  wall.queue_known = false;
  EXPECT_EQ(StretchOp(2.0, 10'000'000, -1, 0, wall.Clock()), 10'000'000);
  // Not slowed: nothing read, nothing waited.
  FakeThreadClock none;
  EXPECT_EQ(StretchOp(1.0, 10'000'000, 0, 0, none.Clock()), 0);
  EXPECT_EQ(none.now, 0);
}

TEST(KernelFaultsTest, SlowCountsTheStretchItselfLessItsRunQueueWait) {
  using spyre_emu::device_kernels::StretchOp;
  // A short op (100 us, no wait) slowed 1.5x: a 50 us spin, no sleep. While
  // it spins the host takes the CPU away for half of every step: the spin
  // lasts until 50 us of its own time have passed, about 100 us of wall time.
  FakeThreadClock c;
  c.queued_per_step_ns = 500;
  const int64_t target = StretchOp(1.5, 100'000, 0, 0, c.Clock());
  EXPECT_EQ(target, 50'000);
  EXPECT_TRUE(c.sleeps.empty());
  const int64_t own = c.now - c.step_ns - c.queued;  // since the stretch began
  EXPECT_GE(own, 50'000 - c.step_ns);  // within a reading's step of the target
  EXPECT_LE(own, 50'000 + c.step_ns);
  EXPECT_GE(c.now, 95'000);  // about 100 us of wall time; a wall-time stretch would end at 50
}

TEST(KernelFaultsTest, ASlowedShortOpReadsTheWaitOnceAndMakesUpForIt) {
  using spyre_emu::device_kernels::StretchOp;
  // A 3 us op whose start reading of the wait took 1.6 us (inside its timer):
  // too short to have waited, so the wait is not read again, and slow=2 adds
  // 3 us less the 1.6 us reading: 6 us in all, twice the op.
  FakeThreadClock c;
  c.step_ns = 100;
  EXPECT_EQ(StretchOp(2.0, 4'600, /*queued_at_start_ns=*/0, /*overhead_ns=*/1'600, c.Clock()),
            1'400);
  EXPECT_EQ(c.queue_readings, 0);
  EXPECT_TRUE(c.sleeps.empty());
  EXPECT_GE(c.now - c.step_ns, 1'400);
  EXPECT_LE(c.now - c.step_ns, 1'400 + c.step_ns);
}

TEST(KernelFaultsTest, ASlowedOpReadsTheWaitOnlyWhereTheStretchPaysForTheReadings) {
  using spyre_emu::device_kernels::StretchReadsWait;
  // Nothing known of the op yet: read.
  EXPECT_TRUE(StretchReadsWait(1.05, -1));
  EXPECT_TRUE(StretchReadsWait(2.0, -1));
  // Not slowed: never.
  EXPECT_FALSE(StretchReadsWait(1.0, -1));
  EXPECT_FALSE(StretchReadsWait(1.0, 5'000'000));
  // A 60 us op: slow=2 adds 60 us, worth two readings; slow=1.05 adds 3 us,
  // less than the readings would.
  EXPECT_TRUE(StretchReadsWait(2.0, 60'000));
  EXPECT_FALSE(StretchReadsWait(1.05, 60'000));
  // Too short to have been preempted, whatever the factor.
  EXPECT_FALSE(StretchReadsWait(50.0, 10'000));
  // A 1 ms op at slow=1.05 adds 50 us: read.
  EXPECT_TRUE(StretchReadsWait(1.05, 1'000'000));
}

TEST(KernelFaultsTest, AnOpsRecentTimeRisesAtOnceAndDecaysSlowly) {
  using spyre_emu::device_kernels::NextRecentNs;
  EXPECT_EQ(NextRecentNs(-1, 5'000), 5'000);
  EXPECT_EQ(NextRecentNs(5'000, 300'000), 300'000);  // a longer shape of the op
  int64_t recent = 320'000;
  int calls = 0;
  while (recent >= 20'000) {
    recent = NextRecentNs(recent, 5'000);
    ++calls;
  }
  // From 320 us to under 20 us at 1/16 a call: 43 calls of the short shape.
  EXPECT_EQ(calls, 43);
  EXPECT_EQ(NextRecentNs(7'000, -3), 7'000 - 7'000 / 16);  // a negative reading counts as 0
}

TEST(KernelFaultsTest, ErrorPerturbsDeterministicallyByTheRelativeMagnitude) {
  const at::Tensor clean = Values(at::gelu(A()));
  ScopedFaults faults("gelu:error=0.05");
  const at::Tensor bad1 = Values(at::gelu(A())), bad2 = Values(at::gelu(A()));
  EXPECT_TRUE(at::equal(bad1, bad2));  // deterministic
  const at::Tensor rel = ((bad1 - clean).abs() / clean.abs().clamp_min(1e-3));
  const at::Tensor big = clean.abs() > 0.1;
  const double mean_rel = rel.masked_select(big).mean().item<double>();
  EXPECT_NEAR(mean_rel, 0.05, 0.005);
  EXPECT_LT(rel.masked_select(big).max().item<double>(), 0.05 + 2.0 / 512);
  // Other ops are untouched.
  EXPECT_TRUE(at::equal(Values(at::relu(A())), at::relu(Values(A()))));
}

TEST(KernelFaultsTest, NanPutsANanInTheOutput) {
  ScopedFaults faults("_softmax:nan");
  const at::Tensor y = Values(at::softmax(A(), -1));
  EXPECT_EQ(at::isnan(y).sum().item<int64_t>(), 1);
}

TEST(KernelFaultsTest, FallbackDisablesTheDeviceKernel) {
  ScopedFaults faults("mm:fallback");
  spyre_emu::reset_stats();
  const at::Tensor y = at::mm(A(), A());
  const auto s = spyre_emu::stats();
  ASSERT_TRUE(s.ops.count("mm"));
  EXPECT_EQ(s.ops.at("mm").cpu_fallback, 1u);
  EXPECT_EQ(s.ops.at("mm").device_kernel, 0u);
  // Same values within the matmul bound (the CPU computes in fp32 too).
  const at::Tensor ref = at::mm(Values(A()), Values(A()));
  EXPECT_TRUE(at::allclose(Values(y), ref, 4e-3, 1e-2));
}

TEST(KernelFaultsTest, OomIsTheClearOutOfMemoryError) {
  ScopedFaults faults("native_layer_norm:oom");
  try {
    at::layer_norm(A(), {256});
    FAIL() << "no error";
  } catch (const c10::OutOfMemoryError& e) {
    EXPECT_THAT(e.what(), HasSubstr("out of device memory"));
    EXPECT_THAT(e.what(), HasSubstr("native_layer_norm"));
  }
  EXPECT_NO_THROW(at::softmax(A(), -1));  // only the named op
}

TEST(KernelFaultsTest, MalformedSpecIsAnErrorNamingTheEntry) {
  ScopedFaults faults("mm:slow=2;gelu:sloow");
  try {
    at::gelu(A());
    FAIL() << "no error";
  } catch (const c10::Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("entry 2 'gelu:sloow'"));
    EXPECT_THAT(e.what(), HasSubstr("character 16"));
  }
}

TEST(KernelFaultsTest, FaultsReachOpsServedByTheCpuFallback) {
  const at::Tensor x = ToDevice(Random({8, 70}, 3, 0.5, 1.5));
  const at::Tensor clean = Values(at::cumsum(x, 1));  // cumsum has no device kernel
  {
    ScopedFaults faults("cumsum:nan");
    EXPECT_EQ(at::isnan(Values(at::cumsum(x, 1))).sum().item<int64_t>(), 1);
  }
  {
    ScopedFaults faults("cumsum:error=0.1");
    const at::Tensor rel = (Values(at::cumsum(x, 1)) - clean).abs() / clean.abs();
    EXPECT_NEAR(rel.mean().item<double>(), 0.1, 0.01);
  }
  {
    ScopedFaults faults("cumsum:oom");
    EXPECT_THROW(at::cumsum(x, 1), c10::OutOfMemoryError);
  }
  {
    // A disabled kernel plus error: the perturbation is applied once, by the
    // fallback, not again by the kernel wrapper.
    ScopedFaults faults("mm:fallback,error=0.25");
    const at::Tensor y = Values(at::mm(A(), A()));
    const at::Tensor ref = at::mm(Values(A()), Values(A()));
    const at::Tensor big = ref.abs() > 1;
    const at::Tensor rel = ((y - ref).abs() / ref.abs()).masked_select(big);
    EXPECT_NEAR(rel.mean().item<double>(), 0.25, 0.02);
  }
}

spyre_test::CommandResult RunChild(const std::string& spec, const std::string& op) {
  return spyre_test::RunCommand({KERNELS_FAULT_CHILD, op}, {{"SPYRE_EMU_FAULTS", spec}}, 20);
}

TEST(KernelFaultsTest, AbortSegvAndHangEndTheProcess) {
  const auto ok = RunChild("gelu:abort", "mm");  // a fault on another op does nothing
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_THAT(ok.out, HasSubstr("survived"));

  const auto aborted = RunChild("mm:abort", "mm");
  EXPECT_EQ(aborted.exit_code, 128 + SIGABRT) << aborted.err;
  EXPECT_THAT(aborted.err, HasSubstr("injected fault 'abort' on op 'mm'"));

  const auto crashed = RunChild("gelu:segv", "gelu");
  EXPECT_EQ(crashed.exit_code, 128 + SIGSEGV) << crashed.err;
  EXPECT_THAT(crashed.err, HasSubstr("injected fault 'segv' on op 'gelu'"));

  const auto hung = spyre_test::RunCommand({KERNELS_FAULT_CHILD, "_softmax"},
                                           {{"SPYRE_EMU_FAULTS", "_softmax:hang"}}, 2);
  EXPECT_EQ(hung.exit_code, 128 + SIGKILL) << hung.err;
  EXPECT_THAT(hung.err, HasSubstr("killed after timeout"));
  EXPECT_THAT(hung.out, ::testing::Not(HasSubstr("survived")));
}

}  // namespace
