#include "base/case_result.h"

#include <cmath>

#include <gtest/gtest.h>

namespace {

TEST(CaseResultTest, JsonRoundTripKeepsEverythingIncludingNonFinite) {
  harness::CaseResult r;
  r.suite = "ops";
  r.case_id = "mm/fp16/64x65x66";
  r.status = harness::CaseStatus::kFailed;
  r.message = "max_ulp 17 > 2";
  r.max_abs_err = 0.5;
  r.max_ulp = INFINITY;
  r.metrics.push_back({"out0", "max_ulp", 17, 2, true});
  r.wall_us = {10.5, 11.0, std::nan("")};
  r.queue_us = {0.5, 0, 2};
  r.modeled_us = 3.25;
  r.fallback_ops = 2;
  r.peak_device_bytes = 262144;
  r.ops.push_back({"mm", 1, 3.25, 9.0, 0});
  r.extra = {{"tokens", {1, 2, 3}}};
  auto back = harness::CaseResultFromJson(nlohmann::json::parse(ToJson(r).dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->case_id, r.case_id);
  EXPECT_EQ(back->status, harness::CaseStatus::kFailed);
  EXPECT_TRUE(std::isinf(back->max_ulp));
  EXPECT_TRUE(std::isnan(back->rel_l2));
  EXPECT_TRUE(std::isnan(back->wall_us[2]));
  EXPECT_EQ(back->queue_us, (std::vector<double>{0.5, 0, 2}));
  EXPECT_EQ(back->metrics[0].limit, 2);
  EXPECT_TRUE(back->metrics[0].failed);
  EXPECT_EQ(back->ops[0].op, "mm");
  EXPECT_EQ(back->peak_device_bytes, 262144);
  EXPECT_EQ(back->extra["tokens"][2], 3);
}

TEST(CaseResultTest, MalformedJsonIsAnErrorNotACrash) {
  EXPECT_FALSE(harness::CaseResultFromJson(nlohmann::json::parse(R"({"suite":"x"})")).ok());
  EXPECT_FALSE(harness::CaseResultFromJson(
      nlohmann::json::parse(R"({"suite":"x","case_id":"y","status":"exploded"})")).ok());
}

TEST(CaseResultTest, WallMedian) {
  harness::CaseResult r;
  EXPECT_TRUE(std::isnan(r.WallMedianUs()));
  r.wall_us = {5, 1, 3};
  EXPECT_EQ(r.WallMedianUs(), 3);
  r.wall_us = {4, 1, 3, 2};
  EXPECT_EQ(r.WallMedianUs(), 2.5);
}

}  // namespace
