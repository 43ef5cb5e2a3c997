// Store::MergeFrom: whole runs copied with their child rows, sources never
// modified, a run merged twice refused.
#include <gtest/gtest.h>

#include "store/store.h"
#include "sql.h"
#include "store_test_util.h"
#include "support/temp_dir.h"

namespace harness {
namespace {

using spyre_test::TempDir;
using test_util::MakeResult;
using test_util::OpenOrDie;
using test_util::QueryInt;
using test_util::QueryText;
using test_util::WriteShard;

TEST(MergeTest, CopiesRunsWithEveryChildRow) {
  TempDir dir;
  WriteShard(dir.File("a.db"), "1/2", {"x", "y"});
  WriteShard(dir.File("b.db"), "2/2", {"z"});
  const std::string a_before = spyre_test::ReadFile(dir.File("a.db"));
  auto into = OpenOrDie(dir.File("all.db"));
  EXPECT_EQ(*into->MergeFrom(dir.File("a.db")), 1);
  EXPECT_EQ(*into->MergeFrom(dir.File("b.db")), 1);
  sqlite3* db = harness::store_internal::Access::Db(*into);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM v_runs"), 2);
  EXPECT_EQ(QueryText(db, "SELECT group_concat(case_name, ',') FROM (SELECT case_name FROM v_results ORDER BY case_name)"),
            "x,y,z");
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM metrics"), 6);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM wall_samples"), 9);
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM op_summaries"), 6);
  // Child rows point at the new results, not at ids of the source.
  EXPECT_EQ(QueryInt(db, "SELECT count(*) FROM wall_samples w LEFT JOIN results r ON r.id = w.result_id"
                         " WHERE r.id IS NULL"), 0);
  EXPECT_EQ(QueryText(db, "SELECT group_concat(shard, ',') FROM runs"), "1/2,2/2");
  EXPECT_EQ(spyre_test::ReadFile(dir.File("a.db")), a_before);
}

TEST(MergeTest, MergingARunTwiceIsRefusedWithNothingCopied) {
  TempDir dir;
  WriteShard(dir.File("a.db"), "1/2", {"x", "y"});
  auto into = OpenOrDie(dir.File("all.db"));
  ASSERT_TRUE(into->MergeFrom(dir.File("a.db")).ok());
  auto again = into->MergeFrom(dir.File("a.db"));
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.status().message().find("merged before?"), std::string::npos) << again.status().message();
  EXPECT_EQ(QueryInt(harness::store_internal::Access::Db(*into), "SELECT count(*) FROM v_results"), 2);
}

TEST(MergeTest, MissingSourceIsNotFound) {
  TempDir dir;
  auto into = OpenOrDie(dir.File("all.db"));
  auto r = into->MergeFrom(dir.File("nope.db"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kNotFound);
}

}  // namespace
}  // namespace harness
