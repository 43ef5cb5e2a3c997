// What `slow=F` (SPYRE_EMU_FAULTS) does to a device mm of a given size: the
// achieved factor on the op's time, against the F asked for.
//
//   build/bench_slow [--factors 1.05,1.1,2] [--pairs N] [--threads N]
//
// Method: one process, one thread each for libtorch and OpenBLAS (unless
// --threads). Per mm size, a batch of calls lasting about 1 ms is timed
// clean, then with the fault, then clean again and so on (N pairs, default
// 60, the order alternating from pair to pair), so a neighbour's load falls
// on both sides alike. A batch's time is its wall time less the thread's
// run-queue wait over it (the quantity the harness judges latency on). The
// table gives per size and factor the median clean time of one call, the
// median of the pairs' ratios (the achieved factor), the interquartile range
// of those ratios and the 1-minute load average.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "base/stats.h"
#include "spyre_emu/spyre_emu.h"

namespace {

using harness::Quantile;

double Load1() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

// The calling thread's run-queue wait so far, ns (-1 unknown).
int64_t QueueWaitNs() {
  std::ifstream in("/proc/thread-self/schedstat");
  long long on_cpu = 0, waited = -1;
  in >> on_cpu >> waited;
  return in ? waited : -1;
}

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Per-call time of `calls` mm calls, less the run-queue wait over them.
double BatchNs(const at::Tensor& a, const at::Tensor& b, int calls) {
  const int64_t q0 = QueueWaitNs(), t0 = NowNs();
  for (int i = 0; i < calls; ++i) at::mm(a, b);
  const int64_t t1 = NowNs(), q1 = QueueWaitNs();
  const int64_t waited = q0 >= 0 && q1 >= q0 ? q1 - q0 : 0;
  return static_cast<double>(t1 - t0 - waited) / calls;
}

void SetFaults(const std::string& spec) {
  spyre_emu::Config c = spyre_emu::CurrentConfig();
  c.faults = spec;
  spyre_emu::SetConfig(c);
}

std::vector<double> ParseFactors(const std::string& text) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const double f = std::strtod(item.c_str(), &end);
    if (end == item.c_str() || *end != '\0' || !(f >= 1.0)) {
      std::fprintf(stderr, "bench_slow: --factors: '%s' is not a factor >= 1\n", item.c_str());
      std::exit(2);
    }
    out.push_back(f);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> factors = {1.05, 1.1, 2.0};
  int pairs = 60, threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--factors" && has_value) {
      factors = ParseFactors(argv[++i]);
    } else if (arg == "--pairs" && has_value) {
      pairs = std::max(2, std::atoi(argv[++i]));
    } else if (arg == "--threads" && has_value) {
      threads = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr,
                   "usage: bench_slow [--factors F,F...] [--pairs N] [--threads N]\n");
      return 2;
    }
  }
  at::set_num_threads(threads);
  using SetFn = void (*)(int);
  if (auto set = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set(threads);
  }
  struct Size {
    int64_t m, k, n;
  };
  const std::vector<Size> sizes = {{16, 16, 16},   {64, 33, 17},   {40, 72, 50},
                                   {128, 256, 96}, {1, 4096, 3},   {256, 256, 256},
                                   {512, 512, 512}};
  std::printf("threads %d, %d pairs a row, load %.2f at the start\n", threads, pairs, Load1());
  std::printf("%-14s %6s %12s %9s %17s %6s\n", "mm m x k x n", "slow", "clean us", "achieved",
              "ratios p25-p75", "load");
  for (const Size& s : sizes) {
    at::manual_seed(1);
    const at::Tensor a = at::randn({s.m, s.k}).to(at::kHalf).to(spyre_emu::device());
    const at::Tensor b = at::randn({s.k, s.n}).to(at::kHalf).to(spyre_emu::device());
    for (int i = 0; i < 20; ++i) at::mm(a, b);  // warm-up (and the cost model's memo)
    const double one = std::max(1.0, BatchNs(a, b, 20));
    const int calls = std::max(1, static_cast<int>(1e6 / one));
    for (const double f : factors) {
      char spec[64];
      std::snprintf(spec, sizeof(spec), "mm:slow=%g", f);
      std::vector<double> ratios, clean;
      for (int p = 0; p < pairs; ++p) {
        double base = 0, slowed = 0;
        for (int side = 0; side < 2; ++side) {
          const bool slow_now = (side == 1) != (p % 2 == 1);
          SetFaults(slow_now ? spec : "");
          (slow_now ? slowed : base) = BatchNs(a, b, calls);
        }
        SetFaults("");
        ratios.push_back(slowed / base);
        clean.push_back(base);
      }
      std::printf("%4ldx%ldx%-6ld %6g %12.2f %9.4f %8.4f-%-8.4f %6.2f\n", static_cast<long>(s.m),
                  static_cast<long>(s.k), static_cast<long>(s.n), f, Quantile(clean, 0.5) / 1e3,
                  Quantile(ratios, 0.5), Quantile(ratios, 0.25), Quantile(ratios, 0.75),
                  Load1());
    }
  }
  return 0;
}
