#pragma once
// Host-speed probe: separate processes on a shared machine run at different,
// stable speeds (the hypervisor's placement, a busy SMT sibling, frequency),
// and that drift between two runs is larger than the 5% shifts the judge must
// find. Each timed case therefore also times a fixed piece of the harness's
// own arithmetic, interleaved with its samples. The probe depends on nothing
// upstream (no libtorch, no BLAS, no emulator), so an upstream change moves
// the case but not the probe, while a slower host moves both.
//
//   HostProbe probe;
//   for (int i = 0; i < repeat; ++i) { probe.Sample(); /* time one repeat */ }
//   probe.Record(&result);  // extra["host_probe_us"] = median probe time,
//                           // result.queue_us (below) and
//                           // extra["host_busy"] (the rest of the machine)
//
// Compare divides the candidate's wall samples by the two runs' probe ratio
// (docs/detection.md); history's wall_us_normalized series is the
// wall median scaled to kHostProbeReferenceUs.
//
// The probe also marks where each sample starts and ends (a sample runs from
// the end of one Sample() to the start of the next, the last one to
// Record()) and reads how long the timing thread waited on a run queue for a
// CPU in between (ThreadRunQueueWaitNs). Record() stores that wait per sample
// in result.queue_us, divided by extra["wall_batch"] (calls per sample) when
// the sampler set it first, so that wall_us[i] - queue_us[i] is the sample's
// time on a CPU or blocked of its own accord (sleeping, waiting for a device
// or another thread): the latency it would have had with a CPU free for it
// (docs/detection.md, "What latency is judged on").
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/case_result.h"

namespace harness {

// The probe's nominal time: normalised wall times are "microseconds on a
// host where one probe takes this long".
inline constexpr double kHostProbeReferenceUs = 10.0;

// Runs the probe once and returns its wall time in microseconds.
double HostProbeOnceUs();

// Nanoseconds the calling thread has spent runnable but waiting on a run
// queue since it started (second field of /proc/thread-self/schedstat; the
// kernel updates it each time the thread gets a CPU, so it is current while
// the thread runs). -1 where the kernel does not provide it. About 2 us a read.
int64_t ThreadRunQueueWaitNs();

// CPU time in clock ticks (USER_HZ) of the whole machine, all CPUs
// together (/proc/stat's "cpu" line), and of this process, all its threads
// (/proc/self/stat); -1 where unreadable.
struct CpuTicks {
  int64_t machine_busy = -1;   // user, nice, system, irq, softirq, steal
  int64_t machine_total = -1;  // the same plus idle and iowait
  int64_t self = -1;           // this process's user and system time
};
CpuTicks ReadCpuTicks();

// The machine's CPU time between two readings and the part of it other
// processes used (0 / 0 when a reading is missing). Clock ticks are
// coarse (10 ms of one CPU each): a short case sees a few, so the judges
// pool them over a run's cases rather than read one case's share.
struct BusyTicks {
  int64_t others = 0;
  int64_t total = 0;
};
BusyTicks OtherBusyTicks(const CpuTicks& begin, const CpuTicks& end);

class HostProbe {
 public:
  void Sample();
  // Stores the median probe time in r->extra["host_probe_us"] and, unless
  // r->queue_us already has one wait per wall sample (harness/wall_sampler.h
  // reads them at the timed region's edges), the wait between the probes
  // in r->queue_us when every reading succeeded and r->wall_us has one value
  // per Sample(); does nothing when no sample was taken. Also stores how
  // busy the rest of the machine was while the case was timed, from the
  // first Sample() to Record(): extra["host_busy"] = {"others": ticks
  // other processes used, "ticks": ticks of the whole machine}, when at
  // least one tick passed.
  void Record(CaseResult* r);

 private:
  CpuTicks first_;
  std::vector<double> samples_;
  std::vector<int64_t> starts_, ends_;  // run-queue wait at each sample's edges
};

// Per-sample run-queue waits (ns, cumulative readings at each sample's start
// and end) to microseconds per call; empty when any reading is missing.
std::vector<double> QueueWaitPerCallUs(const std::vector<int64_t>& starts,
                                       const std::vector<int64_t>& ends, double calls_per_sample);

// The recorded probe time of a case, or NaN when the case has none (older
// runs, untimed cases).
double HostProbeUs(const CaseResult& r);
// The recorded extra["host_busy"] of a case; 0 / 0 when it has none.
BusyTicks HostBusy(const CaseResult& r);
// As it is recorded.
nlohmann::json BusyJson(const BusyTicks& b);

}  // namespace harness
