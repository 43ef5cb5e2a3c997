// The shadow check names the op whose own output departs from the CPU's:
// with every mm output of the device perturbed by 1% (injected through the
// device under test, as `run --inject` does), an mm op case and a prefill
// case of the tiny model record mm as the departed op and their failure
// messages name it; unchanged, the same cases record every call they made
// and none departs. Without the check there is no extra["op_error"] and no
// name in the message, and every test here fails.
#include <stdlib.h>

#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "harness/device/device.h"
#include "base/op_error.h"
#include "harness/case_kinds/case_kinds.h"

namespace {

// The check runs unless SPYRE_REGRESS_OP_CHECK=0, which a developer timing
// the suites may have left set.
class OpDepartureTest : public ::testing::Test {
 protected:
  void SetUp() override { ::unsetenv("SPYRE_REGRESS_OP_CHECK"); }
};

harness::ExecOptions Options() {
  harness::ExecOptions o;
  o.suites_dir = SPYRE_SOURCE_DIR "/suites";
  o.golden_dir = SPYRE_SOURCE_DIR "/golden";
  o.warmup = 0;
  o.repeat = 1;
  o.timed = false;  // parity only: the check needs no wall samples
  return o;
}

// The result of the first case of `suite` accepted by `pick`.
template <typename Pick>
harness::CaseResult RunFirst(const std::string& suite_name, Pick pick) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", suite_name);
  EXPECT_TRUE(suite.ok()) << suite.status().message();
  if (!suite.ok()) return harness::CaseResult::Error("no suite");
  for (const auto& c : suite->cases) {
    if (pick(c)) return harness::ExecuteCase(*suite, c, Options());
  }
  ADD_FAILURE() << "no case picked in " << suite_name;
  return harness::CaseResult::Error("no case");
}

harness::CaseResult MmOpCase() {
  return RunFirst("smoke", [](const harness::CaseSpec& c) {
    return c.body.value("op", "") == "mm" && c.id.find(".f16") != std::string::npos;
  });
}

harness::CaseResult PrefillCase() {
  return RunFirst("prefill", [](const harness::CaseSpec& c) { return c.id == "llama_tiny.b1.s8"; });
}

bool Calls(const harness::CaseResult& r, const std::string& op) {
  for (const auto& e : harness::ReadOpErrors(r))
    if (e.op == op && e.calls > 0) return true;
  return false;
}

void ExpectClean(const harness::CaseResult& r) {
  ASSERT_TRUE(r.extra.contains("op_error")) << r.case_id << ": not checked";
  EXPECT_FALSE(r.extra["op_error"].contains("error")) << r.extra["op_error"].dump();
  EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << r.case_id << ": " << r.message;
  EXPECT_GT(r.extra["op_error"]["checked_calls"].get<int64_t>(), 0);
  EXPECT_TRUE(Calls(r, "mm")) << r.extra["op_error"].dump();
  const std::optional<harness::OpError> d = harness::DepartedOp(r);
  EXPECT_FALSE(d.has_value()) << r.case_id << ": " << d->op << " departed, rel_l2 " << d->rel_l2;
  for (const auto& e : harness::ReadOpErrors(r)) {
    EXPECT_EQ(e.departed_calls, 0) << e.op;
    EXPECT_LE(e.rel_l2, e.level) << e.op;
  }
  EXPECT_EQ(r.message.find("departing"), std::string::npos) << r.message;
}

void ExpectMmDeparts(const harness::CaseResult& r) {
  ASSERT_TRUE(r.extra.contains("op_error")) << r.case_id << ": not checked";
  EXPECT_EQ(r.status, harness::CaseStatus::kFailed) << r.case_id << " passed despite the fault";
  const std::optional<harness::OpError> d = harness::DepartedOp(r);
  ASSERT_TRUE(d.has_value()) << r.extra["op_error"].dump();
  EXPECT_EQ(d->op, "mm");
  // The fault multiplies each element by 1 +- 0.01: that is the local error.
  EXPECT_GT(d->rel_l2, 0.008);
  EXPECT_LT(d->rel_l2, 0.012);
  EXPECT_GT(d->rel_l2, d->level);
  EXPECT_NE(r.message.find("; first departing op: mm (call " + std::to_string(d->first_call) +
                           " of "),
            std::string::npos)
      << r.message;
  // Every mm call departs; the ops after it saw its perturbed output, yet
  // their own error is not mm's, and the composites around it (linear,
  // matmul) are recorded but judged through the ops inside them.
  for (const auto& e : harness::ReadOpErrors(r)) {
    if (e.op == "mm") {
      EXPECT_EQ(e.departed_calls, e.calls);
    } else {
      EXPECT_EQ(e.departed_calls, 0) << e.op;
    }
  }
}

TEST_F(OpDepartureTest, UnchangedMmCaseRecordsNoDeparture) { ExpectClean(MmOpCase()); }

TEST_F(OpDepartureTest, UnchangedPrefillRecordsNoDeparture) { ExpectClean(PrefillCase()); }

TEST_F(OpDepartureTest, PerturbedMmIsTheDepartedOpOfAnMmCase) {
  ASSERT_TRUE(harness::CurrentDevice().InjectFaults("mm:error=1e-2").ok());
  ExpectMmDeparts(MmOpCase());
}

TEST_F(OpDepartureTest, PerturbedMmIsTheDepartedOpOfAPrefillCase) {
  ASSERT_TRUE(harness::CurrentDevice().InjectFaults("mm:error=1e-2").ok());
  ExpectMmDeparts(PrefillCase());
}

// linear without bias reaches the device as matmul and then mm: the
// composites hold the perturbed mm, a level up or more, with its error as
// their own, and the op named is the mm inside them.
TEST_F(OpDepartureTest, TheOpNamedIsTheMmInsideLinear) {
  ASSERT_TRUE(harness::CurrentDevice().InjectFaults("mm:error=1e-2").ok());
  const harness::CaseResult r = RunFirst("ops", [](const harness::CaseSpec& c) {
    return c.id.rfind("linear_nobias.", 0) == 0 && c.id.find(".f16") != std::string::npos;
  });
  ExpectMmDeparts(r);
  const std::optional<harness::OpError> d = harness::DepartedOp(r);
  ASSERT_TRUE(d.has_value());
  EXPECT_GT(d->depth, 0);
  int composites = 0;
  for (const auto& e : harness::ReadOpErrors(r)) {
    if (e.op != "linear" && e.op != "matmul") continue;
    ++composites;
    EXPECT_TRUE(e.composite) << e.op;
    EXPECT_LT(e.depth, d->depth) << e.op;
    EXPECT_GT(e.rel_l2, e.level) << e.op;
  }
  EXPECT_GT(composites, 0) << r.extra["op_error"].dump();
}

}  // namespace
