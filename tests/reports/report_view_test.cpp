// What a reader sees in the reports over the fixture store: numbers in
// human units and never in scientific notation, styling only on findings,
// one effect figure per finding, per-kind case columns, explained ULP
// counts, charts with titled axes, gridlines and the change named, no
// history after the reported run, and wording (plurals, JUnit, "none").
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <regex>
#include <sstream>
#include <set>

#include <nlohmann/json.hpp>

#include "fixture_store.h"
#include "detect/detect.h"
#include "base/human_format.h"
#include "store/store.h"
#include "report_text.h"
#include "reports/escape.h"
#include "reports/reporter.h"
#include "support/temp_dir.h"

namespace reports_test {
namespace {

using harness::CaseResult;
using harness::FindingKind;

std::string Html(const reports::ReportModel& m) { return reports::MakeHtmlReporter()->Render(m); }

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

reports::CaseRow* Row(reports::ReportModel* m, const std::string& suite, const std::string& id) {
  for (auto& s : m->suites) {
    for (auto& row : s.cases) {
      if (s.name == suite && row.result.case_id == id) return &row;
    }
  }
  return nullptr;
}

class ReportViewTest : public ::testing::Test {
 protected:
  void SetUp() override { model_ = FixtureModel(dir_.File("store.db")); }
  spyre_test::TempDir dir_;
  reports::ReportModel model_;
};

TEST_F(ReportViewTest, NoScientificNotationInAnyFormatAndTimesInUnits) {
  reports::CaseRow* mm = Row(&model_, "ops", "mm/64x64");
  ASSERT_NE(mm, nullptr);
  mm->result.max_abs_err = 1.2e-7;
  mm->result.rel_l2 = 3.4e-9;
  mm->result.cosine = 0.9999998;
  mm->wall_us = 64400;
  mm->base_wall_us = 34300;
  mm->result.wall_us = {64400, 64410, 64390};
  for (harness::Finding& f : model_.comparison->regressions) {
    if (f.kind == FindingKind::kModeledLatency) {
      f.baseline = 15710;
      f.candidate = 29500000;
      f.ratio = f.candidate / f.baseline;
    }
  }
  const std::string html = Html(model_);
  EXPECT_EQ(ScientificNumbers(html), std::vector<std::string>{}) << "index.html";
  // Every file people read; report.json is data, its numbers exact JSON.
  for (const auto& reporter : reports::AllReporters()) {
    if (reporter->FileName() == "report.json") continue;
    EXPECT_EQ(ScientificNumbers(reporter->Render(model_)), std::vector<std::string>{})
        << reporter->FileName();
  }
  // Wall and modeled times scale their unit, 3 significant digits.
  const std::string table =
      Slice(Slice(html, "<h3>ops</h3>", "</section>"), "data-kind=\"op\"", "</table>");
  EXPECT_NE(table.find(">64.4 ms"), std::string::npos) << table;
  EXPECT_NE(table.find(" us <span"), std::string::npos) << "modeled time in us: " << table;
  EXPECT_NE(table.find(">0.0000000034<"), std::string::npos) << table;
  EXPECT_NE(table.find(">0.00000012<"), std::string::npos) << table;
  EXPECT_NE(table.find(">0.9999998<"), std::string::npos) << "cosine keeps its nines: " << table;
  const std::string regressions = Slice(html, "<table id=\"regressions\"", "</table>");
  EXPECT_NE(regressions.find("15.7 ms"), std::string::npos) << regressions;
  EXPECT_NE(regressions.find("29.5 s"), std::string::npos) << regressions;
}

TEST_F(ReportViewTest, TerminalComparisonHasNoScientificNotation) {
  harness::Comparison c = *model_.comparison;
  for (harness::Finding& f : c.regressions) {
    if (f.kind != FindingKind::kFallback) continue;
    f.baseline = 1.2e-7;
    f.candidate = 6.44e4;
    f.ratio = 1.25;
  }
  const std::string text = harness::FormatComparison(c);
  EXPECT_EQ(ScientificNumbers(text), std::vector<std::string>{}) << text;
  EXPECT_NE(text.find("+25.0%"), std::string::npos) << text;
}

TEST_F(ReportViewTest, OnlyFindingsAreStyled) {
  // Noise: every case 50% slower in wall time, more modeled time, and no
  // finding at all.
  reports::ReportModel quiet = model_;
  quiet.comparison->regressions.clear();
  quiet.comparison->improvements.clear();
  for (auto& s : quiet.suites) {
    for (auto& row : s.cases) {
      row.regressions = 0;
      if (std::isfinite(row.base_wall_us)) row.wall_us = row.base_wall_us * 1.5;
      if (std::isfinite(row.base_modeled_us)) row.result.modeled_us = row.base_modeled_us * 0.7;
    }
  }
  const std::string cases = Slice(Html(quiet), "<section id=\"suites\"", "</section>");
  ASSERT_FALSE(cases.empty());
  EXPECT_EQ(cases.find("worse"), std::string::npos) << "noise styled as a regression";
  EXPECT_EQ(cases.find("better"), std::string::npos) << "noise styled as an improvement";

  // With the fixture's findings: mm's modeled time is one; no wall time is.
  const std::string html = Html(model_);
  const std::string ops =
      Slice(Slice(html, "<h3>ops</h3>", "</section>"), "data-kind=\"op\"", "</table>");
  const std::string mm = Slice(ops, "<td>mm/64x64</td>", "</tr>");
  ASSERT_FALSE(mm.empty()) << ops;
  EXPECT_EQ(Count(mm, "worse"), 1u) << mm;
  EXPECT_NE(mm.find("class=\"num worse\" data-col=\"modeled\""), std::string::npos) << mm;
  EXPECT_EQ(ops.find("class=\"num worse\" data-col=\"wall\""), std::string::npos) << ops;
  const std::string sm = Slice(ops, "<td>softmax/512x1024</td>", "</tr>");
  EXPECT_EQ(sm.find("worse"), std::string::npos) << sm;
}

// The figures of one finding as each format shows them, parsed back out of
// the rendered text: baseline, candidate and change, plus the chart's two
// labelled lines and caption where the finding has a chart.
struct Shown {
  std::string where, baseline, candidate, change;
};

std::string Unescape(std::string s) {
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"&gt;", ">"}, {"&lt;", "<"}, {"&quot;", "\""}, {"&#39;", "'"}, {"&amp;", "&"}}) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
      s.replace(at, from.size(), to);
    }
  }
  return s;
}

