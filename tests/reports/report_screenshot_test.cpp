// Reports of real runs through the built CLI, rendered by headless Chromium
// (installed by ci/setup): a clean rerun of smoke, a run regressed on purpose
// (--inject mm:slow=2) and a decode run with a prefill and an embed case.
// Screenshots land in the build tree (tests/reports/screenshots/*.png) for
// people to look at; the page text is checked for scientific notation, for
// styling only on findings and for the per-kind columns.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report_text.h"
#include "support/run_command.h"
#include "support/temp_dir.h"

namespace reports_test {
namespace {

using spyre_test::RunCli;

// A fault that makes the trained model's device text diverge from the
// golden text: a hard flip, not only a wider logprob difference (its
// distributions are peaked; matmuls 3% off still flip no token).
constexpr const char* kTextFault = "mm:error=0.1";

// Renders `html` in headless Chromium into `png` (full width, tall window).
void Screenshot(const std::string& html, const std::string& png) {
  const std::string chromium = spyre_test::FindProgram({"chromium", "chromium-browser"});
  ASSERT_FALSE(chromium.empty())
      << "chromium is not installed: run ci/setup (it installs Debian's chromium package)";
  spyre_test::TempDir profile;
  std::filesystem::create_directories(std::filesystem::path(png).parent_path());
  std::filesystem::remove(png);
  auto r = spyre_test::RunCommand(
      {chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
       "--disable-background-networking", "--disable-component-update", "--disable-sync",
       "--user-data-dir=" + profile.path(), "--hide-scrollbars", "--window-size=1280,4200",
       "--screenshot=" + png, "file://" + html},
      {}, 180);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string bytes = spyre_test::ReadFile(png);
  ASSERT_GT(bytes.size(), 10000u) << "screenshot missing or tiny: " << png;
  EXPECT_EQ(bytes.substr(0, 4), "\x89PNG");
}

// Each plain progress line's timing, "(2.22 us)": a number from 1 to 999
// (3 significant digits) and a unit that scales.
void ExpectTimesInUnits(const std::string& progress) {
  static const std::regex kTime(R"(\] (passed|failed) \S+ \(([^)]*)\))");
  static const std::regex kHuman(R"(([1-9][0-9]{0,2}(\.[0-9]+)?) (ns|us|ms|s))");
  int lines = 0;
  for (auto it = std::sregex_iterator(progress.begin(), progress.end(), kTime);
       it != std::sregex_iterator(); ++it) {
    ++lines;
    const std::string t = (*it)[2];
    EXPECT_TRUE(std::regex_match(t, kHuman)) << "(" << t << ") in " << it->str();
  }
  EXPECT_GT(lines, 0) << progress;
}

class ReportScreenshotTest : public ::testing::Test {
 protected:
  std::string Db() const { return dir_.File("store.db"); }
  std::string Shot(const std::string& name) const {
    return std::string(SPYRE_BUILD_DIR) + "/tests/reports/screenshots/" + name + ".png";
  }
  // `run` with the given arguments and a report; returns the report's text.
  std::string Run(std::vector<std::string> args, const std::string& report, int expect_exit) {
    std::vector<std::string> argv = {"--db", Db(), "run", "--confirm-rounds", "0"};
    argv.insert(argv.end(), args.begin(), args.end());
    if (!report.empty()) argv.insert(argv.end(), {"--report", dir_.File(report)});
    last_ = RunCli(argv, {}, 600);
    EXPECT_EQ(last_.exit_code, expect_exit) << last_.err;
    return report.empty() ? "" : spyre_test::ReadFile(dir_.File(report + "/index.html"));
  }
  nlohmann::json Json(const std::string& report) const {
    return nlohmann::json::parse(spyre_test::ReadFile(dir_.File(report + "/report.json")), nullptr,
                                 false);
  }

  spyre_test::TempDir dir_;
  spyre_test::CommandResult last_;
};

TEST_F(ReportScreenshotTest, ACleanRun) {
  // Timed (smoke is parity-only by default), so the progress lines carry times.
  Run({"--suite", "smoke", "--latency", "all", "--label", "first"}, "", 0);
  const std::string html =
      Run({"--suite", "smoke", "--latency", "all", "--baseline", "label:first"}, "clean", 0);
  ASSERT_FALSE(html.empty());
  ExpectTimesInUnits(last_.err);
  const nlohmann::json j = Json("clean");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["verdict"], "passed");
  EXPECT_EQ(ScientificNumbers(html), std::vector<std::string>{});
  // Nothing is a finding, so no case cell is styled as one.
  const std::string cases = Slice(html, "<section id=\"suites\"", "</section>");
  ASSERT_FALSE(cases.empty());
  if (j["comparison"]["regressions"].empty() && j["comparison"]["improvements"].empty()) {
    EXPECT_EQ(cases.find("worse"), std::string::npos);
    EXPECT_EQ(cases.find("better"), std::string::npos);
  }
  EXPECT_NE(cases.find("data-kind=\"op\""), std::string::npos);
  Screenshot(dir_.File("clean/index.html"), Shot("clean-run"));
}

TEST_F(ReportScreenshotTest, ARegressedRun) {
  Run({"--suite", "smoke", "--label", "first"}, "", 0);
  const std::string html = Run(
      {"--suite", "smoke", "--inject", "mm:slow=2", "--baseline", "label:first"}, "regressed", 1);
  ASSERT_FALSE(html.empty());
  const nlohmann::json j = Json("regressed");
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["verdict"], "regressed");
  EXPECT_EQ(ScientificNumbers(html), std::vector<std::string>{});
  const std::string regressions = Slice(html, "<table id=\"regressions\"", "</table>");
  EXPECT_NE(regressions.find(">+100%<"), std::string::npos) << regressions;
  EXPECT_NE(regressions.find("modeled_latency"), std::string::npos) << regressions;
  // The modeled column of the mm cases is styled, the wall column is not.
  const std::string cases = Slice(html, "<section id=\"suites\"", "</section>");
  EXPECT_NE(cases.find("class=\"num worse\" data-col=\"modeled\""), std::string::npos);
  EXPECT_EQ(cases.find("class=\"num worse\" data-col=\"wall\""), std::string::npos);
  // The env change names its blank old value.
  EXPECT_NE(html.find("<td>faults</td><td>(none)</td>"), std::string::npos);
  Screenshot(dir_.File("regressed/index.html"), Shot("regressed-run"));
}

