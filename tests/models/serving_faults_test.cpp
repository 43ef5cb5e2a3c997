// The serving fault points read from a fault spec.
#include "serving_faults.h"

#include <gtest/gtest.h>

namespace {

using suites::ParseServingFaults;

TEST(ServingFaultsTest, FaultPointsPickARequestAndAStep) {
  const auto f = ParseServingFaults(
      "mm:slow=2; serving_drop:request=3,step=7;serving_free_early: request = 0 , step = 2", 4);
  EXPECT_EQ(f.error, "");
  EXPECT_EQ(f.faults.drop_request, 3);
  EXPECT_EQ(f.faults.drop_step, 7);
  EXPECT_EQ(f.faults.free_early_request, 0);
  EXPECT_EQ(f.faults.free_early_step, 2);
}

TEST(ServingFaultsTest, DeviceOpsAndOtherTracesAreLeftAlone) {
  const auto none = ParseServingFaults("mm:error=0.01;_softmax:nan", 4);
  EXPECT_EQ(none.error, "");
  EXPECT_EQ(none.faults.drop_request, -1);
  EXPECT_EQ(none.faults.free_early_request, -1);
  // Request 9 of a trace of 4: meant for another case.
  const auto beyond = ParseServingFaults("serving_drop:request=9,step=1", 4);
  EXPECT_EQ(beyond.error, "");
  EXPECT_EQ(beyond.faults.drop_request, -1);
}

TEST(ServingFaultsTest, AFaultPointWithoutItsRequestOrStepIsAnError) {
  const auto f = ParseServingFaults("serving_free_early:step=2", 4);
  EXPECT_NE(f.error.find("'serving_free_early' needs request=R"), std::string::npos) << f.error;
  EXPECT_NE(ParseServingFaults("serving_drop:nan", 4).error, "");
}

}  // namespace