std::vector<Shown> ShownFigures(const reports::ReportModel& m, const harness::Finding& f) {
  std::vector<Shown> out;
  const std::string kind = harness::FindingKindName(f.kind);
  // HTML: the finding's row in the regressions table, cells in order.
  const std::string html = Html(m);
  const std::string table = Slice(html, "<table id=\"regressions\"", "</table>");
  static const std::regex kRow("<tr>(.*?)</tr>");
  static const std::regex kCell("<td[^>]*>(.*?)</td>");
  for (auto it = std::sregex_iterator(table.begin(), table.end(), kRow); it != std::sregex_iterator(); ++it) {
    const std::string row = (*it)[1];
    std::vector<std::string> cells;
    for (auto c = std::sregex_iterator(row.begin(), row.end(), kCell); c != std::sregex_iterator(); ++c) {
      cells.push_back(Unescape((*c)[1]));
    }
    if (cells.size() >= 7 && cells[1] == f.case_id && cells[2] == kind) {
      out.push_back({"html table", cells[4], cells[5], cells[6]});
    }
  }
  // HTML chart: the finding's lines and the caption beside the reported run.
  static const std::regex kBase("<text class=\"fbl\"[^>]*>baseline ([^<]*)</text>");
  static const std::regex kCand("<text class=\"fcl\"[^>]*>candidate ([^<]*)</text>");
  static const std::regex kCaption("<text class=\"curl\"[^>]*>([^<]*) \\(([^<]*)\\) vs run");
  std::smatch b, c, cap;
  const std::string chart =
      Slice(html, "aria-label=\"" + reports::EscapeHtml(f.suite + " / " + f.case_id + " — " + f.metric),
            "</svg>");
  if (std::regex_search(chart, b, kBase) && std::regex_search(chart, c, kCand)) {
    EXPECT_TRUE(std::regex_search(chart, cap, kCaption)) << chart;
    out.push_back({"html chart lines", Unescape(b[1]), Unescape(c[1]),
                   cap.size() > 2 ? Unescape(cap[2]) : std::string("?")});
    const std::string caption = cap.size() > 1 ? Unescape(cap[1]) : "";
    out.push_back({"html chart caption", caption.substr(0, caption.find(" -> ")),
                   caption.find(" -> ") == std::string::npos ? "?" : caption.substr(caption.find(" -> ") + 4),
                   cap.size() > 2 ? Unescape(cap[2]) : std::string("?")});
  }
  // Markdown: the row of the top-regressions table.
  const std::string md = reports::MakeMarkdownReporter()->Render(m);
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    for (size_t at = 2; at < line.size();) {
      const size_t end = line.find(" | ", at);
      cells.push_back(Unescape(line.substr(at, end == std::string::npos ? line.size() - at - 2 : end - at)));
      if (end == std::string::npos) break;
      at = end + 3;
    }
    if (line.rfind("| ", 0) == 0 && cells.size() >= 7 && cells[1] == f.case_id && cells[2] == kind) {
      out.push_back({"markdown", cells[4], cells[5], cells[6]});
    }
  }
  // JSON: numbers, read back in the metric's unit, and the figures phrase.
  const nlohmann::json j = nlohmann::json::parse(reports::MakeJsonReporter()->Render(m));
  for (const nlohmann::json& r : j["comparison"]["regressions"]) {
    if (r["case"] != f.case_id || r["kind"] != kind) continue;
    EXPECT_EQ(r["unit"], harness::MetricUnit(f.metric));
    EXPECT_EQ(r["statistic"], f.statistic);
    EXPECT_EQ(r["figures"], harness::FindingFigures(f));
    out.push_back({"json numbers", harness::HumanMetric(f.metric, r["baseline"].get<double>()),
                   harness::HumanMetric(f.metric, r["candidate"].get<double>()),
                   harness::HumanChange(r["ratio"].get<double>())});
    EXPECT_DOUBLE_EQ(r["ratio"].get<double>(), r["candidate"].get<double>() / r["baseline"].get<double>());
  }
  // JUnit and the terminal: "regression <kind> <metric>: A -> B (C)".
  static const std::regex kLine("(?:regression|REGRESSION) [^\\n]*? " + std::string("([a-z_]+) ") +
                                "([^ :]+): (.+?) -> (.+?) \\(([^)]*)\\)");
  const std::vector<std::pair<std::string, std::string>> texts = {
      {"junit", Unescape(reports::MakeJunitReporter()->Render(m))},
      {"terminal", harness::FormatComparison(*m.comparison)}};
  for (const auto& [where, text] : texts) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
      if (line.find(f.case_id + " ") == std::string::npos && where == "terminal") continue;
      std::smatch mt;
      if (std::regex_search(line, mt, kLine) && mt[1] == kind && mt[2] == f.metric) {
        out.push_back({where, mt[3], mt[4], mt[5]});
        break;
      }
    }
  }
  return out;
}

