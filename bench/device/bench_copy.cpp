// Host <-> device copy bandwidth of a 64 MiB fp16 tensor against a plain host
// memcpy of the same bytes, in one run, and DL16 conversion throughput per
// instruction-set path. Prints the copy / memcpy ratios at the end (goal:
// >= 0.5x memcpy). Run without SPYRE_EMU_FENCE (the fence is a test aid).
//
//   build/bench_copy
#include <ATen/ATen.h>
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "spyre_emu/spyre_emu.h"

namespace {

constexpr int64_t kBytes = 64ll << 20;
constexpr int64_t kHalves = kBytes / 2;

void BM_Memcpy(benchmark::State& state) {
  std::vector<char> src(kBytes, 1), dst(kBytes, 0);
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), kBytes);
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * kBytes);
}

void BM_HostToDevice(benchmark::State& state) {
  const at::Tensor host = at::randn({kHalves}).to(at::kHalf);
  at::Tensor dev =
      at::empty({kHalves}, at::TensorOptions().dtype(at::kHalf).device(spyre_emu::device()));
  for (auto _ : state) dev.copy_(host);
  state.SetBytesProcessed(state.iterations() * kBytes);
}

void BM_DeviceToHost(benchmark::State& state) {
  const at::Tensor dev = at::randn({kHalves}).to(at::kHalf).to(spyre_emu::device());
  at::Tensor host = at::empty({kHalves}, at::kHalf);
  for (auto _ : state) host.copy_(dev);
  state.SetBytesProcessed(state.iterations() * kBytes);
}

void BM_Dl16FromFp32(benchmark::State& state) {
  const auto isa = static_cast<spyre_emu::Isa>(state.range(0));
  if (!spyre_emu::IsaSupported(isa)) {
    state.SkipWithError("this CPU lacks the instruction set");
    return;
  }
  state.SetLabel(spyre_emu::IsaName(isa));
  const size_t n = 1 << 22;
  std::vector<float> src(n);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<float>(i) * 0.37f - 1e5f;
  std::vector<uint16_t> dst(n);
  for (auto _ : state) {
    spyre_emu::Dl16FromFp32WithIsa(isa, src.data(), dst.data(), n,
                                   spyre_emu::Rounding::kNearestAway);
    benchmark::DoNotOptimize(dst.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
  state.SetBytesProcessed(state.iterations() * n * sizeof(float));
}

BENCHMARK(BM_Memcpy)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_HostToDevice)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DeviceToHost)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Dl16FromFp32)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);

// The console output plus each run's bytes per second, for the ratios.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      // Bytes per second of wall time, as the table's column shows it.
      if (r.real_accumulated_time > 0) {
        rates_[r.benchmark_name()] =
            static_cast<double>(kBytes) * r.iterations / r.real_accumulated_time;
      }
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void PrintRatios() const {
    const double memcpy_rate = Rate("BM_Memcpy/real_time");
    if (memcpy_rate <= 0) return;
    for (const char* name : {"BM_HostToDevice/real_time", "BM_DeviceToHost/real_time"}) {
      const double rate = Rate(name);
      if (rate > 0) {
        std::printf("%-28s %7.2f GB/s (1e9 B/s) = %.2fx memcpy (%.2f GB/s)\n", name, rate / 1e9,
                    rate / memcpy_rate, memcpy_rate / 1e9);
      }
    }
  }

 private:
  double Rate(const std::string& name) const {
    auto it = rates_.find(name);
    return it == rates_.end() ? 0 : it->second;
  }
  std::map<std::string, double> rates_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.PrintRatios();
  benchmark::Shutdown();
  return 0;
}
