// Harness overhead per case (goal: < 2 ms/case).
//  BM_SupervisorNoopCases: cases that do nothing, through a real worker
//    process, the pipe protocol and the store: the supervisor's own cost.
//  BM_SmokeRunOverhead: `spyre-regress run --suite smoke` end to end; the
//    overhead is the run's wall time minus the time spent inside the cases
//    (inputs, device, reference, comparison; measured by the worker), per case.
//    It includes process start, libtorch load, fingerprint and store writes.
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>

#include <benchmark/benchmark.h>

#include "harness/runner/supervisor.h"
#include "store/store.h"

namespace {

std::string TempDb(const char* name) {
  char tmpl[] = "/tmp/spyre-bench-runner-XXXXXX";
  if (::mkdtemp(tmpl) == nullptr) return "";
  return std::string(tmpl) + "/" + name;
}

// Times the first and last result, so the worker's start-up (libtorch load)
// is separated from the marginal cost per case.
class FinishClock : public harness::RunListener {
 public:
  void OnCaseFinished(const harness::CaseResult&, size_t done, size_t total) override {
    if (done == 1) first = std::chrono::steady_clock::now();
    if (done == total) last = std::chrono::steady_clock::now();
  }
  std::chrono::steady_clock::time_point first, last;
};

void BM_SupervisorNoopCases(benchmark::State& state) {
  const int cases = static_cast<int>(state.range(0));
  std::vector<harness::WorkItem> items;
  for (int i = 0; i < cases; ++i) items.push_back({"bench", "case" + std::to_string(i), 10});
  harness::SupervisorOptions options;
  options.worker_argv = {NOOP_WORKER};
  double total_s = 0, marginal_s = 0;
  for (auto _ : state) {
    state.PauseTiming();
    auto store = harness::Store::Open(TempDb("s.db"));
    if (!store.ok()) return state.SkipWithError(store.status().message().c_str());
    harness::NewRun run;
    run.suite = "bench";
    int64_t id = *(*store)->BeginRun(run);
    FinishClock clock;
    state.ResumeTiming();
    auto start = std::chrono::steady_clock::now();
    auto out = harness::RunCases(items, options, [&](const harness::CaseResult& r) {
      return (*store)->RecordResult(id, r);
    }, &clock);
    if (!out.ok()) return state.SkipWithError(out.status().message().c_str());
    total_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    marginal_s += std::chrono::duration<double>(clock.last - clock.first).count();
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["ms_per_case_with_startup"] = total_s / n / cases * 1e3;
  state.counters["ms_per_case_marginal"] = marginal_s / n / (cases - 1) * 1e3;
}
BENCHMARK(BM_SupervisorNoopCases)->Arg(500)->Unit(benchmark::kMillisecond)->Iterations(3);

double QueryDouble(const std::string& db_path, const char* sql) {
  sqlite3* db = nullptr;
  double v = -1;
  if (sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
      v = sqlite3_column_double(s, 0);
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return v;
}

void BM_SmokeRunOverhead(benchmark::State& state) {
  double overhead_ms = 0, cases = 0, execute_s = 0, run_s = 0;
  for (auto _ : state) {
    const std::string db = TempDb("s.db");
    auto start = std::chrono::steady_clock::now();
    pid_t pid = ::fork();
    if (pid == 0) {
      FILE* null = std::fopen("/dev/null", "w");
      if (null != nullptr) ::dup2(fileno(null), 1), ::dup2(fileno(null), 2);
      ::execl(SPYRE_REGRESS_BIN, SPYRE_REGRESS_BIN, "run", "--suite", "smoke", "--db", db.c_str(),
              "--quiet", "--baseline", "none", "--jobs", "1", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return state.SkipWithError("smoke run failed");
    cases = QueryDouble(db, "SELECT count(*) FROM v_results");
    execute_s = QueryDouble(db, "SELECT sum(json_extract(extra_json, '$.harness.execute_us')) / 1e6"
                                " FROM v_results");
    run_s = wall;
    overhead_ms = (wall - execute_s) / cases * 1e3;
  }
  state.counters["cases"] = cases;
  state.counters["run_s"] = run_s;
  state.counters["in_cases_s"] = execute_s;
  state.counters["overhead_ms_per_case"] = overhead_ms;
}
BENCHMARK(BM_SmokeRunOverhead)->Unit(benchmark::kMillisecond)->Iterations(2);

}  // namespace

BENCHMARK_MAIN();
