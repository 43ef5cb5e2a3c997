#include "harness/host_probe.h"

#include <chrono>

#include "harness/detect/stats.h"

namespace harness {
namespace {

// A dependent multiply-add chain: latency-bound, so neither vectorisation
// nor the memory system changes it, only how fast this core runs for us.
// About 10 us on the 2-core CI machine.
constexpr int kIterations = 7000;

}  // namespace

double HostProbeOnceUs() {
  static volatile double seed = 1.0;
  const auto start = std::chrono::steady_clock::now();
  double x = seed;
  for (int i = 0; i < kIterations; ++i) x = x * 0.9999999 + 1e-7;
  asm volatile("" : "+x"(x));  // the loop finishes before the clock is read
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(stop - start).count();
}

void HostProbe::Record(CaseResult* r) const {
  if (samples_.empty()) return;
  r->extra["host_probe_us"] = Median(samples_);
}

double HostProbeUs(const CaseResult& r) {
  auto it = r.extra.find("host_probe_us");
  if (it == r.extra.end() || !it->is_number()) return std::nan("");
  const double v = it->get<double>();
  return v > 0 && std::isfinite(v) ? v : std::nan("");
}

}  // namespace harness
