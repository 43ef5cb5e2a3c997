// End-to-end tests of the built spyre-regress binary: version, env, errors.
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"

namespace {

using spyre_test::RunCli;

TEST(CliTest, VersionPrintsTheContractLine) {
  auto r = RunCli({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_match(
      r.out, std::regex(R"(spyre-regress \d+\.\d+\.\d+ \(libtorch \d+\.\d+\.\d+, spyre-emu \d+\.\d+\.\d+\)\n)")))
      << r.out;
}

TEST(CliTest, EnvJsonIsValidAndComplete) {
  auto r = RunCli({"env", "--json", "--tag", "vllm=0.9.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"libtorch", "blas", "compiler", "spyre_emu", "profile", "rounding", "cores",
                          "faults", "os", "cpu", "threads", "harness", "fingerprint"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j["tags"]["vllm"], "0.9.1");
  EXPECT_GE(j["threads"].get<int>(), 1);
}

TEST(CliTest, EnvHonoursThreadsAndEmulatorSettings) {
  auto r = RunCli({"env", "--json", "--threads", "1"}, {{"SPYRE_EMU_CORES", "4"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["threads"], 1);
  EXPECT_EQ(j["cores"], 4);
}

TEST(CliTest, HumanEnvNamesTheBlas) {
  auto r = RunCli({"env"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("blas: "), std::string::npos);
  EXPECT_NE(r.out.find("fingerprint: "), std::string::npos);
}

// Golden outputs must be reproducible bit for bit on any machine: OpenBLAS's
// sgemm rounds differently on one thread than on two, and the committed
// embed goldens (made on two) drifted under OPENBLAS_NUM_THREADS=1 until
// golden verify pinned its own thread counts.
TEST(CliTest, GoldenVerifyIsBitExactWhateverTheThreadSettings) {
  for (const char* blas_threads : {"1", "2"}) {
    auto r = RunCli({"--threads", "1", "golden", "verify", "--suite", "embed"},
                    {{"OPENBLAS_NUM_THREADS", blas_threads}, {"SPYRE_REGRESS_THREADS", "1"}});
    EXPECT_EQ(r.exit_code, 0) << "OPENBLAS_NUM_THREADS=" << blas_threads << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find(" 0 drifted"), std::string::npos) << r.out;
  }
}

// Usage errors: exit 2 and exactly one line on stderr that says what and where to look.
TEST(CliTest, BadInputExitsTwoWithOneLine) {
  const std::vector<std::vector<std::string>> cases = {
      {"frobnicate"},                 // unknown verb
      {"env", "--no-such-flag"},      // unknown flag
      {"env", "--tag", "novalue"},    // malformed tag
      {"--threads", "0", "env"},      // out of range
      {},                             // no verb
  };
  for (const auto& args : cases) {
    auto r = RunCli(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.exit_code, 2) << joined << r.err;
    EXPECT_EQ(spyre_test::LineCount(r.err), 1) << joined << r.err;
    EXPECT_EQ(r.err.rfind("spyre-regress: error: ", 0), 0u) << r.err;
  }
}

TEST(CliTest, MalformedEmulatorSettingIsAUsageError) {
  auto r = RunCli({"env"}, {{"SPYRE_EMU_ROUNDING", "sideways"}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("SPYRE_EMU_ROUNDING"), std::string::npos) << r.err;
  EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
}

TEST(CliTest, HelpListsTheVerbs) {
  auto r = RunCli({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("env"), std::string::npos);
}

}  // namespace
