// Findings grouped by kind and op and ranked by effect: what a person
// reads first in compare, run, the HTML report and summary.md.
#include "detect/grouping.h"

#include <gtest/gtest.h>

namespace {

using harness::Finding;
using harness::FindingKind;

Finding Make(const std::string& case_id, FindingKind kind, double ratio, const std::string& op = "") {
  Finding f;
  f.suite = "ops";
  f.case_id = case_id;
  f.kind = kind;
  f.metric = kind == FindingKind::kStatus ? "status" : "wall_us_median";
  f.baseline = kind == FindingKind::kStatus ? 0 : 100;
  f.candidate = kind == FindingKind::kStatus ? 1 : 100 * ratio;
  f.ratio = ratio;
  if (!op.empty()) f.blamed_ops = {{op, 12, "us"}};
  return f;
}

TEST(GroupingTest, StatusFirstThenGroupsByLargestEffectAndMembersByEffect) {
  std::vector<Finding> f = {
      Make("a_mm", FindingKind::kLatency, 1.4, "mm"),        Make("b_add", FindingKind::kLatency, 1.2, "add"),
      Make("c_mm", FindingKind::kLatency, 7.0, "mm"),        Make("d_mm", FindingKind::kLatency, 2.0, "mm"),
      Make("e_fail", FindingKind::kStatus, 0),               Make("e_fail", FindingKind::kAccuracy, 3.0),
      Make("f_model", FindingKind::kModeledLatency, 1.05, "mm")};
  harness::RankFindings(&f);
  std::vector<std::string> order;
  for (const Finding& x : f) order.push_back(x.case_id + ":" + harness::FindingKindName(x.kind));
  EXPECT_EQ(order, (std::vector<std::string>{"e_fail:status", "c_mm:latency", "d_mm:latency", "a_mm:latency",
                                             "e_fail:accuracy", "b_add:latency", "f_model:modeled_latency"}));
  const auto groups = harness::GroupFindings(f);
  ASSERT_EQ(groups.size(), 5u);
  EXPECT_EQ(groups[0].headline, "1 case of status");
  EXPECT_EQ(groups[1].headline, "3 cases of latency, all through mm, +40.0% to +600%");
  EXPECT_EQ(groups[1].members, (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(groups[2].headline, "1 case of accuracy, +200%");
  EXPECT_EQ(groups[3].headline, "1 case of latency, through add, +20.0%");
  // A dropped agreement is not told as a "-50%" beside errors that grew.
  Finding agreement = Make("g_dec", FindingKind::kAccuracy, 0.5);
  agreement.metric = "tokens/top1_agreement";
  EXPECT_EQ(harness::GroupFindings({agreement})[0].headline, "1 case of accuracy");
  // Cases, not rows: e_fail gave two findings.
  EXPECT_EQ(harness::RegressedCases(f), 6u);
}

TEST(GroupingTest, TheComparisonListsGroupsAndCountsCases) {
  harness::Comparison c;
  c.baseline_run.run_id = 1;
  c.candidate_run.run_id = 2;
  c.regressions = {Make("x", FindingKind::kStatus, 0), Make("x", FindingKind::kAccuracy, 2.0),
                   Make("y", FindingKind::kLatency, 3.0, "mm"), Make("z", FindingKind::kLatency, 1.5, "mm")};
  harness::RankFindings(&c.regressions);
  const std::string text = harness::FormatComparison(c);
  EXPECT_NE(text.find("regressions in 3 cases, 3 groups:\n  1 case of status\n    REGRESSION ops/x status"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  2 cases of latency, all through mm, +50.0% to +200%\n    REGRESSION ops/y"), std::string::npos)
      << text;
  const auto j = harness::ToJson(c);
  EXPECT_EQ(j["regressed_cases"], 3);
  ASSERT_EQ(j["groups"].size(), 3u);
  EXPECT_EQ(j["groups"][1]["op"], "mm");
  EXPECT_EQ(j["groups"][1]["findings"], (nlohmann::json{1, 2}));
}

}  // namespace
