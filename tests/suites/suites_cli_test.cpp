// End-to-end tests of `list` and `golden generate|verify` on the built
// binary: suite mistakes give one clear line and exit 2; the committed golden
// files verify without drift; a one-ULP change is drift for exactly that case.
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.h"
#include "support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using spyre_test::RunCli;
using spyre_test::TempDir;
using spyre_test::WriteFile;

const std::string kSuites = SPYRE_SOURCE_DIR "/suites";
const std::string kGolden = SPYRE_SOURCE_DIR "/golden";

// A suites directory holding one suite "t" with `cases`.
void WriteSuite(const TempDir& dir, const std::string& cases) {
  WriteFile(dir.File("t.json"), R"({"name": "t", "cases": [)" + cases + "]}");
}

void ExpectConfigError(const std::vector<std::string>& args, const std::string& needle) {
  auto r = RunCli(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(spyre_test::LineCount(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
}

TEST(SuitesCliTest, ListShowsSuitesCasesKindsAndTags) {
  std::map<std::string, nlohmann::json> suites;
  for (const char* name : {"ops", "smoke"}) {
    auto r = RunCli({"list", "--suite", name, "--json", "--suites", kSuites});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["suites"].size(), 1u);
    suites[name] = j["suites"][0];
  }
  EXPECT_GE(suites["ops"]["cases"].size(), 150u);
  std::set<std::string> ops;
  for (const auto& c : suites["ops"]["cases"]) ops.insert(c["op"].get<std::string>());
  EXPECT_GE(ops.size(), 25u);
  EXPECT_EQ(suites["smoke"]["cases"][0]["kind"], "op");
  auto r = RunCli({"list", "--suite", "smoke", "--suites", kSuites});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("mm.64x33-33x17.f16  kind=op  tags=smoke"), std::string::npos) << r.out;
}

TEST(SuitesCliTest, EachKindOfSuiteMistakeIsOneLineAndExit2) {
  TempDir dir;
  WriteFile(dir.File("t.json"), "{\"name\": \"t\",");
  ExpectConfigError({"list", "--suites", dir.path()}, "t.json: /: not valid JSON");
  WriteSuite(dir, R"({"id": "a", "op": "convolve", "inputs": []})");
  ExpectConfigError({"list", "--suites", dir.path()}, "/cases/0 (case 'a')/op: unknown op 'convolve'");
  WriteSuite(dir, R"({"id": "a", "op": "sum", "attrs": {"keepdim": 1},
                      "inputs": [{"shape": [2], "dtype": "float16"}]})");
  ExpectConfigError({"list", "--suites", dir.path()}, "/attrs/keepdim: expected a boolean, got 1");
  WriteSuite(dir, R"({"id": "a", "op": "relu", "inputs": [{"file": "../../etc/x", "tensor": "x"}]})");
  ExpectConfigError({"list", "--suites", dir.path()}, "/inputs/0/file: path '../../etc/x' contains '..'");
  WriteSuite(dir, R"({"id": "a", "op": "relu", "golden": "imported/none.safetensors",
                      "inputs": [{"shape": [2], "dtype": "float16"}]})");
  ExpectConfigError({"list", "--suites", dir.path()}, "missing imported golden file");
  // A golden file missing from golden/<suite>/.
  WriteSuite(dir, R"({"id": "a", "op": "relu", "inputs": [{"shape": [2], "dtype": "float16"}]})");
  TempDir golden;
  ExpectConfigError({"golden", "verify", "--suite", "t", "--suites", dir.path(), "--golden", golden.path()},
                    "missing golden file " + golden.File("t/a.safetensors"));
  ExpectConfigError({"list", "--suite", "nope", "--suites", dir.path()}, "no such suite file");
}

TEST(SuitesCliTest, CommittedGoldenFilesVerifyWithoutDrift) {
  for (const char* suite : {"ops", "smoke"}) {
    auto r = RunCli({"golden", "verify", "--suite", suite, "--json", "--suites", kSuites, "--golden", kGolden});
    ASSERT_EQ(r.exit_code, 0) << suite << ": " << r.out << r.err;
    auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["drifted"], 0);
    for (const auto& c : j["cases"]) EXPECT_EQ(c["status"], "ok") << c.dump();
  }
}

