#include "harness/status.h"

#include <gtest/gtest.h>

namespace {

harness::Status FailsWhenNegative(int x) {
  if (x < 0) return harness::InvalidInput("negative");
  return harness::Status::Ok();
}

harness::Status Chain(int x) {
  SPYRE_RETURN_IF_ERROR(FailsWhenNegative(x));
  return harness::NotFound("reached the end");
}

TEST(StatusTest, ReturnIfErrorStopsAtTheFirstFailure) {
  EXPECT_EQ(Chain(-1).code(), harness::ErrorCode::kInvalidInput);
  EXPECT_EQ(Chain(1).code(), harness::ErrorCode::kNotFound);
}

TEST(StatusTest, StatusOrCarriesValueOrError) {
  harness::StatusOr<int> v = 3;
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 3);
  harness::StatusOr<int> e = harness::IoError("disk full");
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), "disk full");
  harness::StatusOr<int> bad = harness::Status::Ok();
  EXPECT_EQ(bad.status().code(), harness::ErrorCode::kInternal);
}

TEST(StatusTest, WithContextPrefixesTheMessage) {
  auto s = harness::InvalidInput("bad").WithContext("suites/ops.json");
  EXPECT_EQ(s.message(), "suites/ops.json: bad");
  EXPECT_TRUE(harness::Status::Ok().WithContext("x").ok());
}

}  // namespace
