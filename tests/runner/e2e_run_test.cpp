// End-to-end tests of `spyre-regress run` and `merge` on the smoke suite,
// running the built binary.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "e2e_util.h"
#include "support/temp_dir.h"

namespace runner_e2e {
namespace {

using spyre_test::RunCli;
using spyre_test::TempDir;

std::set<std::string> CaseNames(const std::string& db) {
  auto rows = Query(db, "SELECT case_name FROM v_results");
  return {rows.begin(), rows.end()};
}

TEST(RunE2E, CleanSmokeRunPassesAndRecordsEverything) {
  TempDir dir;
  const auto cases = SuiteCases("smoke");
  ASSERT_FALSE(cases.empty());
  auto r = RunCli({"run", "--suite", "smoke", "--jobs", "2", "--db", dir.File("s.db"), "--tag", "ci=yes"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto lines = Lines(r.out);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[lines.size() - 2], std::to_string(cases.size()) + " passed, 0 failed");
  EXPECT_EQ(lines.back(), "regressions: none (no baseline)");
  const std::string db = dir.File("s.db");
  EXPECT_EQ(One(db, "SELECT status || '|' || suite FROM v_runs"), "completed|smoke");
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_results WHERE status = 'passed'"), std::to_string(cases.size()));
  std::set<std::string> expected;
  for (const auto& [id, op] : cases) expected.insert(id);
  EXPECT_EQ(CaseNames(db), expected);
  // smoke is a parity suite: each case ran once, no wall sample, and both
  // the summary and every result say that its wall time was not judged.
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_results WHERE wall_samples > 0"), "0");
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_results WHERE json_extract(extra_json, '$.latency') = "
                    "'not judged: parity only, run once'"),
            std::to_string(cases.size()));
  const std::string n = std::to_string(cases.size());
  EXPECT_NE(r.out.find("wall time not judged for " + n + " of " + n +
                       " case(s): parity only, each run once (not marked for latency; --latency "
                       "all times them)"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(One(db, "SELECT json_extract(options_json, '$.latency') || '|' || "
                    "json_extract(options_json, '$.timed_cases') FROM v_runs"),
            "marked|0");
  EXPECT_EQ(One(db, "SELECT json_extract(env_json, '$.tags.ci') FROM v_runs"), "yes");
  EXPECT_EQ(One(db, "SELECT json_extract(env_json, '$.jobs') FROM v_runs"), "2");
  EXPECT_EQ(One(db, "SELECT length(fingerprint) FROM v_runs"), "16");
}

TEST(RunE2E, JsonIsOneDocumentOnStdout) {
  TempDir dir;
  auto r = RunCli({"run", "--suite", "smoke", "--filter", "^smoke/mm\\.", "--json", "--repeat", "2",
                   "--latency", "all", "--db", dir.File("s.db"), "--baseline", "none"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["status"], "completed");
  EXPECT_EQ(j["passed"], j["results"].size());
  EXPECT_GT(j["results"].size(), 0u);
  for (const auto& c : j["results"]) EXPECT_EQ(c["case"].get<std::string>().rfind("mm.", 0), 0u) << c;
  EXPECT_TRUE(j["comparison"].is_null());
  EXPECT_NE(r.err.find("regressions: none (no baseline)"), std::string::npos);  // human text on stderr
  EXPECT_EQ(One(dir.File("s.db"), "SELECT max(wall_samples) FROM v_results"), "2");
  EXPECT_EQ(j["latency"]["mode"], "all");
  EXPECT_EQ(j["latency"]["timed"], j["results"].size());
  EXPECT_EQ(j["latency"]["not_judged"], 0);
  // Two samples cannot be judged: said before the run starts.
  EXPECT_NE(r.err.find("warning: --repeat 2 gives smoke fewer samples than the 5"), std::string::npos)
      << r.err;
}

// Workers are forks of the run's zygote: each is its own process (a crash
// costs one case), and the start-up of libtorch is paid once.
TEST(RunE2E, WorkersComeFromTheZygoteUnlessItIsTurnedOff) {
  TempDir dir;
  const std::vector<std::string> args = {"run", "--suite", "smoke", "--filter", "^smoke/(mm|add)\\.",
                                         "--inject", "mm:segv", "--json", "--baseline", "none"};
  for (const std::string mode : {"zygote", "zygote-no-preload", "exec"}) {
    const std::string spawn = mode == "exec" ? "exec" : "zygote";
    std::vector<std::string> full = args;
    full.insert(full.end(), {"--db", dir.File(mode + ".db")});
    std::map<std::string, std::string> env;
    if (mode == "exec") env["SPYRE_REGRESS_ZYGOTE"] = "0";
    if (mode == "zygote-no-preload") env["SPYRE_REGRESS_ZYGOTE_PRELOAD"] = "0";
    auto r = RunCli(full, env);
    ASSERT_EQ(r.exit_code, 1) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["worker_spawn"], spawn);
    // Every crash replaced its worker, and every worker said hello.
    EXPECT_GT(j["workers_started"].get<int>(), 1);
    // By default a forked worker finds the device library mapped (the
    // zygote loaded it, once); otherwise every worker loads it itself.
    EXPECT_EQ(j["workers_device_preloaded"].get<int>(),
              mode == "zygote" ? j["workers_started"].get<int>() : 0);
    EXPECT_EQ(j["worker_startup_s"].size(), j["workers_started"].get<size_t>());
    int crashed = 0, passed = 0;
    for (const auto& c : j["results"]) {
      const bool mm = c["case"].get<std::string>().rfind("mm.", 0) == 0;
      EXPECT_EQ(c["status"], mm ? "crashed" : "passed") << c;
      crashed += mm ? 1 : 0;
      passed += mm ? 0 : 1;
      if (mm) {
        EXPECT_NE(c["message"].get<std::string>().find("SIGSEGV"), std::string::npos) << c;
      }
    }
    EXPECT_GT(crashed, 0);
    EXPECT_GT(passed, 0);
  }
  // Both ways give the same verdicts and values (parity only: no wall time).
  const std::string q =
      "SELECT group_concat(case_name || ':' || status || ':' || ifnull(max_ulp, '-'), ',') FROM "
      "(SELECT * FROM v_results ORDER BY case_name)";
  EXPECT_EQ(One(dir.File("zygote.db"), q), One(dir.File("exec.db"), q));
}

// The zygote loads the device library before the run sets the device's
// settings (--profile here): a forked worker still reads them from its own
// environment, as an exec'd one does.
TEST(RunE2E, AForkedWorkerTakesTheDeviceSettingsOfItsRun) {
  TempDir dir;
  auto modeled = [&](const std::string& profile, const std::string& spawn) {
    const std::string db = dir.File(profile + "-" + spawn + ".db");
    auto r = RunCli({"run", "--suite", "smoke", "--filter", "^smoke/mm\\.", "--profile", profile,
                     "--db", db, "--baseline", "none", "--quiet"},
                    spawn == "exec" ? std::map<std::string, std::string>{{"SPYRE_REGRESS_ZYGOTE", "0"}}
                                    : std::map<std::string, std::string>{});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return One(db, "SELECT group_concat(case_name || ':' || modeled_us, ',') FROM "
                   "(SELECT * FROM v_results ORDER BY case_name)");
  };
  const std::string sendnn = modeled("sendnn", "zygote");
  EXPECT_FALSE(sendnn.empty());
  EXPECT_EQ(sendnn, modeled("sendnn", "exec"));
  EXPECT_NE(sendnn, modeled("inductor", "zygote"));
}

// A case marked latency in a parity suite is the only one timed; a latency
// suite that cannot collect enough samples is refused before anything runs.
TEST(RunE2E, OnlyCasesMarkedForLatencyAreTimed) {
  TempDir dir;
  const std::string suites = dir.File("suites");
  const std::string golden = dir.File("golden");
  std::filesystem::create_directories(suites);
  auto write_suite = [&](const std::string& text) {
    std::ofstream(suites + "/mine.json") << text;
  };
  const std::string cases =
      R"("cases": [{"id": "a", "op": "add", "inputs": [{"shape": [4, 8], "dtype": "float32"},
                                                    {"shape": [4, 8], "dtype": "float32"}]},
                   {"id": "b", "op": "mul", "latency": true,
                    "inputs": [{"shape": [4, 8], "dtype": "float32"}, {"shape": [4, 8], "dtype": "float32"}]}])";
  write_suite(R"({"name": "mine", "defaults": {"repeat": 5}, )" + cases + "}");
  auto gen = RunCli({"golden", "generate", "--suite", "mine", "--suites", suites, "--golden", golden});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  const std::string db = dir.File("s.db");
  auto r = RunCli({"run", "--suite", "mine", "--suites", suites, "--golden", golden, "--db", db,
                   "--baseline", "none", "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(Query(db, "SELECT case_name || ':' || wall_samples FROM v_results ORDER BY case_name"),
            (std::vector<std::string>{"a:0", "b:5"}));
  EXPECT_NE(r.out.find("wall time not judged for 1 of 2 case(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 worker(s)"), std::string::npos) << r.out;  // a timed case: one worker
  // --latency none: nothing timed, and --jobs is honoured.
  auto none = RunCli({"run", "--suite", "mine", "--suites", suites, "--golden", golden, "--db", db,
                      "--baseline", "none", "--jobs", "2", "--latency", "none"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_EQ(One(db, "SELECT sum(wall_samples) FROM v_results WHERE run_id = 2"), "0");
  EXPECT_NE(none.out.find("--latency none"), std::string::npos) << none.out;
  EXPECT_NE(none.out.find("2 worker(s)"), std::string::npos) << none.out;
  // A latency suite with 3 repeats: refused, exit 2, one line naming the fix.
  write_suite(R"({"name": "mine", "latency": true, "defaults": {"repeat": 3}, )" + cases + "}");
  auto bad = RunCli({"run", "--suite", "mine", "--suites", suites, "--golden", golden, "--db", db});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(spyre_test::LineCount(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("/defaults/repeat: 3 samples per case"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("set repeat to at least 5"), std::string::npos) << bad.err;
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_runs"), "2");  // nothing recorded
  // ... unless the rounds give the judge its values.
  auto rounds = RunCli({"run", "--suite", "mine", "--suites", suites, "--golden", golden, "--db", db,
                        "--rounds", "10", "--min-sample-us", "0", "--baseline", "none"});
  EXPECT_EQ(rounds.exit_code, 0) << rounds.err;
}

TEST(RunE2E, RoundsTimeEveryCaseInFreshWorkersAndStoreOneValuePerRound) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  auto r = RunCli({"run", "--suite", "smoke", "--filter", "^smoke/mm\\.", "--rounds", "3", "--repeat", "2",
                   "--latency", "all", "--min-sample-us", "200", "--db", db, "--baseline", "none"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("timing round 2/3"), std::string::npos) << r.err;
  const std::string cases = One(db, "SELECT count(*) FROM v_results");
  ASSERT_NE(cases, "0");
  // Every sample of every round, each case, with the rounds' sizes.
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_results WHERE wall_samples = 6"), cases);
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_results WHERE json_extract(extra_json, '$.rounds.count')"
                    " = 3 AND json_extract(extra_json, '$.rounds.samples') = '[2,2,2]'"), cases);
  EXPECT_EQ(One(db, "SELECT count(DISTINCT json_extract(extra_json, '$.harness.worker_pid'))"
                    " FROM v_results"), "1");
  EXPECT_EQ(One(db, "SELECT json_extract(options_json, '$.rounds') || '|' || "
                    "json_extract(options_json, '$.min_sample_us') FROM v_runs"), "3|200.0");
  // A round count out of range is a usage error.
  auto bad = RunCli({"run", "--suite", "smoke", "--rounds", "0", "--db", db});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

// --rounds MIN-MAX: a case whose rounds agree within the precision gets no
// more after MIN; the rounds before the main pass take --round-repeat
// samples at most, the main pass the run's repeat.
TEST(RunE2E, RoundsStopWhereTheCaseIsPreciseAndTimingRoundsTakeFewerSamples) {
  TempDir dir;
  const std::vector<std::string> args = {"run", "--suite", "smoke", "--filter", "^smoke/(mm|add)\\.",
                                         "--latency", "all", "--repeat", "4", "--round-repeat", "2",
                                         "--min-sample-us", "0", "--baseline", "none",
                                         "--confirm-rounds", "0", "--rounds", "4-6"};
  // Any spread is precise enough: every case stops at MIN.
  std::vector<std::string> loose = args;
  loose.insert(loose.end(), {"--round-precision", "1", "--db", dir.File("loose.db")});
  auto r = RunCli(loose);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string cases = One(dir.File("loose.db"), "SELECT count(*) FROM v_results");
  ASSERT_NE(cases, "0");
  EXPECT_EQ(One(dir.File("loose.db"),
                "SELECT count(*) FROM v_results WHERE json_extract(extra_json, '$.rounds.count') = 4"
                " AND json_extract(extra_json, '$.rounds.planned') = 6 "
                "AND json_extract(extra_json, '$.rounds.samples') = '[2,2,2,4]'"),
            cases);
  EXPECT_EQ(One(dir.File("loose.db"),
                "SELECT json_extract(options_json, '$.rounds') || '|' || "
                "json_extract(options_json, '$.rounds_min') || '|' || "
                "json_extract(options_json, '$.round_repeat') FROM v_runs"),
            "6|4|2");
  // No measured spread is precise enough: every case gets MAX.
  std::vector<std::string> strict = args;
  strict.insert(strict.end(), {"--round-precision", "0", "--db", dir.File("strict.db")});
  r = RunCli(strict);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(One(dir.File("strict.db"),
                "SELECT count(*) FROM v_results WHERE json_extract(extra_json, '$.rounds.count') = 6"
                " AND json_extract(extra_json, '$.rounds.samples') = '[2,2,2,2,2,4]'"),
            cases);
}

// Timing rounds only time: the verdicts, metrics and messages of a run with
// rounds are those of the same run in one round (the main pass judges), and
// every round's samples are kept.
TEST(RunE2E, TimingRoundsLeaveTheVerdictsToTheMainPass) {
  TempDir dir;
  // clang-format off
  const std::vector<std::string> args = {
      "run", "--suite", "smoke", "--filter", "^smoke/(mm|add)\\.", "--inject", "mm:error=1e-2",
      "--latency", "all", "--repeat", "2", "--min-sample-us", "0", "--baseline", "none",
      "--confirm-rounds", "0"};
  // clang-format on
  for (const std::string rounds : {"1", "3"}) {
    std::vector<std::string> full = args;
    full.insert(full.end(), {"--rounds", rounds, "--db", dir.File(rounds + ".db")});
    auto r = RunCli(full);
    ASSERT_EQ(r.exit_code, 1) << r.err;  // mm fails on its accuracy
  }
  const std::string verdicts =
      "SELECT group_concat(case_name || ':' || status || ':' || message || ':' || "
      "ifnull(max_ulp, '-') || ':' || ifnull(cosine, '-') || ':' || ifnull(modeled_us, '-'), ',') "
      "FROM (SELECT * FROM v_results ORDER BY case_name)";
  EXPECT_EQ(One(dir.File("1.db"), verdicts), One(dir.File("3.db"), verdicts));
  // Every metric of every output, as `export` gives them; sorted, as the
  // two runs may have recorded their cases in another order.
  auto metric_rows = [&](const std::string& db) {
    auto r = RunCli({"export", "--format", "csv", "--table", "metrics", "--db", db});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::vector<std::string> rows = Lines(r.out);
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  const std::vector<std::string> metrics = metric_rows(dir.File("1.db"));
  EXPECT_GT(metrics.size(), 1u);  // the header and at least one metric
  EXPECT_EQ(metrics, metric_rows(dir.File("3.db")));
  EXPECT_NE(One(dir.File("3.db"), "SELECT count(*) FROM v_results WHERE status = 'failed'"), "0");
  const std::string cases = One(dir.File("3.db"), "SELECT count(*) FROM v_results");
  EXPECT_EQ(One(dir.File("3.db"),
                "SELECT count(*) FROM v_results WHERE wall_samples = 6 AND "
                "json_extract(extra_json, '$.rounds.samples') = '[2,2,2]'"),
            cases);
}

// --confirm-all re-times every timed case beside the baseline's
// configuration, suspect or not, with two processes at once
// (--confirm-jobs): an unchanged case stops early, and each stored
// confirmation says how far its sequential design would have gone.
TEST(RunE2E, ConfirmAllReTimesEveryTimedCaseOnTwoCores) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  const std::vector<std::string> common = {"run", "--suite", "smoke", "--filter",
                                           "^smoke/(mm|add)\\.", "--db", db, "--latency", "all",
                                           "--repeat", "5"};
  auto base = RunCli(common);
  ASSERT_EQ(base.exit_code, 0) << base.out << base.err;
  const std::string timed =
      One(db, "SELECT count(*) FROM v_results WHERE run_id = 1 AND wall_samples > 0");
  ASSERT_NE(timed, "0");
  std::vector<std::string> again = common;
  again.insert(again.end(), {"--inject", "mm:delay=1", "--confirm-all", "--confirm-jobs", "2",
                             "--confirm-max-rounds", "9"});
  auto r = RunCli(again);
  ASSERT_LE(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("confirming " + timed + " wall-time suspect(s) (every timed case: "
                       "--confirm-all) in fresh processes, each timing baseline run 1's "
                       "configuration and this run's in turn"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_results WHERE run_id = 2 AND "
                    "json_extract(extra_json, '$.confirm.paired') = 1 AND "
                    "json_extract(extra_json, '$.confirm.max_rounds') = 9"),
            timed);
  EXPECT_EQ(One(db, "SELECT json_extract(options_json, '$.confirm_jobs') || ' ' || "
                    "json_extract(options_json, '$.confirm_all') FROM v_runs WHERE run_id = 2"),
            "2 1");
}

// The timing kind's cases are the cost model's figures: --latency all
// takes no wall samples of them and warns of nothing.
TEST(RunE2E, CostModelFiguresAreNotHostTimed) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  auto r = RunCli({"run", "--suite", "calibration", "--db", db, "--latency", "all"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err.find("wall-time judge needs"), std::string::npos) << r.err;
  EXPECT_NE(One(db, "SELECT count(*) FROM v_results"), "0");
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_results WHERE wall_samples > 0"), "0");
}

TEST(RunE2E, SuspectsAreReTimedInFreshProcessesBesideTheBaselinesConfiguration) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  // Seven processes a side is the fewest a verdict can rest on (p < 0.001,
  // the default); nine samples and a tenfold slowdown keep the suspect test
  // clear of the outliers a busy host throws into single samples. One call
  // a sample keeps a confirmation process's samples short on a slow host
  // too (past the repeat, samples are taken only while they are short).
  const std::vector<std::string> common = {
      "run", "--suite",          "smoke", "--filter", "^smoke/mm\\.128x256", "--db", db, "--repeat",
      "9",   "--confirm-rounds", "7", "--latency", "all", "--min-sample-us", "0"};
  auto base = RunCli(common);
  ASSERT_EQ(base.exit_code, 0) << base.out << base.err;
  // Each confirmation process takes up to --confirm-repeat samples a side,
  // more than the run's own nine while the case's samples are short.
  std::vector<std::string> slow = common;
  slow.insert(slow.end(), {"--inject", "mm:slow=10", "--confirm-repeat", "12"});
  // A host whose load swings tenfold within a run is rare but not
  // impossible: the slow run may be repeated twice before the test says the
  // confirmation missed. Every attempt is judged against run 1 (the auto
  // baseline passes over runs with injected faults).
  std::string cases, flagged;
  for (int attempt = 0; attempt < 3; ++attempt) {
    auto r = RunCli(slow);
    ASSERT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(
        r.out.find("baseline: run 1, the latest completed run of smoke with no injected faults"),
        std::string::npos)
        << r.out;
    const std::string run = std::to_string(attempt + 2);
    cases = One(db, "SELECT count(*) FROM v_results WHERE run_id = " + run);
    ASSERT_NE(cases, "0");
    // Faults are all that differs: every fresh process times both.
    if (r.out.find("fresh process(es) each, every process timing the baseline's configuration "
                   "and this run's in turn") == std::string::npos) {
      continue;
    }
    EXPECT_NE(r.err.find("7-11 rounds of up to 12 samples a side, budget 120 s"),
              std::string::npos)
        << r.err;
    // Every suspect's fresh processes are stored, for `compare` and the
    // reports: at least four pairs (a paired case clearly changed is
    // decided there), as many values a side. Samples past the repeat are taken only while the samples so
    // far are short, which a busy or slow host decides (the rule itself is
    // tested in WallSamplerTest): the bounds are the run's repeat and
    // --confirm-repeat.
    const std::string confirmed = One(
        db,
        "SELECT count(*) FROM v_results WHERE run_id = " + run +
            " AND json_extract(extra_json, '$.confirm.baseline_run') = 1"
            " AND json_extract(extra_json, '$.confirm.paired') = 1"
            " AND json_extract(extra_json, '$.confirm.samples') BETWEEN 9 AND 12"
            " AND json_array_length(json_extract(extra_json, '$.confirm.values')) >= 4"
            " AND json_array_length(json_extract(extra_json, '$.confirm.values')) ="
            "     json_array_length(json_extract(extra_json, '$.confirm.baseline_values'))");
    EXPECT_NE(confirmed, "0");
    flagged = One(db, "SELECT count(*) FROM v_regressions WHERE run_id = " + run +
                          " AND kind = 'latency'");
    if (flagged == cases) break;
  }
  EXPECT_EQ(flagged, cases) << "a tenfold mm slowdown was not confirmed in 3 attempts";
}

// A run judged without its baseline (a nightly shard) is confirmed later:
// `confirm` re-times the run's suspects beside the baseline's configuration,
// stores that evidence and judges the run again.
TEST(RunE2E, ConfirmReTimesARecordedRunsSuspectsAndJudgesItAgain) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  // One call a sample keeps a confirmation process's samples short, so that
  // it takes samples past smoke's repeat of 5 on most hosts.
  const std::vector<std::string> common = {"run",     "--suite",  "smoke", "--filter",
                                           "^smoke/mm\\.128x256", "--db", db,
                                           "--rounds", "10", "--latency", "all", "--baseline", "none",
                                           "--min-sample-us", "0"};
  auto base = RunCli(common);
  ASSERT_EQ(base.exit_code, 0) << base.out << base.err;
  std::vector<std::string> slow = common;
  slow.insert(slow.end(), {"--inject", "mm:slow=10"});
  auto cand = RunCli(slow);
  ASSERT_EQ(cand.exit_code, 0) << cand.out << cand.err;
  EXPECT_NE(cand.out.find("regressions: none (no baseline)"), std::string::npos) << cand.out;
  const std::string cases = One(db, "SELECT count(*) FROM v_results WHERE run_id = 2");
  ASSERT_NE(cases, "0");

  // A tenfold slowdown: every case is a suspect, and every fresh process
  // times both configurations.
  std::string flagged;
  for (int attempt = 0; attempt < 2 && flagged != cases; ++attempt) {
    auto c = RunCli({"confirm", "--run", "2", "--db", db});
    ASSERT_EQ(c.exit_code, 1) << c.out << c.err;
    EXPECT_NE(c.out.find("run 2 (smoke): " + cases + " case(s)"), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("every process timing the baseline's configuration and this run's in turn"),
              std::string::npos)
        << c.out;
    EXPECT_NE(c.out.find("regressions: " + cases + " (baseline run 1"), std::string::npos) << c.out;
    EXPECT_EQ(One(db,
                  "SELECT count(*) FROM v_results WHERE run_id = 2"
                  " AND json_extract(extra_json, '$.confirm.paired') = 1"
                  " AND json_extract(extra_json, '$.confirm.samples') BETWEEN 5 AND 11"
                  " AND json_array_length(json_extract(extra_json, '$.confirm.values')) >= 4"),
              cases)
        << "each process takes at least smoke's 5 samples a side, at most confirm's default of "
           "11, and a paired case is decided from four pairs";
    flagged = One(db, "SELECT count(*) FROM v_regressions WHERE run_id = 2 AND kind = 'latency'");
  }
  EXPECT_EQ(flagged, cases) << "a tenfold mm slowdown was not confirmed in 2 attempts";

  // The baseline re-created needs this machine to re-create the run too:
  // one that ran elsewhere keeps its stored evidence and says so.
  ASSERT_EQ(Exec(db, "UPDATE runs SET env_json = json_set(env_json, '$.cpu', 'another cpu')"
                     " WHERE id = 2"),
            "");
  auto elsewhere = RunCli({"confirm", "--run", "2", "--db", db});
  EXPECT_EQ(elsewhere.exit_code, 1) << elsewhere.out << elsewhere.err;
  EXPECT_NE(elsewhere.out.find("confirmation: not possible here: run 2's configuration cannot be "
                               "re-created on this machine (cpu another cpu here "),
            std::string::npos)
      << elsewhere.out;
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_regressions WHERE run_id = 2 AND kind = 'latency'"),
            flagged);

  // Bad input: one line, exit 2, nothing changed.
  auto missing = RunCli({"confirm", "--run", "9", "--db", db});
  EXPECT_EQ(missing.exit_code, 2) << missing.out << missing.err;
  EXPECT_NE(missing.err.find("--run"), std::string::npos) << missing.err;
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_regressions WHERE run_id = 2 AND kind = 'latency'"),
            flagged);
  // The first run has nothing before it to be confirmed against.
  auto first = RunCli({"confirm", "--run", "1", "--db", db});
  EXPECT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("confirmation: no baseline to re-time against"), std::string::npos)
      << first.out;
  EXPECT_NE(first.out.find("regressions: none (no baseline)"), std::string::npos) << first.out;
}

