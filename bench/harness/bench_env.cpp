// How long the environment fingerprint takes; it is collected once per run and
// once per worker, so it must stay in the low milliseconds.
#include <benchmark/benchmark.h>

#include "harness/env.h"

static void BM_CollectFingerprint(benchmark::State& state) {
  for (auto _ : state) {
    auto fp = harness::CollectFingerprint({});
    benchmark::DoNotOptimize(fp);
  }
}
BENCHMARK(BM_CollectFingerprint)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
