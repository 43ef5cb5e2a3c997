// The stack matrix over the stack fixture store: which runs are selected,
// the baseline (default and chosen), cases missing on a stack, a status that
// differs, latency ratios, the environment changes and the per-stack counts
// (the store's query behind the selection: tests/store/tag_query_test.cpp).
#include "reports/stack_model.h"

#include <gtest/gtest.h>

#include <cmath>

#include "store/store.h"
#include "stack_fixture.h"
#include "support/temp_dir.h"

// Its own namespace: unity builds put test files together.
namespace reports_test::stack_matrix_test {
namespace {

using harness::CaseStatus;
using reports::StackCaseRow;
using reports::StackMatrix;

std::unique_ptr<harness::Store> OpenReadOnly(const std::string& path) {
  auto store = harness::Store::Open(path, harness::Store::Mode::kReadOnly);
  EXPECT_TRUE(store.ok()) << store.status().message();
  return store.ok() ? std::move(*store) : nullptr;
}

StackMatrix Matrix(const std::string& path, const std::string& baseline = "") {
  auto store = OpenReadOnly(path);
  reports::StackOptions options;
  options.baseline_stack = baseline;
  auto m = reports::BuildStackMatrix(*store, options);
  EXPECT_TRUE(m.ok()) << m.status().message();
  return m.ok() ? *m : StackMatrix();
}

const StackCaseRow* Row(const StackMatrix& m, const std::string& suite, const std::string& id) {
  for (const auto& s : m.suites) {
    for (const auto& g : s.ops) {
      for (const auto& row : g.cases) {
        if (s.suite == suite && row.case_id == id) return &row;
      }
    }
  }
  return nullptr;
}

std::vector<std::string> Names(const StackMatrix& m) {
  std::vector<std::string> out;
  for (const auto& c : m.stacks) out.push_back(c.name);
  return out;
}

class StackMatrixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    BuildStackStore(db_);
    m_ = Matrix(db_);
  }
  spyre_test::TempDir dir_;
  const std::string db_ = dir_.File("stacks.db");
  StackMatrix m_;
};

TEST_F(StackMatrixTest, SelectsTheLatestCompletedRunOfEachStackAndSuite) {
  ASSERT_EQ(m_.stacks.size(), 3u);
  // Run 1 is superseded by run 4, run 5 aborted, run 6 carries no stack tag.
  EXPECT_EQ(m_.FindStack("debian-12")->runs, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(m_.FindStack("ubuntu-24")->runs, (std::vector<int64_t>{4, 7}));
  EXPECT_EQ(m_.FindStack("fedora-40")->runs, (std::vector<int64_t>{8}));
  const StackCaseRow* mm = Row(m_, "ops", "mm.64x64x64.fp16");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->cells.at("ubuntu-24").run_id, 4);
  EXPECT_DOUBLE_EQ(mm->cells.at("ubuntu-24").wall_us, 150);
  EXPECT_EQ(Row(m_, "decode", "granite.b1")->cells.at("ubuntu-24").run_id, 7);
}

TEST_F(StackMatrixTest, DefaultBaselineIsTheStackWhoseSelectedRunsAreOldest) {
  // ubuntu-24 recorded first (run 1), but its selected runs are newer than
  // debian-12's.
  EXPECT_EQ(m_.baseline, "debian-12");
  EXPECT_FALSE(m_.baseline_chosen);
  EXPECT_EQ(Names(m_), (std::vector<std::string>{"debian-12", "ubuntu-24", "fedora-40"}));
}

TEST_F(StackMatrixTest, AChosenBaselineComesFirstAndTheRatiosFollowIt) {
  const StackMatrix m = Matrix(db_, "ubuntu-24");
  EXPECT_EQ(m.baseline, "ubuntu-24");
  EXPECT_TRUE(m.baseline_chosen);
  EXPECT_EQ(Names(m), (std::vector<std::string>{"ubuntu-24", "debian-12", "fedora-40"}));
  const StackCaseRow* mm = Row(m, "ops", "mm.64x64x64.fp16");
  ASSERT_NE(mm, nullptr);
  EXPECT_DOUBLE_EQ(mm->cells.at("debian-12").wall_ratio, 100.0 / 150.0);
  EXPECT_DOUBLE_EQ(mm->cells.at("ubuntu-24").wall_ratio, 1.0);
  EXPECT_TRUE(m.FindStack("ubuntu-24")->changes.empty());
  EXPECT_FALSE(m.FindStack("debian-12")->changes.empty());
}