TEST(RunE2E, InjectNamesAreCheckedAndAFaultThatMatchedNoCallIsAWarning) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  auto mapped = RunCli({"run", "--suite", "smoke", "--filter", "^smoke/softmax$", "--inject",
                        "softmax:slow=1.5", "--db", db, "--baseline", "none"});
  ASSERT_EQ(mapped.exit_code, 0) << mapped.out << mapped.err;
  EXPECT_EQ(One(db, "SELECT json_extract(env_json, '$.faults') FROM v_runs WHERE run_id = 1"),
            "_softmax:slow=1.5");
  EXPECT_EQ(mapped.out.find("warning:"), std::string::npos) << mapped.out;
  auto unmatched =
      RunCli({"run", "--suite", "smoke", "--filter", "^smoke/add\\.", "--inject", "mm:slow=2",
              "--db", db, "--baseline", "none", "--report", dir.File("report")});
  ASSERT_EQ(unmatched.exit_code, 0) << unmatched.out << unmatched.err;
  EXPECT_NE(unmatched.out.find("warning: injected fault on 'mm' matched no call"),
            std::string::npos)
      << unmatched.out;
  EXPECT_NE(One(db, "SELECT note FROM v_runs WHERE run_id = 2").find("'mm' matched no call"),
            std::string::npos);
  std::ifstream summary(dir.File("report") + "/summary.md");
  std::stringstream text;
  text << summary.rdbuf();
  EXPECT_NE(text.str().find("**Warning:** injected fault on 'mm' matched no call"),
            std::string::npos)
      << text.str();
}

