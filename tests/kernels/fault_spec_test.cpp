#include <csignal>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "spyre_emu/faults.h"

namespace {

using spyre_emu::FaultPlan;
using ::testing::HasSubstr;

FaultPlan MustParse(const std::string& spec) {
  FaultPlan plan;
  const spyre_emu::Status parsed = FaultPlan::Parse(spec, &plan);
  EXPECT_TRUE(parsed.ok()) << spec << ": " << parsed.message();
  return plan;
}

std::string MustFail(const std::string& spec) {
  FaultPlan plan = MustParse("mm:nan");  // must stay unchanged on failure
  const spyre_emu::Status parsed = FaultPlan::Parse(spec, &plan);
  EXPECT_FALSE(parsed.ok()) << "accepted: " << spec;
  EXPECT_EQ(parsed.code(), spyre_emu::ErrorCode::kInvalidArgument) << spec;
  EXPECT_NE(plan.Find("mm"), nullptr) << "a failed parse changed the plan";
  return parsed.message();
}

TEST(FaultSpecTest, ParsesEveryKind) {
  const FaultPlan p = MustParse(
      "mm:slow=2.5;_softmax:error=0.01;gelu:nan;add:fallback;bmm:abort;sub:segv;mul:hang;"
      "native_layer_norm:oom;_log_softmax:delay=1.5");
  EXPECT_DOUBLE_EQ(p.Find("mm")->slow, 2.5);
  EXPECT_DOUBLE_EQ(p.Find("mm")->delay, 1.0);
  EXPECT_DOUBLE_EQ(p.Find("_log_softmax")->delay, 1.5);
  EXPECT_DOUBLE_EQ(p.Find("_log_softmax")->slow, 1.0);
  EXPECT_TRUE(p.Find("_log_softmax")->any());
  EXPECT_DOUBLE_EQ(p.Find("_softmax")->error, 0.01);
  EXPECT_TRUE(p.Find("gelu")->nan);
  EXPECT_TRUE(p.Find("add")->fallback);
  EXPECT_TRUE(p.Find("bmm")->abort);
  EXPECT_TRUE(p.Find("sub")->segv);
  EXPECT_TRUE(p.Find("mul")->hang);
  EXPECT_TRUE(p.Find("native_layer_norm")->oom);
  EXPECT_EQ(p.Find("div"), nullptr);
  EXPECT_EQ(p.ops().size(), 9u);
  // Only the named kind is set.
  EXPECT_FALSE(p.Find("gelu")->fallback);
  EXPECT_DOUBLE_EQ(p.Find("gelu")->slow, 1.0);
}

TEST(FaultSpecTest, SeveralKindsForOneOpAndRepeatedOps) {
  const FaultPlan p = MustParse(" mm : slow=3 , nan ; mm:error=1e-3 ;");
  const auto* f = p.Find("mm");
  ASSERT_NE(f, nullptr);
  EXPECT_DOUBLE_EQ(f->slow, 3.0);
  EXPECT_TRUE(f->nan);
  EXPECT_DOUBLE_EQ(f->error, 1e-3);
  EXPECT_TRUE(f->any());
}

TEST(FaultSpecTest, EmptySpecInjectsNothing) {
  EXPECT_TRUE(MustParse("").empty());
  EXPECT_TRUE(MustParse("   ").empty());
}

TEST(FaultSpecTest, MalformedSpecsNameTheEntryAndPosition) {
  struct Bad {
    const char* spec;
    const char* entry;
    const char* where;
    const char* what;
  };
  const Bad bad[] = {
      {"mm:slw=2", "entry 1 'mm:slw=2'", "character 4", "unknown fault kind 'slw'"},
      {"mm:nan;gelu:slw", "entry 2 'gelu:slw'", "character 13", "unknown fault kind"},
      {"mm", "entry 1 'mm'", "character 1", "expected OP:KIND"},
      {"mm:slow", "entry 1", "character 4", "needs a value"},
      {"mm:slow=", "entry 1", "", "not a finite number"},
      {"mm:slow=abc", "entry 1", "", "not a finite number"},
      {"mm:slow=2x", "entry 1", "", "not a finite number"},
      {"mm:slow=inf", "entry 1", "", "not a finite number"},
      {"mm:slow=nan", "entry 1", "", "not a finite number"},
      {"mm:slow=0.5", "entry 1", "", "at least 1"},
      {"mm:delay", "entry 1", "character 4", "delay=F"},
      {"mm:delay=0.9", "entry 1", "", "delay=0.9 must be at least 1"},
      {"mm:delay=inf", "entry 1", "", "not a finite number"},
      {"mm:delay=2;mm:delay=3", "entry 2", "", "'delay' is given twice"},
      {"mm:error=0", "entry 1", "", "greater than 0"},
      {"mm:error=-0.1", "entry 1", "", "greater than 0"},
      {"mm:error", "entry 1", "", "needs a value"},
      {"mm:nan=1", "entry 1", "", "takes no value"},
      {"mm:fallback=yes", "entry 1", "", "takes no value"},
      {"mm:", "entry 1", "", "empty fault kind"},
      {"mm:nan,", "entry 1", "", "empty fault kind"},
      {"mm:nan,,oom", "entry 1", "", "empty fault kind"},
      {":nan", "entry 1", "", "not an ATen operator name"},
      {"aten::mm:nan", "entry 1", "character 5", "no namespace"},
      {"1mm:nan", "entry 1", "", "not an ATen operator name"},
      {"m-m:nan", "entry 1", "", "not an ATen operator name"},
      {"mm:nan;;gelu:nan", "entry 2", "", "empty entry"},
      {";mm:nan", "entry 1", "", "empty entry"},
      {"mm:nan;;", "entry 2", "", "empty entry"},
      {"mm:nan,nan", "entry 1", "", "given twice"},
      {"mm:slow=2;mm:slow=3", "entry 2", "", "given twice"},
      {"mm:NAN", "entry 1", "", "unknown fault kind 'NAN'"},
  };
  for (const Bad& b : bad) {
    const std::string error = MustFail(b.spec);
    EXPECT_THAT(error, HasSubstr("SPYRE_EMU_FAULTS")) << b.spec;
    EXPECT_THAT(error, HasSubstr(b.entry)) << b.spec;
    EXPECT_THAT(error, HasSubstr(b.where)) << b.spec;
    EXPECT_THAT(error, HasSubstr(b.what)) << b.spec;
  }
}

// serving_* names are the serving engine's fault points: they alone take
// request= and step=, integers from 0.
TEST(FaultSpecTest, ServingFaultPointsTakeARequestAndAStep) {
  const FaultPlan p = MustParse("serving_drop:request=3,step=7;mm:slow=2");
  EXPECT_EQ(p.Find("serving_drop")->request, 3);
  EXPECT_EQ(p.Find("serving_drop")->step, 7);
  EXPECT_TRUE(p.Find("serving_drop")->any());
  EXPECT_EQ(p.Find("mm")->request, -1);
  EXPECT_THAT(MustFail("mm:request=1"), HasSubstr("only the serving_* fault points take it"));
  EXPECT_THAT(MustFail("serving_drop:request=-1,step=2"),
              HasSubstr("'request' needs an integer from 0: request=N"));
  EXPECT_THAT(MustFail("serving_drop:request=1.5,step=2"), HasSubstr("an integer from 0"));
  EXPECT_THAT(MustFail("serving_drop:step,request=1"), HasSubstr("'step' needs an integer"));
  EXPECT_THAT(MustFail("serving_drop:step=1,step=2"), HasSubstr("'step' is given twice"));
}

TEST(FaultSpecTest, ErrorFactorIsDeterministicAndSigned) {
  int plus = 0, minus = 0;
  for (int64_t i = 0; i < 1000; ++i) {
    const float f = spyre_emu::ErrorFactor(0.25, i);
    EXPECT_EQ(f, spyre_emu::ErrorFactor(0.25, i));
    EXPECT_TRUE(f == 1.25f || f == 0.75f) << f;
    (f > 1 ? plus : minus)++;
  }
  EXPECT_GT(plus, 400);
  EXPECT_GT(minus, 400);
}

using FaultActionDeathTest = ::testing::Test;

TEST_F(FaultActionDeathTest, AbortAbortsAndSegvCrashes) {
  ::testing::FLAGS_gtest_death_test_style = "threadsafe";
  EXPECT_EXIT(spyre_emu::CrashWithAbort("mm"), ::testing::KilledBySignal(SIGABRT),
              "injected fault 'abort' on op 'mm'");
  EXPECT_EXIT(spyre_emu::CrashWithSegv("gelu"), ::testing::KilledBySignal(SIGSEGV),
              "injected fault 'segv' on op 'gelu'");
}

}  // namespace