TEST_F(StackMatrixTest, AnUnknownBaselineStackIsNotFoundNamingTheStacks) {
  auto store = OpenReadOnly(db_);
  reports::StackOptions options;
  options.baseline_stack = "arch";
  auto m = reports::BuildStackMatrix(*store, options);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), harness::ErrorCode::kNotFound);
  EXPECT_NE(m.status().message().find("'arch'"), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("debian-12, ubuntu-24, fedora-40"), std::string::npos)
      << m.status().message();
}

TEST_F(StackMatrixTest, ACaseMissingOnAStackHasNoCellAndCountsAsMissing) {
  const StackCaseRow* softmax = Row(m_, "ops", "softmax.512.fp16");
  ASSERT_NE(softmax, nullptr);
  EXPECT_EQ(softmax->cells.count("debian-12"), 1u);
  EXPECT_EQ(softmax->cells.count("ubuntu-24"), 0u);
  EXPECT_TRUE(softmax->attention);
  const StackCaseRow* gelu = Row(m_, "ops", "gelu.64.fp16");  // only on ubuntu-24
  ASSERT_NE(gelu, nullptr);
  EXPECT_EQ(gelu->cells.count("debian-12"), 0u);
  // 6 cases in all: ops mm.64, mm.128, add, softmax, gelu; decode granite.b1.
  EXPECT_EQ(m_.CaseCount(), 6);
  const reports::StackCounts& debian = m_.FindStack("debian-12")->counts;
  EXPECT_EQ(debian.passed, 5);
  EXPECT_EQ(debian.missing, 1);  // gelu
  const reports::StackCounts& fedora = m_.FindStack("fedora-40")->counts;
  EXPECT_EQ(fedora.passed, 1);
  EXPECT_EQ(fedora.missing, 5);
}

TEST_F(StackMatrixTest, AStatusThatDiffersIsCountedAndNeedsAttention) {
  const StackCaseRow* mm = Row(m_, "ops", "mm.128x128x128.fp16");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(mm->cells.at("debian-12").status, CaseStatus::kPassed);
  EXPECT_EQ(mm->cells.at("ubuntu-24").status, CaseStatus::kFailed);
  EXPECT_DOUBLE_EQ(mm->cells.at("ubuntu-24").max_ulp, 16);
  EXPECT_TRUE(mm->attention);
  const reports::StackCounts& ubuntu = m_.FindStack("ubuntu-24")->counts;
  EXPECT_EQ(ubuntu.passed, 4);  // mm.64, add, gelu, granite.b1
  EXPECT_EQ(ubuntu.failed, 1);
  EXPECT_EQ(ubuntu.missing, 1);  // softmax
  // Passed on every stack that has it, but missing on fedora-40.
  EXPECT_TRUE(Row(m_, "ops", "add.33x65.fp16")->attention);
  // Passed on the two stacks with a decode run; fedora-40 has none.
  EXPECT_TRUE(Row(m_, "decode", "granite.b1")->attention);
}

TEST_F(StackMatrixTest, LatencyRatiosAreAgainstTheBaselineStacksCell) {
  const StackCaseRow* mm = Row(m_, "ops", "mm.64x64x64.fp16");
  ASSERT_NE(mm, nullptr);
  EXPECT_DOUBLE_EQ(mm->cells.at("debian-12").wall_ratio, 1.0);
  EXPECT_DOUBLE_EQ(mm->cells.at("ubuntu-24").wall_ratio, 1.5);
  EXPECT_DOUBLE_EQ(mm->cells.at("ubuntu-24").modeled_ratio, 1.25);
  EXPECT_DOUBLE_EQ(mm->cells.at("fedora-40").wall_ratio, 0.5);
  EXPECT_DOUBLE_EQ(mm->cells.at("ubuntu-24").rel_l2, 0.0012);
  // No baseline cell: no ratio.
  EXPECT_TRUE(std::isnan(Row(m_, "ops", "gelu.64.fp16")->cells.at("ubuntu-24").wall_ratio));
}

