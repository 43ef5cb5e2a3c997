// A case kind parses each case once, when its suite is loaded, and every
// other hook receives that parsed case: a kind defined here counts its
// parses, and the "op" kind's hooks answer from the parsed case even when
// the body no longer parses.
#include <gtest/gtest.h>

#include "harness/golden/golden.h"
#include "harness/safetensors/safetensors.h"
#include "harness/case_kinds/case_kinds.h"
#include "suite_file/suite_file.h"
#include "op_case.h"
#include "support/temp_dir.h"

namespace {

using spyre_test::TempDir;
using spyre_test::WriteFile;

int parses = 0;

struct Counted {
  int value = 0;
};

// Its parsed case is the case's seed; its hooks report it, so a test can see
// what each received.
class CountingKind : public harness::CaseKindOf<Counted> {
 public:
  harness::StatusOr<Counted> Parse(const harness::SuiteSpec&,
                                   const harness::CaseSpec& c) const override {
    ++parses;
    if (c.body.value("seed", 0) > 1000) {
      return harness::InvalidInput(c.body.value("pointer", "") + "/seed: at most 1000");
    }
    return Counted{c.body["seed"].get<int>()};
  }
  harness::CaseResult Execute(const harness::SuiteSpec&, const harness::CaseSpec&, const Counted& t,
                              const harness::ExecOptions&) const override {
    harness::CaseResult r;
    r.status = harness::CaseStatus::kPassed;
    r.extra["value"] = t.value;
    return r;
  }
  harness::StatusOr<harness::SafetensorsFile> ComputeGolden(
      const harness::SuiteSpec&, const harness::CaseSpec&, const Counted& t,
      const harness::ExecOptions&) const override {
    harness::SafetensorsFile f;
    f.metadata["value"] = std::to_string(t.value);
    return f;
  }
  bool HasGolden(const harness::CaseSpec&, const Counted& t) const override { return t.value != 0; }
  bool UsesImportedGolden(const harness::CaseSpec&, const Counted& t) const override {
    return t.value > 1;
  }
  std::string ImportedGoldenPath(const harness::SuiteSpec&, const harness::CaseSpec&,
                                 const Counted& t) const override {
    return "imported/" + std::to_string(t.value);
  }
  harness::Status CheckFiles(const harness::SuiteSpec&, const harness::CaseSpec&,
                             const Counted& t) const override {
    return t.value < 0 ? harness::InvalidInput("negative") : harness::Status::Ok();
  }
  harness::Status CheckGolden(const harness::SuiteSpec&, const harness::CaseSpec&, const Counted& t,
                              const harness::SafetensorsHeader&,
                              const std::string& path) const override {
    return t.value == 2 ? harness::InvalidInput(path + ": two") : harness::Status::Ok();
  }
};

SPYRE_REGISTER_CASE_KIND("counting-test", CountingKind);

harness::StatusOr<harness::SuiteSpec> LoadCounting(const TempDir& dir, const std::string& cases) {
  WriteFile(dir.File("t.json"), R"({"name": "t", "cases": [)" + cases + "]}");
  return harness::LoadSuite(dir.path(), "t");
}

TEST(CaseKindTest, EachCaseIsParsedOnceAndEveryHookGetsTheParsedCase) {
  TempDir dir;
  parses = 0;
  auto suite = LoadCounting(dir, R"({"id": "zero", "kind": "counting-test", "seed": 0},
                                    {"id": "two", "kind": "counting-test", "seed": 2})");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  EXPECT_EQ(parses, 2);
  const harness::CaseKind* kind = harness::FindCaseKind("counting-test");
  ASSERT_NE(kind, nullptr);
  const harness::CaseSpec& zero = suite->cases[0];
  const harness::CaseSpec& two = suite->cases[1];
  harness::ExecOptions o;
  for (int round = 0; round < 2; ++round) {
    EXPECT_FALSE(kind->HasGolden(zero));
    EXPECT_TRUE(kind->HasGolden(two));
    EXPECT_FALSE(kind->UsesImportedGolden(zero));
    EXPECT_TRUE(kind->UsesImportedGolden(two));
    EXPECT_EQ(kind->ImportedGoldenPath(*suite, two), "imported/2");
    EXPECT_TRUE(kind->CheckFiles(*suite, two).ok());
    const harness::Status golden = kind->CheckGolden(*suite, two, {}, "g");
    EXPECT_EQ(golden.message(), "g: two");
    auto computed = kind->ComputeGolden(*suite, two, o);
    ASSERT_TRUE(computed.ok()) << computed.status().message();
    EXPECT_EQ(computed->metadata["value"], "2");
    const harness::CaseResult r = harness::ExecuteCase(*suite, two, o);
    EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << r.message;
    EXPECT_EQ(r.extra.value("value", -1), 2);
    EXPECT_EQ(r.case_id, "two");
  }
  EXPECT_EQ(parses, 2) << "a hook parsed the case body again";

  // A copy of the suite shares the parsed cases.
  const harness::SuiteSpec copy = *suite;
  EXPECT_EQ(copy.cases[1].parsed, two.parsed);
  EXPECT_EQ(kind->ImportedGoldenPath(copy, copy.cases[1]), "imported/2");
  EXPECT_EQ(parses, 2);
}

TEST(CaseKindTest, AParseErrorNamesTheFileAndThePointer) {
  TempDir dir;
  auto suite = LoadCounting(dir, R"({"id": "a", "kind": "counting-test", "seed": 1},
                                    {"id": "b", "kind": "counting-test", "seed": 5000})");
  ASSERT_FALSE(suite.ok());
  EXPECT_EQ(suite.status().code(), harness::ErrorCode::kInvalidInput);
  EXPECT_EQ(suite.status().message(), dir.File("t.json") + ": /cases/1/seed: at most 1000");
}

// A CaseSpec that did not come from LoadSuite has no parsed case: each hook
// says so instead of parsing the body on its own.
TEST(CaseKindTest, ACaseThatWasNotLoadedIsAnInternalError) {
  harness::SuiteSpec suite;
  suite.name = "t";
  harness::CaseSpec c;
  c.suite = "t";
  c.id = "x";
  c.kind = "counting-test";
  c.body = {{"seed", 1}};
  parses = 0;
  const harness::CaseResult r = harness::ExecuteCase(suite, c, harness::ExecOptions());
  EXPECT_EQ(r.status, harness::CaseStatus::kError);
  EXPECT_NE(r.message.find("'t/x' was not parsed by its kind 'counting-test'"), std::string::npos)
      << r.message;
  const harness::CaseKind* kind = harness::FindCaseKind("counting-test");
  ASSERT_NE(kind, nullptr);
  EXPECT_EQ(kind->CheckFiles(suite, c).code(), harness::ErrorCode::kInternal);
  EXPECT_EQ(parses, 0);
}

// The op kind's preflight reads the case parsed at load time: with the
// body's op changed afterwards (a body that no longer parses), its golden
// file still checks against the op the suite named.
TEST(CaseKindTest, TheOpKindsHooksReadTheParsedCase) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "smoke");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  harness::CaseSpec c = suite->cases.front();
  ASSERT_EQ(c.kind, "op");
  c.body["op"] = "no_such_op";
  EXPECT_FALSE(suites::ParseOpCase(*suite, c).ok());
  const std::string path = harness::GoldenPath(SPYRE_SOURCE_DIR "/golden", "smoke", c.id);
  auto header = harness::ReadSafetensorsHeader(path);
  ASSERT_TRUE(header.ok()) << header.status().message();
  const harness::CaseKind* kind = harness::FindCaseKind("op");
  ASSERT_NE(kind, nullptr);
  const harness::Status s = kind->CheckGolden(*suite, c, *header, path);
  EXPECT_TRUE(s.ok()) << s.message();
}

}  // namespace
