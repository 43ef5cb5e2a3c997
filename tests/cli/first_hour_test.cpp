// The rough edges a new user met in the first hour, one test each, through
// the real CLI: case errors from libtorch, integer outputs, where golden
// files and the store are looked for, run references, model limits, wording,
// and runs whose supervisor was killed.
#include <sqlite3.h>

#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using spyre_test::CommandResult;
using spyre_test::RunCli;
using spyre_test::RunCliIn;
using spyre_test::WriteFile;

const std::vector<std::string> kFast = {"--warmup",         "0", "--repeat", "1",
                                        "--confirm-rounds", "0", "-q"};

std::vector<std::string> Fast(std::vector<std::string> args) {
  args.insert(args.end(), kFast.begin(), kFast.end());
  return args;
}

void ExpectOneErrorLine(const CommandResult& r, const std::vector<std::string>& fragments) {
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("spyre-regress: error: ", 0), 0u) << r.err;
  for (const std::string& f : fragments)
    EXPECT_NE(r.err.find(f), std::string::npos) << f << "\n" << r.err;
}

void Sql(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  sqlite3_close(h);
}

// A suites directory (D/suites) holding one suite file.
std::string WriteSuite(const spyre_test::TempDir& dir, const std::string& name,
                       const std::string& cases) {
  const std::string suites = dir.File("suites");
  fs::create_directories(suites);
  WriteFile(suites + "/" + name + ".json",
            R"({"name": ")" + name + R"(", "cases": [)" + cases + "]}");
  return suites;
}

constexpr const char* kAdd =
    R"({"id": "add", "op": "add", "inputs": [{"shape": [4, 8], "dtype": "float32"}, {"shape": [4, 8], "dtype": "float32"}]})";

