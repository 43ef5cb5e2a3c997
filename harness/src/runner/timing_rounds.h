#pragma once
// Timing rounds (`run --rounds N`): the process-level repetition of a run's
// wall-time measurement. Separate processes on a shared host settle in
// different, stable states (memory placement, allocator thresholds, a busy
// neighbour) that no number of samples inside one process can show: on the
// CI VM the medians of one kernel in 30 processes spread 2-5% while samples
// inside each process spread under 2%. A test on one process's samples
// therefore flags unchanged runs. With rounds, every case is timed in N
// fresh worker processes, interleaved (round r times every case before round
// r+1 starts). Every sample is kept, round after round, with the rounds'
// sizes, and the judge tests one value per round, the round's median
// (WallRoundValues in harness/detect/detect.h): it then sees the variance it has to
// judge (Kalibera and Jones, "Rigorous benchmarking in reasonable time",
// 2013; pyperf spawns 20 processes by default for the same reason).
//
// The first N-1 rounds only contribute timings; the last one is the run's
// main pass, whose result (status, accuracy, modeled time, trace) is
// recorded with every round's samples merged in (MergeInto).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/case_result.h"
#include "base/host_probe.h"

namespace harness::runner_internal {

class TimingRounds {
 public:
  // Keeps the wall samples and probe time of a timing round's result;
  // results without wall samples add nothing (false).
  bool Add(const CaseResult& r);

  // Sets r's wall samples to those of the timing rounds collected for its
  // case followed by its own (unless `include_own` is false: a main pass run
  // beside other workers; its own are kept when no round timed the case),
  // extra["host_probe_us"] to the median over rounds, extra["host_busy"] to
  // their ticks added up, and extra["rounds"] =
  // {"count": rounds, "planned": planned, "samples": [samples per round],
  //  "op_wall_us": {op: [wall time per round]}} (per-op times per process,
  // so that an op is blamed only for a change seen across processes).
  // A result without wall samples is left alone.
  void MergeInto(CaseResult* r, int planned, bool include_own = true) const;

  // The standard error of the mean log round value that the case's rounds
  // so far give when `total` rounds are taken (their spread over
  // sqrt(total)): the quantity the judge tests, wall time less run-queue
  // wait when every round kept it. Infinite before three rounds.
  double StandardError(const std::string& suite, const std::string& case_id, int total) const;

 private:
  struct Rounds {
    std::vector<std::vector<double>> samples;
    std::vector<std::vector<double>> queue;  // each round's run-queue waits (may be empty)
    std::vector<double> probe;
    BusyTicks busy;  // extra["host_busy"] of the rounds, added up
    std::vector<std::vector<OpSummary>> ops;  // each round's traced pass
  };
  std::map<std::pair<std::string, std::string>, Rounds> by_case_;
};

}  // namespace harness::runner_internal
