// Records real wall-time samples on this machine, in the shape the detector
// sees them: several independent "runs" (separate processes), each with
// warm-up and timed repeats of a few kernels, each repeat preceded by the
// host-speed probe the case kinds take (harness/host_probe.h), recorded as
// "<workload>@probe". The output (JSON on stdout) is the fixture
// tests/detect/fixtures/wall_samples*.json, from which detector_rates
// measures the detector. `--min-sample-us US` times batches of calls
// lasting at least US per sample, as harness/wall_sampler.h does (set
// OPENBLAS_NUM_THREADS=1 as the harness does: with two BLAS threads mm
// 128x128 runs at 21 or 42 us depending on the other core's load).
//
//   for i in $(seq 30); do build/capture_wall_noise; done | build/capture_wall_noise --merge
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <nlohmann/json.hpp>

#include "harness/host_probe.h"

namespace {

double g_min_sample_us = 0;  // --min-sample-us: batch invocations per sample

template <typename F>
void Time(nlohmann::json* run, const std::string& name, F f, int warmup, int repeat) {
  for (int i = 0; i < warmup; ++i) f();
  int batch = 1;
  if (g_min_sample_us > 0) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    double once = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    batch = std::max(1, static_cast<int>(std::ceil(g_min_sample_us / std::max(once, 0.01))));
  }
  nlohmann::json samples = nlohmann::json::array(), probes = nlohmann::json::array();
  for (int i = 0; i < repeat; ++i) {
    probes.push_back(harness::HostProbeOnceUs());
    auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < batch; ++k) f();
    auto t1 = std::chrono::steady_clock::now();
    samples.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
  }
  (*run)[name] = samples;
  (*run)[name + "@probe"] = probes;
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
