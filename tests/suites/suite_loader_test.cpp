// Loading suite files: sweeps, tags, defaults, and each kind of mistake
// reported with the file, the JSON pointer and the problem.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "harness/safetensors/safetensors.h"
#include "harness/inputs/generator.h"
#include "harness/case_kinds/case_kinds.h"
#include "suite_file/suite_file.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::TempDir;
using spyre_test::WriteFile;

constexpr const char* kAdd = R"({"id": "add", "op": "add", "dtype": "float16",
  "inputs": [{"shape": [3, 4]}, {"shape": [3, 4]}]})";

std::string Suite(const std::string& cases, const std::string& extra = "") {
  return R"({"name": "t", )" + extra + R"("cases": [)" + cases + "]}";
}

// Loads suite "t" written to a fresh directory; returns the error message.
std::string LoadError(const TempDir& dir, const std::string& text) {
  WriteFile(dir.File("t.json"), text);
  auto s = harness::LoadSuite(dir.path(), "t");
  EXPECT_FALSE(s.ok());
  return s.ok() ? "" : s.status().message();
}

TEST(SuiteLoaderTest, LoadsTheCommittedOpSuites) {
  const auto names = harness::ListSuites(SPYRE_SOURCE_DIR "/suites");
  EXPECT_NE(std::find(names.begin(), names.end(), "ops"), names.end());
  for (const char* name : {"ops", "smoke"}) {
    auto s = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", name);
    EXPECT_TRUE(s.ok()) << name << ": " << s.status().message();
  }
}

TEST(SuiteLoaderTest, SweepsExpandIntoStableReadableIds) {
  TempDir dir;
  WriteFile(dir.File("t.json"), Suite(R"({"id": "mm", "op": "mm", "tags": ["nightly"],
    "inputs": [{"dist": "normal"}, {"dist": "normal", "permute": [1, 0]}],
    "sweep": {"shapes": [[[4, 3], [3, 5]], [[1, 65], [65, 2]]], "dtypes": ["float16", "float32"]}},
    {"id": "relu", "op": "relu", "inputs": [{"dtype": "bfloat16"}],
     "sweep": {"shape": [[7], []]}})",
                                        R"("defaults": {"tags": ["smoke"], "seed": 9, "repeat": 7},)"));
  auto s = harness::LoadSuite(dir.path(), "t");
  ASSERT_TRUE(s.ok()) << s.status().message();
  std::vector<std::string> ids;
  for (const auto& c : s->cases) ids.push_back(c.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"mm.4x3-3x5.f16", "mm.4x3-3x5.f32", "mm.1x65-65x2.f16",
                                           "mm.1x65-65x2.f32", "relu.7", "relu.s"}));
  EXPECT_EQ(s->cases[0].tags, (std::vector<std::string>{"nightly", "smoke"}));
  EXPECT_EQ(s->cases[0].kind, "op");
  EXPECT_EQ(s->cases[0].body["seed"], 9);
  EXPECT_EQ(s->cases[1].body["inputs"][1]["dtype"], "float32");
  EXPECT_EQ(s->cases[2].body["inputs"][0]["shape"], nlohmann::json({1, 65}));
  EXPECT_EQ(s->cases[4].body["inputs"][0]["dtype"], "bfloat16");
  EXPECT_EQ(s->repeat, 7);
}

TEST(SuiteLoaderTest, PerOpTolerancesMergeUnderTheCasesOwn) {
  TempDir dir;
  WriteFile(dir.File("t.json"),
            Suite(R"({"id": "a", "op": "add", "dtype": "float16", "tolerance": {"m": 5},
                      "inputs": [{"shape": [2]}, {"shape": [2]}]})",
                  R"("tolerances": {"add": {"m": 4, "rtol": 0.01}},)"));
  auto s = harness::LoadSuite(dir.path(), "t");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->cases[0].body["tolerance"], nlohmann::json({{"m", 5}, {"rtol", 0.01}}));
}

