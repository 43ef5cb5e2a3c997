// Measures the wall-latency detector itself on the noise of real recorded
// samples (tests/detect/fixtures/), deterministically (fixed fixtures, fixed
// seed):
//  - wall_rounds.json, wall_rounds_loaded.json: the harness's own timings,
//    eight runs of `run --suite ops,prefill --rounds 20` (273 cases, one
//    value per round) exported by export_wall_fixture; quiet, and with a
//    one-core compile job beside runs 3-6. Judged as round values.
//  - wall_samples.json, wall_samples_loaded.json: three CPU kernels timed in
//    separate processes by capture_wall_noise (20 single-call samples per
//    process; 30 processes on a quiet machine, and 90 with the host probe
//    while two compile jobs loaded both cores). Judged as samples from one
//    process: what the detector faced before `run --rounds`.
//
// Noise models:
//  - within-run: both sides are resampled from the pooled run-normalised
//    values, i.e. the noise inside one run;
//  - between-run: A/A compares two different recorded runs as they are, so
//    the drift between separate runs is included; judged with the default
//    thresholds (no history) and with a floor learned from up to ten other
//    runs, as `run` does.
// A fixture of more than ten cases is summarised per suite and time scale.
// Goals: >= 99% of 5% shifts detected with 20 samples per side;
// <= 1% of A/A comparisons flagged. This program reports the rates; it
// asserts nothing (the figures are in README "Regression detection").
//
//   build/detector_rates [--thresholds FILE] [--shift F] [fixture.json...]
//
// --shift F: the shift of the detection columns (default 0.05, 5%).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>

#include "detect/detect.h"
#include "base/stats.h"

namespace {

using harness::CaseResult;

struct Workload {
  std::vector<std::vector<double>> runs;  // per run: wall samples
  std::vector<double> probes;             // per run: median probe time (empty: none)
  bool rounds = false;                    // samples are round values (`run --rounds`)
};

// Two formats: {"workload": [[samples]...], "workload@probe": [[probes]...]}
// from capture_wall_noise (one process per run), and format 2 from
// export_wall_fixture (a store's runs, with "rounds": true when recorded
// with `run --rounds`).
std::map<std::string, Workload> LoadFixture(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in);
  std::map<std::string, Workload> out;
  if (j.contains("cases")) {
    const bool rounds = j.value("rounds", false);
    for (const auto& [k, c] : j["cases"].items()) {
      Workload& w = out[k];
      w.runs = c["runs"].get<std::vector<std::vector<double>>>();
      for (const auto& p : c["probes"])
        w.probes.push_back(p.is_number() ? p.get<double>() : std::nan(""));
      w.rounds = rounds;
    }
    return out;
  }
  for (const auto& [k, runs] : j.items()) {
    auto at = k.find("@probe");
    if (at == std::string::npos) {
      out[k].runs = runs.get<std::vector<std::vector<double>>>();
    } else {
      for (const auto& r : runs) out[k.substr(0, at)].probes.push_back(harness::Median(r.get<std::vector<double>>()));
    }
  }
  return out;
}

// The thresholds judged by: the built-in defaults (= config/thresholds.json),
// or --thresholds FILE to measure another setting.
const harness::Thresholds* g_thresholds = nullptr;
// The shift of the detection columns (--shift, default 5%).
double g_shift = 0.05;

// `run_sigma`: the run-to-run spread learned from history; NaN for none.
// `pb`, `pc`: the two processes' probe times (NaN: none recorded).
// `run_count`: the runs that spread was learned from.
bool Flagged(const std::vector<double>& base, const std::vector<double>& cand, double run_sigma,
             int run_count, double pb, double pc, bool rounds) {
  auto make = [rounds](int64_t id, const std::vector<double>& samples, double probe) {
    CaseResult c;
    if (std::isfinite(probe)) c.extra["host_probe_us"] = probe;
    // Each value is one round's (its median).
    if (rounds)
      c.extra["rounds"] = {{"count", samples.size()},
                           {"samples", std::vector<int>(samples.size(), 1)}};
    c.suite = "s";
    c.case_id = "c";
    c.status = harness::CaseStatus::kPassed;
    c.wall_us = samples;
    harness::RunRecord r;
    r.run_id = id;
    r.cases = {c};
    return r;
  };
  harness::RunRecord b = make(1, base, pb);
  if (std::isfinite(run_sigma)) {
    b.wall_run_sigma["s/c"] = run_sigma;
    b.wall_run_count["s/c"] = run_count;
  }
  auto cmp = harness::CompareRuns(b, make(2, cand, pc), *g_thresholds);
  return !cmp.regressions.empty() || !cmp.improvements.empty();
}

