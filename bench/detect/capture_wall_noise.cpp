// Records real wall-time samples on this machine, in the shape the detector
// sees them: several independent "runs" (separate processes), each with
// warm-up and timed repeats of a few kernels, each repeat preceded by the
// host-speed probe the case kinds take (base/host_probe.h), recorded as
// "<workload>@probe". The output (JSON on stdout) is the fixture
// tests/detect/fixtures/wall_samples*.json, from which detector_rates
// measures the detector. `--min-sample-us US` times batches of calls
// lasting at least US per sample, as harness/wall_sampler.h does (set
// OPENBLAS_NUM_THREADS=1 as the harness does: with two BLAS threads mm
// 128x128 runs at 21 or 42 us depending on the other core's load).
//
//   for i in $(seq 30); do build/capture_wall_noise; done | build/capture_wall_noise --merge
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>

#include "base/host_probe.h"
#include "harness/wall_sampler.h"

namespace {

double g_min_sample_us = 0;  // --min-sample-us (0: one call per sample, as recorded before)

// Times `f` the way every case kind does (harness/wall_sampler.h).
template <typename F>
void Time(nlohmann::json* run, const std::string& name, F f, int warmup, int repeat) {
  harness::SamplingPlan plan;
  plan.warmup = warmup;
  plan.repeat = repeat;
  plan.min_sample_us = g_min_sample_us;
  harness::CaseResult r;
  harness::TakeWallSamples(plan, f, &r);
  (*run)[name] = r.wall_us;
  // detector_rates reads the median of this list.
  (*run)[name + "@probe"] = nlohmann::json::array({harness::HostProbeUs(r)});
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--merge") == 0) {
    // Reads one JSON run per line and writes {"workload": [[run samples]...]}.
    nlohmann::json merged = nlohmann::json::object();
    std::string line;
    while (std::getline(std::cin, line)) {
      if (line.empty()) continue;
      nlohmann::json run = nlohmann::json::parse(line);
      for (const auto& [k, v] : run.items()) merged[k].push_back(v);
    }
    std::cout << merged.dump() << "\n";
    return 0;
  }
  if (argc > 2 && std::strcmp(argv[1], "--min-sample-us") == 0) g_min_sample_us = std::atof(argv[2]);
  at::set_num_threads(1);
  at::Tensor a = at::rand({128, 128}), b = at::rand({128, 128});
  at::Tensor s = at::rand({512, 1024}), x = at::rand({1 << 20}), y = at::rand({1 << 20});
  nlohmann::json run;
  Time(&run, "mm128", [&] { (void)at::mm(a, b); }, 3, 20);
  Time(&run, "softmax512x1024", [&] { (void)at::softmax(s, -1); }, 3, 20);
  Time(&run, "add1M", [&] { (void)at::add(x, y); }, 3, 20);
  std::cout << run.dump() << "\n";
  return 0;
}
