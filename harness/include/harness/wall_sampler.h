#pragma once
// How a case kind takes its wall-time samples, so that every kind's samples
// mean the same thing to the judge (docs/detection.md).
//
//   harness::SamplingPlan plan = harness::SamplingFor(suite, options);
//   harness::TakeWallSamples(plan, [&] { outs = op->run(inputs); }, &result);
//
// Warm-up calls first. Then the batch is sized (SizeBatch) so that one
// sample lasts at least `min_sample_us`; each of the `repeat` samples is
// the mean time per call over one batch, so `wall_us` stays "microseconds per
// call". A microsecond kernel timed call by call sits under timer and
// scheduler jitter of its own size: on the 2-core CI VM the spread of single
// calls within one process was 36% (mm 128x128, 21 us) and 54% (softmax
// 512x1024, 327 us, allocator stalls), batched to 2 ms 4.1% and 1.6%.
// Google Benchmark sizes its iterations the same way.
//
// Every sample is preceded by one host-speed probe (base/host_probe.h).
// The result gets `wall_us`, `queue_us` (the run-queue wait in each sample,
// per call), extra["host_probe_us"] and extra["wall_batch"] (calls per
// sample). The last call's outputs are whatever `call` kept.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "base/case_result.h"
#include "base/host_probe.h"
#include "harness/case_kinds/case_kinds.h"
#include "suite_file/suite_file.h"

namespace harness {

// Default of `run --min-sample-us`. 1 ms keeps an ops-suite pass under two
// seconds while taking single-call jitter out of the samples.
inline constexpr double kDefaultMinSampleUs = 1000;
// Calls per sample never exceed this (a call that times at 0 us).
inline constexpr int kMaxCallsPerSample = 100000;

// A confirmation process takes samples past the repeat (SamplingPlan::
// min_repeat) only while the case's samples so far took less than this: a
// short case's value, the median of its samples, then spreads less between
// processes, and a case whose samples are long already averages over them.
inline constexpr double kExtraSamplesWithinUs = 100'000;

struct SamplingPlan {
  int warmup = 1;
  int repeat = 5;
  int min_repeat = 0;  // > repeat: more samples while they are short (above)
  double min_sample_us = kDefaultMinSampleUs;  // <= 0: one call per sample
  bool timed = true;  // false: TakeWallSamples takes nothing (a parity-only case)
};

// The suite's warm-up, repeat and minimum sample time unless the run
// overrides them; kDefaultMinSampleUs when neither sets the last. A
// parity-only case (ExecOptions::timed false) is not timed at all.
inline SamplingPlan SamplingFor(const SuiteSpec& suite, const ExecOptions& o) {
  SamplingPlan p;
  p.timed = o.timed;
  p.warmup = o.warmup >= 0 ? o.warmup : suite.warmup;
  p.repeat = std::max(1, o.repeat >= 0 ? o.repeat : suite.repeat);
  p.min_repeat = o.min_repeat;
  p.min_sample_us = o.min_sample_us >= 0       ? o.min_sample_us
                    : suite.min_sample_us >= 0 ? suite.min_sample_us
                                               : kDefaultMinSampleUs;
  return p;
}

// Paired sampling: a confirmation process that times a case under two
// configurations (runner/worker_loop.cpp) installs one of these around the
// case. TakeWallSamples then alternates the two sample by sample (A B B A
// ...; set_side(0) is the baseline's configuration, 1 the candidate's), so
// that the load's swings within the process touch both alike: timed one
// after the other, the two halves of a process saw different moments of a
// loaded host and their ratio varied 7-10% (median) between processes. The
// candidate's samples go to wall_us and queue_us as usual, the baseline's to
// extra["paired_wall_us"] and extra["paired_queue_us"]; the candidate's
// configuration is left in force (the kind's traced pass and outputs are
// its). A kind that times its own way does the same in its own loop (decode:
// suites/models/decode_case.cpp) and sets `used`; one that does not leaves
// `used` false, and the process times the two configurations in turn.
struct PairedSides {
  std::function<bool(int side)> set_side;  // false: the switch failed
  int first = 1;                           // the side whose sample opens each A B B A group
  bool used = false;
  bool failed = false;
};
// Which side takes the k-th (0 or 1) slot of paired sample i: A B B A ...,
// `first` opening the first group.
inline int PairedSide(int i, int k, int first) { return (i + k) % 2 == 0 ? first : 1 - first; }
// The paired sampling in force on this thread; nullptr when none.
PairedSides* ActivePairedSides();
// Installs `sides` for the lifetime of the scope.
class ScopedPairedSides {
 public:
  explicit ScopedPairedSides(PairedSides* sides);
  ~ScopedPairedSides();
  ScopedPairedSides(const ScopedPairedSides&) = delete;
  ScopedPairedSides& operator=(const ScopedPairedSides&) = delete;

 private:
  PairedSides* previous_;
};

// Calls per sample for a call that took `once_us`.
inline int CallsPerSample(double min_sample_us, double once_us) {
  if (!(min_sample_us > 0)) return 1;
  if (!(once_us > 0) || !std::isfinite(once_us)) return kMaxCallsPerSample;
  const double n = std::ceil(min_sample_us / once_us);
  return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(kMaxCallsPerSample)));
}