// 1. Cases the loader accepts but libtorch refuses: one line each naming the
// suite file, case and op; the other cases' golden files are written.
TEST(FirstHourTest, GoldenGenerateNamesEachRefusedCaseAndWritesTheOthers) {
  spyre_test::TempDir dir;
  const std::string suites = WriteSuite(dir, "t",
                                        std::string(R"(
    {"id": "sm", "op": "softmax", "attrs": {"dim": 5}, "inputs": [{"shape": [4, 8], "dtype": "float32"}]},)") +
                                            kAdd + R"(,
    {"id": "ln", "op": "layer_norm", "inputs": [{"shape": [4, 64], "dtype": "float32"},
                                                {"shape": [32], "dtype": "float32"}]})");
  CommandResult r = RunCli({"golden", "generate", "--suite", "t", "--suites", suites});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(spyre_test::LineCount(r.err), 2) << r.err;
  EXPECT_NE(
      r.err.find("t.json: case 'sm' (op softmax): libtorch refused it: Dimension out of range"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("case 'ln' (op layer_norm)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("frame #"), std::string::npos) << "no libtorch backtrace: " << r.err;
  EXPECT_TRUE(fs::exists(dir.File("golden/t/add.safetensors")));
  EXPECT_FALSE(fs::exists(dir.File("golden/t/sm.safetensors")));
  // `run` refuses the suite before recording anything, with the same line.
  ExpectOneErrorLine(
      RunCli(Fast({"run", "--suite", "t", "--suites", suites, "--db", dir.File("s.db")})),
      {"case 'sm' (op softmax)", "Dimension out of range"});
  EXPECT_FALSE(fs::exists(dir.File("s.db")));
}

// 2. Integer outputs: the golden files generate writes are the ones run and
// verify accept, and regenerating changes nothing.
TEST(FirstHourTest, IntegerOutputsGetGoldenFilesThatRunAccepts) {
  spyre_test::TempDir dir;
  const std::string suites = WriteSuite(dir, "ints", R"(
    {"id": "sum64", "op": "sum", "inputs": [{"shape": [4, 8], "dtype": "int64"}]},
    {"id": "sum32_dim", "op": "sum", "attrs": {"dim": [1]}, "inputs": [{"shape": [4, 8], "dtype": "int32"}]},
    {"id": "sum_bool", "op": "sum", "inputs": [{"shape": [4, 8], "dtype": "bool"}]},
    {"id": "pow_int", "op": "pow", "attrs": {"exponent": 2}, "inputs": [{"shape": [4, 8], "dtype": "int64"}]},
    {"id": "cat_int", "op": "cat", "inputs": [{"shape": [4, 8], "dtype": "int64"}, {"shape": [4, 8], "dtype": "int64"}]})");
  ASSERT_EQ(RunCli({"golden", "generate", "--suite", "ints", "--suites", suites}).exit_code, 0);
  CommandResult run =
      RunCli(Fast({"run", "--suite", "ints", "--suites", suites, "--db", dir.File("s.db")}));
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("5 passed, 0 failed"), std::string::npos) << run.out;
  const std::string before = spyre_test::ReadFile(dir.File("golden/ints/sum64.safetensors"));
  ASSERT_EQ(RunCli({"golden", "generate", "--suite", "ints", "--suites", suites}).exit_code, 0);
  EXPECT_EQ(spyre_test::ReadFile(dir.File("golden/ints/sum64.safetensors")), before);
  CommandResult verify = RunCli({"golden", "verify", "--suite", "ints", "--suites", suites});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_NE(verify.out.find("5 cases, 0 drifted"), std::string::npos) << verify.out;
}

// 3. --golden follows --suites; a missing --golden or --suites directory is
// named as such.
TEST(FirstHourTest, GoldenFollowsSuitesAndMissingDirectoriesAreNamed) {
  spyre_test::TempDir dir;
  const std::string suites = WriteSuite(dir, "t", kAdd);
  CommandResult gen = RunCli({"golden", "generate", "--suite", "t", "--suites", suites});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  EXPECT_NE(gen.out.find(dir.File("golden/t")), std::string::npos) << gen.out;
  EXPECT_TRUE(fs::exists(dir.File("golden/t/add.safetensors")));
  EXPECT_EQ(RunCli({"golden", "verify", "--suite", "t", "--suites", suites}).exit_code, 0);
  ExpectOneErrorLine(RunCli(Fast({"run", "--suite", "t", "--suites", suites, "--golden",
                                  dir.File("nonexistent"), "--db", dir.File("s.db")})),
                     {dir.File("nonexistent"), "does not exist", "check --golden"});
  ExpectOneErrorLine(RunCli({"list", "--suites", dir.File("nonexistent")}),
                     {"--suites " + dir.File("nonexistent"), "no such directory"});
  ExpectOneErrorLine(RunCli({"run", "--suite", "t", "--suites", dir.File("nonexistent")}),
                     {"t.json", "does not exist", "--suites"});
}

// 4. The store: found in an enclosing directory, printed absolute.
TEST(FirstHourTest, TheStoreIsFoundFromASubdirectoryAndPrintedAbsolute) {
  spyre_test::TempDir dir;
  const std::string suites = WriteSuite(dir, "t", kAdd);
  ASSERT_EQ(RunCli({"golden", "generate", "--suite", "t", "--suites", suites}).exit_code, 0);
  fs::create_directories(dir.File("a/b"));
  // A relative --db is printed absolute.
  CommandResult first = RunCliIn(
      dir.path(), Fast({"run", "--suite", "t", "--suites", suites, "--db", "spyre-regress.db"}));
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("store " + dir.File("spyre-regress.db")), std::string::npos)
      << first.out;
  CommandResult second =
      RunCliIn(dir.File("a/b"), Fast({"run", "--suite", "t", "--suites", suites}));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_NE(second.out.find("store " + dir.File("spyre-regress.db")), std::string::npos)
      << second.out;
  EXPECT_NE(second.out.find("baseline: run 1"), std::string::npos) << second.out;
  EXPECT_FALSE(fs::exists(dir.File("a/b/spyre-regress.db")));
}

// 5. A verb to list runs, and run references wherever a run is taken.
TEST(FirstHourTest, RunsAreListedAndReferencedByLatestOffsetAndLabel) {
  spyre_test::TempDir dir;
  const std::string suites = WriteSuite(dir, "t", kAdd);
  const std::string db = dir.File("s.db");
  ASSERT_EQ(RunCli({"golden", "generate", "--suite", "t", "--suites", suites}).exit_code, 0);
  ASSERT_EQ(
      RunCli(Fast({"run", "--suite", "t", "--suites", suites, "--db", db, "--label", "before"}))
          .exit_code,
      0);
  ASSERT_EQ(
      RunCli(Fast({"run", "--suite", "t", "--suites", suites, "--db", db, "--baseline", "latest"}))
          .exit_code,
      0);
  CommandResult runs = RunCli({"runs", "--json", "--db", db});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  const nlohmann::json j = nlohmann::json::parse(runs.out);
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["baseline_run_id"], 1);
  EXPECT_EQ(j["runs"][1]["label"], "before");
  EXPECT_EQ(j["runs"][1]["suite"], "t");
  EXPECT_NE(j["runs"][1]["env_summary"].get<std::string>().find("libtorch"), std::string::npos);
  EXPECT_NE(j["runs"][1]["env_summary"].get<std::string>().find(", blas "), std::string::npos)
      << j["runs"][1]["env_summary"];
  CommandResult cmp =
      RunCli({"compare", "--baseline", "label:before", "--candidate", "latest", "--db", db});
  EXPECT_NE(cmp.out.find("(baseline run 1)"), std::string::npos) << cmp.out << cmp.err;
  EXPECT_EQ(
      RunCli({"compare", "--baseline", "latest", "--candidate", "latest", "--db", db}).exit_code,
      0);
  EXPECT_NE(RunCli({"compare", "--db", db}).out.find("(baseline run 1)"), std::string::npos);
  ExpectOneErrorLine(RunCli({"compare", "--baseline", "label:nosuch", "--db", db}),
                     {"label:nosuch", "no run"});
  ExpectOneErrorLine(RunCli({"report", "--run", "~5", "--out", dir.File("r"), "--db", db}),
                     {"--run '~5'"});
  ExpectOneErrorLine(RunCli({"runs", "--suite", "tt", "--db", db}),
                     {"--suite 'tt'", "did you mean 't'"});
}