TEST(RunE2E, ACaseThatGaveNoTimingInRoundOneIsLeftToTheMainPass) {
  TempDir dir;
  // Every mm case crashes its worker; the add cases pass.
  auto once = RunCli({"run", "--suite", "smoke", "--filter", "^smoke/(mm|add)\\.", "--inject", "mm:segv", "--json",
                      "--db", dir.File("a.db"), "--baseline", "none"});
  ASSERT_EQ(once.exit_code, 1) << once.err;
  const int per_pass = nlohmann::json::parse(once.out)["workers_started"].get<int>();
  ASSERT_GT(per_pass, 1);  // the crashes replaced workers
  auto four = RunCli({"run", "--suite", "smoke", "--filter", "^smoke/(mm|add)\\.", "--inject", "mm:segv", "--json",
                      "--rounds", "4", "--min-sample-us", "0", "--latency", "all", "--db", dir.File("b.db"),
                      "--baseline", "none"});
  ASSERT_EQ(four.exit_code, 1) << four.err;
  const nlohmann::json j = nlohmann::json::parse(four.out);
  // Round 1 and the main pass meet the crashes; rounds 2 and 3 time only the
  // add cases, one worker each.
  EXPECT_EQ(j["workers_started"].get<int>(), 2 * per_pass + 2);
  EXPECT_EQ(j["counts"]["crashed"], nlohmann::json::parse(once.out)["counts"]["crashed"]);
  EXPECT_EQ(One(dir.File("b.db"), "SELECT count(*) FROM v_results WHERE status = 'passed' AND "
                                  "json_extract(extra_json, '$.rounds.count') = 4"),
            One(dir.File("b.db"), "SELECT count(*) FROM v_results WHERE status = 'passed'"));
}

