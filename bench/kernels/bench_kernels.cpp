// Emulated device kernels (fp16 tensors stored as DL16) against native
// libtorch CPU fp32 on the same shapes, in one run, on the same threads.
//
//   build-kernels/bench_kernels --benchmark_min_time=1
//
// Goals: mm at 1024x1024x1024 and 4096x4096x256 (M x N x K) at
// >= 0.8x native fp32 throughput; softmax, layer_norm, gelu and add on 4M
// elements ([4096, 1024]) at >= 0.5x native; bmm at attention's
// shape, reported with the same ratio. The emulated figures include
// everything a device op does: DL16 decode of the operands, the fp32
// compute, DL16 rounding of the result, the cost model and the trace hooks.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <benchmark/benchmark.h>

#include <thread>

#include "spyre_emu/spyre_emu.h"

namespace {

// Same threads for both sides: every core of this machine.
const int kThreads = [] {
  const int n = std::max(1u, std::thread::hardware_concurrency());
  at::set_num_threads(n);
  return n;
}();

at::Tensor Input(at::IntArrayRef sizes, bool device, uint64_t seed) {
  at::manual_seed(seed);
  at::Tensor t = at::randn(sizes);
  return device ? t.to(at::kHalf).to(spyre_emu::device()) : t;
}

void Mm(benchmark::State& state, bool device) {
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  const at::Tensor a = Input({m, k}, device, 1), b = Input({k, n}, device, 2);
  for (auto _ : state) benchmark::DoNotOptimize(at::mm(a, b));
  state.counters["FLOP/s"] =
      benchmark::Counter(2.0 * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = kThreads;
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
  for (auto _ : state) benchmark::DoNotOptimize(at::bmm(x, y));
  state.counters["FLOP/s"] =
      benchmark::Counter(2.0 * b * m * n * k, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = kThreads;
}
void BM_BmmEmulated(benchmark::State& s) { Bmm(s, true); }
void BM_BmmNativeFp32(benchmark::State& s) { Bmm(s, false); }
BENCHMARK(BM_BmmEmulated)->Args({32, 512, 128, 512})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_BmmNativeFp32)->Args({32, 512, 128, 512})->Unit(benchmark::kMillisecond)->UseRealTime();

enum class Op { kSoftmax, kLayerNorm, kGelu, kAdd };

void Vector(benchmark::State& state, bool device) {
  const Op op = static_cast<Op>(state.range(0));
  const at::Tensor x = Input({4096, 1024}, device, 3), y = Input({4096, 1024}, device, 4);
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
    }
  }
  state.SetItemsProcessed(state.iterations() * x.numel());
  state.SetLabel(op == Op::kSoftmax     ? "softmax"
                 : op == Op::kLayerNorm ? "layer_norm"
                 : op == Op::kGelu      ? "gelu"
                                        : "add");
}
void BM_VectorEmulated(benchmark::State& s) { Vector(s, true); }
void BM_VectorNativeFp32(benchmark::State& s) { Vector(s, false); }
BENCHMARK(BM_VectorEmulated)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_VectorNativeFp32)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
