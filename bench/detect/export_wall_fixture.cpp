// Writes the wall samples a store recorded as a detector_rates fixture: every
// completed run of the store without injected faults is one "run" of each
// case that has wall samples, with its host probe time. Recorded with `run --rounds N`, each
// run's values are its round values (one per worker process, the round's
// median, as the judge tests them), so the fixture carries the
// process-to-process variance the judge must live with.
//
//   spyre-regress run --suite ops,prefill --rounds 20 --db cap.db   # x 8
//   build/export_wall_fixture cap.db > tests/detect/fixtures/wall_rounds.json
//   build/export_wall_fixture --unqueued cap.db > unqueued.json
//
// --unqueued exports wall time less run-queue wait (what the judge follows
// where the runs recorded the wait) instead of wall time; results without
// the wait are left out.
//
// Output: {"format": "spyre-regress-wall-fixture/2", "rounds": true,
//          "cases": {"suite/case": {"runs": [[us...]...], "probes": [us...]}}}
// Values are kept to 5 significant digits (far below the noise).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "detect/detect.h"
#include "detect/history.h"
#include "base/host_probe.h"
#include "store/store_history.h"
#include "store/store_queries.h"

namespace {

double Round5(double x) {
  if (!(x > 0) || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, 4 - std::floor(std::log10(x)));
  return std::round(x * scale) / scale;
}

}  // namespace

int main(int argc, char** argv) {
  const bool unqueued = argc == 3 && std::string(argv[1]) == "--unqueued";
  if (argc != 2 && !unqueued) {
    std::fprintf(stderr, "usage: export_wall_fixture [--unqueued] STORE.db > fixture.json\n");
    return 2;
  }
  auto store = harness::Store::Open(argv[argc - 1], harness::Store::Mode::kReadOnly);
  if (!store.ok()) {
    std::fprintf(stderr, "export_wall_fixture: %s\n", store.status().message().c_str());
    return 2;
  }
  // The completed runs, oldest first.
  auto listed = harness::ListRuns(**store, harness::RunListQuery{});
  if (!listed.ok()) {
    std::fprintf(stderr, "export_wall_fixture: %s\n", listed.status().message().c_str());
    return 2;
  }
  std::vector<int64_t> runs;
  for (auto it = listed->rbegin(); it != listed->rend(); ++it) {
    auto state = harness::ReadRunState(**store, it->id);
    if (state.ok() && state->status == "completed") runs.push_back(it->id);
  }
  nlohmann::json cases = nlohmann::json::object();
  bool rounds = true;
  for (int64_t id : runs) {
    harness::StatusOr<harness::RunRecord> run = harness::LoadRunRecord(**store, id);
    if (!run.ok()) {
      std::fprintf(stderr, "export_wall_fixture: run %lld: %s\n", static_cast<long long>(id),
                   run.status().message().c_str());
      return 2;
    }
    // A run with injected faults is not noise.
    if (run->env.contains("faults") && run->env["faults"].is_string() &&
        !run->env["faults"].get<std::string>().empty()) {
      continue;
    }
    for (const harness::CaseResult& c : run->cases) {
      if (c.wall_us.empty() || (unqueued && !c.HasQueueWait())) continue;
      const std::vector<double> samples = unqueued ? c.UnqueuedUs() : c.wall_us;
      // Recorded with rounds: one value per round, as the judge tests them.
      const std::vector<double> per_round = harness::RoundValuesOf(c, samples);
      rounds = rounds && !per_round.empty();
      nlohmann::json values = nlohmann::json::array();
      for (double x : per_round.empty() ? samples : per_round) values.push_back(Round5(x));
      nlohmann::json& entry = cases[c.suite + "/" + c.case_id];
      entry["runs"].push_back(values);
      entry["probes"].push_back(Round5(harness::HostProbeUs(c)));
    }
  }
  std::cout << nlohmann::json{{"format", "spyre-regress-wall-fixture/2"},
                              {"rounds", rounds},
                              {"cases", cases}}
                   .dump()
            << "\n";
  return 0;
}
