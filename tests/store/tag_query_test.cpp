// LatestRunsPerTagValue (store_queries.h), the selection behind `report
// --stacks`: per tag value and suite the latest completed run, oldest first;
// runs that are not completed, broken environments and values that are not
// names left out; a run of several suites the latest of one suite only.
#include <sqlite3.h>

#include <gtest/gtest.h>

#include "store/store.h"
#include "store/store_queries.h"
#include "sql.h"
#include "support/temp_dir.h"

namespace harness {
// Its own namespace: unity builds put test files together.
namespace tag_query_test {
namespace {

CaseResult Passed(const std::string& suite, const std::string& id) {
  CaseResult r;
  r.suite = suite;
  r.case_id = id;
  r.status = CaseStatus::kPassed;
  return r;
}

class TagQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = Store::Open(dir_.File("s.db"));
    ASSERT_TRUE(store.ok()) << store.status().message();
    store_ = std::move(*store);
  }

  // A run of `suites` (one case each) with env_json `env`; returns its id.
  int64_t Run(const std::string& env, const std::vector<std::string>& suites,
              RunStatus status = RunStatus::kCompleted) {
    NewRun info;
    info.env_json = env;
    for (const std::string& s : suites) info.suite += (info.suite.empty() ? "" : ",") + s;
    auto id = store_->BeginRun(info);
    EXPECT_TRUE(id.ok()) << id.status().message();
    for (const std::string& s : suites) EXPECT_TRUE(store_->RecordResult(*id, Passed(s, "c")).ok());
    EXPECT_TRUE(store_->FinishRun(*id, status).ok());
    return *id;
  }
  static std::string Tagged(const std::string& stack) {
    return R"({"libtorch": "2.6.0", "tags": {"stack": ")" + stack + R"(", "vllm": "0.6.3"}})";
  }

  // "stack/suite=run" per selected run, in the query's order.
  std::vector<std::string> Selected(const std::string& key = "stack") {
    auto runs = LatestRunsPerTagValue(*store_, key);
    EXPECT_TRUE(runs.ok()) << runs.status().message();
    std::vector<std::string> out;
    if (!runs.ok()) return out;
    for (const TaggedRun& t : *runs) {
      out.push_back(t.tag_value + "/" + t.suite + "=" + std::to_string(t.run_id));
    }
    return out;
  }

  spyre_test::TempDir dir_;
  std::unique_ptr<Store> store_;
};

TEST_F(TagQueryTest, TheLatestCompletedRunPerTagValueAndSuiteOldestFirst) {
  Run(Tagged("b"), {"ops"});                       // 1: superseded by 3
  Run(Tagged("a"), {"ops"});                       // 2
  Run(Tagged("b"), {"ops"});                       // 3
  Run(Tagged("b"), {"ops"}, RunStatus::kAborted);  // 4: not completed
  Run(R"({"tags": {"vllm": "0.6.3"}})", {"ops"});  // 5: no stack tag
  Run(R"({"libtorch": "2.6.0"})", {"ops"});        // 6: no tags at all
  Run(Tagged("a"), {"decode"});                    // 7
  EXPECT_EQ(Selected(), (std::vector<std::string>{"a/ops=2", "b/ops=3", "a/decode=7"}));
  EXPECT_EQ(Selected("vllm"), (std::vector<std::string>{"0.6.3/ops=5", "0.6.3/decode=7"}));
  EXPECT_TRUE(Selected("nothing").empty());
}

TEST_F(TagQueryTest, LatestIsByStartTimeThenRunId) {
  // A merged store numbers runs in the order they were merged: the later
  // start wins over the larger id.
  const int64_t started_last = Run(Tagged("a"), {"ops"});
  Run(Tagged("a"), {"ops"});
  const std::string sql = "UPDATE runs SET started_at = '2099-01-01T00:00:00.000Z' WHERE id = " +
                          std::to_string(started_last);
  ASSERT_EQ(
      sqlite3_exec(store_internal::Access::Db(*store_), sql.c_str(), nullptr, nullptr, nullptr),
      SQLITE_OK);
  EXPECT_EQ(Selected(), (std::vector<std::string>{"a/ops=" + std::to_string(started_last)}));
}

TEST_F(TagQueryTest, BrokenEnvironmentsAndValuesThatAreNotNamesAreLeftOut) {
  Run("{not json", {"ops"});
  Run(R"({"tags": {"stack": 12}})", {"ops"});
  Run(R"({"tags": {"stack": ""}})", {"ops"});
  Run(R"({"tags": ["stack"]})", {"ops"});
  Run(R"({"tags": "stack"})", {"ops"});
  const int64_t good = Run(Tagged("a"), {"ops"});
  EXPECT_EQ(Selected(), (std::vector<std::string>{"a/ops=" + std::to_string(good)}));
}

TEST_F(TagQueryTest, ARunOfSeveralSuitesCanBeTheLatestOfOneOnly) {
  const int64_t both = Run(Tagged("a"), {"decode", "ops"});
  const int64_t ops = Run(Tagged("a"), {"ops"});
  EXPECT_EQ(Selected(), (std::vector<std::string>{"a/decode=" + std::to_string(both),
                                                  "a/ops=" + std::to_string(ops)}));
}

TEST_F(TagQueryTest, AKeyIsAParameterNotSql) {
  Run(Tagged("a"), {"ops"});
  EXPECT_TRUE(Selected("stack' OR '1'='1").empty());
  EXPECT_TRUE(Selected("$.tags").empty());
}

}  // namespace
}  // namespace tag_query_test
}  // namespace harness
