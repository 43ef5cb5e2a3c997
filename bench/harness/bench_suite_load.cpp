// How long a suite takes to load (parse, schema check, sweep expansion,
// per-case validation) as its sweep grows, and how soon an oversized sweep
// is refused: loading must stay linear in the cases it makes.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "suite_file/suite_file.h"

namespace {

// A suites directory holding sweep<N>.json: one neg case swept over N shapes.
std::string SweepDir(int64_t n) {
  char tmpl[] = "/tmp/bench_suite_load.XXXXXX";
  const std::string dir = ::mkdtemp(tmpl);
  std::string shapes;
  for (int64_t i = 0; i < n; ++i) {
    shapes +=
        (i ? ",[" : "[") + std::to_string(i % 97 + 1) + "," + std::to_string(i / 97 + 1) + "]";
  }
  std::ofstream(dir + "/sweep.json")
      << R"({"name": "sweep", "cases": [{"id": "neg", "op": "neg", "inputs": [{"dtype": "float32"}],)"
      << R"( "sweep": {"shape": [)" << shapes << "]}}]}";
  return dir;
}

void BM_LoadSweep(benchmark::State& state) {
  const std::string dir = SweepDir(state.range(0));
  for (auto _ : state) {
    auto suite = harness::LoadSuite(dir, "sweep");
    if (suite.ok() != (state.range(0) <= static_cast<int64_t>(harness::kMaxSuiteCases))) {
      state.SkipWithError(suite.ok() ? "loaded past the limit" : suite.status().message().c_str());
      break;
    }
    benchmark::DoNotOptimize(suite);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_LoadSweep)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
