#pragma once
// What `run` shows while cases finish (on stderr; the summary and --json go
// where the verb says). Three styles:
//   kBar    a terminal: one self-rewriting line with a bar, counts and ETA;
//           failing cases are printed above it as they happen
//   kLines  not a terminal: one plain line per finished case
//   kQuiet  --quiet: only the cases that did not pass
// Colour only on a terminal and only when NO_COLOR is unset or empty.
#include <chrono>
#include <cstdio>
#include <string>

#include "harness/runner/supervisor.h"

namespace harness {

enum class ProgressStyle { kBar, kLines, kQuiet };

// kBar when `stream` is a terminal and not quiet, else kLines / kQuiet.
ProgressStyle ChooseProgressStyle(std::FILE* stream, bool quiet);
// True when `stream` is a terminal and NO_COLOR is unset or empty.
bool UseColor(std::FILE* stream);

// "1:05" / "12s"-style durations for the ETA ("3s", "2m05s", "1h02m").
std::string FormatDuration(double seconds);

class ProgressPrinter : public RunListener {
 public:
  ProgressPrinter(std::FILE* out, ProgressStyle style, bool color, size_t total);
  void OnCaseStarted(const WorkItem& item) override;
  void OnCaseFinished(const CaseResult& result, size_t done, size_t total) override;
  void OnTimingRound(int round, int rounds) override;
  // Clears the bar line (call before printing anything else).
  void Clear();

 private:
  void DrawBar();
  std::string Colored(const std::string& text, const char* code) const;

  std::FILE* out_;
  ProgressStyle style_;
  bool color_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  size_t done_ = 0, total_ = 0, failed_ = 0;
  std::string current_;
  bool bar_drawn_ = false;
};

}  // namespace harness