// 6. A decode limit in the case's "tolerance" is told where it belongs.
TEST(FirstHourTest, ADecodeLimitInTheCaseToleranceIsToldWhereItGoes) {
  spyre_test::TempDir dir;
  const std::string suites = WriteSuite(dir, "d", R"(
    {"id": "dec", "kind": "decode", "tolerance": {"max_logprob_diff": 0.1},
     "model": {"config": "llama-tiny", "prompts": [[1, 2, 3]], "steps": 2}})");
  ExpectOneErrorLine(RunCli({"list", "--suites", suites}),
                     {"d.json", "/cases/0/tolerance/max_logprob_diff",
                      "move it to /cases/0/model/max_logprob_diff"});
}

// 8. Wording: counts, flags before and after the verb, suggestions, history
// of unknown cases and of the metrics a case kind records, env's fingerprint.
TEST(FirstHourTest, ListSaysOneCase) {
  spyre_test::TempDir dir;
  CommandResult r = RunCli({"list", "--suites", WriteSuite(dir, "t", kAdd)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("t (1 case)"), std::string::npos) << r.out;
  // Without --suite it says how to see the cases; --cases shows them all.
  EXPECT_NE(r.out.find("list --cases lists every suite's"), std::string::npos) << r.out;
  const std::string suites = dir.File("suites");
  r = RunCli({"list", "--cases", "--suites", suites});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("t (1 case)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  "), std::string::npos) << r.out;  // a case line under the suite
}

TEST(FirstHourTest, AMistypedFlagGetsTheClosestOne) {
  ExpectOneErrorLine(RunCli({"run", "--suite", "smoke", "--repeats", "5"}),
                     {"unknown flag '--repeats' for 'run'", "did you mean '--repeat'"});
  ExpectOneErrorLine(RunCli({"list", "--jsno"}), {"'--jsno'", "did you mean '--json'"});
  ExpectOneErrorLine(RunCli({"run", "--suite", "smoke", "--filter", "^smoke/softmx$"}),
                     {"--filter '^smoke/softmx$'", "did you mean 'softmax'"});
  ExpectOneErrorLine(RunCli({"lsit"}), {"unknown verb 'lsit'", "did you mean 'list'"});
}

TEST(FirstHourTest, AVerbsOptionsMayComeBeforeTheVerb) {
  spyre_test::TempDir dir;
  const std::string suites = WriteSuite(dir, "t", kAdd);
  ASSERT_EQ(RunCli({"--suite", "t", "--suites", suites, "golden", "generate"}).exit_code, 0);
  CommandResult r =
      RunCli(Fast({"--suite", "t", "--db", dir.File("s.db"), "run", "--suites", suites}));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("run 1 (t)"), std::string::npos) << r.out;
}