TEST_F(StackMatrixTest, ChangesAgainstTheBaselineNameEachComponent) {
  EXPECT_TRUE(m_.FindStack("debian-12")->changes.empty());
  const auto& changes = m_.FindStack("ubuntu-24")->changes;
  auto find = [&](const std::string& component) -> const harness::EnvChange* {
    for (const auto& e : changes) {
      if (e.component == component) return &e;
    }
    return nullptr;
  };
  const harness::EnvChange* libtorch = find("libtorch");
  ASSERT_NE(libtorch, nullptr);
  EXPECT_EQ(libtorch->baseline, "1.13.0");
  EXPECT_EQ(libtorch->candidate, "2.6.0");
  EXPECT_TRUE(libtorch->upstream);
  ASSERT_NE(find("compiler"), nullptr);
  EXPECT_EQ(find("compiler")->candidate, "gcc 13.2.0");
  ASSERT_NE(find("blas"), nullptr);
  EXPECT_EQ(find("cpu"), nullptr);        // the same on both
  EXPECT_EQ(find("tag:stack"), nullptr);  // the column says so already
}

TEST_F(StackMatrixTest, ComponentsComeFromEachStacksEnvironment) {
  auto value = [&](const std::string& stack, const std::string& name) -> std::string {
    for (const auto& c : m_.FindStack(stack)->components) {
      if (c.name == name) return c.value;
    }
    return "<absent>";
  };
  EXPECT_EQ(value("debian-12", "libtorch"), "1.13.0");
  EXPECT_EQ(value("debian-12", "blas"), "OpenBLAS 0.3.21");
  EXPECT_EQ(value("debian-12", "compiler"), "gcc 12.2.0");
  EXPECT_EQ(value("debian-12", "libc"), "glibc 2.36");
  EXPECT_EQ(value("debian-12", "os"), "Debian 12");
  EXPECT_EQ(value("fedora-40", "libc"), "<absent>");  // only when recorded
}

TEST_F(StackMatrixTest, RowsAreGroupedBySuiteThenOp) {
  ASSERT_EQ(m_.suites.size(), 2u);
  EXPECT_EQ(m_.suites[0].suite, "decode");
  EXPECT_EQ(m_.suites[0].ops.at(0).op, "decode");  // a model case: its kind
  const auto& ops = m_.suites[1].ops;
  std::vector<std::string> names;
  for (const auto& g : ops) names.push_back(g.op);
  EXPECT_EQ(names, (std::vector<std::string>{"mm", "add", "_softmax", "gelu"}));
  ASSERT_EQ(ops[0].cases.size(), 2u);
  EXPECT_EQ(ops[0].cases[0].case_id, "mm.64x64x64.fp16");
  EXPECT_EQ(ops[0].cases[1].case_id, "mm.128x128x128.fp16");
}

TEST_F(StackMatrixTest, RegressionFindingsAreCountedForTheSelectedRunsOnly) {
  EXPECT_EQ(m_.FindStack("ubuntu-24")->counts.regressions, 2);  // run 4; not run 1's
  EXPECT_EQ(m_.FindStack("debian-12")->counts.regressions, 0);
}

TEST(StackMatrixNoTagTest, AStoreWithoutStackTagsSaysHowToTagRuns) {
  spyre_test::TempDir dir;
  {
    // A completed run tagged, but not with a stack.
    auto store = harness::Store::Open(dir.File("s.db"));
    ASSERT_TRUE(store.ok()) << store.status().message();
    harness::NewRun info;
    info.suite = "ops";
    info.env_json = R"({"libtorch": "1.13.0", "tags": {"vllm": "0.6.3"}})";
    auto id = (*store)->BeginRun(info);
    ASSERT_TRUE(id.ok()) << id.status().message();
    harness::CaseResult c;
    c.suite = "ops";
    c.case_id = "mm.64x64x64.fp16";
    c.status = CaseStatus::kPassed;
    ASSERT_TRUE((*store)->RecordResult(*id, c).ok());
    ASSERT_TRUE((*store)->FinishRun(*id, harness::RunStatus::kCompleted).ok());
  }
  auto store = OpenReadOnly(dir.File("s.db"));
  auto m = reports::BuildStackMatrix(*store, {});
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), harness::ErrorCode::kNotFound);
  EXPECT_NE(m.status().message().find("--tag stack=NAME"), std::string::npos)
      << m.status().message();
}

}  // namespace
}  // namespace reports_test::stack_matrix_test
