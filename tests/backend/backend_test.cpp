// The device under test end to end, through the built CLI: the emulator as a
// loaded plugin, a second backend library (toy_backend) with a deliberate
// bug, libtorch's CPU, libraries the harness must refuse, a backend that
// crashes in a kernel, and the link check that keeps the emulator out of the
// engine.
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::RunCli;
using spyre_test::RunCommand;

const std::string kBackends = std::string(SPYRE_BUILD_DIR) + "/test_backends/";
const std::string kToy = kBackends + "libtoy_backend.so";

int Lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

// The cases of the latest run in `db`, by case id, from `report --format json`.
std::map<std::string, nlohmann::json> Cases(const std::string& db, const std::string& out) {
  auto r = RunCli({"report", "--db", db, "--out", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out + "/report.json");
  nlohmann::json j = nlohmann::json::parse(in);
  std::map<std::string, nlohmann::json> cases;
  for (const auto& s : j["suites"]) {
    for (const auto& c : s["cases"]) cases[c["case"].get<std::string>()] = c;
  }
  return cases;
}

nlohmann::json LatestEnv(const std::string& db, const std::string& out) {
  auto r = RunCli({"report", "--db", db, "--out", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(out + "/report.json");
  return nlohmann::json::parse(in)["run"]["env"];
}

// --- the engine does not link the emulator --------------------------------

TEST(DeviceLinkTest, NeitherTheEngineNorTheCliLinksTheEmulator) {
  const std::string lib = std::string(SPYRE_BUILD_DIR) + "/lib/";
  for (const std::string& file : std::vector<std::string>{
           lib + "libspyre_core.so", lib + "libspyre_harness.so", lib + "libspyre_suites.so",
           lib + "libspyre_cli_torch.so", spyre_test::CliPath()}) {
    auto needed = RunCommand({"/usr/bin/readelf", "-d", file});
    ASSERT_EQ(needed.exit_code, 0) << needed.err;
    EXPECT_NE(needed.out.find("NEEDED"), std::string::npos) << file;
    EXPECT_EQ(needed.out.find("spyre_emu"), std::string::npos) << file << ":\n" << needed.out;
    // No symbol of the emulator's runtime is left for the loader to find:
    // only the torch-free cost model is compiled in, and it is defined here.
    auto undefined = RunCommand({"/usr/bin/nm", "-DC", "--undefined-only", file});
    ASSERT_EQ(undefined.exit_code, 0) << undefined.err;
    EXPECT_EQ(undefined.out.find("spyre_emu::"), std::string::npos) << file;
  }
}

// --- libraries the harness refuses -----------------------------------------

void ExpectRefused(const std::string& lib, const std::string& reason) {
  auto r = RunCli({"run", "--suite", "smoke", "--device-lib", lib, "--db", "/nonexistent/x.db"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(lib), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
}

TEST(DeviceLibraryTest, AMissingFileIsExitTwoNamingIt) {
  ExpectRefused(kBackends + "libmissing.so", "no such file");
}

TEST(DeviceLibraryTest, AFileThatIsNoLibraryIsExitTwo) {
  spyre_test::TempDir dir;
  const std::string fake = dir.path() + "/libfake.so";
  std::ofstream(fake) << "not an ELF file\n";
  ExpectRefused(fake, "cannot be loaded");
}

TEST(DeviceLibraryTest, ALibraryWithoutPrivateUse1IsExitTwo) {
  ExpectRefused(kBackends + "libno_backend.so", "registers no PrivateUse1 backend");
}

TEST(DeviceLibraryTest, AnAbiOfAnotherVersionIsExitTwo) {
  ExpectRefused(kBackends + "libtoy_backend_abi99.so", "exports device ABI version 99");
}

TEST(DeviceLibraryTest, AKernelThatDoesNotFitThisLibtorchIsExitTwoNamingBothSignatures) {
  const std::string lib = kBackends + "libstale_backend.so";
  ExpectRefused(lib, "aten::var.correction: its kernel is `at::Tensor (at::Tensor const&, double)`");
  // `env` loads the device to fingerprint it (`list` never loads it).
  auto r = RunCli({"env", "--device-lib", lib});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("libtorch's schema wants `at::Tensor (at::Tensor const&, "),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rebuild the library against this libtorch"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("terminate"), std::string::npos) << r.err;
}

TEST(DeviceLibraryTest, AnUnknownDeviceIsAUsageError) {
  auto r = RunCli({"env", "--device", "gpu"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(Lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("'gpu' is not a device"), std::string::npos) << r.err;
}

// --- the emulator through the plugin path ---------------------------------

TEST(DeviceEmulatorTest, TheFingerprintNamesTheLoadedLibrary) {
  auto r = RunCli({"env", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["device"]["kind"], "emulator");
  EXPECT_EQ(j["device"]["name"], "spyre_emu");
  EXPECT_EQ(j["device"]["version"], j["spyre_emu"]);
  EXPECT_EQ(j["device"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_NE(j["device"]["path"].get<std::string>().find("libspyre_emu.so"), std::string::npos);
  EXPECT_EQ(j["device"]["provides"].size(), 5u) << j["device"].dump();
}

// --- the second backend ----------------------------------------------------

TEST(ToyBackendTest, SmokeCatchesTheWrongOpAndRunsOn) {
  spyre_test::TempDir dir;
  const std::string db = dir.path() + "/s.db";
  auto r = RunCli({"run", "--suite", "smoke", "--device-lib", kToy, "--db", db, "--quiet"});
  ASSERT_EQ(r.exit_code, 1) << r.err << r.out;
  const auto cases = Cases(db, dir.path() + "/report");
  ASSERT_GE(cases.size(), 10u);
  int add = 0, passed = 0, errors = 0;
  for (const auto& [id, c] : cases) {
    const std::string status = c["status"];
    if (id == "add" || id.rfind("add.", 0) == 0) {
      ++add;
      EXPECT_EQ(status, "failed") << id << ": " << c["message"];
    } else if (id.rfind("mm.", 0) == 0 || id == "mm_transposed_b" || id == "mul_scalar") {
      ++passed;
      EXPECT_EQ(status, "passed") << id << ": " << c["message"];
    } else {
      // Ops the backend does not implement: one line, and the run went on.
      ++errors;
      EXPECT_EQ(status, "error") << id;
      EXPECT_EQ(c["message"].get<std::string>().find('\n'), std::string::npos) << id;
      EXPECT_NE(c["message"].get<std::string>().find("PrivateUse1"), std::string::npos) << id;
    }
    if (status == "error") continue;  // never measured
    // No ABI: the device models no time and counts no fallbacks.
    EXPECT_TRUE(c["modeled_us"].is_null()) << id;
    EXPECT_TRUE(c["fallback_ops"].is_null()) << id;
    EXPECT_TRUE(c["peak_device_bytes"].is_null()) << id;
  }
  EXPECT_EQ(add, 3);
  EXPECT_GE(passed, 4);
  EXPECT_GE(errors, 5);
  const nlohmann::json env = LatestEnv(db, dir.path() + "/report2");
  EXPECT_EQ(env["device"]["kind"], "lib");
  EXPECT_EQ(env["device"]["abi"], false);
  EXPECT_TRUE(env["device"]["provides"].empty());
}

TEST(ToyBackendTest, AKernelThatCrashesIsACrashedCaseAndTheRunGoesOn) {
  spyre_test::TempDir dir;
  const std::string db = dir.path() + "/c.db";
  auto r = RunCli({"run", "--suite", "smoke", "--filter", "^smoke/(mm|mul_scalar)", "--device-lib",
                   kToy, "--db", db, "--quiet"},
                  {{"TOY_BACKEND_CRASH", "mm"}});
  ASSERT_EQ(r.exit_code, 1) << r.err << r.out;
  int crashed = 0, passed = 0;
  for (const auto& [id, c] : Cases(db, dir.path() + "/report")) {
    if (id.rfind("mm", 0) == 0) {
      ++crashed;
      EXPECT_EQ(c["status"], "crashed") << id;
    } else {
      ++passed;
      EXPECT_EQ(c["status"], "passed") << id << ": " << c["message"];
    }
  }
  EXPECT_GE(crashed, 2);
  EXPECT_GE(passed, 1);
}

TEST(ToyBackendTest, CompareNamesAChangeOfTheLibraryFile) {
  spyre_test::TempDir dir;
  const std::string db = dir.path() + "/d.db";
  const std::string lib = dir.path() + "/libtoy_copy.so";
  std::filesystem::copy_file(kToy, lib);
  const std::vector<std::string> run = {"run",  "--suite", "smoke",   "--filter",     "^smoke/mm",
                                        "--db", db,        "--quiet", "--device-lib", lib};
  ASSERT_EQ(RunCli(run).exit_code, 0);
  // Same code, other bytes: a rebuilt library.
  std::ofstream(lib, std::ios::app | std::ios::binary) << "rebuilt";
  ASSERT_EQ(RunCli(run).exit_code, 0);
  auto c = RunCli({"compare", "--baseline", "~1", "--candidate", "latest", "--db", db});
  EXPECT_NE(c.out.find("device"), std::string::npos) << c.out << c.err;
  EXPECT_NE(c.out.find("toy_copy"), std::string::npos) << c.out;
}

// --- libtorch's CPU -------------------------------------------------------

TEST(CpuDeviceTest, SmokeRunsAgainstTheSameGoldenFiles) {
  spyre_test::TempDir dir;
  const std::string db = dir.path() + "/p.db";
  auto r = RunCli({"run", "--suite", "smoke", "--device", "cpu", "--db", db, "--quiet"});
  ASSERT_NE(r.exit_code, 2) << r.err;
  int passed = 0;
  std::set<std::string> failed;
  for (const auto& [id, c] : Cases(db, dir.path() + "/report")) {
    const std::string status = c["status"];
    const std::string message = c["message"];
    if (status == "passed") ++passed;
    if (status == "failed") failed.insert(id);
    // The kernels libtorch 1.13 lacks for fp16 on the CPU: one line each.
    if (status == "error") {
      EXPECT_NE(message.find("not implemented for 'Half'"), std::string::npos)
          << id << ": " << message;
      EXPECT_EQ(message.find('\n'), std::string::npos) << id;
    }
  }
  // The CPU as a device is judged like any other. libtorch 1.13's CPU bf16
  // gelu(approximate=tanh) is off by ~185 bf16 ULPs around -0.003 (-0.00595
  // for -0.00313), and the judge finds it; libtorch 2.6 and 2.14 are within
  // one bf16 ULP of the fp32 result on every bf16 input, and pass.
#if SPYRE_TEST_TORCH_MAJOR < 2
  const std::set<std::string> expected{"gelu_tanh"};
#else
  const std::set<std::string> expected{};
#endif
  EXPECT_EQ(failed, expected);
  EXPECT_GE(passed, 10);
  const nlohmann::json env = LatestEnv(db, dir.path() + "/report2");
  EXPECT_EQ(env["device"]["kind"], "cpu");
}

}  // namespace
