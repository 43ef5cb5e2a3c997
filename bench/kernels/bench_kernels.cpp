// Emulated device kernels (fp16 tensors stored as DL16) against native
// libtorch CPU fp32 on the same shapes, in one run, on the same threads.
//
//   build/bench_kernels [--threads=N] [Google Benchmark flags]
//
// The method, so that a ratio means what it says:
//   - both sides run on the same N host threads (default: every core):
//     libtorch's intra-op threads (which the emulator's kernels use too) and
//     OpenBLAS's (both sides' matmuls call the same sgemm);
//   - repetitions are interleaved in random order (defaults
//     --benchmark_enable_random_interleaving=true --benchmark_repetitions=6
//     --benchmark_min_time=0.3, each overridable), so a neighbour's load
//     falls on both sides alike, and each ratio is also taken per
//     repetition pair;
//   - each run records its wall time, the process's CPU time (all threads:
//     counter cpu/wall is the number of cores it kept busy) and the 1-minute
//     load average when it ended (counter load).
// After the runs a table gives per kernel the median wall times, the ratio
// native / emulated time (emulated speed as a fraction of native), the
// range of the per-repetition ratios, cpu/wall of both sides and the load.
//
// Goals: mm at 1024^3 and 4096x4096x256 (M x N x K) >= 0.9x native; softmax,
// layer_norm, gelu and add on 4M elements ([4096, 1024]) >= 0.5x native with
// both sides on 2 threads. The emulated figures include everything a device op
// does: DL16 decode of the operands, the fp32 compute, DL16 rounding of the
// result, the cost model and the trace hooks.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "benchmark_compat.h"
#include "spyre_emu/spyre_emu.h"

namespace {

int g_threads = 0;

void SetThreads(int n) {
  g_threads = n;
  at::set_num_threads(n);
  // OpenBLAS (both sides' sgemm) keeps its own pool.
  using SetFn = void (*)(int);
  if (auto set = reinterpret_cast<SetFn>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"))) {
    set(n);
  }
}

double Load1() {
  std::ifstream in("/proc/loadavg");
  double load = -1;
  in >> load;
  return load;
}

double ProcessCpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) { return t.tv_sec + t.tv_usec * 1e-6; };
  return sec(u.ru_utime) + sec(u.ru_stime);
}

// Wall and process CPU time around the timed loop: cpu/wall and load counters.
class Meter {
 public:
  Meter() : cpu_(ProcessCpuSeconds()), start_(std::chrono::steady_clock::now()) {}
  void Finish(benchmark::State& state) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    state.counters["cpu/wall"] = wall > 0 ? (ProcessCpuSeconds() - cpu_) / wall : 0;
    state.counters["load"] = Load1();
    state.counters["threads"] = g_threads;
  }

 private:
  double cpu_;
  std::chrono::steady_clock::time_point start_;
};

at::Tensor Input(at::IntArrayRef sizes, bool device, uint64_t seed) {
  at::manual_seed(seed);
  at::Tensor t = at::randn(sizes);
  return device ? t.to(at::kHalf).to(spyre_emu::device()) : t;
}

void Mm(benchmark::State& state, bool device) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const at::Tensor a = Input({m, k}, device, 1), b = Input({k, n}, device, 2);
  Meter meter;
  for (auto _ : state) benchmark::DoNotOptimize(at::mm(a, b));
  meter.Finish(state);
  state.counters["FLOP/s"] =
      benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}
void BM_MmEmulated(benchmark::State& s) { Mm(s, true); }
void BM_MmNativeFp32(benchmark::State& s) { Mm(s, false); }
BENCHMARK(BM_MmEmulated)
    ->Args({1024, 1024, 1024})
    ->Args({4096, 4096, 256})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(BM_MmNativeFp32)
    ->Args({1024, 1024, 1024})
    ->Args({4096, 4096, 256})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Batched matmul at attention's shape: 32 heads, 512 positions, head dim 128
