// Measures the wall-latency detector itself on the noise of real recorded
// samples (tests/detect/fixtures/wall_samples.json, captured on this kind of
// machine by bench/detect/capture_wall_noise.cpp: 30 separate runs x 20
// timed repeats of three kernels). Deterministic: fixed fixture, fixed seed.
//
// Two noise models:
//  - within-run: both sides are resampled from the pooled run-normalised
//    residuals, i.e. the machine's sample-to-sample noise;
//  - between-run: A/A compares two different recorded runs as they are, so
//    the drift between separate processes is included.
// Goals (issue 7): >= 99% of 5% shifts detected with 20 samples per side;
// <= 1% of A/A comparisons flagged. This program reports the rates; it
// asserts nothing (the figures are in README "Regression detection").
//
//   build/detector_rates [fixture.json]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>

#include "harness/detect.h"
#include "harness/stats.h"

namespace {

using harness::CaseResult;

std::map<std::string, std::vector<std::vector<double>>> LoadFixture(const std::string& path) {
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in);
  std::map<std::string, std::vector<std::vector<double>>> out;
  for (const auto& [k, runs] : j.items()) out[k] = runs.get<std::vector<std::vector<double>>>();
  return out;
}

// `run_sigma`: the run-to-run spread learned from history; NaN for none.
bool Flagged(const std::vector<double>& base, const std::vector<double>& cand, double run_sigma = std::nan("")) {
  auto make = [](int64_t id, const std::vector<double>& samples) {
    CaseResult c;
    c.suite = "s";
    c.case_id = "c";
    c.status = harness::CaseStatus::kPassed;
    c.wall_us = samples;
    harness::RunRecord r;
    r.run_id = id;
    r.cases = {c};
    return r;
  };
  harness::RunRecord b = make(1, base);
  if (std::isfinite(run_sigma)) b.wall_run_sigma["s/c"] = run_sigma;
  auto cmp = harness::CompareRuns(b, make(2, cand), harness::Thresholds());
  return !cmp.regressions.empty() || !cmp.improvements.empty();
}

struct Rates {
  double within_aa = 0, within_detect = 0, between_aa = 0, between_detect = 0;
  double floor_aa = 0, floor_detect5 = 0, floor_detect25 = 0;  // with the history noise floor
};

// Spread of log run medians over the ten runs ending at `i` (cyclically),
// leaving out `j` (the candidate) and the one farthest from the median.
double HistorySigma(const std::vector<std::vector<double>>& runs, size_t i, size_t j) {
  std::vector<double> logs;
  for (size_t k = 0; logs.size() < 10 && k < runs.size(); ++k) {
    size_t r = (i + runs.size() - k) % runs.size();
    if (r != j) logs.push_back(std::log(harness::Median(runs[r])));
  }
  double med = harness::Median(logs);
  logs.erase(std::max_element(logs.begin(), logs.end(), [med](double a, double b) {
    return std::fabs(a - med) < std::fabs(b - med);
  }));
  return std::sqrt(harness::Variance(logs));
}

Rates Measure(const std::vector<std::vector<double>>& runs, std::mt19937_64& rng) {
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
  const int trials = 1000;
  for (int t = 0; t < trials; ++t) {
    r.within_aa += Flagged(draw(level), draw(level));
    r.within_detect += Flagged(draw(level), draw(1.05 * level));
  }
  r.within_aa /= trials;
  r.within_detect /= trials;
  int pairs = 0;
  for (size_t i = 0; i < runs.size(); ++i) {
    for (size_t j = 0; j < runs.size(); ++j) {
      if (i == j) continue;
      std::vector<double> shifted = runs[j];
      for (double& x : shifted) x *= 1.05;
      r.between_aa += Flagged(runs[i], runs[j]);
      r.between_detect += Flagged(runs[i], shifted);
      const double sigma = HistorySigma(runs, i, j);
      std::vector<double> big = runs[j];
      for (double& x : big) x *= 1.25;
      r.floor_aa += Flagged(runs[i], runs[j], sigma);
      r.floor_detect5 += Flagged(runs[i], shifted, sigma);
      r.floor_detect25 += Flagged(runs[i], big, sigma);
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

}  // namespace

int main(int argc, char** argv) {
  const std::string path =
      argc > 1 ? argv[1] : std::string(SPYRE_SOURCE_DIR) + "/tests/detect/fixtures/wall_samples.json";
  auto fixture = LoadFixture(path);
  if (fixture.empty()) {
    std::fprintf(stderr, "detector_rates: no samples in %s\n", path.c_str());
    return 2;
  }
  std::mt19937_64 rng(2026);
  std::printf("%-18s %11s %11s %11s %11s %11s %11s %11s\n", "workload", "A/A within", "5% within", "A/A betw.",
              "5% betw.", "A/A floor", "5% floor", "25% floor");
  for (const auto& [name, runs] : fixture) {
    Rates r = Measure(runs, rng);
    std::printf("%-18s %10.2f%% %10.2f%% %10.2f%% %10.2f%% %10.2f%% %10.2f%% %10.2f%%\n", name.c_str(),
                100 * r.within_aa, 100 * r.within_detect, 100 * r.between_aa, 100 * r.between_detect,
                100 * r.floor_aa, 100 * r.floor_detect5, 100 * r.floor_detect25);
  }
  return 0;
}
