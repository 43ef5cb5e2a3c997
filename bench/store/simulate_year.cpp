// Writes a simulated year of nightlies into a new store, through the store's
// own RecordResult, with the shape the nightly records: every case timed in
// 20 rounds (fresh worker processes) of 5 samples, each with its run-queue
// wait, per-round per-op wall
// times, a host probe, a handful of metrics and op summaries, and each night
// naming the previous one as its baseline. bench/store/year_bench measures
// retention on it (size, prune time, findings before and after, report and
// history times).
//
//   simulate_year OUT.db [NIGHTS=365] [CASES=294]
//
// What changes over the year, so that compare and history have findings to
// reproduce: from night NIGHTS-20 the BLAS changes and the matmul cases take
// 2x; at night NIGHTS-8 five element-wise cases get 30% slower; everything
// else is noise (log-normal within a round, a per-round process level and a
// per-night level), deterministic from a fixed seed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "harness/env.h"
#include "harness/store/store.h"

namespace {

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "simulate_year: %s\n", what.c_str());
  std::exit(2);
}

nlohmann::json Env(bool reference_blas) {
  return {{"libtorch", "1.13.0"},
          {"spyre_emu", "0.2.0"},
          {"blas",
           {{"name", reference_blas ? "reference" : "openblas"},
            {"version", reference_blas ? "3.11.0" : "0.3.21"},
            {"coretype", "SkylakeX"}}},
          {"profile", "inductor"},
          {"cores", 32},
          {"rounding", "nearest-even"},
          {"faults", ""},
          {"threads", 1},
          {"cpu", "simulated 2-core host"},
          {"os", "Linux 6.1"},
          {"compiler", "GCC 12.2.0"},
          {"tags", nlohmann::json::object()}};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) Die("usage: simulate_year OUT.db [NIGHTS=365] [CASES=294]");
  const std::string path = argv[1];
  const int nights = argc > 2 ? std::atoi(argv[2]) : 365;
  const int cases = argc > 3 ? std::atoi(argv[3]) : 294;
  constexpr int kRounds = 20, kRepeat = 5;
  if (nights < 2 || cases < 10) Die("need at least 2 nights and 10 cases");
  std::remove(path.c_str());
  auto store = harness::Store::Open(path);
  if (!store.ok()) Die(store.status().message());

  std::mt19937_64 rng(20261201);
  std::normal_distribution<double> unit(0.0, 1.0);
  int64_t previous = 0;
  for (int night = 0; night < nights; ++night) {
    const bool reference_blas = night >= nights - 20;
    const nlohmann::json env = Env(reference_blas);
    harness::NewRun run;
    run.suite = "decode,ops,prefill,smoke";
    run.label = "nightly";
    run.env_json = env.dump();
    run.fingerprint = harness::FingerprintHash(env);
    run.options_json =
        nlohmann::json{{"rounds", kRounds},
                       {"repeat", kRepeat},
                       {"baseline_run_id", previous ? nlohmann::json(previous) : nlohmann::json()}}
            .dump();
    auto id = (*store)->BeginRun(run);
    if (!id.ok()) Die(id.status().message());
    const double night_level = 0.03 * unit(rng);
    for (int c = 0; c < cases; ++c) {
      const bool matmul = c % 7 == 0;
      harness::CaseResult r;
      r.suite = c < cases - 40   ? "ops"
                : c < cases - 21 ? "prefill"
                : c < cases - 7  ? "smoke"
                                 : "decode";
      r.case_id = (matmul ? "mm." : "add.") + std::to_string(c) + ".f16";
      r.status = harness::CaseStatus::kPassed;
      r.max_abs_err = 1e-3 * (1 + c % 5);
      r.max_rel_err = 2e-3;
      r.rel_l2 = 4e-4;
      r.max_ulp = 1 + c % 3;
      r.cosine = 0.99999;
      for (const char* m : {"max_abs_err", "rel_l2", "max_ulp", "cosine"}) {
        r.metrics.push_back({"out0", m, 1e-3 * (1 + c % 5), 2e-2, false});
      }
      double base_us = 40.0 * (1 + c % 23);
      if (matmul && reference_blas) base_us *= 2.0;
      if (!matmul && c % 11 == 3 && night >= nights - 8 && c < 60) base_us *= 1.3;
      r.modeled_us = base_us * 0.2;
      r.fallback_ops = 0;
      r.peak_device_bytes = 4096 * (1 + c % 64);
      // An op case calls its op and a copy or two; a model case some fifteen ops.
      static const char* const kModelOps[] = {
          "mm",  "bmm", "add",          "mul", "silu",  "_softmax", "rsqrt",        "mean",
          "pow", "cat", "index_select", "neg", "slice", "_to_copy", "empty_strided"};
      std::vector<std::string> ops = {matmul ? "mm" : "add", "_to_copy", "empty_strided"};
      if (r.suite != "ops") ops.assign(std::begin(kModelOps), std::end(kModelOps));
      const int n_ops = static_cast<int>(ops.size());
      nlohmann::json op_wall = nlohmann::json::object();
      nlohmann::json sizes = nlohmann::json::array();
      for (int round = 0; round < kRounds; ++round) {
        const double process_level = night_level + 0.05 * unit(rng);
        for (int k = 0; k < kRepeat; ++k) {
          r.wall_us.push_back(base_us * std::exp(process_level + 0.02 * unit(rng)));
          r.queue_us.push_back(r.wall_us.back() * 0.05 * std::fabs(unit(rng)));
        }
        sizes.push_back(kRepeat);
        for (int o = 0; o < n_ops; ++o) {
          op_wall[ops[o]].push_back(base_us * (o == 0 ? 0.7 : 0.3 / n_ops) *
                                    std::exp(process_level + 0.01 * unit(rng)));
        }
      }
      r.extra["rounds"] = {
          {"count", kRounds}, {"planned", kRounds}, {"samples", sizes}, {"op_wall_us", op_wall}};
      r.extra["host_probe_us"] = 100.0 * std::exp(night_level);
      for (int o = 0; o < n_ops; ++o) {
        r.ops.push_back({ops[o], 1 + o % 3, r.modeled_us * (o == 0 ? 0.8 : 0.2 / n_ops),
                         base_us * (o == 0 ? 0.7 : 0.3 / n_ops), 0});
      }
      if (auto s = (*store)->RecordResult(*id, r); !s.ok()) Die(s.message());
    }
    if (auto s = (*store)->FinishRun(*id, harness::RunStatus::kCompleted); !s.ok())
      Die(s.message());
    previous = *id;
  }
  std::printf("%s: %d nights x %d cases\n", path.c_str(), nights, cases);
  return 0;
}