// (scores = q @ k^T): [32, 512, 128] x [32, 128, 512].
void Bmm(benchmark::State& state, bool device) {
  const int64_t b = state.range(0), m = state.range(1), k = state.range(2), n = state.range(3);
  const at::Tensor x = Input({b, m, k}, device, 5), y = Input({b, k, n}, device, 6);
  Meter meter;
  for (auto _ : state) benchmark::DoNotOptimize(at::bmm(x, y));
  meter.Finish(state);
  state.counters["FLOP/s"] =
      benchmark::Counter(2.0 * b * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
}
void BM_BmmEmulated(benchmark::State& s) { Bmm(s, true); }
void BM_BmmNativeFp32(benchmark::State& s) { Bmm(s, false); }
BENCHMARK(BM_BmmEmulated)->Args({32, 512, 128, 512})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_BmmNativeFp32)->Args({32, 512, 128, 512})->Unit(benchmark::kMillisecond)->UseRealTime();

enum class Op { kSoftmax, kLayerNorm, kGelu, kAdd, kExp, kTanh, kSilu, kErf, kCount };
const char* const kOpNames[] = {"softmax", "layer_norm", "gelu", "add",
                                "exp",     "tanh",       "silu", "erf"};

void Vector(benchmark::State& state, bool device) {
  const Op op = static_cast<Op>(state.range(0));
  const at::Tensor x = Input({4096, 1024}, device, 3), y = Input({4096, 1024}, device, 4);
  Meter meter;
  for (auto _ : state) {
    switch (op) {
      case Op::kSoftmax:
        benchmark::DoNotOptimize(at::softmax(x, -1));
        break;
      case Op::kLayerNorm:
        benchmark::DoNotOptimize(at::layer_norm(x, {1024}));
        break;
      case Op::kGelu:
        benchmark::DoNotOptimize(at::gelu(x));
        break;
      case Op::kAdd:
        benchmark::DoNotOptimize(x + y);
        break;
      case Op::kExp:
        benchmark::DoNotOptimize(at::exp(x));
        break;
      case Op::kTanh:
        benchmark::DoNotOptimize(at::tanh(x));
        break;
      case Op::kSilu:
        benchmark::DoNotOptimize(at::silu(x));
        break;
      case Op::kErf:
        benchmark::DoNotOptimize(at::erf(x));
        break;
      case Op::kCount:
        break;
    }
  }
  meter.Finish(state);
  state.SetItemsProcessed(state.iterations() * x.numel());
  state.SetLabel(kOpNames[static_cast<int>(op)]);
}
void BM_VectorEmulated(benchmark::State& s) { Vector(s, true); }
void BM_VectorNativeFp32(benchmark::State& s) { Vector(s, false); }
constexpr int kLastOp = static_cast<int>(Op::kCount) - 1;
BENCHMARK(BM_VectorEmulated)->DenseRange(0, kLastOp)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_VectorNativeFp32)->DenseRange(0, kLastOp)->Unit(benchmark::kMillisecond)->UseRealTime();

// The cost of one call on a tiny tensor: dispatch, allocation and, on the
// device, the fault plan lookup, the cost model, the stats and the trace hook.
void Call(benchmark::State& state, bool device) {
  const at::Tensor x = Input({16}, device, 7), y = Input({16}, device, 8);
  Meter meter;
  for (auto _ : state) benchmark::DoNotOptimize(x + y);
  meter.Finish(state);
}
void BM_AddCallEmulated(benchmark::State& s) { Call(s, true); }
void BM_AddCallNativeFp32(benchmark::State& s) { Call(s, false); }
BENCHMARK(BM_AddCallEmulated)->Arg(16)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_AddCallNativeFp32)->Arg(16)->Unit(benchmark::kMicrosecond)->UseRealTime();