TEST(SuiteLoaderTest, BadJsonNamesTheFile) {
  TempDir dir;
  const std::string e = LoadError(dir, "{\"name\": \"t\", \"cases\": [");
  EXPECT_NE(e.find(dir.File("t.json") + ": /: not valid JSON"), std::string::npos) << e;
}

TEST(SuiteLoaderTest, SchemaViolationsNameThePointer) {
  TempDir dir;
  std::string e = LoadError(dir, Suite(std::string(kAdd), R"("defaults": {"repeat": "5"},)"));
  EXPECT_NE(e.find("/defaults/repeat: expected integer, got string"), std::string::npos) << e;
  e = LoadError(dir, Suite(R"({"id": "a", "op": "relu", "atrs": {}, "inputs": []})"));
  EXPECT_NE(e.find("/cases/0/atrs: unknown member"), std::string::npos) << e;
  e = LoadError(dir, Suite(R"({"id": "a b", "op": "relu", "inputs": []})"));
  EXPECT_NE(e.find("/cases/0/id"), std::string::npos) << e;
  e = LoadError(dir, R"({"name": "other", "cases": [)" + std::string(kAdd) + "]}");
  EXPECT_NE(e.find("/name"), std::string::npos) << e;
}

TEST(SuiteLoaderTest, UnknownOpListsTheKnownOnes) {
  TempDir dir;
  const std::string e = LoadError(dir, Suite(R"({"id": "a", "op": "matmull", "inputs": []})"));
  EXPECT_NE(e.find("/cases/0 (case 'a')/op: unknown op 'matmull'; did you mean 'matmul'? (known: "),
            std::string::npos)
      << e;
}

TEST(SuiteLoaderTest, WrongAttributeTypeNamesTheAttribute) {
  TempDir dir;
  std::string e = LoadError(dir, Suite(R"({"id": "s", "op": "softmax", "attrs": {"dim": "last"},
    "inputs": [{"shape": [2, 3], "dtype": "float16"}]})"));
  EXPECT_NE(e.find("/attrs/dim: expected an integer, got \"last\""), std::string::npos) << e;
  e = LoadError(dir, Suite(R"({"id": "g", "op": "gelu", "attrs": {"approximate": "fast"},
    "inputs": [{"shape": [2], "dtype": "float16"}]})"));
  EXPECT_NE(e.find("/attrs/approximate: \"fast\" is not one of none, tanh"), std::string::npos) << e;
  e = LoadError(dir, Suite(R"({"id": "g", "op": "gelu", "attrs": {"eps": 1},
    "inputs": [{"shape": [2], "dtype": "float16"}]})"));
  EXPECT_NE(e.find("op 'gelu' has no attribute 'eps'"), std::string::npos) << e;
}

TEST(SuiteLoaderTest, OtherMistakes) {
  TempDir dir;
  std::string e = LoadError(dir, Suite(std::string(kAdd) + "," + kAdd));
  EXPECT_NE(e.find("case id 'add' is used twice"), std::string::npos) << e;
  e = LoadError(dir, Suite(R"({"id": "a", "op": "mm", "inputs": [{"shape": [2, 2], "dtype": "float16"}]})"));
  EXPECT_NE(e.find("takes 2..2 inputs, got 1"), std::string::npos) << e;
  e = LoadError(dir, Suite(R"({"id": "a", "kind": "teleport"})"));
  EXPECT_NE(e.find("/cases/0/kind: unknown case kind 'teleport'"), std::string::npos) << e;
  e = LoadError(dir, Suite(R"({"id": "a", "op": "relu", "inputs": [{"shape": [2]}]})"));
  EXPECT_NE(e.find("/inputs/0: missing \"dtype\""), std::string::npos) << e;
  auto missing = harness::LoadSuite(dir.path(), "nope");
  EXPECT_EQ(missing.status().code(), harness::ErrorCode::kNotFound);
}

