#pragma once
// A recorded run as the store reads it back (store_history.h) and the judges
// take it (detect/): the run's identity and fingerprint, every case result,
// and the between-run wall-time history attached for judging.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/case_result.h"

namespace harness {

struct RunRecord {
  int64_t run_id = 0;
  std::string suite;  // may list several suites, comma-separated
  std::string label;
  nlohmann::json env = nlohmann::json::object();  // the fingerprint
  std::vector<CaseResult> cases;
  // Run-to-run spread of each case's wall median ("suite/case" -> standard
  // deviation of log medians over earlier runs, see AttachWallNoise in
  // history.h). Separate processes on a shared host land on different,
  // stable speeds that a test within one pair of runs cannot see; when known,
  // a wall-time shift must also exceed wall_noise_k times this spread.
  std::map<std::string, double> wall_run_sigma;
  // The case's own between-run history at the baseline's environment
  // ("suite/case" -> wall medians of up to ten completed runs with the
  // baseline's fingerprint, the baseline included; AttachWallNoise), and the
  // per-op wall times of the same runs (op -> one value per run). One value
  // per process, so the level at which confirmation rounds are judged.
  std::map<std::string, std::vector<double>> wall_run_medians;
  std::map<std::string, std::map<std::string, std::vector<double>>> op_run_wall;
  // The same two for the median of wall time less run-queue wait
  // (unqueued_us_median), over the runs that recorded it.
  std::map<std::string, double> unqueued_run_sigma;
  std::map<std::string, std::vector<double>> unqueued_run_medians;
  // How many run medians each spread above was computed from (after the one
  // farthest from the median was left out); a spread without a count is
  // taken as learned from ten runs.
  std::map<std::string, int> wall_run_count, unqueued_run_count;
};

}  // namespace harness