TEST(RunE2E, ReportFlagWritesTheReports) {
  TempDir dir;
  auto r = RunCli({"run", "--suite", "smoke", "--filter", "^smoke/exp$", "--quiet", "--db", dir.File("s.db"),
                   "--report", dir.File("report")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"index.html", "junit.xml", "summary.md", "report.json"}) {
    EXPECT_FALSE(spyre_test::ReadFile(dir.File("report/") + f).empty()) << f;
  }
  auto lines = Lines(r.out);
  ASSERT_GE(lines.size(), 3u);
  EXPECT_EQ(lines.back(), "regressions: none (no baseline)");
}

TEST(RunE2E, ShardsMergedEqualTheUnshardedRun) {
  TempDir dir;
  ASSERT_EQ(RunCli({"run", "--suite", "smoke", "--quiet", "--db", dir.File("all.db")}).exit_code, 0);
  std::vector<std::string> merge = {"merge", "--into", dir.File("merged.db")};
  std::set<std::string> seen;
  size_t total = 0;
  for (int i = 1; i <= 3; ++i) {
    const std::string shard_db = dir.File("shard" + std::to_string(i) + ".db");
    auto r = RunCli({"run", "--suite", "smoke", "--shard", std::to_string(i) + "/3", "--quiet", "--db", shard_db});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto names = CaseNames(shard_db);
    total += names.size();
    seen.insert(names.begin(), names.end());
    EXPECT_EQ(One(shard_db, "SELECT shard FROM v_runs"), std::to_string(i) + "/3");
    merge.push_back(shard_db);
  }
  EXPECT_EQ(total, seen.size()) << "shards overlap";
  auto m = RunCli(merge);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  EXPECT_EQ(CaseNames(dir.File("merged.db")), CaseNames(dir.File("all.db")));
  EXPECT_EQ(One(dir.File("merged.db"), "SELECT count(*) FROM v_runs"), "3");
  // The same shard again is refused, and nothing is doubled.
  auto again = RunCli({"merge", "--into", dir.File("merged.db"), dir.File("shard1.db")});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_EQ(spyre_test::LineCount(again.err), 1) << again.err;
  EXPECT_NE(again.err.find("merged before?"), std::string::npos) << again.err;
  EXPECT_EQ(CaseNames(dir.File("merged.db")).size(), Query(dir.File("merged.db"), "SELECT 1 FROM v_results").size());
}