// Every format shows the same three figures for the finding; expects the
// formats listed in `must` among them.
void ExpectOneSetOfFigures(const reports::ReportModel& m, const harness::Finding& f,
                           const std::vector<std::string>& must) {
  const std::string base = harness::HumanMetric(f.metric, f.baseline);
  const std::string cand = harness::HumanMetric(f.metric, f.candidate);
  const std::string change = harness::HumanChange(f.ratio);
  const std::vector<Shown> shown = ShownFigures(m, f);
  std::set<std::string> seen;
  for (const Shown& s : shown) {
    seen.insert(s.where);
    EXPECT_EQ(s.baseline, base) << s.where;
    EXPECT_EQ(s.candidate, cand) << s.where;
    EXPECT_EQ(s.change, change) << s.where;
  }
  for (const std::string& where : must) EXPECT_EQ(seen.count(where), 1u) << "not found in " << where;
}

TEST_F(ReportViewTest, AFindingShowsOneSetOfFiguresInEveryFormatAndItsChart) {
  // The fixture's candidate: mm/64x64's modeled time grew, with a history
  // chart of the case (the store's real path, recorded finding to chart).
  const harness::Finding* modeled = nullptr;
  for (const harness::Finding& f : model_.comparison->regressions) {
    if (f.kind == FindingKind::kModeledLatency) modeled = &f;
  }
  ASSERT_NE(modeled, nullptr);
  EXPECT_FALSE(modeled->statistic.empty());
  ExpectOneSetOfFigures(model_, *modeled,
                        {"html table", "html chart lines", "html chart caption", "markdown",
                         "json numbers", "junit", "terminal"});
  // Its chart starts at zero: a time's line height reads as its size.
  const std::string chart = Slice(Html(model_), "aria-label=\"ops / mm/64x64 — modeled_us", "</svg>");
  EXPECT_TRUE(std::regex_search(chart, std::regex(">0(\\.0+)? (ns|us|ms|s)</text>"))) << chart;
}

