// User regular expressions: bounded before std::regex's recursion sees them,
// and one meaning of --filter.
#include "base/case_filter.h"

#include <gtest/gtest.h>

namespace harness {
namespace {

TEST(CaseFilterTest, SearchesSuiteSlashCaseId) {
  auto f = CaseFilter::Compile("^smoke/mul");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->Matches("smoke", "mul_scalar"));
  EXPECT_FALSE(f->Matches("ops", "mul_scalar"));
  EXPECT_TRUE(CaseFilter::Compile("").value().Matches("any", "thing"));
}

TEST(CaseFilterTest, PatternsPastTheBoundsAreRefusedInOneLine) {
  const auto longer = CaseFilter::Compile(std::string(30000, '(') + std::string(30000, ')'));
  ASSERT_FALSE(longer.ok());
  EXPECT_NE(longer.status().message().find("60000 characters"), std::string::npos);
  const auto deep = CaseFilter::Compile(std::string(17, '(') + "a" + std::string(17, ')'));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("17 deep"), std::string::npos);
  // Parentheses escaped or in a bracket expression are not groups.
  EXPECT_TRUE(CaseFilter::Compile(std::string(20, '\\') + "[((((((((((((((((((]").ok());
  EXPECT_TRUE(CaseFilter::Compile(std::string(16, '(') + "a" + std::string(16, ')')).ok());
  EXPECT_FALSE(CaseFilter::Compile("add(").ok());
}

// The worst the bounds allow, against a long case id, completes.
TEST(CaseFilterTest, TheWorstPatternWithinTheBoundsRunsToTheEnd) {
  std::string nested = std::string(16, '(') + "a*" + std::string(16, ')') + "*";
  std::string wide;
  while (wide.size() + 6 < kMaxUserRegexLength) wide += "(a|b)*";
  for (const std::string& p : {nested, wide}) {
    auto f = CaseFilter::Compile(p);
    ASSERT_TRUE(f.ok()) << f.status().message();
    EXPECT_TRUE(f->Matches("s", std::string(300, 'a')));
  }
}

}  // namespace
}  // namespace harness
