#include "base/status.h"

#include <string>

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

harness::StatusOr<std::string> Named(int x) {
  if (x < 0) return harness::InvalidInput("negative");
  return std::string(static_cast<size_t>(x), 'x');
}

// Declares from one StatusOr and assigns from another, both in one function.
harness::StatusOr<size_t> TotalLength(int a, int b) {
  SPYRE_ASSIGN_OR_RETURN(std::string first, Named(a));
  std::string second;
  SPYRE_ASSIGN_OR_RETURN(second, Named(b));
  return first.size() + second.size();
}

TEST(StatusTest, AssignOrReturnTakesTheValueOrReturnsTheError) {
  auto ok = TotalLength(2, 3);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(*ok, 5u);
  EXPECT_EQ(TotalLength(-1, 3).status().message(), "negative");
  EXPECT_EQ(TotalLength(2, -1).status().code(), harness::ErrorCode::kInvalidInput);
}

TEST(StatusDeathTest, ReadingTheValueOfAnErrorAbortsWithItsMessage) {
  harness::StatusOr<std::string> e = harness::NotFound("no such run 7");
  EXPECT_DEATH((void)e.value(),
               "internal error: a value was read from an error .not found: no such run 7");
  EXPECT_DEATH((void)e->size(), "no such run 7");
  EXPECT_DEATH((void)*e, "no such run 7");
}

TEST(StatusTest, WithContextPrefixesTheMessage) {
  auto s = harness::InvalidInput("bad").WithContext("suites/ops.json");
  EXPECT_EQ(s.message(), "suites/ops.json: bad");
  EXPECT_TRUE(harness::Status::Ok().WithContext("x").ok());
}

}  // namespace
