#pragma once
// `spyre-regress bisect`: attribution by experiment. The flagged cases of a
// recorded comparison are run again in fresh worker processes under
// configurations between the baseline's and the candidate's (one swappable
// component changed at a time, every combination of up to three:
// detect/attribution.h), interleaved round by round (A B B A), and each
// configuration is judged against the baseline's configuration by the
// judge `run` uses (CompareRuns, with the wall-time evidence of the fresh
// processes as a confirmation). Each configuration is checked first: a
// worker started with its settings must report the recorded BLAS, profile,
// faults, threads and device library, or the bisect stops with an error.
//
// Wall-time findings need `rounds` processes per configuration (the judge's
// level is out of reach with fewer); the other kinds are deterministic and
// take two (a case whose two processes disagree is a flake, not a change).
// A wall-time case whose estimate in some configuration is a finding's size
// while its evidence is short of the judge's level gets more rounds, up to
// max_rounds (a sequential design, as the confirmation of a run has).
// The time budget bounds the rounds; a wall-time finding whose rounds the
// budget cut short is "undecided", never "not reproduced".
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "detect/attribution.h"

namespace harness {

struct BisectRequest {
  int64_t run_id = 0;           // the candidate
  int64_t baseline_run_id = 0;  // what its findings are against
  int rounds = 7;               // processes per configuration for wall-time findings
  // Up to this many for a case whose wall-time verdict is undecided in some
  // configuration (an estimate of a finding's size, evidence short of the level).
  int max_rounds = 11;
  double budget_s = 900;        // seconds of rounds; the current round finishes
  int repeat = 11;              // wall samples per process, past the case's repeat while short
  SwapFiles files;
};

struct BisectFinding {
  Finding finding;
  Cause attribution;
};

struct BisectOutcome {
  int64_t bisect_id = 0;
  std::vector<SwapComponent> components;  // every component that differs
  std::vector<BisectFinding> findings;
  std::vector<std::string> skipped;       // findings not examined, and why
  int configurations = 0;
  int rounds = 0;
  double elapsed_s = 0;
  double budget_s = 0;
  std::vector<std::pair<std::string, double>> seconds;  // "baseline configuration", component -> s
};

// The outcome as people read it: what was swapped and what could not be,
// the cost, one line per finding with its attribution, the counts.
std::string FormatBisect(const BisectOutcome& outcome);
nlohmann::json BisectJson(const BisectOutcome& outcome);

}  // namespace harness