TEST_F(ReportScreenshotTest, ADecodeRunWithPrefillAndEmbedCases) {
  // Two decode cases of the twelve (portable fp16 batch 1, fused bf16 batch
  // 4) give the table every column; all twelve would only cost time.
  const std::vector<std::string> cases = {
      "--suite", "decode,prefill,embed", "--filter",
      "^(decode/(granite_tiny\\.b1|fortunes\\.bf16\\.b4\\.fused)|prefill/llama_tiny\\.b1\\.s8|"
      "embed/bert_tiny\\.b1\\.s16)$"};
  std::vector<std::string> first = cases;
  first.insert(first.end(), {"--label", "first"});
  Run(first, "", 0);
  std::vector<std::string> second = cases;
  second.insert(second.end(), {"--baseline", "label:first"});
  const std::string html = Run(second, "decode", 0);
  ASSERT_FALSE(html.empty());
  EXPECT_EQ(ScientificNumbers(html), std::vector<std::string>{});
  const std::string decode = Slice(html, "data-kind=\"decode\"", "</table>");
  ASSERT_FALSE(decode.empty()) << "no decode table";
  const std::string head = Slice(decode, "<thead>", "</thead>");
  for (const char* column : {"top-1 agreement", "first divergence", "max logprob diff", "tokens/s",
                             "time to first token", "inter-token latency"}) {
    EXPECT_NE(head.find(column), std::string::npos) << column << " in " << head;
  }
  EXPECT_EQ(head.find("max abs err"), std::string::npos) << head;
  // Every decode row has a value in every per-kind column (no "-").
  EXPECT_EQ(decode.find(">-<"), std::string::npos) << decode;
  EXPECT_NE(decode.find(" ms <span class=\"chg\">"), std::string::npos) << decode;
  const std::string prefill = Slice(html, "data-kind=\"prefill\"", "</table>");
  ASSERT_FALSE(prefill.empty()) << "no prefill table";
  EXPECT_NE(prefill.find("top-1 agreement"), std::string::npos);
  const std::string embed = Slice(html, "data-kind=\"embed\"", "</table>");
  ASSERT_FALSE(embed.empty()) << "no embed table";
  EXPECT_NE(embed.find("min cosine"), std::string::npos);
  Screenshot(dir_.File("decode/index.html"), Shot("decode-run"));
}

// The trained model's decode case on a device whose matmuls are off: the
// run fails, and the divergence reads as text in the terminal's failure
// line, in summary.md and in index.html's "Decoded text" section.
TEST_F(ReportScreenshotTest, ATrainedModelDecodeRunShowsTheDivergenceAsText) {
  const std::string html = Run({"--suite", "decode", "--filter", "^decode/fortunes\\.fp16\\.b4$",
                                "--inject", kTextFault, "--baseline", "none"},
                               "text", 1);
  ASSERT_FALSE(html.empty());
  // The terminal: golden and device text around the first divergence.
  const std::string terminal = last_.out + last_.err;
  static const std::regex kQuote(
      R"(as text \(sequence \d+, step \d+[^)]*\): golden "[^"]*\[[^\]]+\][^"]*", device "[^"]*\[[^\]]+\]")");
  EXPECT_TRUE(std::regex_search(terminal, kQuote)) << terminal;
  const std::string md = spyre_test::ReadFile(dir_.File("text/summary.md"));
  EXPECT_NE(md.find("### Decoded text"), std::string::npos) << md;
  EXPECT_NE(md.find("**&#91;"), std::string::npos) << md;
  const std::string section = Slice(html, "<section id=\"decode-text\"", "</section>");
  ASSERT_FALSE(section.empty()) << "no decoded-text section";
  EXPECT_NE(section.find("data-case=\"fortunes.fp16.b4\""), std::string::npos);
  EXPECT_NE(section.find("<mark class=\"dv\""), std::string::npos) << section;
  EXPECT_NE(section.find("The best way to "), std::string::npos) << section;
  EXPECT_EQ(ScientificNumbers(html), std::vector<std::string>{});
  Screenshot(dir_.File("text/index.html"), Shot("decode-text"));
}

}  // namespace
}  // namespace reports_test