struct Rates {
  double within_aa = 0, within_detect = 0, between_aa = 0, between_detect = 0;
  double floor_aa = 0, floor_detect5 = 0, floor_detect25 = 0;  // with the history noise floor

  // The rates in PrintRow's column order, for sums and means over cases.
  std::array<double*, 7> All() {
    return {&within_aa, &within_detect, &between_aa,    &between_detect,
            &floor_aa,  &floor_detect5, &floor_detect25};
  }
  Rates& operator+=(Rates other) {
    auto mine = All(), theirs = other.All();
    for (size_t i = 0; i < mine.size(); ++i) *mine[i] += *theirs[i];
    return *this;
  }
  Rates Mean(int n) const {
    Rates m = *this;
    for (double* x : m.All()) *x /= n;
    return m;
  }
};

// Spread of log (probe-normalised) run medians over the ten runs ending at
// `i` (cyclically), leaving out `j` (the candidate) and the one farthest from
// the median, as AttachWallNoise does; *count: the runs it was computed from.
double HistorySigma(const Workload& w, size_t i, size_t j, int* count) {
  const auto& runs = w.runs;
  std::vector<double> logs;
  for (size_t k = 0; logs.size() < 10 && k < runs.size(); ++k) {
    size_t r = (i + runs.size() - k) % runs.size();
    double probe = w.probes.empty() || !std::isfinite(w.probes[r]) ? 1.0 : w.probes[r];
    if (r != j) logs.push_back(std::log(harness::Median(runs[r]) / probe));
  }
  double med = harness::Median(logs);
  logs.erase(std::max_element(logs.begin(), logs.end(), [med](double a, double b) {
    return std::fabs(a - med) < std::fabs(b - med);
  }));
  *count = static_cast<int>(logs.size());
  return std::sqrt(harness::Variance(logs));
}

Rates Measure(const Workload& w, std::mt19937_64& rng, int trials) {
  const auto& runs = w.runs;
  auto probe = [&](size_t r) { return r < w.probes.size() ? w.probes[r] : std::nan(""); };
  const bool rounds = w.rounds;
  const double nan = std::nan("");
  std::vector<double> residuals, medians;
  for (const auto& run : runs) medians.push_back(harness::Median(run));
  const double level = harness::Median(medians);  // the workload's real time, in us
  for (const auto& run : runs) {
    double m = harness::Median(run);
    for (double x : run) residuals.push_back(x / m);
  }
  std::uniform_int_distribution<size_t> pick(0, residuals.size() - 1);
  auto draw = [&](double scale) {
    std::vector<double> v(20);
    for (double& x : v) x = residuals[pick(rng)] * scale;
    return v;
  };
  Rates r;
  for (int t = 0; t < trials; ++t) {
    r.within_aa += Flagged(draw(level), draw(level), nan, 0, nan, nan, rounds);
    r.within_detect += Flagged(draw(level), draw((1 + g_shift) * level), nan, 0, nan, nan, rounds);
  }
  r.within_aa /= trials;
  r.within_detect /= trials;
  int pairs = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    for (size_t j = 0; j < runs.size(); ++j) {
      if (i == j) continue;
      std::vector<double> shifted = runs[j];
      for (double& x : shifted) x *= 1 + g_shift;
      r.between_aa += Flagged(runs[i], runs[j], nan, 0, probe(i), probe(j), rounds);
      r.between_detect += Flagged(runs[i], shifted, nan, 0, probe(i), probe(j), rounds);
      int count = 0;
      const double sigma = HistorySigma(w, i, j, &count);
      std::vector<double> big = runs[j];
      for (double& x : big) x *= 1.25;
      r.floor_aa += Flagged(runs[i], runs[j], sigma, count, probe(i), probe(j), rounds);
      r.floor_detect5 += Flagged(runs[i], shifted, sigma, count, probe(i), probe(j), rounds);
      r.floor_detect25 += Flagged(runs[i], big, sigma, count, probe(i), probe(j), rounds);
      ++pairs;
    }
  }
  r.between_aa /= pairs;
  r.between_detect /= pairs;
  r.floor_aa /= pairs;
  r.floor_detect5 /= pairs;
  r.floor_detect25 /= pairs;
  return r;
}

