// The supervisor with scripted workers (fake_worker.cpp): every way a worker
// can end becomes a result for its case, the worker is replaced, the run goes on.
#include "harness/runner/supervisor.h"

#include <csignal>
#include <map>

#include <gtest/gtest.h>

#include "base/stats.h"

namespace harness {
namespace {

struct Collected {
  std::map<std::string, CaseResult> by_case;
  std::vector<std::string> order;
};

RecordFn Collect(Collected* c) {
  return [c](const CaseResult& r) {
    c->by_case[r.case_id] = r;
    c->order.push_back(r.case_id);
    return Status::Ok();
  };
}

std::vector<WorkItem> Items(const std::vector<std::string>& ids, double timeout_s = 10) {
  std::vector<WorkItem> items;
  for (const auto& id : ids) items.push_back({"fake", id, timeout_s});
  return items;
}

SupervisorOptions Options(int jobs) {
  SupervisorOptions o;
  o.worker_argv = {RUNNER_FAKE_WORKER, "1"};
  o.jobs = jobs;
  o.expected_threads = 1;
  return o;
}

TEST(SupervisorTest, EveryWayAWorkerEndsBecomesAResultAndTheRunGoesOn) {
  Collected c;
  auto items = Items({"pass1", "segv1", "pass2", "abort1", "pass3", "throw1", "exit1", "hang1",
                      "fail1", "noise1", "pass4"}, /*timeout_s=*/1.5);
  auto out = RunCases(items, Options(2), Collect(&c), nullptr);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(out->interrupted);
  EXPECT_EQ(out->finished, items.size());
  ASSERT_EQ(c.by_case.size(), items.size());
  for (const char* id : {"pass1", "pass2", "pass3", "pass4", "noise1"}) {
    EXPECT_EQ(c.by_case[id].status, CaseStatus::kPassed) << id << ": " << c.by_case[id].message;
  }
  EXPECT_EQ(c.by_case["fail1"].status, CaseStatus::kFailed);
  EXPECT_EQ(c.by_case["segv1"].status, CaseStatus::kCrashed);
  EXPECT_NE(c.by_case["segv1"].message.find("signal 11 (SIGSEGV)"), std::string::npos) << c.by_case["segv1"].message;
  EXPECT_EQ(c.by_case["abort1"].status, CaseStatus::kCrashed);
  EXPECT_NE(c.by_case["abort1"].message.find("SIGABRT"), std::string::npos);
  EXPECT_NE(c.by_case["abort1"].message.find("aborting on abort1"), std::string::npos)
      << "the worker's last output belongs in the message: " << c.by_case["abort1"].message;
  EXPECT_EQ(c.by_case["exit1"].status, CaseStatus::kCrashed);
  EXPECT_NE(c.by_case["exit1"].message.find("exited with code 3"), std::string::npos);
  EXPECT_EQ(c.by_case["throw1"].status, CaseStatus::kError);
  EXPECT_NE(c.by_case["throw1"].message.find("boom in throw1"), std::string::npos);
  EXPECT_EQ(c.by_case["hang1"].status, CaseStatus::kTimeout);
  EXPECT_NE(c.by_case["hang1"].message.find("1.5 s case timeout"), std::string::npos) << c.by_case["hang1"].message;
  // Two initial workers plus a replacement per segv, abort, exit and hang
  // while cases remain.
  EXPECT_GE(out->workers_started, 5);  // the last death may need no replacement
  EXPECT_LE(out->workers_started, 6);
  EXPECT_TRUE(c.by_case["pass1"].extra.contains("harness"));
}

TEST(SupervisorTest, OneJobKeepsTheOrder) {
  Collected c;
  auto items = Items({"pass1", "fail1", "pass2", "pass3"});
  auto out = RunCases(items, Options(1), Collect(&c), nullptr);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(c.order, (std::vector<std::string>{"pass1", "fail1", "pass2", "pass3"}));
  EXPECT_EQ(out->workers_started, 1);
}

TEST(SupervisorTest, WorkersThatNeverStartAreAnError) {
  Collected c;
  SupervisorOptions o = Options(1);
  o.worker_argv = {"/bin/sh", "-c", "echo cannot load libtorch >&2; exit 5"};
  auto out = RunCases(Items({"pass1"}), o, Collect(&c), nullptr);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("cannot load libtorch"), std::string::npos) << out.status().message();
  EXPECT_TRUE(c.by_case.empty());
}

TEST(SupervisorTest, AThreadCountOtherThanAskedIsAnError) {
  Collected c;
  SupervisorOptions o = Options(1);
  o.expected_threads = 4;
  auto out = RunCases(Items({"pass1"}), o, Collect(&c), nullptr);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("4 were asked for"), std::string::npos);
}

TEST(SupervisorTest, ARecordFailureStopsTheRun) {
  int calls = 0;
  RecordFn failing = [&calls](const CaseResult&) {
    return ++calls == 2 ? IoError("disk full") : Status::Ok();
  };
  auto out = RunCases(Items({"pass1", "pass2", "pass3", "pass4"}), Options(1), failing, nullptr);
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(), "disk full");
  EXPECT_EQ(calls, 2);
}

