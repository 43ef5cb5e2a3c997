// Report generation over a year of nightly history: 365 completed runs x 300
// cases (two suites), built once with bulk SQL. Goal: the whole report (model
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

#include "harness/store/store.h"
#include "reports/reporter.h"
#include "store/sql.h"

namespace {

constexpr int kRuns = 365, kCases = 300, kSamples = 5;

void Exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    std::fprintf(stderr, "bench setup: %s\n", err ? err : "?");
    std::abort();
  }
}

struct Stmt {
  Stmt(sqlite3* db, const char* sql) { sqlite3_prepare_v2(db, sql, -1, &s, nullptr); }
  ~Stmt() { sqlite3_finalize(s); }
  void Done() {
    if (sqlite3_step(s) != SQLITE_DONE) std::abort();
    sqlite3_reset(s);
  }
  sqlite3_stmt* s = nullptr;
};

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
  sqlite3* db = harness::store_internal::Access::Db(**store);
  Exec(db, "BEGIN");
  Stmt run(db,
           "INSERT INTO runs (id, uuid, suite, label, status, started_at, finished_at, "
           "fingerprint, env_json)"
           " VALUES (?, ?, 'decode,ops', 'nightly', 'completed', ?, ?, ?, ?)");
  Stmt result(
      db,
      "INSERT INTO results (id, run_id, suite, case_name, status, max_abs_err, max_rel_err, rel_l2,"
      " max_ulp, cosine, wall_us_median, wall_samples, modeled_us, fallback_ops, peak_device_bytes,"
      " recorded_at) VALUES (?, ?, ?, ?, 'passed', 0.002, 0.004, 0.001, 1, 0.99999, ?, ?, ?, ?, "
      "262144, ?)");
  Stmt metric(db,
              "INSERT INTO metrics (result_id, output, name, value, limit_value, failed)"
              " VALUES (?, 'out0', 'max_ulp', 1, 2, 0)");
  Stmt sample(db, "INSERT INTO wall_samples (result_id, idx, wall_us) VALUES (?, ?, ?)");
  Stmt op(db,
          "INSERT INTO op_summaries (result_id, op, calls, modeled_us, wall_us, fallbacks) VALUES "
          "(?, ?, 1, ?, ?, ?)");
  int64_t rid = 0;
  for (int r = 1; r <= kRuns; ++r) {
    char when[32];
    std::snprintf(when, sizeof(when), "2026-%02d-%02dT02:00:00Z", 1 + (r - 1) / 31 % 12,
                  1 + (r - 1) % 28);
    const std::string env = Env(r), uuid = "run-" + std::to_string(r);
    sqlite3_bind_int64(run.s, 1, r);
    sqlite3_bind_text(run.s, 2, uuid.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(run.s, 3, when, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(run.s, 4, when, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(run.s, 5, r >= 300 ? "fp-b" : "fp-a", -1, SQLITE_STATIC);
    sqlite3_bind_text(run.s, 6, env.c_str(), -1, SQLITE_TRANSIENT);
    run.Done();
    for (int c = 0; c < kCases; ++c) {
      ++rid;
      const std::string suite = c < 250 ? "ops" : "decode";
      const std::string name = (c < 250 ? "op/" : "model/") + std::to_string(c);
      const double modeled = Modeled(r, c), wall = modeled * 4;
      const int64_t fallbacks = c % 97 == 0 ? 1 : 0;
      sqlite3_bind_int64(result.s, 1, rid);
      sqlite3_bind_int64(result.s, 2, r);
      sqlite3_bind_text(result.s, 3, suite.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(result.s, 4, name.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_double(result.s, 5, wall + 2);
      sqlite3_bind_int(result.s, 6, kSamples);
      sqlite3_bind_double(result.s, 7, modeled);
      sqlite3_bind_int64(result.s, 8, fallbacks);
      sqlite3_bind_text(result.s, 9, when, -1, SQLITE_TRANSIENT);
      result.Done();
      sqlite3_bind_int64(metric.s, 1, rid);
      metric.Done();
      for (int k = 0; k < kSamples; ++k) {
        sqlite3_bind_int64(sample.s, 1, rid);
        sqlite3_bind_int(sample.s, 2, k);
        sqlite3_bind_double(sample.s, 3, wall + k);
        sample.Done();
      }
      for (const char* name_op : {"mm", "add"}) {
        sqlite3_bind_int64(op.s, 1, rid);
        sqlite3_bind_text(op.s, 2, name_op, -1, SQLITE_STATIC);
        sqlite3_bind_double(op.s, 3, modeled / 2);
        sqlite3_bind_double(op.s, 4, wall / 2);
        sqlite3_bind_int64(op.s, 5, name_op[0] == 'a' ? fallbacks : 0);
        op.Done();
      }
    }
  }
  Exec(db, "COMMIT");
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