inline double MicrosSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
      .count();
}

// Whether sample `i` (from 0) is taken when the samples before it took
// `sampled_us` in all (less their run-queue wait: a busy host does not cut
// a confirmation's samples short).
inline bool TakeSample(const SamplingPlan& plan, int i, double sampled_us) {
  return i < plan.repeat || (i < plan.min_repeat && sampled_us < kExtraSamplesWithinUs);
}

// A sample's time less the run-queue wait read at its edges (-1: not read).
inline double SampleOwnUs(double us, int64_t wait_before_ns, int64_t wait_after_ns) {
  if (wait_before_ns < 0 || wait_after_ns < wait_before_ns) return us;
  return std::max(0.0, us - static_cast<double>(wait_after_ns - wait_before_ns) / 1000);
}

// Calls per sample for `call`: times 1, 8, 64, ... calls until a group lasts
// an eighth of `min_sample_us`, then scales. Timing one call alone misjudges
// microsecond calls (the first call after the warm-up is often twice as slow
// as the rest: batches came out at half the intended length). `*calls_made`
// (optional) counts the calls spent.
template <typename Call>
int SizeBatch(double min_sample_us, Call&& call, int* calls_made = nullptr) {
  int made = 0, n = 1;
  double elapsed = 0;
  if (min_sample_us > 0) {
    for (;;) {
      const auto start = std::chrono::steady_clock::now();
      for (int k = 0; k < n; ++k) call();
      elapsed = MicrosSince(start);
      made += n;
      if (elapsed >= min_sample_us / 8 || n >= kMaxCallsPerSample) break;
      n = std::min(kMaxCallsPerSample, n * 8);
    }
  }
  if (calls_made != nullptr) *calls_made = made;
  return made == 0 ? 1 : CallsPerSample(min_sample_us, elapsed / n);
}

// TakeWallSamples under a PairedSides: both configurations, interleaved.
template <typename Call>
void TakePairedWallSamples(const SamplingPlan& plan, PairedSides& sides, Call&& call,
                           CaseResult* r) {
  using Clock = std::chrono::steady_clock;
  sides.used = true;
  const auto set = [&](int side) {
    if (!sides.set_side || !sides.set_side(side)) sides.failed = true;
  };
  const int first = sides.first == 0 ? 0 : 1;
  for (int i = 0; i < plan.warmup; ++i) {
    for (int side : {first, 1 - first}) {
      set(side);
      call();
    }
  }
  // One batch size for both sides, sized on the candidate's configuration.
  set(1);
  const int batch = SizeBatch(plan.min_sample_us, call);
  HostProbe probe;
  std::vector<int64_t> before[2], after[2];
  std::vector<double> wall[2];
  double sampled_us = 0;
  for (int i = 0; TakeSample(plan, i, sampled_us); ++i) {
    for (int k = 0; k < 2; ++k) {
      const int side = PairedSide(i, k, first);
      set(side);
      probe.Sample();
      before[side].push_back(ThreadRunQueueWaitNs());
      const auto start = Clock::now();
      for (int c = 0; c < batch; ++c) call();
      const double us = MicrosSince(start);
      after[side].push_back(ThreadRunQueueWaitNs());
      wall[side].push_back(us / batch);
      sampled_us += SampleOwnUs(us, before[side].back(), after[side].back());
    }
  }
  set(1);
  r->wall_us = wall[1];
  r->queue_us = QueueWaitPerCallUs(before[1], after[1], batch);
  r->extra["wall_batch"] = batch;
  r->extra["paired_wall_us"] = wall[0];
  r->extra["paired_queue_us"] = QueueWaitPerCallUs(before[0], after[0], batch);
  probe.Record(r);
}

template <typename Call>
void TakeWallSamples(const SamplingPlan& plan, Call&& call, CaseResult* r) {
  using Clock = std::chrono::steady_clock;
  // A parity-only case: the kind's own traced pass is its one run.
  if (!plan.timed) return;
  if (PairedSides* sides = ActivePairedSides()) {
    TakePairedWallSamples(plan, *sides, call, r);
    return;
  }
  for (int i = 0; i < plan.warmup; ++i) call();
  const int batch = SizeBatch(plan.min_sample_us, call);
  HostProbe probe;
  std::vector<int64_t> waits_before, waits_after;
  double sampled_us = 0;
  for (int i = 0; TakeSample(plan, i, sampled_us); ++i) {
    probe.Sample();
    // The run-queue wait is read right at the timed region's edges: a
    // preemption just outside it must not be taken off the sample.
    waits_before.push_back(ThreadRunQueueWaitNs());
    const auto start = Clock::now();
    for (int k = 0; k < batch; ++k) call();
    const double us = MicrosSince(start);
    waits_after.push_back(ThreadRunQueueWaitNs());
    r->wall_us.push_back(us / batch);
    sampled_us += SampleOwnUs(us, waits_before.back(), waits_after.back());
  }
  r->extra["wall_batch"] = batch;
  r->queue_us = QueueWaitPerCallUs(waits_before, waits_after, batch);
  probe.Record(r);  // keeps the queue_us above
}

}  // namespace harness