// SIGTERM mid-run: workers are stopped, what finished is kept, the rest is not run.
class InterruptAfter : public RunListener {
 public:
  explicit InterruptAfter(size_t n) : n_(n) {}
  void OnCaseFinished(const CaseResult&, size_t done, size_t) override {
    if (done == n_) std::raise(SIGTERM);
  }

 private:
  size_t n_;
};

TEST(SupervisorTest, SigtermStopsTheRunKeepingFinishedResults) {
  Collected c;
  InterruptAfter listener(2);
  auto out = RunCases(Items({"slow1", "slow2", "slow3", "slow4", "slow5"}), Options(1), Collect(&c), &listener);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_TRUE(out->interrupted);
  EXPECT_EQ(out->signal_number, SIGTERM);
  EXPECT_EQ(out->finished, 2u);
  EXPECT_EQ(c.by_case.size(), 2u);
}

// A timing round's item reaches the worker as one that judges nothing; an
// ordinary item as one that does.
TEST(SupervisorTest, AnItemThatIsNotJudgedIsSentAsSuch) {
  Collected c;
  auto items = Items({"pass1", "pass2"});
  items[1].judged = false;
  auto out = RunCases(items, Options(1), Collect(&c), nullptr);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_FALSE(c.by_case["pass1"].extra.contains("judged"));
  EXPECT_EQ(c.by_case["pass2"].extra.value("judged", true), false);
  EXPECT_EQ(out->workers_preloaded, 0);  // an exec'd program of its own
}

// A paired item is run twice in one worker, once under each fault spec in
// the order asked; the answer is the candidate's result carrying the
// baseline's, and the candidate's faults stay in force for the next case.
TEST(SupervisorTest, APairedItemTimesBothFaultSpecsInOneWorker) {
  for (const bool baseline_first : {true, false}) {
    Collected c;
    auto items = Items({"pair1", "pass2"});
    items[0].paired = WorkItem::Paired{"", "x10", baseline_first};
    auto out = RunCases(items, Options(1), Collect(&c), nullptr);
    ASSERT_TRUE(out.ok()) << out.status().message();
    EXPECT_EQ(out->workers_started, 1);
    const CaseResult& cand = c.by_case["pair1"];
    ASSERT_EQ(cand.status, CaseStatus::kPassed) << cand.message;
    ASSERT_TRUE(cand.extra.contains("paired_baseline"));
    auto base = CaseResultFromJson(cand.extra["paired_baseline"]);
    ASSERT_TRUE(base.ok()) << base.status().message();
    ASSERT_EQ(base->wall_us.size(), 3u);
    ASSERT_EQ(cand.wall_us.size(), 3u);
    // 100 or 1000 for the spec, plus how many cases the worker ran before.
    EXPECT_EQ(base->wall_us[0], baseline_first ? 100 : 101);
    EXPECT_EQ(cand.wall_us[0], baseline_first ? 1001 : 1000);
    EXPECT_EQ(cand.extra.value("faults", ""), "x10");
    EXPECT_EQ(c.by_case["pass2"].extra.value("faults", ""), "x10");
  }
}

// A kind that samples through TakeWallSamples alternates the two specs
// sample by sample (A B B A ...), the side asked for first opening the first
// group; the baseline's samples come back as its own, and its untimed pass
// adds no samples.
TEST(SupervisorTest, APairedItemAlternatesTheSpecsSampleBySample) {
  for (const bool baseline_first : {true, false}) {
    Collected c;
    auto items = Items({"ipair1"});
    items[0].paired = WorkItem::Paired{"", "x10", baseline_first};
    auto out = RunCases(items, Options(1), Collect(&c), nullptr);
    ASSERT_TRUE(out.ok()) << out.status().message();
    const CaseResult& cand = c.by_case["ipair1"];
    ASSERT_EQ(cand.status, CaseStatus::kPassed) << cand.message;
    EXPECT_EQ(cand.extra.value("paired_sampling", ""), "interleaved");
    EXPECT_EQ(cand.extra.value("sequence", ""), baseline_first ? "bccbbccb" : "cbbccbbc");
    EXPECT_FALSE(cand.extra.contains("paired_wall_us"));
    auto base = CaseResultFromJson(cand.extra["paired_baseline"]);
    ASSERT_TRUE(base.ok()) << base.status().message();
    ASSERT_EQ(base->wall_us.size(), 4u);
    ASSERT_EQ(cand.wall_us.size(), 4u);
    // 100 us against 20 ms a call: the sides were not mixed up.
    EXPECT_LT(Median(base->wall_us) * 5, Median(cand.wall_us));
    EXPECT_EQ(base->queue_us.size(), cand.queue_us.size());
  }
}

TEST(SupervisorTest, APairedItemWhoseFaultsCannotBeSwitchedIsAnError) {
  Collected c;
  auto items = Items({"pair1"});
  items[0].paired = WorkItem::Paired{"refuse", "x10", true};
  auto out = RunCases(items, Options(1), Collect(&c), nullptr);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(c.by_case["pair1"].status, CaseStatus::kError);
  EXPECT_NE(c.by_case["pair1"].message.find("refused fault spec 'refuse'"), std::string::npos)
      << c.by_case["pair1"].message;
}

TEST(SupervisorTest, NoItemsStartsNoWorker) {
  Collected c;
  auto out = RunCases({}, Options(4), Collect(&c), nullptr);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->workers_started, 0);
}

}  // namespace
}  // namespace harness