TEST(FirstHourTest, HistoryOfAnUnknownCaseIsAnErrorAndKindMetricsAreAccepted) {
  spyre_test::TempDir dir;
  const std::string suites = WriteSuite(dir, "d", std::string(kAdd) + R"(,
    {"id": "dec", "kind": "decode", "model": {"config": "llama-tiny", "prompts": [[1, 2, 3]], "steps": 2,
                                              "max_logprob_diff": 1}})");
  const std::string db = dir.File("s.db");
  ASSERT_EQ(RunCli({"golden", "generate", "--suite", "d", "--suites", suites}).exit_code, 0);
  CommandResult run = RunCli(Fast({"run", "--suite", "d", "--suites", suites, "--db", db}));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  ExpectOneErrorLine(
      RunCli({"history", "--suite", "d", "--case", "nosuch", "--suites", suites, "--db", db}),
      {"--case 'nosuch'", "no such case"});
  CommandResult tps = RunCli(
      {"history", "--suite", "d", "--metric", "tokens_per_s", "--suites", suites, "--db", db});
  EXPECT_EQ(tps.exit_code, 0) << tps.err;
  // Zero over one run says what it would need, not just "0".
  EXPECT_NE(tps.out.find("change points: 0 over 1 completed run of d (a change point needs at least 3 runs "
                         "on each side of it, 6 in all: 5 more run(s) before one can be found)"),
            std::string::npos)
      << tps.out;
  ExpectOneErrorLine(RunCli({"history", "--suite", "d", "--metric", "tokens_per_sec", "--suites",
                             suites, "--db", db}),
                     {"--metric 'tokens_per_sec'", "did you mean 'tokens_per_s'"});
}

TEST(FirstHourTest, EnvPrintsTheFingerprintARunOnThisMachineRecords) {
  spyre_test::TempDir dir;
  const std::string suites = WriteSuite(dir, "t", kAdd);
  ASSERT_EQ(RunCli({"golden", "generate", "--suite", "t", "--suites", suites}).exit_code, 0);
  CommandResult run = RunCli(Fast({"run", "--suite", "t", "--suites", suites, "--db",
                                   dir.File("s.db"), "--json", "--tag", "k=v"}));
  ASSERT_EQ(run.exit_code, 0) << run.err;
  CommandResult env = RunCli({"env", "--json", "--tag", "k=v"});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_EQ(nlohmann::json::parse(env.out)["fingerprint"],
            nlohmann::json::parse(run.out)["fingerprint"])
      << env.out;
}

// 9. A run whose supervisor was killed reads as aborted in the read-only
// views, though nothing has opened the store for writing since.
TEST(FirstHourTest, ARunWhoseSupervisorWasKilledIsAbortedInReadOnlyViews) {
  spyre_test::TempDir dir;
  const std::string suites = WriteSuite(dir, "t", kAdd);
  const std::string db = dir.File("s.db");
  ASSERT_EQ(RunCli({"golden", "generate", "--suite", "t", "--suites", suites}).exit_code, 0);
  ASSERT_EQ(RunCli(Fast({"run", "--suite", "t", "--suites", suites, "--db", db})).exit_code, 0);
  // What kill -9 leaves: still `running`, its pid gone (this host).
  Sql(db,
      "UPDATE runs SET status = 'running', finished_at = NULL, pid = 2147483646, pid_start = 1");
  CommandResult runs = RunCli({"runs", "--json", "--db", db});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  const nlohmann::json j = nlohmann::json::parse(runs.out);
  EXPECT_EQ(j["runs"][0]["status"], "aborted") << runs.out;
  EXPECT_NE(j["runs"][0]["note"].get<std::string>().find("supervisor is gone"), std::string::npos);
  CommandResult report = RunCli({"report", "--out", dir.File("r"), "--db", db});
  ExpectOneErrorLine(report, {"run 1 was aborted", "supervisor is gone"});
  EXPECT_NE(report.out.find("run 1 aborted"), std::string::npos) << report.out;
  // Nothing was written: the store still says running.
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(h, "SELECT status FROM v_runs", -1, &s, nullptr);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_STREQ(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)), "running");
  sqlite3_finalize(s);
  sqlite3_close(h);
}

}  // namespace