// The console output, then one line per kernel pairing each emulated
// benchmark with its native twin (same name with NativeFp32, same args).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration || bench_compat::RunFailed(run)) continue;
      std::string name = run.run_name.function_name;
      bool emulated = false;
      if (auto at = name.find("Emulated"); at != std::string::npos) {
        name.replace(at, 8, "");
        emulated = true;
      } else if (auto at2 = name.find("NativeFp32"); at2 != std::string::npos) {
        name.replace(at2, 10, "");
      } else {
        continue;
      }
      std::string key = name.substr(name.rfind('_') + 1) + " " + run.run_name.args;
      if (!run.report_label.empty()) key = run.report_label;
      Side& side = emulated ? pairs_[key].emulated : pairs_[key].native;
      side.wall_ms[run.repetition_index] =
          run.GetAdjustedRealTime() / benchmark::GetTimeUnitMultiplier(run.time_unit) * 1e3;
      side.cpu_per_wall.push_back(Counter(run, "cpu/wall"));
      side.load.push_back(Counter(run, "load"));
      order_.push_back(key);
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void Finalize() override {
    ConsoleReporter::Finalize();
    std::printf("\n%-22s %10s %10s %7s %13s %9s %9s %7s %9s\n", "kernel", "emulated", "native",
                "ratio", "paired", "cpu/wall", "cpu/wall", "threads", "load");
    std::printf("%-22s %10s %10s %7s %13s %9s %9s %7s %9s\n", "", "ms (med)", "ms (med)",
                "nat/emu", "min-max", "emulated", "native", "", "min-max");
    std::vector<std::string> seen;
    for (const std::string& key : order_) {
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      const Pair& p = pairs_[key];
      if (p.emulated.wall_ms.empty() || p.native.wall_ms.empty()) continue;
      const double emu = Median(Values(p.emulated.wall_ms));
      const double nat = Median(Values(p.native.wall_ms));
      std::vector<double> paired;
      for (const auto& [rep, ms] : p.emulated.wall_ms) {
        if (auto it = p.native.wall_ms.find(rep); it != p.native.wall_ms.end() && ms > 0) {
          paired.push_back(it->second / ms);
        }
      }
      std::vector<double> load = p.emulated.load;
      load.insert(load.end(), p.native.load.begin(), p.native.load.end());
      char range[32] = "-";
      if (!paired.empty()) {
        std::snprintf(range, sizeof range, "%.2f-%.2f",
                      *std::min_element(paired.begin(), paired.end()),
                      *std::max_element(paired.begin(), paired.end()));
      }
      std::printf("%-22s %10.4g %10.4g %6.2fx %13s %9.2f %9.2f %7d %4.1f-%4.1f\n", key.c_str(), emu,
                  nat, emu > 0 ? nat / emu : 0, range, Median(p.emulated.cpu_per_wall),
                  Median(p.native.cpu_per_wall), g_threads,
                  *std::min_element(load.begin(), load.end()),
                  *std::max_element(load.begin(), load.end()));
    }
  }

 private:
  struct Side {
    std::map<int64_t, double> wall_ms;  // by repetition
    std::vector<double> cpu_per_wall, load;
  };
  struct Pair {
    Side emulated, native;
  };

  static double Counter(const Run& run, const char* name) {
    auto it = run.counters.find(name);
    return it == run.counters.end() ? 0 : it->second.value;
  }
  static std::vector<double> Values(const std::map<int64_t, double>& m) {
    std::vector<double> v;
    for (const auto& [k, x] : m) v.push_back(x);
    return v;
  }
  static double Median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  }

  std::map<std::string, Pair> pairs_;
  std::vector<std::string> order_;
};

}  // namespace

int main(int argc, char** argv) {
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<char*> args = {argv[0]};
  static char interleave[] = "--benchmark_enable_random_interleaving=true";
  static char repetitions[] = "--benchmark_repetitions=6";
  static char min_time[] = "--benchmark_min_time=0.3";
  args.insert(args.end(), {interleave, repetitions, min_time});
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--threads=", 10) == 0) {
      threads = std::atoi(argv[i] + 10);
      if (threads < 1) {
        std::fprintf(stderr, "bench_kernels: --threads=%s: give a thread count of at least 1\n",
                     argv[i] + 10);
        return 2;
      }
    } else {
      args.push_back(argv[i]);  // later flags override the defaults above
    }
  }
  SetThreads(threads);
  int n = static_cast<int>(args.size());
  benchmark::Initialize(&n, args.data());
  if (benchmark::ReportUnrecognizedArguments(n, args.data())) return 2;
  benchmark::AddCustomContext("threads (both sides)", std::to_string(threads));
  benchmark::AddCustomContext("load average at start", std::to_string(Load1()));
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
