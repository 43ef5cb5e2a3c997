// The "op" case kind end to end on the device under test: every case of the
// committed suites passes unperturbed, and a perturbed output fails on the
// metric that caught it.
#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include "harness/golden/golden.h"
#include "harness/case_kinds/case_kinds.h"
#include "suites/device_under_test.h"
#include "suites/ops/op_registry.h"

namespace {

harness::ExecOptions Options() {
  harness::ExecOptions o;
  o.suites_dir = SPYRE_SOURCE_DIR "/suites";
  o.golden_dir = SPYRE_SOURCE_DIR "/golden";
  o.warmup = 0;
  o.repeat = 2;
  return o;
}

void ExpectEveryCasePasses(const std::string& name) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", name);
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  for (const auto& c : suite->cases) {
    harness::CaseResult r = harness::ExecuteCase(*suite, c, Options());
    if (std::getenv("SUITES_DEBUG") != nullptr) {  // SUITES_DEBUG=1 prints every result
      nlohmann::json j = harness::ToJson(r);
      j.erase("metrics");
      std::printf("%s\n", j.dump().c_str());
    }
    EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << c.id << ": " << r.message;
    EXPECT_EQ(r.case_id, c.id);
    EXPECT_EQ(r.wall_us.size(), 2u) << c.id;
    EXPECT_GT(r.peak_device_bytes, 0) << c.id;
    EXPECT_FALSE(r.metrics.empty()) << c.id;
    EXPECT_GE(r.cosine, 0.999) << c.id;
  }
}

TEST(OpCaseTest, EverySmokeCasePassesOnTheDeviceUnderTest) { ExpectEveryCasePasses("smoke"); }

// No false failures: the unperturbed device passes every case of `ops`.
TEST(OpCaseTest, EveryOpsCasePassesOnTheDeviceUnderTest) { ExpectEveryCasePasses("ops"); }

TEST(OpCaseTest, ReportsTheDeviceInUse) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "smoke");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  harness::CaseResult r = harness::ExecuteCase(*suite, suite->cases.front(), Options());
  EXPECT_EQ(r.extra["device"], suites::DeviceUnderTest().str());
}

TEST(OpCaseTest, MissingGoldenIsAnErrorThatSaysWhatToRun) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "smoke");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  harness::ExecOptions o = Options();
  o.golden_dir = "/nonexistent-golden";
  harness::CaseResult r = harness::ExecuteCase(*suite, suite->cases.front(), o);
  EXPECT_EQ(r.status, harness::CaseStatus::kError);
  EXPECT_NE(r.message.find("golden generate --suite smoke"), std::string::npos) << r.message;
}

// A timing round (run --rounds N, all but the main pass) times and traces
// the device and judges nothing: it reads no golden file (none exists here)
// and computes no reference, so it carries samples and op times only.
TEST(OpCaseTest, ATimingRoundReadsNoGoldenAndJudgesNothing) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "smoke");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  harness::ExecOptions o = Options();
  o.golden_dir = "/nonexistent-golden";
  o.judged = false;
  harness::CaseResult r = harness::ExecuteCase(*suite, suite->cases.front(), o);
  EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << r.message;
  EXPECT_EQ(r.wall_us.size(), 2u);
  EXPECT_FALSE(r.ops.empty());
  EXPECT_TRUE(r.metrics.empty());
  // The judged pass of the same case, with its golden file, judges as before.
  harness::CaseResult judged = harness::ExecuteCase(*suite, suite->cases.front(), Options());
  EXPECT_EQ(judged.status, harness::CaseStatus::kPassed) << judged.message;
  EXPECT_FALSE(judged.metrics.empty());
  ASSERT_EQ(judged.ops.size(), r.ops.size());
  for (size_t i = 0; i < r.ops.size(); ++i) {
    EXPECT_EQ(judged.ops[i].op, r.ops[i].op);
    EXPECT_EQ(judged.ops[i].calls, r.ops[i].calls);
  }
}

TEST(OpCaseTest, AnUnknownKindIsAnError) {
  harness::SuiteSpec suite;
  harness::CaseSpec c;
  c.id = "x";
  c.kind = "no-such-kind";
  harness::CaseResult r = harness::ExecuteCase(suite, c, Options());
  EXPECT_EQ(r.status, harness::CaseStatus::kError);
  EXPECT_NE(r.message.find("no-such-kind"), std::string::npos);
}

}  // namespace
