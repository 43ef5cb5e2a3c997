// Verdicts that must not be false in ordinary use: a change of run mode is
// not a regression, a baseline of another suite is refused rather than
// compared with nothing, an injected fault is called one, and a changed
// suite file is a change of what was tested. Parity and modeled time only
// (no wall-time verdict), so nothing here depends on how busy the host is.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::RunCli;

const char* kVerdictsFilter = "^smoke/(mm_transposed_b|softmax|add|layer_norm)";

class VerdictsTest : public ::testing::Test {
 protected:
  std::string Db() const { return dir_.File("store.db"); }

  // run --json; the parsed summary (exit code in "exit").
  nlohmann::json Run(std::vector<std::string> extra, const std::string& suite = "smoke",
                     const std::string& filter = kVerdictsFilter) {
    std::vector<std::string> args = {"run", "--suite", suite, "--filter", filter, "--db", Db(), "--json", "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = RunCli(args, {{"SPYRE_REGRESS_THREADS", "1"}});
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    if (j.is_discarded()) j = nlohmann::json::object();
    j["exit"] = r.exit_code;
    j["stderr"] = r.err;
    return j;
  }

  spyre_test::TempDir dir_;
};

TEST_F(VerdictsTest, AChangeOfLatencyModeIsNotARegressionAndTheSameModeIsPreferred) {
  const auto parity = Run({});
  ASSERT_EQ(parity["exit"], 0) << parity.dump();
  // Timed, against the parity run (the only one): the peak device memory
  // is measured alike in both modes, so nothing differs.
  const auto timed = Run({"--latency", "all", "--rounds", "1", "--repeat", "3"});
  EXPECT_EQ(timed["exit"], 0) << timed.dump();
  EXPECT_EQ(timed["baseline_run_id"], parity["run_id"]) << timed.dump();
  EXPECT_EQ(timed["regressions"], 0) << timed.dump();
  // A parity run now: the newest run was timed, the parity run is preferred.
  const auto again = Run({});
  EXPECT_EQ(again["exit"], 0) << again.dump();
  EXPECT_EQ(again["baseline_run_id"], parity["run_id"]) << again.dump();
  EXPECT_NE(again["baseline_reason"].get<std::string>().find("same latency mode"), std::string::npos)
      << again.dump();
}

TEST_F(VerdictsTest, ABaselineOfAnotherSuiteIsRefusedBeforeAnythingRuns) {
  const auto smoke = Run({});
  ASSERT_EQ(smoke["exit"], 0) << smoke.dump();
  const auto ops = Run({"--baseline", std::to_string(smoke["run_id"].get<int64_t>())}, "ops", "^ops/add\\.");
  EXPECT_EQ(ops["exit"], 2) << ops.dump();
  const std::string err = ops["stderr"];
  EXPECT_NE(err.find("shares no case with this run (ops)"), std::string::npos) << err;
  EXPECT_EQ(spyre_test::LineCount(err), 1) << err;
  // Nothing was recorded for the refused run.
  auto runs = RunCli({"runs", "--db", Db(), "--json"});
  EXPECT_EQ(nlohmann::json::parse(runs.out)["runs"].size(), 1u) << runs.out;
}

TEST_F(VerdictsTest, CompareWithNoArgumentsTakesTheLatestRunsOwnBaselineInAStoreOfSeveralSuites) {
  const auto a = Run({});
  const auto other = Run({"--baseline", "none"}, "ops", "^ops/add\\.");
  const auto b = Run({});  // judged against a; the run before it is of another suite
  ASSERT_EQ(b["baseline_run_id"], a["run_id"]) << b.dump();
  auto c = RunCli({"compare", "--db", Db()});
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE(c.out.find("baseline: run " + std::to_string(a["run_id"].get<int64_t>()) + ", the run " +
                       std::to_string(b["run_id"].get<int64_t>()) + " was judged against"),
            std::string::npos)
      << c.out;
  // The ops run has no baseline of its own suite: one line saying what to do.
  c = RunCli({"compare", "--candidate", std::to_string(other["run_id"].get<int64_t>()), "--db", Db()});
  EXPECT_EQ(c.exit_code, 2) << c.out << c.err;
  EXPECT_NE(c.err.find("name one with --baseline RUN"), std::string::npos) << c.err;
}

TEST_F(VerdictsTest, AnInjectedFaultIsCalledOneNotAnUpstreamChange) {
  const auto base = Run({});
  const auto slow = Run({"--inject", "mm:slow=2"});
  ASSERT_EQ(slow["exit"], 1) << slow.dump();
  const std::string out = dir_.File("report");
  auto rep = RunCli({"report", "--run", std::to_string(slow["run_id"].get<int64_t>()), "--out", out, "--db", Db()});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  std::ifstream in(out + "/index.html");
  std::stringstream html;
  html << in.rdbuf();
  EXPECT_NE(html.str().find("<td>faults</td>"), std::string::npos);
  EXPECT_NE(html.str().find("injected fault</td>"), std::string::npos);
  EXPECT_EQ(html.str().find("upstream change</td>"), std::string::npos);
  // The groups come before the table: the slowed op's callers as one group.
  const size_t groups = html.str().find("<ol id=\"groups\"><li><b>");
  ASSERT_NE(groups, std::string::npos);
  EXPECT_NE(html.str().find("through mm", groups), std::string::npos);
  const size_t table = html.str().find("<table id=\"regressions\"");
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(groups, table);
  auto c = RunCli({"compare", "--baseline", std::to_string(base["run_id"].get<int64_t>()), "--candidate",
                   std::to_string(slow["run_id"].get<int64_t>()), "--db", Db()});
  EXPECT_NE(c.out.find("(injected fault)"), std::string::npos) << c.out;
}

TEST_F(VerdictsTest, AnEditedSuiteFileIsAChangeOfWhatWasTested) {
  namespace fs = std::filesystem;
  const std::string suites = dir_.File("suites");
  fs::create_directories(suites);
  fs::copy_file(std::string(SPYRE_SOURCE_DIR) + "/suites/smoke.json", suites + "/smoke.json");
  const std::string golden = std::string(SPYRE_SOURCE_DIR) + "/golden";
  const auto a = Run({"--suites", suites, "--golden", golden});
  ASSERT_EQ(a["exit"], 0) << a.dump();
  // The same file again: no change.
  const auto same = Run({"--suites", suites, "--golden", golden});
  auto c = RunCli({"compare", "--baseline", std::to_string(a["run_id"].get<int64_t>()), "--candidate",
                   std::to_string(same["run_id"].get<int64_t>()), "--db", Db()});
  EXPECT_NE(c.out.find("environment: unchanged"), std::string::npos) << c.out;
  {
    auto j = nlohmann::json::parse(std::ifstream(suites + "/smoke.json"));
    j["description"] = j.value("description", "") + " (edited)";
    std::ofstream(suites + "/smoke.json") << j.dump(2);
  }
  const auto b = Run({"--suites", suites, "--golden", golden});
  c = RunCli({"compare", "--baseline", std::to_string(a["run_id"].get<int64_t>()), "--candidate",
              std::to_string(b["run_id"].get<int64_t>()), "--db", Db()});
  EXPECT_EQ(c.out.find("environment: unchanged"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("suite_files: smoke sha256 "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("(test input)"), std::string::npos) << c.out;
}

}  // namespace