// Bumps the fp32 bits of the last value of the (single-output) smoke golden
// file `victim` by `ulps` and verifies the suite.
spyre_test::CommandResult VerifyWithLastValueMoved(const TempDir& tmp, const std::string& victim,
                                               uint32_t ulps, bool json) {
  const std::string path = tmp.File("smoke/" + victim + ".safetensors");
  std::string bytes = spyre_test::ReadFile(path);
  const size_t at = bytes.size() - 4;
  uint32_t bits = 0;
  std::memcpy(&bits, bytes.data() + at, 4);
  bits += ulps;
  std::memcpy(bytes.data() + at, &bits, 4);
  WriteFile(path, bytes);
  std::vector<std::string> args = {"golden", "verify", "--suite", "smoke",
                                   "--suites", kSuites, "--golden", tmp.path()};
  if (json) args.push_back("--json");
  return RunCli(args);
}

// One float32 step is what a float64 reference that rounded the other way
// looks like: listed as "rounding", not drift, exit 0.
TEST(SuitesCliTest, OneUlpInOneStoredValueIsRoundingForExactlyThatCase) {
  TempDir tmp;
  fs::copy(kGolden + "/smoke", tmp.File("smoke"), fs::copy_options::recursive);
  auto r = VerifyWithLastValueMoved(tmp, "mm.64x33-33x17.f16", 1, /*json=*/true);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["drifted"], 0);
  EXPECT_EQ(j["rounding"], 1);
  for (const auto& c : j["cases"]) {
    if (c["case"] == "mm.64x33-33x17.f16") {
      EXPECT_EQ(c["status"], "rounding");
      EXPECT_EQ(c["differing"], 1);
      EXPECT_EQ(c["max_ulp_diff"], 1.0);
      EXPECT_EQ(c["above_rounding"], false);
      EXPECT_EQ(c["first_index"], 64 * 17 - 1);
    } else {
      EXPECT_EQ(c["status"], "ok") << c.dump();
    }
  }
}

// Two float32 steps are more than rounding: drift, exit 1, with the count,
// the distance in ULPs and the BLAS the reference ran on.
TEST(SuitesCliTest, TwoUlpsInOneStoredValueIsDriftForExactlyThatCase) {
  TempDir tmp;
  fs::copy(kGolden + "/smoke", tmp.File("smoke"), fs::copy_options::recursive);
  auto r = VerifyWithLastValueMoved(tmp, "mm.64x33-33x17.f16", 2, /*json=*/true);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["drifted"], 1);
  EXPECT_EQ(j["rounding"], 0);
  EXPECT_TRUE(j["blas"].contains("core")) << j["blas"].dump();
  for (const auto& c : j["cases"]) {
    if (c["case"] == "mm.64x33-33x17.f16") {
      EXPECT_EQ(c["status"], "drift");
      EXPECT_EQ(c["differing"], 1);
      EXPECT_EQ(c["max_ulp_diff"], 2.0);
      EXPECT_EQ(c["above_rounding"], true);
    } else {
      EXPECT_EQ(c["status"], "ok") << c.dump();
    }
  }
  // Human output names the case, the count, the distance and the BLAS.
  TempDir tmp2;
  fs::copy(kGolden + "/smoke", tmp2.File("smoke"), fs::copy_options::recursive);
  r = VerifyWithLastValueMoved(tmp2, "mm.64x33-33x17.f16", 2, /*json=*/false);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("drift  mm.64x33-33x17.f16  out0: 1 of 1088 values differ"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("max 2 ULP of Float"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("recomputed with libtorch "), std::string::npos) << r.out;
}

// A golden file's JSON header, without the metadata that names the machine
// that wrote it (BLAS and its kernel set, libtorch, harness version), and
// its tensor bytes.
struct GoldenBytes {
  nlohmann::json header;
  std::string data;
};

GoldenBytes SplitGolden(const std::string& bytes) {
  uint64_t n = 0;
  if (bytes.size() < 8) return {};
  std::memcpy(&n, bytes.data(), 8);
  if (n > bytes.size() - 8) return {};
  GoldenBytes g{nlohmann::json::parse(bytes.substr(8, n), nullptr, false), bytes.substr(8 + n)};
  if (g.header.contains("__metadata__")) {
    for (const char* k : {"blas", "blas_core", "libtorch", "harness"}) g.header["__metadata__"].erase(k);
  }
  return g;
}

