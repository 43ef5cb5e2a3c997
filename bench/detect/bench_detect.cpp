// Speed of the judge: Mann-Whitney U on 20 vs 20 samples (per case and run),
// change-point detection over a year of nightly runs (per series), and a
// whole comparison of two 300-case runs.
#include <random>

#include <benchmark/benchmark.h>

#include "detect/changepoint.h"
#include "detect/detect.h"
#include "base/stats.h"

namespace {

std::vector<double> Noisy(size_t n, double level, std::mt19937_64& rng) {
  std::lognormal_distribution<double> d(0, 0.03);
  std::vector<double> v(n);
  for (double& x : v) x = level * d(rng);
  return v;
}

void BM_MannWhitney20x20(benchmark::State& state) {
  std::mt19937_64 rng(1);
  auto a = Noisy(20, 100, rng), b = Noisy(20, 105, rng);
  for (auto _ : state) benchmark::DoNotOptimize(harness::MannWhitneyU(a, b));
}
BENCHMARK(BM_MannWhitney20x20);

void BM_ChangePoints(benchmark::State& state) {
  std::mt19937_64 rng(2);
  const size_t n = static_cast<size_t>(state.range(0));
  auto s = Noisy(n / 2, 100, rng), t = Noisy(n - n / 2, 110, rng);
  s.insert(s.end(), t.begin(), t.end());
  for (auto _ : state) benchmark::DoNotOptimize(harness::DetectChangePoints(s));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(n));
}
BENCHMARK(BM_ChangePoints)->Arg(30)->Arg(365)->Unit(benchmark::kMicrosecond);

void BM_CompareRuns300Cases(benchmark::State& state) {
  std::mt19937_64 rng(3);
  harness::RunRecord a, b;
  for (int i = 0; i < 300; ++i) {
    harness::CaseResult c;
    c.suite = "ops";
    c.case_id = "case" + std::to_string(i);
    c.status = harness::CaseStatus::kPassed;
    c.max_ulp = 1;
    c.modeled_us = 10;
    c.wall_us = Noisy(20, 100, rng);
    c.ops = {{"mm", 1, 8, 80, 0}, {"add", 1, 2, 20, 0}};
    a.cases.push_back(c);
    c.wall_us = Noisy(20, 100, rng);
    b.cases.push_back(c);
  }
  harness::Thresholds t;
  for (auto _ : state) benchmark::DoNotOptimize(harness::CompareRuns(a, b, t));
}
BENCHMARK(BM_CompareRuns300Cases)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
