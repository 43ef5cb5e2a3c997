// summary.md: golden text over the fixture store, and escaping of table cells.
#include <gtest/gtest.h>

#include "fixture_store.h"
#include "reports/escape.h"
#include "reports/reporter.h"
#include "support/temp_dir.h"

namespace reports_test {
namespace {

TEST(MarkdownTest, MatchesGoldenText) {
  spyre_test::TempDir dir;
  reports::ReportModel model = FixtureModel(dir.File("store.db"));
  const std::string md = reports::MakeMarkdownReporter()->Render(model);
  ExpectGolden("summary.md", NormaliseTimes(md));
  EXPECT_NE(md.find("**failed**"), std::string::npos);
  EXPECT_NE(md.find("| blas |"), std::string::npos) << "the upstream change is listed";
  EXPECT_EQ(md.find("<script>"), std::string::npos);
}

TEST(MarkdownTest, TableCellsCannotSplitOrOpenCodeOrHtml) {
  EXPECT_EQ(reports::EscapeMarkdownCell("a|b`c<d>e&f\ng"), "a\\|b&#96;c&lt;d&gt;e&amp;f g");
}

}  // namespace
}  // namespace reports_test