TEST(RunE2E, UsageErrorsExitTwoWithOneLine) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"run", "--suite", "smoke", "--shard", "4/3"}, "--shard"},
      {{"run", "--suite", "smoke", "--inject", "mm:explode"}, "--inject"},
      {{"run", "--suite", "smoke", "--profile", "fast"}, "--profile"},
      {{"run", "--suite", "smoke", "--filter", "("}, "--filter"},
      {{"run", "--suite", "smoke", "--filter", "no-such-case"}, "no case"},
      {{"run", "--suite", "no_such_suite"}, "no_such_suite"},
      {{"run", "--suite", "smoke", "--baseline", "999"}, "no such run"},
      {{"run", "--suite", "smoke", "--jobs", "0"}, "jobs"},
  };
  for (const auto& [args, needle] : cases) {
    std::vector<std::string> full = args;
    full.insert(full.end(), {"--db", db});
    auto r = RunCli(full);
    EXPECT_EQ(r.exit_code, 2) << args[3] << ": " << r.err;
    EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  }
  // Nothing ran: no run was recorded by any of them.
  auto runs = Query(db, "SELECT count(*) FROM v_runs");
  EXPECT_TRUE(runs[0] == "0" || runs[0] == "<cannot open>" || runs[0].rfind("<error", 0) == 0) << runs[0];
}

