#pragma once
// How large a wall-time change a case's comparison could have found: the
// detection power a run bought, case by case (Comparison::power).
#include <string>
#include <vector>

namespace harness::detect_rules {

// The evidence a case's wall-time verdict rests on, as the judge used it.
enum class PowerBasis {
  kPaired,       // both configurations in every fresh process: a paired t-test of log ratios
  kInterleaved,  // fresh processes of each configuration, in turn: Mann-Whitney
  kHistory,      // fresh processes (or this run) against the case's run-to-run history
  kRounds,       // both runs' timing rounds, and how far whole runs move by themselves
  kScreen,       // none of those: the main pass's screen for suspects decided "unchanged"
};
const char* PowerBasisName(PowerBasis basis);

// The level of the screen for wall-time suspects (WallSuspect): lenient on
// purpose, since a suspect costs a few fresh processes and a missed one a
// missed regression.
inline constexpr double kWallSuspectAlpha = 0.1;

// The smallest change, as a log ratio, that evidence with standard error
// `se` (of the log shift, `df` degrees of freedom) reports with probability
// 0.95 in a two-sided test at `level`: (t[1-level/2] + t[0.95]) * se, and
// never less than `floor` (changes smaller than the minimum effect are not
// reported at all). NaN when se is not finite or df < 1.
double DetectableLogShift(double se, double df, double level, double floor);

// The standard error of the log shift and its degrees of freedom for two
// sets of log values: paired (value i of each side from process i), or
// independent (a pooled variance; Mann-Whitney's efficiency against the
// t-test, 3/pi, widens it). df 0 when a side has fewer than two values.
struct ShiftError {
  double se = 0;
  double df = 0;
};
ShiftError PairedShiftError(const std::vector<double>& base_logs,
                            const std::vector<double>& cand_logs);
ShiftError IndependentShiftError(const std::vector<double>& base_logs,
                                 const std::vector<double>& cand_logs);

}  // namespace harness::detect_rules
