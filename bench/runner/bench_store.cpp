// Ingest rate of case results into the SQLite store (one transaction per
// result, as the runner writes them). Goal: > 100,000 metric rows/s.
#include <unistd.h>

#include <cstdio>
#include <string>

#include <benchmark/benchmark.h>

#include "store/store.h"

namespace {

harness::CaseResult Result(int i, int metrics) {
  harness::CaseResult r;
  r.suite = "bench";
  r.case_id = "case" + std::to_string(i);
  r.status = harness::CaseStatus::kPassed;
  for (int m = 0; m < metrics; ++m) r.metrics.push_back({"out" + std::to_string(m % 2), "metric" + std::to_string(m), 0.1 * m, 1, false});
  r.wall_us = {10, 11, 12, 13, 14};
  r.ops = {{"mm", 2, 5, 6, 0}, {"add", 1, 1, 1, 0}, {"_softmax", 1, 3, 4, 0}};
  return r;
}

// Arg: metrics per result.
void BM_RecordResult(benchmark::State& state) {
  const int metrics = static_cast<int>(state.range(0));
  char tmpl[] = "/tmp/spyre-bench-store-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return state.SkipWithError("mkdtemp");
  const std::string path = std::string(tmpl) + "/s.db";
  auto store = harness::Store::Open(path);
  if (!store.ok()) return state.SkipWithError(store.status().message().c_str());
  harness::NewRun run;
  run.suite = "bench";
  int64_t id = *(*store)->BeginRun(run);
  int i = 0;
  for (auto _ : state) {
    harness::Status s = (*store)->RecordResult(id, Result(i++, metrics));
    if (!s.ok()) return state.SkipWithError(s.message().c_str());
  }
  state.counters["metric_rows_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()) * metrics, benchmark::Counter::kIsRate);
  state.counters["rows_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * (1 + metrics + 5 + 3), benchmark::Counter::kIsRate);
  store->reset();
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  ::rmdir(tmpl);
}
// Rates are per wall-clock second (UseRealTime): the commit's write() counts.
BENCHMARK(BM_RecordResult)->Arg(8)->Arg(64)->Arg(256)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
