#pragma once
// Confirmation of wall-time suspects: after the main pass, a case whose wall
// samples look changed against the baseline's (WallSuspect in
// harness/detect/detect.h) is re-timed in fresh worker processes before anything
// is reported. One process cannot show how much a case moves between
// processes (on a loaded 2-core host BLAS cases moved +-40-100%), so the
// verdict rests on one value per fresh process (Kalibera and Jones: only
// process-level replication measures the noise that separates two runs).
//
// When the baseline's configuration differs from the candidate's only in
// emulator settings (profile, faults, rounding, cores; BaselineWorkerSettings),
// it is re-timed too, in processes interleaved with the candidate's
// (C B B C C B ...), so both sides see the same machine: the judge then
// compares the two sets, and a change it finds is caused by the settings.
// When they differ at most in injected faults (an unchanged rerun, a run
// with --inject), every fresh process times both, one after the other, the
// device switching faults in place (WorkItem::paired; which side goes first
// alternates): whatever sets one process apart from the next moves both of
// its values alike, and the judge tests the log ratios of the pairs (a
// one-sample t-test over processes) instead of the two sets.
// Otherwise the candidate's processes are judged against the case's own
// between-run history at the baseline's environment.
//
// confirm_rounds processes per side at least; while a case is undecided
// (p not yet below the level the confirmed cases share, and an
// estimated change of at least wall_min_effect) more pairs follow, up to
// confirm_max_rounds, as long as the time budget lasts (ConfirmBudget). A case
// whose sets plainly overlap after four pairs (p >= 0.5, estimate inside the
// minimum effect) stops there: it cannot be confirmed, and most suspects of
// an unchanged run are such cases. The values are stored in the result's
// extra["confirm"] (WallConfirmation).
#include <string>
#include <vector>

#include "detect/thresholds.h"
#include "harness/runner/run.h"

namespace harness::runner_internal {

// The command line of a worker of `plan` with `threads` libtorch threads.
std::vector<std::string> WorkerArgv(const RunPlan& plan, int threads);

struct ConfirmOutcome {
  int suspects = 0;
  int rounds = 0;  // fresh processes per side for the longest-running case
  int futile = 0;  // suspects stopped early: plainly unchanged
  bool interleaved = false;
  bool paired = false;  // both configurations timed in every process (faults only differ)
  double elapsed_s = 0;
  bool interrupted = false;
  int signal_number = 0;
  int workers_started = 0;
  int workers_preloaded = 0;
  std::string summary;  // one line for the output; "" without suspects
};

// What the next interleaved pair of processes is for, given one value per
// process so far on each side (a sequential design: stop as soon as more
// processes cannot change the answer, so that the budget goes to the cases
// near the line). `round`: pairs timed so far.
enum class ConfirmStep { kMore, kDecided, kFutile };
// `paired`: value i of both sides came from process i (WorkItem::paired),
// and the evidence is the paired t-test of their log ratios rather than
// Mann-Whitney between the two sets.
ConfirmStep NextConfirmStep(const std::vector<double>& base_values,
                            const std::vector<double>& cand_values, int round, int min_rounds,
                            const ThresholdValues& v, bool paired = false);

// Whether two sets of process values are completely apart (paired: every
// process timed the same side slower). An undecided interleaved case goes
// on after the budget is spent only while they are. Such a case is a change whose evidence has
// not yet reached the level the run's confirmations share (fewer than eight
// processes a side cannot reach it by Mann-Whitney when tens of cases
// share it), and stopping there would turn it into a note.
bool SidesCompletelyApart(const std::vector<double>& base_values,
                          const std::vector<double>& cand_values, bool paired = false);

// The confirmation's time budget once its first round took first_round_s:
// the configured budget_s, raised to what `rounds` rounds take at that pace
// (with a 15% margin; later rounds re-time only the undecided cases, so they
// are shorter) but never beyond four times budget_s. On a loaded host a fixed
// budget otherwise ends the rounds while changed cases sit at p just above
// the level, and real changes become notes.
double ConfirmBudget(double budget_s, double first_round_s, int rounds);

// Re-times the suspects among `results` (the main pass of run `run_id`,
// already recorded) and stores their confirmation values. `log` (may be
// null) gets the plan line before the rounds start.
StatusOr<ConfirmOutcome> ConfirmWallSuspects(const RunPlan& plan, const SupervisorOptions& options,
                                             Store& store, int64_t run_id,
                                             const nlohmann::json& env,
                                             std::vector<CaseResult>* results, std::FILE* log);

}  // namespace harness::runner_internal