void PrintRow(const std::string& name, const Rates& r) {
  std::printf("%-30s %10.2f%% %10.2f%% %10.2f%% %10.2f%% %10.2f%% %10.2f%% %10.2f%%\n",
              name.c_str(), 100 * r.within_aa, 100 * r.within_detect, 100 * r.between_aa,
              100 * r.between_detect, 100 * r.floor_aa, 100 * r.floor_detect5,
              100 * r.floor_detect25);
}

// A fixture of many cases (a store's suites) is summarised per suite and time
// scale: the mean of each rate over the group's cases, which is the share of
// case comparisons flagged, as a nightly's A/A would count them.
std::string Group(const std::string& name, const Workload& w) {
  std::vector<double> medians;
  for (const auto& run : w.runs) medians.push_back(harness::Median(run));
  const double level = harness::Median(medians);
  const std::string suite = name.substr(0, name.find('/'));
  return suite + (level < 100 ? " <100us" : level < 1000 ? " 0.1-1ms" : " >=1ms");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> paths;
  harness::Thresholds thresholds;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--shift" && i + 1 < argc) {
      g_shift = std::atof(argv[++i]);
      if (!(g_shift > 0)) {
        std::fprintf(stderr,
                     "detector_rates: --shift %s is not a positive fraction (0.05 for 5%%)\n",
                     argv[i]);
        return 2;
      }
      continue;
    }
    if (std::string(argv[i]) == "--thresholds" && i + 1 < argc) {
      auto t = harness::Thresholds::FromFile(argv[++i]);
      if (!t.ok()) {
        std::fprintf(stderr, "detector_rates: %s\n", t.status().message().c_str());
        return 2;
      }
      thresholds = *t;
      continue;
    }
    paths.push_back(argv[i]);
  }
  g_thresholds = &thresholds;
  if (paths.empty()) {
    for (const char* f : {"wall_samples.json", "wall_samples_loaded.json", "wall_rounds.json",
                          "wall_rounds_loaded.json"}) {
      paths.push_back(std::string(SPYRE_SOURCE_DIR) + "/tests/detect/fixtures/" + f);
    }
  }
  const std::string pct = std::to_string(static_cast<int>(std::lround(100 * g_shift))) + "%";
  std::printf("%-30s %11s %11s %11s %11s %11s %11s %11s\n", "workload", "A/A within",
              (pct + " within").c_str(), "A/A betw.", (pct + " betw.").c_str(), "A/A hist.",
              (pct + " hist.").c_str(), "25% hist.");
  for (const std::string& path : paths) {
    auto fixture = LoadFixture(path);
    if (fixture.empty()) {
      std::fprintf(stderr, "detector_rates: no samples in %s\n", path.c_str());
      return 2;
    }
    std::printf("%s\n", path.substr(path.find_last_of('/') + 1).c_str());
    std::mt19937_64 rng(2026);
    const bool summarise = fixture.size() > 10;
    std::map<std::string, std::pair<Rates, int>> groups;
    Rates all;
    int total = 0;
    std::vector<std::pair<double, std::string>> worst, missed;
    for (const auto& [name, w] : fixture) {
      Rates r = Measure(w, rng, summarise ? 200 : 1000);
      if (!summarise) {
        PrintRow(name, r);
        continue;
      }
      auto& [sum, n] = groups[Group(name, w)];
      sum += r;
      ++n;
      all += r;
      ++total;
      worst.emplace_back(r.between_aa, name);
      missed.emplace_back(r.between_detect, name);
    }
    for (const auto& [name, group] : groups) {
      PrintRow(name + " (" + std::to_string(group.second) + ")", group.first.Mean(group.second));
    }
    if (total > 0) {
      PrintRow("all cases (" + std::to_string(total) + ")", all.Mean(total));
      std::sort(worst.rbegin(), worst.rend());
      for (size_t i = 0; i < worst.size() && i < 5 && worst[i].first > 0; ++i) {
        std::printf("  A/A between runs %.1f%%: %s\n", 100 * worst[i].first,
                    worst[i].second.c_str());
      }
      std::sort(missed.begin(), missed.end());
      for (size_t i = 0; i < missed.size() && i < 5 && missed[i].first < 0.99; ++i) {
        std::printf("  %s found between runs %.1f%%: %s\n", pct.c_str(),
                    100 * missed[i].first, missed[i].second.c_str());
      }
    }
  }
  return 0;
}
