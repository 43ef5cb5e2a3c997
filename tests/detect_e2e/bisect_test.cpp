// `bisect` end to end through the built CLI: two components changed at
// once (a profile and an injected fault), each finding attributed to the
// one that causes it, recorded in the store and shown by compare and every
// report format; a finding that does not reproduce is never attributed;
// bad requests are one line and exit 2. Parity only (no wall time), so the
// verdicts do not depend on how busy the host is.
#include <sqlite3.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::RunCli;

const char* kBisectFilter = "^smoke/(mm_transposed_b|softmax|add|layer_norm)";

class BisectTest : public ::testing::Test {
 protected:
  std::string Db() const { return dir_.File("store.db"); }

  int64_t Run(std::vector<std::string> extra) {
    std::vector<std::string> args = {"run", "--suite", "smoke", "--filter", kBisectFilter, "--db", Db(),
                                     "--json", "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = RunCli(args, {{"SPYRE_REGRESS_THREADS", "1"}});
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out << r.err;
    return j.is_discarded() ? 0 : j["run_id"].get<int64_t>();
  }

  void Sql(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(Db().c_str(), &db), SQLITE_OK);
    char* err = nullptr;
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
    sqlite3_free(err);
    sqlite3_close(db);
  }

  // verdict|components of each finding of v_attributions, by case and kind.
  std::map<std::string, std::string> Causes(int64_t run_id) {
    std::map<std::string, std::string> out;
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(Db().c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db,
                                 "SELECT case_name || ' ' || kind, verdict || '|' || components "
                                 "FROM v_attributions WHERE run_id = ?1",
                                 -1, &st, nullptr),
              SQLITE_OK);
    sqlite3_bind_int64(st, 1, run_id);
    while (sqlite3_step(st) == SQLITE_ROW) {
      out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] =
          reinterpret_cast<const char*>(sqlite3_column_text(st, 1));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
  }

  static std::string Read(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  spyre_test::TempDir dir_;
};

TEST_F(BisectTest, EachFindingIsAttributedToTheComponentThatCausesItAndShownEverywhere) {
  const int64_t a = Run({});
  const int64_t b = Run({"--profile", "sendnn", "--inject", "softmax:error=1e-2"});
  ASSERT_GT(b, a);
  auto r = RunCli({"bisect", std::to_string(b), "--db", Db()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("4 configuration(s)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("swapped: faults (none) -> _softmax:error=1e-2; profile inductor -> sendnn"),
            std::string::npos)
      << r.out;

  const auto causes = Causes(b);
  ASSERT_FALSE(causes.empty()) << r.out;
  int modeled = 0, outputs = 0;
  for (const auto& [key, cause] : causes) {
    if (key.find("modeled_latency") != std::string::npos) {
      ++modeled;
      EXPECT_EQ(cause, "caused|profile") << key << "\n" << r.out;
    } else {
      ++outputs;
      // The error fault on softmax changes softmax's outputs and nothing else.
      EXPECT_EQ(key.rfind("softmax ", 0), 0u) << key;  // the case calling _softmax
      EXPECT_EQ(cause, "caused|faults") << key << "\n" << r.out;
    }
  }
  EXPECT_GT(modeled, 0);
  EXPECT_GT(outputs, 0);

  // compare, and each report format, show the recorded cause with the finding.
  auto c = RunCli({"compare", "--baseline", std::to_string(a), "--candidate", std::to_string(b), "--db", Db()});
  EXPECT_NE(c.out.find("; bisect: caused by profile inductor -> sendnn (reproduced: "), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("bisect: " + std::to_string(causes.size()) + " caused"), std::string::npos) << c.out;
  auto cj = RunCli({"compare", "--baseline", std::to_string(a), "--candidate", std::to_string(b), "--db", Db(), "--json"});
  const auto j = nlohmann::json::parse(cj.out);
  for (const auto& f : j["regressions"]) EXPECT_EQ(f["cause"]["verdict"], "caused") << f.dump();
  const std::string out = dir_.File("report");
  auto rep = RunCli({"report", "--run", std::to_string(b), "--out", out, "--db", Db()});
  ASSERT_EQ(rep.exit_code, 0) << rep.err;
  EXPECT_NE(Read(out + "/index.html").find("<b>bisect:</b> caused by faults"), std::string::npos);
  EXPECT_NE(Read(out + "/summary.md").find("Causes found by `bisect`"), std::string::npos);
  EXPECT_NE(Read(out + "/junit.xml").find("bisect: caused by"), std::string::npos);
  EXPECT_NE(Read(out + "/report.json").find("\"verdict\": \"caused\""), std::string::npos);
  // The export of findings carries the verdict and its sentence.
  auto ex = RunCli({"export", "--format", "jsonl", "--table", "findings", "--run", std::to_string(b), "--db", Db()});
  ASSERT_EQ(ex.exit_code, 0) << ex.err;
  std::istringstream lines(ex.out);
  int exported = 0;
  for (std::string line; std::getline(lines, line);) {
    const auto row = nlohmann::json::parse(line);
    ++exported;
    EXPECT_EQ(row["cause_verdict"], "caused") << line;
    EXPECT_TRUE(row["cause_components"] == "profile" || row["cause_components"] == "faults") << line;
    // A modeled-latency finding names the op whose modeled time grew most.
    if (row["kind"] == "modeled_latency") {
      EXPECT_TRUE(row["op_blamed"].is_string()) << line;
    }
    EXPECT_EQ(row["cause"].get<std::string>().rfind("caused by ", 0), 0u) << line;
  }
  EXPECT_GE(exported, static_cast<int>(causes.size())) << ex.out;  // a case and kind may have several metrics
}

TEST_F(BisectTest, AFindingThatDoesNotReproduceIsNotAttributed) {
  const int64_t a = Run({});
  const int64_t b = Run({"--baseline", "none"});
  // A flake: the candidate's softmax failed once (the store edited as if it had).
  Sql("UPDATE results SET status = 'failed', message = 'flaky' WHERE run_id = " + std::to_string(b) +
      " AND case_name = 'softmax'");
  auto r = RunCli({"bisect", std::to_string(b), "--against", std::to_string(a), "--db", Db()});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("swapped: nothing"), std::string::npos) << r.out;
  const auto causes = Causes(b);
  ASSERT_EQ(causes.count("softmax status"), 1u) << r.out;
  EXPECT_EQ(causes.at("softmax status"), "not_reproduced|") << r.out;
  EXPECT_NE(r.out.find("softmax status: not reproduced"), std::string::npos) << r.out;
}

TEST_F(BisectTest, ABadRequestIsOneLineAndExitTwo) {
  const int64_t a = Run({});
  // No baseline recorded and none named.
  auto r = RunCli({"bisect", std::to_string(a), "--db", Db()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--against"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // Too few rounds for the judge's level.
  r = RunCli({"bisect", std::to_string(a), "--rounds", "3", "--db", Db()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("7 to 100"), std::string::npos) << r.err;
  // Nothing flagged: nothing to attribute.
  const int64_t b = Run({});
  r = RunCli({"bisect", std::to_string(b), "--db", Db()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no finding"), std::string::npos) << r.err;
}

}  // namespace
