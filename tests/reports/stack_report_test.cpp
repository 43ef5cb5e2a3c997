// The stack matrix's formats over the stack fixture store: stacks.json in
// its documented shape, stacks.md with the rows needing a look first and a
// count of the rest, and hostile names escaped in stacks.html and stacks.md.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "store/store.h"
#include "reports/stack_reporter.h"
#include "stack_fixture.h"
#include "support/temp_dir.h"

// Its own namespace: unity builds put test files together.
namespace reports_test::stack_report_test {
namespace {

reports::StackMatrix BuildMatrix(const std::string& path) {
  auto store = harness::Store::Open(path, harness::Store::Mode::kReadOnly);
  EXPECT_TRUE(store.ok()) << store.status().message();
  auto m = reports::BuildStackMatrix(**store, {});
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *m : reports::StackMatrix();
}

class StackReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BuildStackStore(dir_.File("stacks.db"));
    m_ = BuildMatrix(dir_.File("stacks.db"));
  }
  spyre_test::TempDir dir_;
  reports::StackMatrix m_;
};

TEST_F(StackReportTest, JsonHasTheDocumentedShape) {
  const auto j = nlohmann::json::parse(reports::MakeStackJsonReporter()->Render(m_));
  EXPECT_EQ(j["format"], "spyre-regress-stacks/1");
  EXPECT_EQ(j["baseline_stack"], "debian-12");
  ASSERT_EQ(j["stacks"].size(), 3u);
  const auto& ubuntu = j["stacks"][1];
  EXPECT_EQ(ubuntu["name"], "ubuntu-24");
  for (const char* k : {"name", "env", "changes", "counts", "runs"}) {
    EXPECT_TRUE(ubuntu.contains(k)) << k;
  }
  EXPECT_EQ(ubuntu["env"]["libtorch"], "2.6.0");
  EXPECT_EQ(ubuntu["env"]["blas"], "OpenBLAS 0.3.26");
  EXPECT_EQ(ubuntu["env"]["libc"], "glibc 2.39");
  EXPECT_FALSE(j["stacks"][2]["env"].contains("libc"));  // fedora-40 recorded none
  EXPECT_EQ(ubuntu["runs"], nlohmann::json::array({4, 7}));
  EXPECT_EQ(
      ubuntu["counts"],
      nlohmann::json(
          {{"passed", 4}, {"failed", 1}, {"skipped", 0}, {"missing", 1}, {"regressions", 2}}));
  bool libtorch = false;
  for (const auto& c : ubuntu["changes"]) {
    EXPECT_EQ(c.size(), 3u) << c;
    if (c["component"] == "libtorch") {
      libtorch = true;
      EXPECT_EQ(c["baseline"], "1.13.0");
      EXPECT_EQ(c["candidate"], "2.6.0");
    }
  }
  EXPECT_TRUE(libtorch) << ubuntu["changes"];
  EXPECT_TRUE(j["stacks"][0]["changes"].empty());

  ASSERT_EQ(j["suites"].size(), 2u);
  const auto& ops = j["suites"][1];
  EXPECT_EQ(ops["suite"], "ops");
  EXPECT_EQ(ops["ops"][0]["op"], "mm");
  const auto& mm = ops["ops"][0]["cases"][0];
  EXPECT_EQ(mm["case"], "mm.64x64x64.fp16");
  ASSERT_EQ(mm["cells"].size(), 3u);  // a cell for every stack
  const auto& cell = mm["cells"]["ubuntu-24"];
  for (const char* k :
       {"status", "max_ulp", "rel_l2", "wall_us", "wall_ratio", "modeled_ratio", "run_id"}) {
    EXPECT_TRUE(cell.contains(k)) << k;
  }
  EXPECT_EQ(cell.size(), 7u);
  EXPECT_EQ(cell["status"], "passed");
  EXPECT_EQ(cell["max_ulp"], 2.0);
  EXPECT_DOUBLE_EQ(cell["wall_ratio"].get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(cell["modeled_ratio"].get<double>(), 1.25);
  EXPECT_EQ(cell["run_id"], 4);
  // softmax on ubuntu-24: recorded nowhere on that stack.
  const auto& softmax = ops["ops"][2]["cases"][0];
  EXPECT_EQ(softmax["case"], "softmax.512.fp16");
  EXPECT_EQ(softmax["cells"]["ubuntu-24"]["status"], "missing");
  EXPECT_TRUE(softmax["cells"]["ubuntu-24"]["run_id"].is_null());
  EXPECT_TRUE(softmax["cells"]["ubuntu-24"]["wall_ratio"].is_null());
}

TEST_F(StackReportTest, MarkdownListsStacksChangesAndCompactCells) {
  const std::string md = reports::MakeStackMarkdownReporter()->Render(m_);
  EXPECT_NE(md.find("baseline **debian-12**"), std::string::npos) << md;
  EXPECT_NE(md.find("| debian-12 (baseline) | 1.13.0 | OpenBLAS 0.3.21 | gcc 12.2.0 | glibc 2.36 "
                    "| Debian 12 | 5 | 0 | 0 | 1 | 0 | 2, 3 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| fedora-40 | 2.6.0 | OpenBLAS 0.3.26 | gcc 14.1.1 | - | Fedora 40 |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- **ubuntu-24**: "), std::string::npos) << md;
  // ">" is an entity in a Markdown cell or list item; it reads "->".
  EXPECT_NE(md.find("libtorch 1.13.0 -&gt; 2.6.0"), std::string::npos) << md;
  EXPECT_NE(md.find("| ops | mm | mm.64x64x64.fp16 | passed · 1 ULP · 100 us | passed · 2 ULP · "
                    "+50.0% | passed · 1 ULP · -50.0% |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("| ops | mm | mm.128x128x128.fp16 | passed · 1 ULP · 400 us | failed · 16 "
                    "ULP · +50.0% | — |"),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("more cases"), std::string::npos) << md;
}

TEST_F(StackReportTest, MarkdownShowsRowsNeedingALookFirstAndCountsTheRest) {
  // Five of six cases need a look (fedora-40 lacks all but mm.64, which
  // passes everywhere); three rows shown.
  const std::string md = reports::MakeStackMarkdownReporter(3)->Render(m_);
  EXPECT_NE(md.find("5 of 6 cases need a look"), std::string::npos) << md;
  EXPECT_NE(md.find("…and 3 more cases (2 of them needing a look; see stacks.html)."),
            std::string::npos)
      << md;
  EXPECT_EQ(md.find("| mm.64x64x64.fp16 |"), std::string::npos) << md;
  EXPECT_NE(md.find("| mm.128x128x128.fp16 |"), std::string::npos) << md;
}

TEST_F(StackReportTest, MarkdownPutsRowsPassingEverywhereAfterTheOthers) {
  // With only the two stacks of ops, add passes on both and comes last.
  reports::StackMatrix m = m_;
  m.stacks.pop_back();
  m.suites.erase(m.suites.begin());  // decode
  for (auto& g : m.suites[0].ops) {
    for (auto& row : g.cases) {
      row.cells.erase("fedora-40");
      row.attention = row.case_id != "add.33x65.fp16" && row.case_id != "mm.64x64x64.fp16";
    }
  }
  const std::string md = reports::MakeStackMarkdownReporter()->Render(m);
  const size_t add = md.find("| add.33x65.fp16 |"), mm128 = md.find("| mm.128x128x128.fp16 |");
  const size_t mm64 = md.find("| mm.64x64x64.fp16 |"), gelu = md.find("| gelu.64.fp16 |");
  ASSERT_NE(add, std::string::npos) << md;
  EXPECT_LT(mm128, mm64);
  EXPECT_LT(gelu, mm64);
  EXPECT_LT(mm64, add);
  EXPECT_NE(md.find("3 of 5 cases need a look"), std::string::npos) << md;
  EXPECT_EQ(md.find("more cases"), std::string::npos) << md;
}

TEST(StackReportHostileTest, NamesAreEscapedInHtmlAndMarkdown) {
  spyre_test::TempDir dir;
  BuildStackStore(dir.File("stacks.db"), /*hostile=*/true);
  const reports::StackMatrix m = BuildMatrix(dir.File("stacks.db"));
  ASSERT_NE(m.FindStack(kHostileStack), nullptr);
  const std::string html = reports::MakeStackHtmlReporter()->Render(m);
  for (const std::string& raw : {std::string(kHostileStack), std::string(kHostileCase),
                                 std::string(kHostileOp), std::string("<img src=x")}) {
    EXPECT_EQ(html.find(raw), std::string::npos) << raw;
  }
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;&amp;&quot;stack&quot;"),
            std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;b&gt;op&lt;/b&gt;"), std::string::npos);
  // The only <script> elements are the page's own three.
  size_t scripts = 0;
  for (size_t at = html.find("<script"); at != std::string::npos; at = html.find("<script", at + 1))
    ++scripts;
  EXPECT_EQ(scripts, 3u);
  const std::string md = reports::MakeStackMarkdownReporter()->Render(m);
  EXPECT_EQ(md.find("<script>"), std::string::npos) << md;
  EXPECT_EQ(md.find("<img"), std::string::npos) << md;
  const auto j = nlohmann::json::parse(reports::MakeStackJsonReporter()->Render(m));
  EXPECT_EQ(j["stacks"][2]["name"], kHostileStack);  // JSON carries the name as it is
}

}  // namespace
}  // namespace reports_test::stack_report_test
