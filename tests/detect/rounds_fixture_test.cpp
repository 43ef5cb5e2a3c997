// The rounds judge on whole runs recorded on a shared host (fixtures/:
// unchanged runs of `run --rounds 20`, one value per round, exported by
// bench/detect/export_wall_fixture; bench/README.md says when and at what
// load). The rounds of one run agree closely, whole runs drift apart with
// the load level: every ordered pair of these runs is an unchanged run
// against another, and must not cry wolf. Deterministic: recorded values,
// no timing.
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "detect/detect.h"
#include "base/stats.h"

namespace {

using harness::CaseResult;

struct Recorded {
  std::vector<std::vector<double>> runs;  // per run: round values (us)
  std::vector<double> probes;             // per run: host probe (NaN: none)
};

std::map<std::string, Recorded> Load(const std::string& name) {
  std::ifstream in(std::string(SPYRE_SOURCE_DIR) + "/tests/detect/fixtures/" + name);
  EXPECT_TRUE(in.good()) << name;
  const nlohmann::json j = nlohmann::json::parse(in);
  std::map<std::string, Recorded> out;
  for (const auto& [key, c] : j.at("cases").items()) {
    Recorded& r = out[key];
    r.runs = c.at("runs").get<std::vector<std::vector<double>>>();
    for (const auto& p : c.at("probes")) r.probes.push_back(p.is_number() ? p.get<double>() : NAN);
  }
  return out;
}

harness::RunRecord Run(int64_t id, const std::vector<double>& rounds, double probe, double scale) {
  CaseResult c;
  c.suite = "s";
  c.case_id = "c";
  c.status = harness::CaseStatus::kPassed;
  for (double x : rounds) c.wall_us.push_back(x * scale);
  c.extra["rounds"] = {{"count", rounds.size()}, {"samples", std::vector<int>(rounds.size(), 1)}};
  if (std::isfinite(probe)) c.extra["host_probe_us"] = probe;
  harness::RunRecord r;
  r.run_id = id;
  r.cases = {c};
  return r;
}

// The case's run-to-run spread as AttachWallNoise learns it: log run
// medians (host-probe normalised) of the other runs than the candidate, the
// one farthest from their median left out.
double Spread(const Recorded& r, size_t cand, int* count) {
  std::vector<double> logs;
  for (size_t k = 0; k < r.runs.size(); ++k) {
    const double probe = std::isfinite(r.probes[k]) ? r.probes[k] : 1.0;
    if (k != cand) logs.push_back(std::log(harness::Median(r.runs[k]) / probe));
  }
  const double med = harness::Median(logs);
  logs.erase(std::max_element(logs.begin(), logs.end(), [med](double a, double b) {
    return std::fabs(a - med) < std::fabs(b - med);
  }));
  *count = static_cast<int>(logs.size());
  return std::sqrt(harness::Variance(logs));
}

struct Counts {
  int compared = 0, flagged_alone = 0, flagged_history = 0, found_alone = 0, found_history = 0;
};

// Every ordered pair of recorded runs of every case, as they are (A/A) and
// with the candidate doubled (a 2x change), without and with history.
Counts Judge(const std::map<std::string, Recorded>& fixture) {
  const harness::Thresholds thresholds;
  Counts n;
  for (const auto& [name, r] : fixture) {
    for (size_t i = 0; i < r.runs.size(); ++i) {
      for (size_t j = 0; j < r.runs.size(); ++j) {
        if (i == j) continue;
        int count = 0;
        const double sigma = Spread(r, j, &count);
        for (bool history : {false, true}) {
          for (double scale : {1.0, 2.0}) {
            harness::RunRecord base = Run(1, r.runs[i], r.probes[i], 1.0);
            if (history) {
              base.wall_run_sigma["s/c"] = sigma;
              base.wall_run_count["s/c"] = count;
            }
            const harness::Comparison c =
                harness::CompareRuns(base, Run(2, r.runs[j], r.probes[j], scale), thresholds);
            const bool flagged = !c.regressions.empty() || !c.improvements.empty();
            const bool found = c.regressions.size() == 1;
            if (scale == 1.0) (history ? n.flagged_history : n.flagged_alone) += flagged;
            if (scale == 2.0) (history ? n.found_history : n.found_alone) += found;
          }
        }
        ++n.compared;
      }
    }
  }
  return n;
}

class RoundsFixtureTest : public testing::TestWithParam<const char*> {};

TEST_P(RoundsFixtureTest, UnchangedRunsAreNotRegressionsAndADoublingIsFound) {
  const auto fixture = Load(GetParam());
  ASSERT_GE(fixture.size(), 20u);
  ASSERT_GE(fixture.begin()->second.runs.size(), 6u);
  const Counts n = Judge(fixture);
  // At most 0.5% of unchanged comparisons flagged, with or without the
  // case's history; a doubling found in at least 99% of them.
  EXPECT_LE(n.flagged_alone, n.compared / 200) << n.compared << " comparisons";
  EXPECT_LE(n.flagged_history, n.compared / 200) << n.compared << " comparisons";
  EXPECT_GE(n.found_alone, n.compared * 99 / 100) << n.compared << " comparisons";
  EXPECT_GE(n.found_history, n.compared * 99 / 100) << n.compared << " comparisons";
}

INSTANTIATE_TEST_SUITE_P(Recorded, RoundsFixtureTest,
                         testing::Values("wall_rounds.json", "wall_rounds_loaded.json"));

}  // namespace
