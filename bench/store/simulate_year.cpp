// Writes a simulated year of nightlies into a new store, through the store's
// own RecordResult, with the shape the nightly records (`ci/nightly`: the
// suites with a nightly, models or calibration case, `--latency all
// --rounds 20`): 258 op cases, 19 prefill, 13 decode and 7 embed cases, each
// timed in 20 rounds (fresh worker processes) of 5 samples with their
// run-queue waits in whole nanoseconds (what the worker's clock gives), the
// per-round per-op wall times of the ops each case traces, the metrics and
// op summaries a case of that suite records (9 metrics and one op for an op
// case, 10-17 metrics and 9-13 ops for a model case; accuracy metrics the
// same every night, a decode case's measured latencies not), its extra members,
// and 9 calibration cases (modeled only: no samples, no rounds); each night
// names the previous one as its baseline. bench/store/year_bench measures
// retention on it (size, prune time, findings before and after, report and
// history times).
//
//   simulate_year OUT.db [NIGHTS=365] [CASES=306]
//
// CASES beyond the 48 model and calibration cases are op cases. What
// changes over the year, so that compare and history have findings to
// reproduce: from night NIGHTS-20 the BLAS changes and the matmul cases take
// 2x; at night NIGHTS-8 five element-wise cases get 30% slower; everything
// else is noise (log-normal within a round, a per-round process level and a
// per-night level), deterministic from a fixed seed.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "harness/env.h"
#include "store/store.h"

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

// Whole nanoseconds, as the worker's steady clock measures them.
double Ns(double us) { return std::round(us * 1000.0) / 1000.0; }

struct Shape {
  const char* suite;
  const char* output;                  // the output the metrics name
  std::vector<const char*> metrics;    // each recorded with a value; the first two with a limit
  std::vector<const char*> ops;        // the ops its trace summarises
  bool timed;                          // calibration cases are modeled only
  int extra_steps;                     // decode: per-step detail in extra
};

