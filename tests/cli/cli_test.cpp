// End-to-end tests of the built spyre-regress binary: version, env, errors.
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

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

// The CPU reference is computed in float64 and stored as float32, so the
// committed golden files must verify on any CPU: OpenBLAS picks its kernels
// by CPU (OPENBLAS_CORETYPE forces another machine's), and splits its sums
// by thread. Every suite is verified under the BLAS thread counts 1 and 2
// and under two kernel sets other than this machine's own; each must report
// no drift. (A float64 value next to a float32 rounding boundary may round
// the other way under another kernel: verify lists that as "rounding", which
// is not drift.)
nlohmann::json VerifyJson(const std::string& suite, const std::map<std::string, std::string>& env) {
  auto r = RunCli({"--threads", "1", "golden", "verify", "--suite", suite, "--json"}, env);
  EXPECT_EQ(r.exit_code, 0) << suite << "\n" << r.out << r.err;
  auto j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out;
  return j;
}

bool CpuHasFlag(const std::string& flag) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    std::string w;
    while (words >> w) {
      if (w == flag) return true;
    }
    return false;
  }
  return false;
}

TEST(CliTest, GoldenVerifyNamesTheLibtorchAndBlasItRecomputedOn) {
  auto env = RunCli({"env", "--json"});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  const nlohmann::json fp = nlohmann::json::parse(env.out);
  auto r = RunCli({"--threads", "1", "golden", "verify", "--suite", "smoke"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string want = "recomputed with libtorch " + fp["libtorch"].get<std::string>() + ", " +
                           fp["blas"]["name"].get<std::string>() + " " +
                           fp["blas"]["version"].get<std::string>();
  EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  EXPECT_NE(r.out.find(" cases, 0 drifted"), std::string::npos) << r.out;
  nlohmann::json j = VerifyJson("smoke", {});
  EXPECT_EQ(j["libtorch"], fp["libtorch"]);
}

TEST(CliTest, GoldenVerifyIsBitExactWhateverTheThreadSettings) {
  for (const char* blas_threads : {"1", "2"}) {
    for (const char* suite : {"smoke", "decode", "prefill", "embed"}) {
      auto j = VerifyJson(suite, {{"OPENBLAS_NUM_THREADS", blas_threads}, {"SPYRE_REGRESS_THREADS", "1"}});
      EXPECT_EQ(j["drifted"], 0) << suite << " OPENBLAS_NUM_THREADS=" << blas_threads << "\n" << j.dump();
    }
  }
}

TEST(CliTest, GoldenVerifyHoldsUnderTheBlasKernelsOfOtherCpus) {
  auto env = RunCli({"env", "--json"});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  const nlohmann::json blas = nlohmann::json::parse(env.out)["blas"];
  // ci/setup installs OpenBLAS; without it this test has nothing to force.
  ASSERT_EQ(blas["name"], "OpenBLAS") << "libtorch did not resolve OpenBLAS: " << blas.dump();
  const std::string own = blas.value("core", "");
  ASSERT_FALSE(own.empty()) << blas.dump();
  // Kernel sets this CPU can execute: Prescott needs SSE3 only; Haswell and
  // Zen need AVX2 and FMA; SkylakeX needs AVX-512.
  std::vector<std::string> others;
  for (const std::string core : {"Haswell", "Zen", "Prescott", "SkylakeX"}) {
    const bool runs = core == "Prescott" || (core == "SkylakeX" ? CpuHasFlag("avx512f")
                                                                : CpuHasFlag("avx2") && CpuHasFlag("fma"));
    if (runs && core != own) others.push_back(core);
  }
  if (others.size() > 2) others.resize(2);
  ASSERT_FALSE(others.empty()) << "no other OpenBLAS kernel set runs on this CPU";
  for (const std::string& core : others) {
    for (const char* suite : {"smoke", "ops", "decode", "prefill", "embed"}) {
      auto j = VerifyJson(suite, {{"OPENBLAS_CORETYPE", core}});
      EXPECT_EQ(j["blas"]["core"], core) << "OPENBLAS_CORETYPE was not honoured";
      EXPECT_EQ(j["drifted"], 0) << suite << " under " << core << "\n" << j.dump();
    }
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
