// Writes the wall samples a store recorded as a detector_rates fixture: every
// completed run of the store without injected faults is one "run" of each
// case that has wall samples, with its host probe time. Recorded with `run --rounds N`, each
// run's values are its round values (one per worker process, the round's
// median, as the judge tests them), so the fixture carries the
// process-to-process variance the judge must live with.
//
//   spyre-regress run --suite ops,prefill --rounds 20 --db cap.db   # x 8
//   build/export_wall_fixture cap.db > tests/detect/fixtures/wall_rounds.json
//
// Output: {"format": "spyre-regress-wall-fixture/2", "rounds": true,
//          "cases": {"suite/case": {"runs": [[us...]...], "probes": [us...]}}}
// Values are kept to 5 significant digits (far below the noise).
#include <sqlite3.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>

#include <nlohmann/json.hpp>

#include "harness/detect/detect.h"
#include "harness/detect/history.h"
#include "harness/host_probe.h"

namespace {

double Round5(double x) {
  if (!(x > 0) || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, 4 - std::floor(std::log10(x)));
  return std::round(x * scale) / scale;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: export_wall_fixture STORE.db > fixture.json\n");
    return 2;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "export_wall_fixture: cannot open %s: %s\n", argv[1], sqlite3_errmsg(db));
    sqlite3_close(db);
    return 2;
  }
  std::vector<int64_t> runs;
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "SELECT id FROM runs WHERE status = 'completed' ORDER BY id", -1, &stmt,
                     nullptr);
  while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW)
    runs.push_back(sqlite3_column_int64(stmt, 0));
  sqlite3_finalize(stmt);
  nlohmann::json cases = nlohmann::json::object();
  bool rounds = true;
  for (int64_t id : runs) {
    harness::StatusOr<harness::RunRecord> run = harness::LoadRunRecord(db, id);
    if (!run.ok()) {
      std::fprintf(stderr, "export_wall_fixture: run %lld: %s\n", static_cast<long long>(id),
                   run.status().message().c_str());
      sqlite3_close(db);
      return 2;
    }
    // A run with injected faults is not noise.
    if (run->env.contains("faults") && run->env["faults"].is_string() &&
        !run->env["faults"].get<std::string>().empty()) {
      continue;
    }
    for (const harness::CaseResult& c : run->cases) {
      if (c.wall_us.empty()) continue;
      // Recorded with rounds: one value per round, as the judge tests them.
      const std::vector<double> per_round = harness::WallRoundValues(c);
      rounds = rounds && !per_round.empty();
      nlohmann::json values = nlohmann::json::array();
      for (double x : per_round.empty() ? c.wall_us : per_round) values.push_back(Round5(x));
      nlohmann::json& entry = cases[c.suite + "/" + c.case_id];
      entry["runs"].push_back(values);
      entry["probes"].push_back(Round5(harness::HostProbeUs(c)));
    }
  }
  sqlite3_close(db);
  std::cout << nlohmann::json{{"format", "spyre-regress-wall-fixture/2"},
                              {"rounds", rounds},
                              {"cases", cases}}
                   .dump()
            << "\n";
  return 0;
}
