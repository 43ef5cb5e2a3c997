// Runs with SPYRE_EMU_FAULTS=mm:error=1e-2, set through the environment
// before the first device use (the emulator reads it once, then): every mm
// case must fail on the metric that caught the perturbation, and cases
// without mm must still pass. If the device ignored the fault spec, the mm
// cases would pass and this test fails: it never skips.
#include <stdlib.h>

#include <cstdlib>

#include <gtest/gtest.h>

#include "harness/compare/compare.h"
#include "harness/case_kinds/case_kinds.h"

namespace {

harness::ExecOptions Options() {
  harness::ExecOptions o;
  o.suites_dir = SPYRE_SOURCE_DIR "/suites";
  o.golden_dir = SPYRE_SOURCE_DIR "/golden";
  o.warmup = 0;
  o.repeat = 1;
  return o;
}

TEST(FaultTest, PerturbedMmFailsOnTheMetricThatCaughtIt) {
  ::setenv("SPYRE_EMU_FAULTS", "mm:error=1e-2", /*overwrite=*/0);
  ASSERT_STREQ(std::getenv("SPYRE_EMU_FAULTS"), "mm:error=1e-2");
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "ops");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  int mm_cases = 0, other_cases = 0;
  for (const auto& c : suite->cases) {
    const std::string op = c.body["op"].get<std::string>();
    if (op != "mm" && op != "add") continue;
    harness::CaseResult r = harness::ExecuteCase(*suite, c, Options());
    if (op == "add") {
      ++other_cases;
      EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << c.id << ": " << r.message;
      continue;
    }
    ++mm_cases;
    EXPECT_EQ(r.status, harness::CaseStatus::kFailed) << c.id << " passed despite the fault";
    // The message names the output and the criterion; the metric row of that
    // criterion is flagged.
    EXPECT_EQ(r.message.rfind("out0 failed ", 0), 0u) << c.id << ": " << r.message;
    int flagged = 0;
    for (const auto& m : r.metrics) {
      if (!m.failed) continue;
      ++flagged;
      const bool caught_by = r.message.find(m.name == "fraction_outside" ? "element_bound"
                                            : m.name == "rel_l2"         ? "yardstick_rel_l2"
                                                                         : m.name) !=
                             std::string::npos;
      EXPECT_TRUE(caught_by) << c.id << ": flagged " << m.name << " but: " << r.message;
    }
    EXPECT_EQ(flagged, 1) << c.id;
    EXPECT_GT(r.rel_l2, 1e-3) << c.id;
  }
  EXPECT_GE(mm_cases, 10);
  EXPECT_GE(other_cases, 5);
}

}  // namespace
