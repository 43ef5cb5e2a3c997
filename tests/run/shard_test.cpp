#include "run/shard.h"

#include <set>

#include <gtest/gtest.h>

namespace harness {
namespace {

TEST(ShardTest, ParsesIOverN) {
  auto s = ParseShard("2/3");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->index, 2);
  EXPECT_EQ(s->count, 3);
  EXPECT_EQ(s->ToString(), "2/3");
  for (const char* bad : {"", "0/3", "4/3", "3", "1/0", "a/b", "1/3/", " 1/3", "-1/3"}) {
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
  }
}

TEST(ShardTest, ShardsPartitionTheCasesEvenly) {
  const int n = 3;
  std::vector<int> sizes(n + 1, 0);
  for (int i = 0; i < 3000; ++i) {
    const std::string id = "case" + std::to_string(i);
    int owners = 0;
    for (int k = 1; k <= n; ++k) owners += InShard("ops", id, {k, n}) ? 1 : 0;
    ASSERT_EQ(owners, 1) << id;
    ++sizes[ShardOf("ops", id, n)];
    EXPECT_TRUE(InShard("ops", id, Shard{}));
  }
  for (int k = 1; k <= n; ++k) {
    EXPECT_GT(sizes[k], 850) << k;
    EXPECT_LT(sizes[k], 1150) << k;
  }
}

TEST(ShardTest, DependsOnTheIdOnly) {
  // Same id, same shard, whatever else is in the suite; the suite name counts.
  EXPECT_EQ(ShardOf("ops", "mm.f16", 7), ShardOf("ops", "mm.f16", 7));
  std::set<int> across_suites;
  for (const char* suite : {"a", "b", "c", "d", "e", "f", "g", "h"}) across_suites.insert(ShardOf(suite, "x", 7));
  EXPECT_GT(across_suites.size(), 1u);
}

}  // namespace
}  // namespace harness
