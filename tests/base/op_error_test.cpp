// The torch-free half of the shadow check: the summary of one execution's
// op calls, reading it back from a case result, and the failure message.
#include "base/op_error.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace {

using harness::OpCall;

OpCall Checked(const std::string& op, int64_t seq, int depth, double rel_l2, double level = 0.002) {
  OpCall c;
  c.op = op;
  c.seq = seq;
  c.depth = depth;
  c.checked = true;
  c.rel_l2 = rel_l2;
  c.max_abs = rel_l2 * 10;
  c.level = level;
  return c;
}

OpCall Composite(const std::string& op, int64_t seq, int depth, double rel_l2) {
  OpCall c = Checked(op, seq, depth, rel_l2);
  c.composite = true;
  return c;
}

OpCall Skipped(const std::string& op, int64_t seq, int depth, const std::string& why) {
  OpCall c;
  c.op = op;
  c.seq = seq;
  c.depth = depth;
  c.skipped = why;
  return c;
}

harness::CaseResult WithSummary(const nlohmann::json& summary) {
  harness::CaseResult r;
  r.status = harness::CaseStatus::kFailed;
  r.message = "out0 failed element_bound";
  r.extra["op_error"] = summary;
  return r;
}

TEST(OpErrorTest, TheInnermostOpOfTheFirstDepartureIsNamed) {
  // linear (start 10) { t (view), addmm (departs) }, then a second linear
  // whose mm departs, then softmax: recorded in the order calls end.
  const std::vector<OpCall> calls = {
      Skipped("t", 11, 1, "view or in-place"),   Checked("addmm", 12, 1, 0.01),
      Composite("linear", 10, 0, 0.01),          Checked("relu", 13, 0, 0.0005),
      Checked("mm", 15, 1, 0.02),                Composite("linear", 14, 0, 0.02),
      Checked("_softmax", 16, 0, 0.0007)};
  const harness::CaseResult r = WithSummary(harness::SummarizeOpCalls(calls));
  const auto d = harness::DepartedOp(r);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->op, "addmm");
  EXPECT_EQ(d->first_call, 3);  // linear 1, t 2, addmm 3 in start order
  EXPECT_EQ(d->depth, 1);
  EXPECT_DOUBLE_EQ(d->rel_l2, 0.01);
  EXPECT_EQ(harness::OpErrorCallCount(r), 7);
  EXPECT_EQ(r.extra["op_error"]["checked_calls"], 6);
  EXPECT_EQ(r.extra["op_error"]["skipped_calls"], 1);
  EXPECT_EQ(r.extra["op_error"]["skipped"]["view or in-place"], 1);

  const auto ops = harness::ReadOpErrors(r);
  ASSERT_EQ(ops.size(), 5u);  // in the order of their first calls
  EXPECT_EQ(ops[0].op, "linear");
  EXPECT_EQ(ops[0].calls, 2);
  EXPECT_EQ(ops[0].first_call, 1);
  EXPECT_DOUBLE_EQ(ops[0].rel_l2, 0.02);  // the worst call
  EXPECT_TRUE(ops[0].composite);
  EXPECT_EQ(ops[0].departed_calls, 0);  // its inner ops are judged
  EXPECT_EQ(ops[1].departed_calls, 1);
  EXPECT_FALSE(ops[1].composite);
  EXPECT_EQ(ops[1].op, "addmm");
  EXPECT_EQ(ops[2].op, "relu");
  EXPECT_EQ(ops[2].departed_calls, 0);
  EXPECT_EQ(ops[3].op, "mm");
  EXPECT_EQ(ops[3].first_call, 6);
  EXPECT_EQ(ops[4].op, "_softmax");
}

TEST(OpErrorTest, ACompositeAboveTheLevelWithQuietInnerOpsDoesNotDepart) {
  // Attention as one CPU run in fp32 against the device's chain of rounded
  // intermediates: above the level, though no op inside it is.
  const harness::CaseResult r = WithSummary(harness::SummarizeOpCalls(
      {Checked("bmm", 1, 1, 0.0005), Checked("_softmax", 2, 1, 0.0006),
       Checked("bmm", 3, 1, 0.0005), Composite("spyre::gqa_attention", 0, 0, 0.005)}));
  EXPECT_FALSE(harness::DepartedOp(r).has_value());
  const auto ops = harness::ReadOpErrors(r);
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].op, "spyre::gqa_attention");
  EXPECT_GT(ops[0].rel_l2, ops[0].level);
  EXPECT_EQ(ops[0].departed_calls, 0);
}

TEST(OpErrorTest, AFailedCaseNamesTheDepartedOp) {
  harness::CaseResult r = WithSummary(harness::SummarizeOpCalls(
      {Checked("add", 0, 0, 0.0003), Checked("mm", 1, 0, 0.0098), Checked("add", 2, 0, 0.0004)}));
  harness::NameDepartedOp(&r);
  EXPECT_EQ(r.message,
            "out0 failed element_bound; first departing op: mm (call 2 of 3, local rel_l2 0.0098)");
  // A case that passed keeps its message; so does one with no departure.
  harness::CaseResult passed = r;
  passed.status = harness::CaseStatus::kPassed;
  passed.message = "";
  harness::NameDepartedOp(&passed);
  EXPECT_EQ(passed.message, "");
  harness::CaseResult clean = WithSummary(harness::SummarizeOpCalls({Checked("mm", 0, 0, 0.0005)}));
  harness::NameDepartedOp(&clean);
  EXPECT_EQ(clean.message, "out0 failed element_bound");
  EXPECT_FALSE(harness::DepartedOp(clean).has_value());
}

TEST(OpErrorTest, NonFiniteErrorsDepartAndSurviveTheRoundTrip) {
  const double inf = std::numeric_limits<double>::infinity();
  const nlohmann::json s = harness::SummarizeOpCalls(
      {Checked("exp", 0, 0, inf), Checked("mm", 1, 0, std::nan(""))});
  // Through text, as the worker pipe and the store carry it.
  harness::CaseResult r = WithSummary(nlohmann::json::parse(s.dump()));
  const auto d = harness::DepartedOp(r);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->op, "exp");
  EXPECT_TRUE(std::isinf(d->rel_l2));
  const auto ops = harness::ReadOpErrors(r);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_TRUE(std::isnan(ops[1].rel_l2));
  EXPECT_EQ(ops[1].departed_calls, 1);
}

TEST(OpErrorTest, ResultsWithoutTheCheckReadAsEmpty) {
  harness::CaseResult r;
  EXPECT_TRUE(harness::ReadOpErrors(r).empty());
  EXPECT_FALSE(harness::DepartedOp(r).has_value());
  r.extra["op_error"] = {{"error", "the checked run failed: boom"}};
  EXPECT_TRUE(harness::ReadOpErrors(r).empty());
  EXPECT_FALSE(harness::DepartedOp(r).has_value());
  r.extra["op_error"] = {{"ops", {{{"op", 3}}}}, {"departed", nullptr}};
  EXPECT_TRUE(harness::ReadOpErrors(r).empty());
}

TEST(OpErrorTest, TheLevelIsUnitsOfTheOutputFormatWithAFloor) {
  EXPECT_DOUBLE_EQ(harness::DepartureLevel(1.0 / 1024), harness::kDepartureUlps / 1024);
  EXPECT_DOUBLE_EQ(harness::DepartureLevel(std::ldexp(1.0, -24)), harness::kDepartureFloor);
}

}  // namespace