TEST_F(ReportViewTest, AWallFindingShowsOneSetOfFiguresAndItsStatistic) {
  // Rounds on both sides; the candidate's host is 10% slower by its probe and
  // the case 80% slower: the candidate's figure is the one judged, at the
  // baseline's host speed, and its ratio is the change every format shows.
  std::mt19937_64 rng(4);
  std::lognormal_distribution<double> noise(0, 0.02);
  auto make = [&](int64_t run, double wall, double probe) {
    harness::RunRecord r;
    r.run_id = run;
    r.suite = "ops";
    r.env = model_.comparison->candidate_run.env;
    CaseResult c;
    c.suite = "ops";
    c.case_id = "mm/64x64";
    c.status = harness::CaseStatus::kPassed;
    for (int i = 0; i < 20; ++i) c.wall_us.push_back(wall * noise(rng));
    c.extra["rounds"] = {{"count", c.wall_us.size()},
                         {"samples", std::vector<int>(c.wall_us.size(), 1)}};
    c.extra["host_probe_us"] = probe;
    c.modeled_us = 10;
    r.cases = {c};
    return r;
  };
  const harness::Comparison c =
      harness::CompareRuns(make(5, 35900, 10), make(8, 35900 * 1.8, 11), harness::Thresholds());
  ASSERT_EQ(c.regressions.size(), 1u);
  const harness::Finding f = c.regressions[0];
  ASSERT_EQ(f.kind, FindingKind::kLatency);
  EXPECT_NEAR(f.ratio, 1.8 / 1.1, 0.05) << "the candidate at the baseline's host speed";
  EXPECT_NE(f.statistic.find("median of 20 and 20 timing rounds"), std::string::npos) << f.statistic;
  EXPECT_NE(f.statistic.find("host speed"), std::string::npos) << f.statistic;
  EXPECT_EQ(f.detail.find('%' + std::string(" (Hodges")), std::string::npos) << f.detail;

  model_.comparison->regressions = {f};
  ExpectOneSetOfFigures(model_, f, {"html table", "markdown", "json numbers", "junit", "terminal"});
  const std::string row = Slice(Html(model_), "<table id=\"regressions\"", "</table>");
  EXPECT_EQ(row.find(">" + reports::FormatNumber(f.ratio) + "<"), std::string::npos)
      << "a bare ratio beside the percentage: " << row;
  EXPECT_NE(row.find(reports::EscapeHtml(f.statistic)), std::string::npos) << "the statistic is named: " << row;
}

