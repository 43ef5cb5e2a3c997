// Decode throughput of the tiny decoders: the emulated device (fp16, KV cache
// on the device) against the same model on CPU libtorch (fp32: libtorch 1.13
// has no fp16 CPU matmul), portable and fused layers. Counter tokens_per_s
// is the figure; the goal is device >= 0.5x CPU.
//
//   build-models/bench/models/models_bench --benchmark_min_time=2
#include <benchmark/benchmark.h>

#include <ATen/Parallel.h>

#include "suites/models/decoder.h"
#include "suites/device_under_test.h"

namespace {

constexpr int64_t kPrompt = 8, kSteps = 32;

void Decode(benchmark::State& state, const char* config, bool device, suites::LayerImpl impl) {
  at::set_num_threads(1);
  auto cfg = suites::BuiltinConfig(config);
  if (!cfg.ok()) {
    state.SkipWithError(cfg.status().message().c_str());
    return;
  }
  const suites::Weights w = suites::SyntheticWeights(*cfg, 1);
  const c10::Device where = device ? suites::DeviceUnderTest() : c10::Device(at::kCPU);
  suites::DecoderModel model(*cfg, w, where, device ? at::kHalf : at::kFloat, impl,
                             kPrompt + kSteps);
  const at::Tensor prompt =
      at::arange(kPrompt, at::kLong).mul(31).remainder(cfg->vocab).view({1, kPrompt});
  for (auto _ : state) {
    at::Tensor next = model.Prefill(prompt).select(1, -1).cpu().argmax(-1, true);
    for (int64_t i = 1; i < kSteps; ++i) next = model.Step(next).cpu().argmax(-1, true);
    benchmark::DoNotOptimize(next);
  }
  state.counters["tokens_per_s"] = benchmark::Counter(
      static_cast<double>(kSteps), benchmark::Counter::kIsIterationInvariantRate);
}

using suites::LayerImpl;
BENCHMARK_CAPTURE(Decode, granite_tiny_device_portable, "granite-tiny", true, LayerImpl::kPortable)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Decode, granite_tiny_device_fused, "granite-tiny", true, LayerImpl::kFused)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Decode, granite_tiny_cpu, "granite-tiny", false, LayerImpl::kPortable)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Decode, llama_tiny_device_portable, "llama-tiny", true, LayerImpl::kPortable)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Decode, llama_tiny_device_fused, "llama-tiny", true, LayerImpl::kFused)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(Decode, llama_tiny_cpu, "llama-tiny", false, LayerImpl::kPortable)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