// Both runs start on a store that does not exist yet. --baseline none: the
// run that finishes second would otherwise be compared with the first, and
// its wall times, taken while the other run shares the cores, judged.
TEST(RunE2E, TwoRunsWritingOneStoreBothComplete) {
  TempDir dir;
  const std::string db = dir.File("s.db");
  spyre_test::CommandResult a, b;
  auto run = [&](const char* label) {
    return RunCli({"run", "--suite", "smoke", "--quiet", "--db", db, "--label", label, "--baseline", "none"});
  };
  std::thread ta([&] { a = run("a"); });
  std::thread tb([&] { b = run("b"); });
  ta.join();
  tb.join();
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(One(db, "SELECT count(*) FROM v_runs WHERE status = 'completed'"), "2");
  EXPECT_EQ(One(db, "SELECT count(DISTINCT run_id) FROM v_results"), "2");
  EXPECT_EQ(One(db, "PRAGMA integrity_check"), "ok");
}

TEST(RunE2E, CorruptStoreExitsTwoAndIsLeftUntouched) {
  TempDir dir;
  const std::string garbage = "this is not a database, it is someone's notes\n" + std::string(5000, '#');
  spyre_test::WriteFile(dir.File("s.db"), garbage);
  auto r = RunCli({"run", "--suite", "smoke", "--db", dir.File("s.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("not a SQLite database or is corrupt"), std::string::npos) << r.err;
  EXPECT_EQ(spyre_test::ReadFile(dir.File("s.db")), garbage);
}

}  // namespace
}  // namespace runner_e2e