TEST_F(ReportViewTest, DecodePrefillAndEmbedCasesGetTheirOwnColumns) {
  reports::CaseRow* dec = Row(&model_, "decode", "granite/step");
  ASSERT_NE(dec, nullptr);
  CaseResult& r = dec->result;
  r.max_ulp = r.rel_l2 = r.cosine = r.max_rel_err = std::nan("");
  r.max_abs_err = 0.0123;
  r.metrics = {{"tokens", "top1_agreement", 0.9375, std::nan(""), false},
               {"tokens", "first_divergence_step", 3, std::nan(""), false},
               {"tokens", "near_ties", 1, std::nan(""), false},
               {"tokens", "hard_flips", 0, 0, false},
               {"logprobs", "max_logprob_diff", 0.0123, 0.04, false},
               {"logprobs", "min_top_k_overlap", 0.9, 0.6, false},
               {"latency", "ttft_us", 2220, std::nan(""), false},
               {"latency", "itl_us", 150.4, std::nan(""), false},
               {"latency", "tokens_per_s", 1234.6, std::nan(""), false},
               {"latency", "modeled_ttft_us", 900, std::nan(""), false}};
  // A prefill and an embed case beside it.
  reports::CaseRow prefill = *dec;
  prefill.result.case_id = "llama/prefill";
  prefill.result.metrics = {{"logits", "max_abs_err", 0.002, std::nan(""), false},
                            {"logits", "rel_l2", 0.001, 0.003, false},
                            {"logits", "top1_agreement", 1, std::nan(""), false}};
  prefill.result.rel_l2 = 0.001;
  prefill.result.cosine = 0.99999;
  reports::CaseRow embed = *dec;
  embed.result.case_id = "bert/embed";
  embed.result.metrics = {{"embeddings", "min_cosine", 0.99991, 0.999, false},
                          {"embeddings", "max_abs_err", 0.004, std::nan(""), false}};
  model_.suites[0].cases.push_back(prefill);
  model_.suites[0].cases.push_back(embed);

  const std::string html = Html(model_);
  const std::string decode = Slice(html, "data-kind=\"decode\"", "</table>");
  ASSERT_FALSE(decode.empty()) << "no decode table";
  const std::string head = Slice(decode, "<thead>", "</thead>");
  for (const char* column : {"top-1 agreement", "first divergence", "max logprob diff", "tokens/s",
                             "time to first token", "inter-token latency"}) {
    EXPECT_NE(head.find(column), std::string::npos) << column << " in " << head;
  }
  for (const char* column : {"max abs err", "max ULP", "rel L2", "cosine"}) {
    EXPECT_EQ(head.find(column), std::string::npos) << column << " in " << head;
  }
  const std::string row = Slice(decode, "<td>granite/step</td>", "</tr>");
  EXPECT_NE(row.find(">93.8%<"), std::string::npos) << row;
  EXPECT_NE(row.find(">step 3<"), std::string::npos) << row;
  EXPECT_NE(row.find(">0.0123 (limit 0.04)<"), std::string::npos) << row;
  EXPECT_NE(row.find(">1235<"), std::string::npos) << row;
  EXPECT_NE(row.find(">2.22 ms<"), std::string::npos) << row;
  EXPECT_NE(row.find(">150 us<"), std::string::npos) << row;

  const std::string pre = Slice(html, "data-kind=\"prefill\"", "</table>");
  ASSERT_FALSE(pre.empty()) << "no prefill table";
  EXPECT_NE(pre.find("top-1 agreement"), std::string::npos) << pre;
  EXPECT_NE(pre.find("llama/prefill"), std::string::npos) << pre;
  EXPECT_EQ(pre.find("granite/step"), std::string::npos) << pre;
  const std::string emb = Slice(html, "data-kind=\"embed\"", "</table>");
  ASSERT_FALSE(emb.empty()) << "no embed table";
  EXPECT_NE(emb.find("min cosine"), std::string::npos) << emb;
  EXPECT_NE(emb.find(">0.99991 (limit 0.999)<"), std::string::npos) << emb;
  EXPECT_EQ(emb.find("top-1 agreement"), std::string::npos) << emb;
}

TEST_F(ReportViewTest, MaxUlpIsExplainedWithItsLimit) {
  reports::CaseRow* sm = Row(&model_, "ops", "softmax/512x1024");
  ASSERT_NE(sm, nullptr);
  sm->result.max_ulp = 1001;
  sm->result.metrics = {{"out0", "max_ulp", 1001, std::nan(""), false}};
  const std::string html = Html(model_);
  const std::string ops =
      Slice(Slice(html, "<h3>ops</h3>", "</section>"), "data-kind=\"op\"", "</section>");
  // With a limit the cell says so; without one, the note under the table
  // says what the count is and that it is not a criterion.
  EXPECT_NE(Slice(ops, "<td>mm/64x64</td>", "</tr>").find(">1 (limit 2)<"), std::string::npos)
      << ops;
  EXPECT_NE(Slice(ops, "<td>softmax/512x1024</td>", "</tr>").find(">1001<"), std::string::npos);
  const std::string note = Slice(ops, "<p class=\"note\"", "</p>");
  ASSERT_FALSE(note.empty()) << ops;
  EXPECT_NE(note.find("max ULP"), std::string::npos) << note;
  EXPECT_NE(note.find("DL16"), std::string::npos) << note;
  EXPECT_NE(note.find("not a pass criterion"), std::string::npos) << note;
}