const Shape& ShapeOf(const std::string& suite) {
  static const std::vector<const char*> kModelOps = {
      "_softmax", "add", "bmm", "cat", "div", "index_select", "mean",
      "mm",       "mul", "neg", "pow", "rsqrt", "silu"};
  static const Shape kOps = {"ops", "out0",
                             {"rel_l2", "nonfinite_mismatches", "fraction_outside", "max_abs_err",
                              "max_rel_err", "cosine", "max_ulp", "cpu_rel_l2", "cpu_max_abs_err"},
                             {}, true, 0};
  static const Shape kPrefill = {"prefill", "logits",
                                 {"cosine", "nonfinite_mismatches", "fraction_outside", "max_abs_err",
                                  "max_rel_err", "rel_l2", "max_ulp", "cpu_rel_l2",
                                  "cpu_max_abs_err", "top1_agreement"},
                                 {kModelOps.begin(), kModelOps.begin() + 12}, true, 0};
  static const Shape kDecode = {"decode", "logprobs",
                                {"max_logprob_diff", "min_top_k_overlap", "top1_agreement",
                                 "first_divergence_step", "near_ties", "hard_flips",
                                 "logprob_yardstick", "mean_top_k_overlap",
                                 "golden_top1_prob_median", "golden_top2_gap_median",
                                 "golden_near_tie_rate", "ttft_us", "itl_us", "tokens_per_s",
                                 "modeled_ttft_us", "modeled_itl_us", "modeled_tokens_per_s"},
                                kModelOps, true, 16};
  static const Shape kEmbed = {"embed", "embeddings", {"min_cosine", "max_abs_err", "rel_l2"},
                               {kModelOps.begin(), kModelOps.begin() + 9}, true, 0};
  static const Shape kCalibration = {"calibration", "figure",
                                     {"speedup", "relative_error", "modeled_us", "roofline_us"},
                                     {"attn_scores", "attn_values", "down_proj", "embedding",
                                      "gate_up_proj", "kv_proj", "lm_head", "o_proj", "q_proj",
                                      "residual_add", "rms_norm", "rope", "silu_mul", "softmax"},
                                     false, 0};
  if (suite == "ops") return kOps;
  if (suite == "prefill") return kPrefill;
  if (suite == "decode") return kDecode;
  if (suite == "embed") return kEmbed;
  return kCalibration;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) Die("usage: simulate_year OUT.db [NIGHTS=365] [CASES=306]");
  const std::string path = argv[1];
  const int nights = argc > 2 ? std::atoi(argv[2]) : 365;
  const int cases = argc > 3 ? std::atoi(argv[3]) : 306;
  constexpr int kRounds = 20, kRepeat = 5;
  constexpr int kPrefill = 19, kDecode = 13, kEmbed = 7, kCalibration = 9;
  constexpr int kModelCases = kPrefill + kDecode + kEmbed + kCalibration;
  if (nights < 2 || cases < kModelCases + 10) Die("need at least 2 nights and 58 cases");
  const int op_cases = cases - kModelCases;
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
    run.suite = "calibration,decode,embed,ops,prefill";
    run.label = "nightly";
    run.env_json = env.dump();
    run.fingerprint = harness::FingerprintHash(env);
    run.options_json =
        nlohmann::json{{"rounds", kRounds},
                       {"repeat", kRepeat},
                       {"latency", "all"},
                       {"baseline_run_id", previous ? nlohmann::json(previous) : nlohmann::json()}}
            .dump();
    auto id = (*store)->BeginRun(run);
    if (!id.ok()) Die(id.status().message());
    const double night_level = 0.03 * unit(rng);
    for (int c = 0; c < cases; ++c) {
      const bool matmul = c % 7 == 0;
      const std::string suite = c < op_cases                      ? "ops"
                                : c < op_cases + kPrefill         ? "prefill"
                                : c < op_cases + kPrefill + kDecode ? "decode"
                                : c < cases - kCalibration        ? "embed"
                                                                  : "calibration";
      const Shape& shape = ShapeOf(suite);
      harness::CaseResult r;
      r.suite = suite;
      r.case_id = suite == "ops" ? (matmul ? "mm." : "add.") + std::to_string(c) + ".33x65.f16"
                                 : suite + "_tiny.b" + std::to_string(1 + c % 4) + ".s" +
                                       std::to_string(c);
      r.status = harness::CaseStatus::kPassed;
      // Accuracy is deterministic: the same every night for a case.
      r.max_abs_err = 1e-3 * (1 + c % 5) / 3.0;
      r.max_rel_err = 2e-3 / 7.0;
      r.rel_l2 = 4e-4 * (1 + c % 3) / 3.0;
      r.max_ulp = 1 + c % 3;
      r.cosine = 1.0 - 1e-7 * (1 + c % 9) / 3.0;
      for (size_t m = 0; m < shape.metrics.size(); ++m) {
        // Accuracy metrics and modeled times are the same every night; the
        // decode cases' measured latencies (ttft_us, itl_us, tokens_per_s)
        // move with the night.
        const std::string name = shape.metrics[m];
        const bool measured = name == "ttft_us" || name == "itl_us" || name == "tokens_per_s";
        const double value = (1 + c % 13) * (1 + static_cast<double>(m)) / 7.0e3 *
                             (measured ? std::exp(night_level + 0.02 * unit(rng)) : 1.0);
        r.metrics.push_back(
            {shape.output, shape.metrics[m], value,
             m < 2 ? value * 4.0 / 3.0 : std::numeric_limits<double>::quiet_NaN(), false});
      }
      double base_us = 40.0 * (1 + c % 23);
      if (matmul && reference_blas) base_us *= 2.0;
      if (!matmul && c % 11 == 3 && night >= nights - 8 && c < 60) base_us *= 1.3;
      r.modeled_us = base_us * 0.2 / 3.0;
      r.fallback_ops = 0;
      r.peak_device_bytes = 4096 * (1 + c % 64);
      std::vector<std::string> ops(shape.ops.begin(), shape.ops.end());
      if (suite == "ops") ops = {matmul ? "mm" : "add"};
      const int n_ops = static_cast<int>(ops.size());
      r.extra["device"] = "privateuseone:0";
      r.extra["harness"] = {{"elapsed_us", Ns(base_us * 1.7e3)},
                            {"execute_us", Ns(base_us * 0.9e3)},
                            {"worker_pid", 20000 + night * 7 + c % 5}};
      if (suite == "ops") {
        r.extra["op"] = ops[0];
        r.extra["reduction_length"] = 1;
        r.extra["wall_batch"] = 1 + c % 400;
      } else {
        r.extra["model"] = suite + "-tiny";
        r.extra["impl"] = "portable";
        r.extra["batch"] = 1 + c % 4;
      }
      for (int step = 0; step < shape.extra_steps; ++step) {
        r.extra["per_step"].push_back({{"flips", nlohmann::json::array()},
                                       {"golden_top2_gap", 0.1 / (1 + step) / 3.0},
                                       {"max_logprob_diff", 0.008 / (1 + c % 5) / 3.0},
                                       {"step", step},
                                       {"top_k_overlap", 1.0}});
      }
      if (shape.timed) {
        nlohmann::json op_wall = nlohmann::json::object();
        nlohmann::json sizes = nlohmann::json::array();
        for (int round = 0; round < kRounds; ++round) {
          const double process_level = night_level + 0.05 * unit(rng);
          for (int k = 0; k < kRepeat; ++k) {
            r.wall_us.push_back(Ns(base_us * std::exp(process_level + 0.02 * unit(rng))));
            r.queue_us.push_back(Ns(r.wall_us.back() * 0.05 * std::fabs(unit(rng))));
          }
          sizes.push_back(kRepeat);
          for (int o = 0; o < n_ops; ++o) {
            op_wall[ops[o]].push_back(Ns(base_us * (o == 0 ? 0.7 : 0.3 / n_ops) *
                                         std::exp(process_level + 0.01 * unit(rng))));
          }
        }
        r.extra["rounds"] = {
            {"count", kRounds}, {"planned", kRounds}, {"samples", sizes}, {"op_wall_us", op_wall}};
        r.extra["host_probe_us"] = 100.0 * std::exp(night_level);
      }
      for (int o = 0; o < n_ops; ++o) {
        r.ops.push_back({ops[o], 1 + o % 3, r.modeled_us * (o == 0 ? 0.8 : 0.2 / n_ops),
                         Ns(base_us * (o == 0 ? 0.7 : 0.3 / n_ops)), 0});
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
