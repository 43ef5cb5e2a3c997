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
//   probe.Record(&result);  // extra["host_probe_us"] = median probe time
//
// Compare divides the candidate's wall samples by the two runs' probe ratio
// (docs/detection.md); history's wall_us_normalized series is the
// wall median scaled to kHostProbeReferenceUs.
#include <cmath>
#include <vector>

#include "harness/case_result.h"

namespace harness {

// The probe's nominal time: normalised wall times are "microseconds on a
// host where one probe takes this long".
inline constexpr double kHostProbeReferenceUs = 10.0;

// Runs the probe once and returns its wall time in microseconds.
double HostProbeOnceUs();

class HostProbe {
 public:
  void Sample() { samples_.push_back(HostProbeOnceUs()); }
  // Stores the median probe time in r->extra["host_probe_us"]; does nothing
  // when no sample was taken.
  void Record(CaseResult* r) const;

 private:
  std::vector<double> samples_;
};

// The recorded probe time of a case, or NaN when the case has none (older
// runs, untimed cases).
double HostProbeUs(const CaseResult& r);

}  // namespace harness