TEST_F(ReportViewTest, ChartsHaveTitledAxesGridlinesAndTheChangeNamed) {
  const std::string html = Html(model_);
  const std::string flagged = Slice(html, "<h3>Flagged cases</h3>", "</div>");
  const std::string svg = Slice(flagged, "aria-label=\"ops / mm/64x64", "</svg>");
  ASSERT_FALSE(svg.empty()) << flagged;
  EXPECT_GE(Count(svg, "<line class=\"grid\""), 3u) << svg;
  EXPECT_EQ(Count(svg, "<text class=\"ytitle\""), 1u) << svg;
  EXPECT_EQ(Count(svg, "<text class=\"xtitle\""), 1u) << svg;
  EXPECT_NE(Slice(svg, "<text class=\"ytitle\"", "</text>").find("modeled time"), std::string::npos)
      << svg;
  // Tick labels carry the unit; the change point is named where it is.
  EXPECT_NE(svg.find(" us</text>"), std::string::npos) << svg;
  const std::string label = Slice(svg, "<text class=\"cpl\"", "</text>");
  EXPECT_NE(label.find("+25.0%"), std::string::npos) << label;
  EXPECT_NE(label.find("run 6"), std::string::npos) << label;
  EXPECT_NE(label.find("blas"), std::string::npos) << label;
  // One title per chart: the caption, not a second label inside the plot.
  EXPECT_EQ(Count(svg, "<text class=\"ytitle\""), 1u);
}

TEST(ReportHistoryTest, AReportOfAnEarlierRunPlotsNoLaterRun) {
  spyre_test::TempDir dir;
  BuildFixtureStore(dir.File("store.db"));
  auto store = harness::Store::Open(dir.File("store.db"), harness::Store::Mode::kReadOnly);
  ASSERT_TRUE(store.ok()) << store.status().message();
  auto model = reports::BuildReportModel(**store, 7, {});
  ASSERT_TRUE(model.ok()) << model.status().message();
  size_t charts = 0;
  auto check = [&](const reports::Chart& c) {
    ++charts;
    ASSERT_FALSE(c.points.empty()) << c.title;
    EXPECT_EQ(c.points.back().run_id, 7) << c.title;
    for (const auto& p : c.points) EXPECT_LE(p.run_id, 7) << c.title;
  };
  for (const auto& c : model->case_charts) check(c);
  for (const auto& s : model->suites) {
    for (const auto& c : s.charts) check(c);
  }
  EXPECT_GT(charts, 0u);
}

TEST_F(ReportViewTest, PluralsAndJunitWording) {
  const std::string html = Html(model_);
  EXPECT_NE(html.find("1 case:"), std::string::npos) << "the decode suite has one case";
  EXPECT_EQ(html.find("1 cases"), std::string::npos);
  const std::string junit = reports::MakeJunitReporter()->Render(model_);
  EXPECT_EQ(junit.find("regression(s)"), std::string::npos) << junit;
  EXPECT_NE(junit.find("message=\"1 regression against baseline run 5\""), std::string::npos)
      << junit;
  EXPECT_EQ(junit.find("status status"), std::string::npos) << junit;
  EXPECT_EQ(Count(junit, "passed -&gt; failed"), 1u) << junit;
  EXPECT_NE(junit.find("regression status: passed -&gt; failed: max_ulp 16"), std::string::npos)
      << junit;
  const std::string md = reports::MakeMarkdownReporter()->Render(model_);
  EXPECT_EQ(md.find("(s)"), std::string::npos) << md;
}

TEST(EnvironmentWordingTest, ABlankOldValueReadsNoneInParentheses) {
  const nlohmann::json before = {{"faults", ""}, {"profile", "inductor"}};
  const nlohmann::json after = {{"faults", "mm:error=1e-2"}, {"profile", "inductor"}};
  harness::Comparison c;
  c.env_diff = harness::DiffEnvironments(before, after);
  ASSERT_EQ(c.env_diff.size(), 1u);
  EXPECT_EQ(c.env_diff[0].baseline, "(none)");
  EXPECT_EQ(harness::Attribution(c), "appeared with faults (none) -> mm:error=1e-2");
  EXPECT_NE(harness::FormatComparison(c).find("faults: (none) -> mm:error=1e-2"), std::string::npos)
      << harness::FormatComparison(c);
}

}  // namespace
}  // namespace reports_test