TEST(SuiteLoaderTest, FilesStayInsideTheSuitesDirectory) {
  TempDir outside;
  TempDir dir;
  harness::SafetensorsFile f;
  f.tensors.emplace_back("x", at::ones({2}, at::kHalf));
  ASSERT_TRUE(harness::WriteSafetensors(dir.File("data/x.safetensors"), f).ok());
  ASSERT_TRUE(harness::WriteSafetensors(outside.File("y.safetensors"), f).ok());
  std::filesystem::create_symlink(outside.path(), dir.File("data/link"));
  auto with_file = [](const std::string& path) {
    return Suite(R"({"id": "a", "op": "relu", "inputs": [{"file": ")" + path +
                 R"(", "tensor": "x"}]})");
  };
  WriteFile(dir.File("t.json"), with_file("data/x.safetensors"));
  EXPECT_TRUE(harness::LoadSuite(dir.path(), "t").ok());
  std::string e = LoadError(dir, with_file("../y.safetensors"));
  EXPECT_NE(e.find("/inputs/0/file: path '../y.safetensors' contains '..'"), std::string::npos) << e;
  e = LoadError(dir, with_file(outside.File("y.safetensors")));
  EXPECT_NE(e.find("is absolute"), std::string::npos) << e;
  e = LoadError(dir, with_file("data/link/y.safetensors"));
  EXPECT_NE(e.find("leads outside the suites directory"), std::string::npos) << e;
  e = LoadError(dir, with_file("data/none.safetensors"));
  EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
}

// A sweep's dtypes reach file inputs too: the case named .f16 runs its
// floating file tensor in fp16 (and its integer one as stored); a member a
// file input cannot honour is a load error naming the case.
TEST(SuiteLoaderTest, FileInputsTakeTheSweepsDtypeAndRefuseWhatTheyCannotHonour) {
  TempDir dir;
  harness::SafetensorsFile f;
  f.tensors.emplace_back("x", at::ones({2, 3}, at::kFloat));
  f.tensors.emplace_back("i", at::zeros({2}, at::kLong));
  ASSERT_TRUE(harness::WriteSafetensors(dir.File("data/x.safetensors"), f).ok());
  WriteFile(dir.File("t.json"), Suite(R"({"id": "a", "op": "index_select",
    "inputs": [{"file": "data/x.safetensors", "tensor": "x"}, {"file": "data/x.safetensors", "tensor": "i"}],
    "sweep": {"dtypes": ["float16", "float32"]}})"));
  auto suite = harness::LoadSuite(dir.path(), "t");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  ASSERT_EQ(suite->cases.size(), 2u);
  EXPECT_EQ(suite->cases[0].id, "a.f16");
  const harness::CaseKind* kind = harness::FindCaseKind("op");
  ASSERT_NE(kind, nullptr);
  harness::ExecOptions o;
  o.warmup = 0;
  o.repeat = 1;
  o.golden_dir = dir.File("golden");
  auto golden = kind->ComputeGolden(*suite, suite->cases[0], o);
  ASSERT_TRUE(golden.ok()) << golden.status().message();
  // The digests name each input's dtype: fp16 for x, int64 for the indices.
  const std::string digests = golden->metadata["input_digests"];
  EXPECT_EQ(digests, "[\"" + harness::TensorDigest(at::ones({2, 3}, at::kHalf)) + "\",\"" +
                         harness::TensorDigest(at::zeros({2}, at::kLong)) + "\"]");
  const std::string e = LoadError(dir, Suite(R"({"id": "a", "op": "relu",
    "inputs": [{"file": "data/x.safetensors", "tensor": "x", "scale": 2}]})"));
  EXPECT_NE(e.find("(case 'a')/inputs/0/scale: a file input takes"), std::string::npos) << e;
}

TEST(SuiteLoaderTest, MissingImportedGoldenIsALoadError) {
  TempDir dir;
  const std::string e = LoadError(dir, Suite(R"({"id": "a", "op": "relu", "golden": "imported/a.safetensors",
    "inputs": [{"shape": [2], "dtype": "float16"}]})"));
  EXPECT_NE(e.find("/golden: missing imported golden file"), std::string::npos) << e;
}

}  // namespace