// A safetensors file with one zero-filled tensor `name` of `dtype` ("F32",
// "I64", ...) and `shape`, written by hand as another framework would.
std::string Safetensors(const std::string& name, const std::string& dtype,
                        const std::vector<int64_t>& shape, size_t element_size) {
  size_t n = 1;
  for (int64_t d : shape) n *= static_cast<size_t>(d);
  nlohmann::json h = {{name, {{"dtype", dtype}, {"shape", shape}, {"data_offsets", {0, n * element_size}}}}};
  std::string header = h.dump();
  while (header.size() % 8 != 0) header += ' ';
  std::string out(8, '\0');
  const uint64_t len = header.size();
  std::memcpy(out.data(), &len, 8);
  return out + header + std::string(n * element_size, '\0');
}

// An imported golden file gets the run's preflight and verify's structural
// check: valid is "(valid)" and runs; a wrong shape, a wrong dtype or a
// truncated file is one line, exit 2, naming the file, before anything runs.
TEST(SuitesCliTest, ImportedGoldenFilesAreCheckedByRunAndVerify) {
  TempDir dir;
  fs::create_directories(dir.File("suites/imported"));
  const std::string suites = dir.File("suites");
  const std::string input = R"("inputs": [{"shape": [3, 4], "dtype": "float32"}])";
  // The values another framework would have produced: ours, generated once.
  WriteFile(dir.File("suites/t.json"), R"({"name": "t", "cases": [{"id": "a", "op": "neg", )" + input + "}]}");
  auto r = RunCli({"golden", "generate", "--suite", "t", "--suites", suites, "--golden", dir.File("g")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string good = spyre_test::ReadFile(dir.File("g/t/a.safetensors"));
  WriteFile(dir.File("suites/t.json"), R"({"name": "t", "cases": [{"id": "a", "op": "neg", )" + input +
                                           R"(, "golden": "imported/a.safetensors"}]})");
  const std::string file = dir.File("suites/imported/a.safetensors");
  WriteFile(file, good);
  r = RunCli({"golden", "verify", "--suite", "t", "--suites", suites, "--golden", dir.File("g")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("imported  a  (valid) " + file), std::string::npos) << r.out;
  r = RunCli({"run", "--suite", "t", "--suites", suites, "--golden", dir.File("g"), "--db", dir.File("ok.db")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;

  const std::vector<std::pair<std::string, std::string>> broken = {
      {Safetensors("out0", "F32", {4, 3}, 4), "has shape [4, 3], the op 'neg' produces [3, 4]"},
      {Safetensors("out0", "I64", {3, 4}, 8), "the reference is Long, the output Float"},
      {Safetensors("out0", "F16", {3, 4}, 2), "the reference is Half, the output Float"},
      {Safetensors("out1", "F32", {3, 4}, 4), "has no tensor 'out0'"},
      {good.substr(0, good.size() - 5), file},
  };
  for (const auto& [bytes, needle] : broken) {
    WriteFile(file, bytes);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"golden", "verify", "--suite", "t"},
          std::vector<std::string>{"run", "--suite", "t", "--db", dir.File("bad.db")}}) {
      std::vector<std::string> full = args;
      for (const char* a : {"--suites", "--golden"}) {
        full.push_back(a);
        full.push_back(a == std::string("--suites") ? suites : dir.File("g"));
      }
      auto b = RunCli(full);
      EXPECT_EQ(b.exit_code, 2) << args[0] << ": " << b.out << b.err;
      EXPECT_EQ(spyre_test::LineCount(b.err), 1) << b.err;
      EXPECT_NE(b.err.find(file), std::string::npos) << b.err;
      EXPECT_NE(b.err.find(needle), std::string::npos) << needle << " in " << b.err;
    }
    EXPECT_FALSE(fs::exists(dir.File("bad.db"))) << "a broken golden file must stop the run first";
  }
}

TEST(SuitesCliTest, GenerateReproducesTheCommittedFilesBitForBit) {
  TempDir tmp;
  auto r = RunCli({"golden", "generate", "--suite", "smoke", "--suites", kSuites, "--golden", tmp.path()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int files = 0;
  for (const auto& e : fs::directory_iterator(kGolden + "/smoke")) {
    ++files;
    const GoldenBytes committed = SplitGolden(spyre_test::ReadFile(e.path().string()));
    const GoldenBytes fresh =
        SplitGolden(spyre_test::ReadFile(tmp.File("smoke/" + e.path().filename().string())));
    EXPECT_EQ(committed.header, fresh.header) << e.path();
    EXPECT_TRUE(committed.data == fresh.data) << e.path() << ": the tensor bytes differ";
  }
  EXPECT_GT(files, 10);
}

}  // namespace
