// What `run` prints while cases finish, in the plain styles (a pipe is not a
// terminal), and the ETA formatting.
#include "harness/runner/progress.h"

#include <cstdio>

#include <gtest/gtest.h>

namespace harness {
namespace {

std::string Capture(ProgressStyle style, const std::vector<CaseResult>& results) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = ::open_memstream(&buf, &size);
  {
    ProgressPrinter p(f, style, /*color=*/false, results.size());
    for (size_t i = 0; i < results.size(); ++i) {
      p.OnCaseStarted({results[i].suite, results[i].case_id, 1});
      p.OnCaseFinished(results[i], i + 1, results.size());
    }
  }
  std::fclose(f);
  std::string out(buf, size);
  std::free(buf);
  return out;
}

CaseResult R(const std::string& id, CaseStatus s, const std::string& msg = "") {
  CaseResult r;
  r.suite = "smoke";
  r.case_id = id;
  r.status = s;
  r.message = msg;
  return r;
}

TEST(ProgressTest, LinesStyleShowsEveryCase) {
  std::string out = Capture(ProgressStyle::kLines, {R("a", CaseStatus::kPassed), R("b", CaseStatus::kCrashed, "signal 11")});
  EXPECT_EQ(out, "[1/2] passed smoke/a\n[2/2] crashed smoke/b: signal 11\n");
}

TEST(ProgressTest, CaseTimesScaleTheirUnit) {
  CaseResult fast = R("fast", CaseStatus::kPassed);
  fast.wall_us = {2.22, 2.22, 2.23};
  CaseResult slow = R("slow", CaseStatus::kPassed);
  slow.wall_us = {64400, 64400};
  CaseResult tiny = R("tiny", CaseStatus::kPassed);
  tiny.wall_us = {0.5};
  std::string out = Capture(ProgressStyle::kLines, {fast, slow, tiny});
  EXPECT_EQ(out,
            "[1/3] passed smoke/fast (2.22 us)\n[2/3] passed smoke/slow (64.4 ms)\n"
            "[3/3] passed smoke/tiny (500 ns)\n");
}

TEST(ProgressTest, QuietStyleShowsOnlyProblems) {
  std::string out = Capture(ProgressStyle::kQuiet, {R("a", CaseStatus::kPassed), R("b", CaseStatus::kTimeout, "no result")});
  EXPECT_EQ(out, "[2/2] timeout smoke/b: no result\n");
}

TEST(ProgressTest, BarRewritesOneLine) {
  std::string out = Capture(ProgressStyle::kBar, {R("a", CaseStatus::kPassed)});
  EXPECT_NE(out.find("\r\033[K["), std::string::npos);
  EXPECT_NE(out.find("1/1"), std::string::npos);
  EXPECT_EQ(out.find('\n'), std::string::npos);
}

std::string CaptureRounds(ProgressStyle style, int rounds) {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = ::open_memstream(&buf, &size);
  {
    ProgressPrinter p(f, style, /*color=*/false, 1);
    for (int r = 1; r <= rounds; ++r) p.OnTimingRound(r, rounds);
  }
  std::fclose(f);
  std::string out(buf, size);
  std::free(buf);
  return out;
}

TEST(ProgressTest, TimingRoundsAreAnnouncedExceptWhenQuiet) {
  EXPECT_EQ(CaptureRounds(ProgressStyle::kLines, 3),
            "timing round 1/3: every case in a fresh worker\n"
            "timing round 2/3: every case in a fresh worker\n"
            "round 3/3: the main pass\n");
  EXPECT_EQ(CaptureRounds(ProgressStyle::kQuiet, 3), "");
}

TEST(ProgressTest, DurationsReadWell) {
  EXPECT_EQ(FormatDuration(4.4), "4s");
  EXPECT_EQ(FormatDuration(125), "2m05s");
  EXPECT_EQ(FormatDuration(3720), "1h02m");
  EXPECT_EQ(FormatDuration(-1), "?");
}

}  // namespace
}  // namespace harness
