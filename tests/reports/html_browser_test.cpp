// index.html in a real headless Chromium (Debian's `chromium`, installed by
// ci/setup): the page's scripts run without errors (window.onerror records
// into the DOM; the script marks <body data-report-ready="yes"> when it ran to
// the end), the verdict, the regressions table and charts are there, and a
// case named "<script>alert(1)</script>" is text. A screenshot lands in the
// build tree (tests/reports/report-screenshot.png) for people to look at.
// stacks.html (report --stacks) the same way, over a hostile stack name.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "fixture_store.h"
#include "reports/reporter.h"
#include "reports/stack_reporter.h"
#include "stack_fixture.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace reports_test {
namespace {

std::vector<std::string> ChromiumArgs(const std::string& chromium, const std::string& profile) {
  return {chromium,
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--user-data-dir=" + profile,
          "--enable-logging=stderr",
          "--v=0"};
}

class HtmlBrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = spyre_test::FindProgram({"chromium", "chromium-browser"});
    ASSERT_FALSE(chromium_.empty())
        << "chromium is not installed: run ci/setup (it installs Debian's chromium package)";
    out_dir_ = std::string(SPYRE_BUILD_DIR) + "/tests/reports/html-report";
    std::filesystem::remove_all(out_dir_);
    reports::ReportModel model = FixtureModel(store_dir_.File("store.db"));
    harness::Status s = reports::WriteReportFiles(model, out_dir_);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  std::string Url() const { return "file://" + out_dir_ + "/index.html"; }

  std::string chromium_, out_dir_;
  spyre_test::TempDir store_dir_;
};

TEST_F(HtmlBrowserTest, LoadsWithoutErrorsAndShowsVerdictTableChartsAsText) {
  spyre_test::TempDir profile;
  std::vector<std::string> args = ChromiumArgs(chromium_, profile.path());
  args.push_back("--dump-dom");
  args.push_back(Url());
  spyre_test::CommandResult r = spyre_test::RunCommand(args, {}, 180);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& dom = r.out;
  ASSERT_FALSE(dom.empty()) << r.err;

  EXPECT_NE(dom.find("data-report-ready=\"yes\""), std::string::npos)
      << "the page's script did not run to the end";
  EXPECT_EQ(dom.find("data-js-errors=\"yes\""), std::string::npos) << "JavaScript errors recorded";
  EXPECT_NE(dom.find("<div id=\"js-errors\"></div>"), std::string::npos)
      << "JavaScript errors recorded";
  EXPECT_EQ(r.err.find("Uncaught"), std::string::npos) << r.err;
  EXPECT_NE(dom.find("data-verdict=\"failed\""), std::string::npos);
  EXPECT_NE(dom.find("class=\"verdict verdict-failed\"><b>failed</b>"), std::string::npos);

  const size_t table = dom.find("<table id=\"regressions\"");
  ASSERT_NE(table, std::string::npos);
  EXPECT_NE(dom.find("mm/64x64", table), std::string::npos);
  EXPECT_NE(dom.find("<svg class=\"chart\""), std::string::npos);
  EXPECT_NE(dom.find("<polyline class=\"line\""), std::string::npos);

  // The hostile case name is text, never a live element.
  EXPECT_NE(dom.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(dom.find("<script>alert(1)"), std::string::npos);
  EXPECT_EQ(dom.find("<b>bold</b>"), std::string::npos);
}

TEST_F(HtmlBrowserTest, WritesAScreenshotIntoTheBuildTree) {
  spyre_test::TempDir profile;
  const std::string shot = std::string(SPYRE_BUILD_DIR) + "/tests/reports/report-screenshot.png";
  std::filesystem::remove(shot);
  std::vector<std::string> args = ChromiumArgs(chromium_, profile.path());
  args.push_back("--window-size=1280,2400");
  args.push_back("--hide-scrollbars");
  args.push_back("--screenshot=" + shot);
  args.push_back(Url());
  spyre_test::CommandResult r = spyre_test::RunCommand(args, {}, 180);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string png = spyre_test::ReadFile(shot);
  ASSERT_GT(png.size(), 10000u) << "screenshot missing or tiny: " << shot;
  EXPECT_EQ(png.substr(0, 4), "\x89PNG");
}

TEST(StackHtmlBrowserTest, StacksPageLoadsWithoutErrorsAndShowsHostileNamesAsText) {
  const std::string chromium = spyre_test::FindProgram({"chromium", "chromium-browser"});
  ASSERT_FALSE(chromium.empty())
      << "chromium is not installed: run ci/setup (it installs Debian's chromium package)";
  spyre_test::TempDir store_dir, profile;
  BuildStackStore(store_dir.File("stacks.db"), /*hostile=*/true);
  auto store = harness::Store::Open(store_dir.File("stacks.db"), harness::Store::Mode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto matrix = reports::BuildStackMatrix(**store, {});
  ASSERT_TRUE(matrix.ok()) << matrix.status().message();
  const std::string out_dir = std::string(SPYRE_BUILD_DIR) + "/tests/reports/stack-report";
  std::filesystem::remove_all(out_dir);
  harness::Status s = reports::WriteStackReportFiles(*matrix, out_dir);
  ASSERT_TRUE(s.ok()) << s.message();

  std::vector<std::string> args = ChromiumArgs(chromium, profile.path());
  args.push_back("--dump-dom");
  args.push_back("file://" + out_dir + "/stacks.html");
  spyre_test::CommandResult r = spyre_test::RunCommand(args, {}, 180);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& dom = r.out;
  EXPECT_NE(dom.find("data-report-ready=\"yes\""), std::string::npos)
      << "the page's script did not run to the end";
  EXPECT_EQ(dom.find("data-js-errors=\"yes\""), std::string::npos) << "JavaScript errors recorded";
  EXPECT_EQ(r.err.find("Uncaught"), std::string::npos) << r.err;
  EXPECT_NE(dom.find("<table id=\"stacks\""), std::string::npos);
  EXPECT_NE(dom.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(dom.find("<script>alert(1)"), std::string::npos);
  EXPECT_EQ(dom.find("<img src=\"x\""), std::string::npos);
  EXPECT_EQ(dom.find("<b>op</b>"), std::string::npos);
}

}  // namespace
}  // namespace reports_test
