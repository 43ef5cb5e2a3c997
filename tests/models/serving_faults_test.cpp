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

TEST(ServingFaultsTest, ASlowPrefillNamesItsRequestAndFactor) {
  const auto f = ParseServingFaults("mm:slow=2; serving_slow_prefill: request = 2 , slow = 3.5", 4);
  EXPECT_EQ(f.error, "");
  EXPECT_EQ(f.slow_prefill.request, 2);
  EXPECT_DOUBLE_EQ(f.slow_prefill.factor, 3.5);
  EXPECT_EQ(f.faults.drop_request, -1);
  // Its step is the request's prefill: a step= is refused, as is a
  // factor that would not slow it.
  for (const char* bad : {"serving_slow_prefill:request=2,step=1,slow=3",
                          "serving_slow_prefill:request=2", "serving_slow_prefill:slow=3",
                          "serving_slow_prefill:request=2,slow=1"}) {
    const auto e = ParseServingFaults(bad, 4);
    EXPECT_NE(e.error.find("'serving_slow_prefill' needs request=R"), std::string::npos)
        << bad << ": " << e.error;
    EXPECT_EQ(e.slow_prefill.request, -1) << bad;
  }
  EXPECT_EQ(ParseServingFaults("serving_slow_prefill:request=9,slow=3", 4).slow_prefill.request,
            -1);
}

}  // namespace
