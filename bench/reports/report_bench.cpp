// Report generation over a year of nightly history: 365 completed runs x 300
// cases (two suites), built once through the store's API. Goal: the whole report (model
// from the store + all four formats) under 2 s.
//
//   build-X/bench/reports/bench_reports --benchmark_min_time=1x   (or default)
//   build/bench_reports --write-store PATH   writes the store to PATH and
//                                            exits (for a whole `spyre-regress
//                                            report` process: process_bench.py)
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "store/store.h"
#include "reports/reporter.h"

namespace {

constexpr int kRuns = 365, kCases = 300, kSamples = 5;


// Cases 0-19 get 20% slower (modeled) from run 300, when BLAS changes;
// cases 20-49 get 10% slower in the last run only: 30 regressions to report.
double Modeled(int run, int c) {
  double v = 10.0 + c % 50;
  if (c < 20 && run >= 300) v *= 1.2;
  if (c >= 20 && c < 50 && run == kRuns) v *= 1.1;
  return v * (1.0 + 0.0005 * ((run * 7 + c) % 5));
}

std::string Env(int run) {
  return std::string(R"({"libtorch":"1.13.0","blas":{"name":")") +
         (run >= 300 ? "blis" : "openblas") +
         R"(","version":"0.9","path":"/usr/lib/libblas.so.3"},"profile":"inductor","cores":32,"cpu":"bench"})";
}

std::string BuildStore(std::string path = "") {
  if (path.empty()) {
    path = (std::filesystem::temp_directory_path() /
            ("bench_reports_" + std::to_string(::getpid()) + ".db"))
               .string();
  }
  std::filesystem::remove(path);
  auto store = harness::Store::Open(path);
  if (!store.ok()) std::abort();
  for (int r = 1; r <= kRuns; ++r) {
    harness::NewRun run;
    run.suite = "decode,ops";
    run.label = "nightly";
    run.fingerprint = r >= 300 ? "fp-b" : "fp-a";
    run.env_json = Env(r);
    auto id = (*store)->BeginRun(run);
    if (!id.ok()) std::abort();
    for (int c = 0; c < kCases; ++c) {
      const double modeled = Modeled(r, c), wall = modeled * 4;
      harness::CaseResult result;
      result.suite = c < 250 ? "ops" : "decode";
      result.case_id = (c < 250 ? "op/" : "model/") + std::to_string(c);
      result.status = harness::CaseStatus::kPassed;
      result.max_abs_err = 0.002;
      result.max_rel_err = 0.004;
      result.rel_l2 = 0.001;
      result.max_ulp = 1;
      result.cosine = 0.99999;
      result.metrics.push_back({"out0", "max_ulp", 1, 2, false});
      for (int k = 0; k < kSamples; ++k) result.wall_us.push_back(wall + k);
      result.modeled_us = modeled;
      result.fallback_ops = c % 97 == 0 ? 1 : 0;
      result.peak_device_bytes = 262144;
      for (const char* op : {"mm", "add"})
        result.ops.push_back({op, 1, modeled / 2, wall / 2, op[0] == 'a' ? result.fallback_ops : 0});
      if (!(*store)->RecordResult(*id, result).ok()) std::abort();
    }
    if (!(*store)->FinishRun(*id, harness::RunStatus::kCompleted).ok()) std::abort();
  }
  return path;
}

const std::string& StorePath() {
  static const std::string path = BuildStore();
  return path;
}

void BM_BuildReportModel(benchmark::State& state) {
  auto store = harness::Store::Open(StorePath(), harness::Store::Mode::kReadOnly);
  for (auto _ : state) {
    auto model = reports::BuildReportModel(**store, kRuns, {});
    if (!model.ok()) state.SkipWithError(model.status().message().c_str());
    benchmark::DoNotOptimize(model);
  }
}
BENCHMARK(BM_BuildReportModel)->Unit(benchmark::kMillisecond);

void BM_RenderAllFormats(benchmark::State& state) {
  auto store = harness::Store::Open(StorePath(), harness::Store::Mode::kReadOnly);
  auto model = reports::BuildReportModel(**store, kRuns, {});
  if (!model.ok()) return state.SkipWithError(model.status().message().c_str());
  size_t bytes = 0;
  for (auto _ : state) {
    for (const auto& r : reports::AllReporters()) bytes += r->Render(*model).size();
  }
  state.counters["bytes"] = static_cast<double>(bytes) / state.iterations();
  state.counters["regressions"] = static_cast<double>(model->comparison->regressions.size());
}
BENCHMARK(BM_RenderAllFormats)->Unit(benchmark::kMillisecond);

// What `report --out DIR` does, end to end.
void BM_WriteReports(benchmark::State& state) {
  auto store = harness::Store::Open(StorePath(), harness::Store::Mode::kReadOnly);
  const std::string dir = StorePath() + ".out";
  for (auto _ : state) {
    harness::Status s = reports::WriteReports(**store, kRuns, dir);
    if (!s.ok()) state.SkipWithError(s.message().c_str());
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(BM_WriteReports)->Unit(benchmark::kMillisecond);

// The history calls alone, to tell where time goes at this scale.
void BM_LoadSuiteGeomeanSeries(benchmark::State& state) {
  auto store = harness::Store::Open(StorePath(), harness::Store::Mode::kReadOnly);
  for (auto _ : state) {
    auto s = harness::LoadSuiteGeomeanSeries(**store, "ops", "modeled_us");
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_LoadSuiteGeomeanSeries)->Unit(benchmark::kMillisecond);

void BM_LoadSeries(benchmark::State& state) {
  auto store = harness::Store::Open(StorePath(), harness::Store::Mode::kReadOnly);
  for (auto _ : state) {
    auto s = harness::LoadSeries(**store, "ops", "op/3", "modeled_us");
    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_LoadSeries)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--write-store") {
    BuildStore(argv[2]);
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  StorePath();
  benchmark::RunSpecifiedBenchmarks();
  std::filesystem::remove(StorePath());
  std::filesystem::remove(StorePath() + "-wal");
  std::filesystem::remove(StorePath() + "-shm");
  return 0;
}
