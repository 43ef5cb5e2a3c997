#include "harness/runner/progress.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "base/human_format.h"

namespace harness {
namespace {

constexpr int kBarWidth = 24;

const char* StatusColor(CaseStatus s) {
  switch (s) {
    case CaseStatus::kPassed: return "32";   // green
    case CaseStatus::kSkipped: return "33";  // yellow
    default: return "31";                    // red
  }
}

}  // namespace

ProgressStyle ChooseProgressStyle(std::FILE* stream, bool quiet) {
  if (quiet) return ProgressStyle::kQuiet;
  return ::isatty(::fileno(stream)) ? ProgressStyle::kBar : ProgressStyle::kLines;
}

bool UseColor(std::FILE* stream) {
  const char* no_color = std::getenv("NO_COLOR");
  return ::isatty(::fileno(stream)) && (no_color == nullptr || *no_color == '\0');
}

std::string FormatDuration(double seconds) {
  if (!(seconds >= 0) || std::isinf(seconds)) return "?";
  long s = std::lround(seconds);
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof(buf), "%lds", s);
  else if (s < 3600) std::snprintf(buf, sizeof(buf), "%ldm%02lds", s / 60, s % 60);
  else std::snprintf(buf, sizeof(buf), "%ldh%02ldm", s / 3600, s / 60 % 60);
  return buf;
}

ProgressPrinter::ProgressPrinter(std::FILE* out, ProgressStyle style, bool color, size_t total)
    : out_(out), style_(style), color_(color), total_(total) {}

std::string ProgressPrinter::Colored(const std::string& text, const char* code) const {
  if (!color_) return text;
  return std::string("\033[") + code + "m" + text + "\033[0m";
}

void ProgressPrinter::OnCaseStarted(const WorkItem& item) {
  current_ = item.suite + "/" + item.case_id;
  if (style_ == ProgressStyle::kBar) DrawBar();
}

void ProgressPrinter::OnCaseFinished(const CaseResult& r, size_t done, size_t total) {
  done_ = done;
  total_ = std::max(total_, total);
  const bool ok = r.status == CaseStatus::kPassed || r.status == CaseStatus::kSkipped;
  if (!ok) ++failed_;
  const bool show_line = style_ == ProgressStyle::kLines || !ok;
  if (show_line) {
    Clear();
    std::string line = "[" + std::to_string(done) + "/" + std::to_string(total) + "] " +
                       Colored(CaseStatusName(r.status), StatusColor(r.status)) + " " + r.suite +
                       "/" + r.case_id;
    const double median = r.WallMedianUs();
    if (!std::isnan(median)) line += " (" + HumanDuration(median) + ")";
    if (!ok && !r.message.empty()) line += ": " + r.message;
    std::fprintf(out_, "%s\n", line.c_str());
  }
  if (style_ == ProgressStyle::kBar) DrawBar();
  std::fflush(out_);
}

void ProgressPrinter::OnTimingRound(int round, int rounds) {
  if (style_ == ProgressStyle::kQuiet) return;
  Clear();
  if (round < rounds) {
    std::fprintf(out_, "timing round %d/%d: every case in a fresh worker\n", round, rounds);
  } else {
    std::fprintf(out_, "round %d/%d: the main pass\n", round, rounds);
  }
  std::fflush(out_);
}

void ProgressPrinter::DrawBar() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const int filled = total_ == 0 ? 0 : static_cast<int>(kBarWidth * done_ / total_);
  std::string bar(static_cast<size_t>(filled), '#');
  bar += std::string(static_cast<size_t>(kBarWidth - filled), '.');
  std::string eta = done_ == 0 ? "?" : FormatDuration(elapsed / done_ * (total_ - done_));
  std::string name = current_.size() > 40 ? "..." + current_.substr(current_.size() - 37) : current_;
  std::fprintf(out_, "\r\033[K[%s] %zu/%zu", bar.c_str(), done_, total_);
  if (failed_ > 0) std::fprintf(out_, " %s", Colored(std::to_string(failed_) + " failed", "31").c_str());
  std::fprintf(out_, "  ETA %s  %s", eta.c_str(), name.c_str());
  std::fflush(out_);
  bar_drawn_ = true;
}

void ProgressPrinter::Clear() {
  if (!bar_drawn_) return;
  std::fprintf(out_, "\r\033[K");
  bar_drawn_ = false;
}

}  // namespace harness
