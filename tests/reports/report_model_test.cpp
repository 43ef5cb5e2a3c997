// The report model over the fixture store: verdict, baseline, comparison,
// fallback coverage and history charts with change points and version marks.
#include "reports/report_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "fixture_store.h"
#include "store/store.h"
#include "support/temp_dir.h"

namespace reports_test {
namespace {

class ReportModelTest : public ::testing::Test {
 protected:
  void SetUp() override { model_ = FixtureModel(dir_.File("store.db")); }
  spyre_test::TempDir dir_;
  reports::ReportModel model_;
};

TEST_F(ReportModelTest, VerdictAndCounts) {
  EXPECT_EQ(model_.verdict, reports::Verdict::kFailed);  // a failed case wins over regressions
  EXPECT_EQ(model_.counts.total(), 7);
  EXPECT_EQ(model_.counts.passed, 4);
  EXPECT_EQ(model_.counts.failed, 1);
  EXPECT_EQ(model_.counts.crashed, 1);
  EXPECT_EQ(model_.counts.skipped, 1);
  ASSERT_EQ(model_.suites.size(), 2u);
  EXPECT_EQ(model_.suites[0].name, "decode");
  EXPECT_EQ(model_.suites[1].name, "ops");
}

TEST_F(ReportModelTest, UsesTheBaselineDetectionRecorded) {
  ASSERT_TRUE(model_.baseline.has_value());
  EXPECT_EQ(model_.baseline->run_id, 5);
  ASSERT_TRUE(model_.comparison.has_value());
  bool blas_upstream = false;
  for (const auto& e : model_.comparison->env_diff)
    blas_upstream |= e.component == "blas" && e.upstream;
  EXPECT_TRUE(blas_upstream);
  bool mm = false;
  for (const auto& f : model_.comparison->regressions) {
    mm |= f.case_id == "mm/64x64" && f.kind == harness::FindingKind::kModeledLatency;
  }
  EXPECT_TRUE(mm);
  EXPECT_NE(model_.attribution.find("blas"), std::string::npos) << model_.attribution;
}

TEST_F(ReportModelTest, FallbackCoveragePerSuiteAndOp) {
  const reports::SuiteSection& ops = model_.suites[1];
  EXPECT_EQ(ops.fallback_ops, 2);
  EXPECT_EQ(ops.cases_with_fallback, 1);
  ASSERT_EQ(ops.fallbacks_by_op.count("native_layer_norm"), 1u);
  EXPECT_EQ(ops.fallbacks_by_op.at("native_layer_norm"), 2);
  EXPECT_EQ(ops.calls_by_op.at("native_layer_norm"), 2);
}

TEST_F(ReportModelTest, FlaggedCaseChartMarksChangePointAndVersionChange) {
  const reports::Chart* mm = nullptr;
  for (const auto& c : model_.case_charts) {
    if (c.case_name == "mm/64x64" && c.metric == "modeled_us") mm = &c;
  }
  ASSERT_NE(mm, nullptr);
  ASSERT_EQ(mm->points.size(), 8u);
  EXPECT_EQ(mm->current_run_id, 8);
  ASSERT_EQ(mm->versions.size(), 1u);
  EXPECT_EQ(mm->versions[0].index, 5u);  // run 6, where BLAS changed
  ASSERT_EQ(mm->shifts.size(), 1u);
  EXPECT_EQ(mm->shifts[0].first_run_id, 6);
}

TEST_F(ReportModelTest, EverySuiteHasGeomeanCharts) {
  for (const auto& s : model_.suites) {
    ASSERT_EQ(s.charts.size(), 2u) << s.name;
    EXPECT_EQ(s.charts[0].metric, "modeled_us");
    EXPECT_EQ(s.charts[0].points.size(), 8u);
  }
}

// A result's kind, read from its metrics, picks its table's columns: a
// serving trace records KV blocks beside its latency; a decode case tokens.
TEST(ReportCaseKind, ServingTracesAreToldFromDecodeCases) {
  harness::CaseResult serving;
  serving.metrics = {{"r00", "top1_agreement", 1, std::nan(""), false},
                     {"latency", "ttft_us", 10, std::nan(""), false},
                     {"kv", "kv_blocks_peak", 8, std::nan(""), false}};
  EXPECT_EQ(reports::CaseKindOf(serving), "serving");
  harness::CaseResult decode;
  decode.metrics = {{"tokens", "top1_agreement", 1, std::nan(""), false},
                    {"latency", "ttft_us", 10, std::nan(""), false}};
  EXPECT_EQ(reports::CaseKindOf(decode), "decode");
  // A timing case's serving trace: modeled figures only, output "time".
  harness::CaseResult timed;
  timed.metrics = {{"time", "r00.modeled_ttft_us", 10, std::nan(""), false},
                   {"time", "modeled_ttft_p50_us", 10, std::nan(""), false},
                   {"time", "modeled_us", 100, std::nan(""), false}};
  EXPECT_EQ(reports::CaseKindOf(timed), "timed_serving");
  harness::CaseResult pass;
  pass.metrics = {{"time", "modeled_us", 100, std::nan(""), false},
                  {"figure", "modeled", 100, std::nan(""), false}};
  EXPECT_EQ(reports::CaseKindOf(pass), "op");
}

TEST(ReportModelErrors, MissingRunAndEmptyStoreAreNotFound) {
  spyre_test::TempDir dir;
  auto store = harness::Store::Open(dir.File("empty.db"));
  ASSERT_TRUE(store.ok());
  auto latest = reports::LatestRunId(**store);
  ASSERT_FALSE(latest.ok());
  EXPECT_EQ(latest.status().code(), harness::ErrorCode::kNotFound);
  auto model = reports::BuildReportModel(**store, 42, {});
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().code(), harness::ErrorCode::kNotFound);
  EXPECT_NE(model.status().message().find("42"), std::string::npos);
}

}  // namespace
}  // namespace reports_test
