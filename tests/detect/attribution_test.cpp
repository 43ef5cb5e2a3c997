// The torch-free half of `bisect`: which components can be swapped and how,
// which configurations are run, and the verdict and wording once they are
// judged.
#include "detect/attribution.h"

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "support/temp_dir.h"

namespace {

using harness::CauseVerdict;
using harness::StepEffect;
using harness::SwapComponent;

nlohmann::json Env(const std::string& profile, const std::string& faults, int threads) {
  return {{"libtorch", "1.13.1"},
          {"compiler", "GCC 12.2.0"},
          {"profile", profile},
          {"faults", faults},
          {"rounding", "nearest-away"},
          {"cores", 32},
          {"threads", threads},
          {"jobs", 1},
          {"blas", {{"name", "OpenBLAS"}, {"version", "0.3.21"}, {"core", "Haswell"}, {"path", "/x/libblas.so.3"}}}};
}

const SwapComponent* Find(const std::vector<SwapComponent>& v, const std::string& name) {
  for (const SwapComponent& s : v) {
    if (s.component == name) return &s;
  }
  return nullptr;
}

TEST(AttributionTest, EmulatorSettingsAndThreadsAreSwappableAndBuildFactsAreNamedAsNot) {
  nlohmann::json base = Env("inductor", "", 1), cand = Env("sendnn", "mm:error=1e-2", 2);
  cand["compiler"] = "GCC 14.2.0";
  cand["jobs"] = 2;  // a run option, not a component
  const auto swaps = harness::PlanSwaps(base, cand, base);
  ASSERT_EQ(swaps.size(), 4u);
  const SwapComponent* profile = Find(swaps, "profile");
  ASSERT_NE(profile, nullptr);
  EXPECT_TRUE(profile->swappable);
  EXPECT_EQ(profile->baseline_env.at("SPYRE_EMU_PROFILE"), "inductor");
  EXPECT_EQ(profile->candidate_env.at("SPYRE_EMU_PROFILE"), "sendnn");
  const SwapComponent* faults = Find(swaps, "faults");
  ASSERT_NE(faults, nullptr);
  // --inject would win over SPYRE_EMU_FAULTS: both sides set it too.
  EXPECT_EQ(faults->candidate_env.at("SPYRE_REGRESS_INJECT"), "mm:error=1e-2");
  EXPECT_EQ(faults->baseline_env.at("SPYRE_REGRESS_INJECT"), "");
  const SwapComponent* threads = Find(swaps, "threads");
  ASSERT_NE(threads, nullptr);
  EXPECT_TRUE(threads->swappable);
  EXPECT_EQ(threads->baseline_threads, 1);
  EXPECT_EQ(threads->candidate_threads, 2);
  const SwapComponent* compiler = Find(swaps, "compiler");
  ASSERT_NE(compiler, nullptr);
  EXPECT_FALSE(compiler->swappable);
  EXPECT_NE(compiler->why_not.find("build"), std::string::npos) << compiler->why_not;
  EXPECT_EQ(Find(swaps, "jobs"), nullptr);
}

TEST(AttributionTest, ABlasIsSwappedByItsFileOnlyWhenTheFileHoldsTheRecordedLibrary) {
  spyre_test::TempDir dir;
  const std::string ref = dir.File("libblas_ref.so.3");
  std::ofstream(ref) << "stand-in";
  nlohmann::json base = Env("inductor", "", 1), cand = base;
  cand["blas"] = {{"name", "reference"}, {"version", "3.11.0"}, {"core", ""}, {"path", ref}};
  // This machine resolves the baseline's OpenBLAS: the candidate's file is preloaded.
  auto swaps = harness::PlanSwaps(base, cand, base);
  ASSERT_EQ(swaps.size(), 1u);
  ASSERT_TRUE(swaps[0].swappable) << swaps[0].why_not;
  EXPECT_EQ(swaps[0].candidate_env.at("LD_PRELOAD"), ref);
  EXPECT_EQ(swaps[0].baseline_env.at("LD_PRELOAD"), "");
  EXPECT_EQ(swaps[0].baseline_env.at("OPENBLAS_CORETYPE"), "Haswell");

  // The candidate's file is gone: not swappable, and the message says what to give.
  cand["blas"]["path"] = dir.File("gone.so");
  swaps = harness::PlanSwaps(base, cand, base);
  ASSERT_EQ(swaps.size(), 1u);
  EXPECT_FALSE(swaps[0].swappable);
  EXPECT_NE(swaps[0].why_not.find("--candidate-blas"), std::string::npos) << swaps[0].why_not;
  // ... unless a copy is given.
  harness::SwapFiles files;
  files.candidate_blas = ref;
  EXPECT_TRUE(harness::PlanSwaps(base, cand, base, files)[0].swappable);

  // Another stack: the same path holds another version here.
  nlohmann::json newer = base;
  newer["blas"]["version"] = "0.3.29";
  swaps = harness::PlanSwaps(base, newer, newer);
  ASSERT_EQ(swaps.size(), 1u);
  EXPECT_FALSE(swaps[0].swappable);
  EXPECT_NE(swaps[0].why_not.find("--baseline-blas"), std::string::npos) << swaps[0].why_not;
}

TEST(AttributionTest, ADeviceLibraryIsSwappedOnlyWithItsRecordedHash) {
  spyre_test::TempDir dir;
  const std::string lib = dir.File("libdev.so");
  std::ofstream(lib) << "abc";
  // SHA-256 of "abc".
  const std::string sha = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  nlohmann::json base = Env("inductor", "", 1), cand = base;
  base["device"] = {{"name", "dev"}, {"version", "1"}, {"path", lib}, {"sha256", sha}};
  cand["device"] = {{"name", "dev"}, {"version", "2"}, {"path", lib}, {"sha256", sha}};
  auto swaps = harness::PlanSwaps(base, cand, cand);
  ASSERT_EQ(swaps.size(), 1u);
  EXPECT_TRUE(swaps[0].swappable) << swaps[0].why_not;
  EXPECT_EQ(swaps[0].baseline_env.at("SPYRE_REGRESS_DEVICE_LIB"), lib);
  std::ofstream(lib) << "rebuilt";
  swaps = harness::PlanSwaps(base, cand, cand);
  EXPECT_FALSE(swaps[0].swappable);
  EXPECT_NE(swaps[0].why_not.find("has changed"), std::string::npos) << swaps[0].why_not;
}

TEST(AttributionTest, UpToThreeComponentsEveryCombinationIsRunBeyondEachAloneAndEachLeftOut) {
  EXPECT_EQ(harness::ConfigurationMasks(0), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(harness::ConfigurationMasks(1), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(harness::ConfigurationMasks(2), (std::vector<uint32_t>{0, 1, 2, 3}));
  const auto three = harness::ConfigurationMasks(3);
  EXPECT_EQ(three.size(), 8u);
  EXPECT_EQ(three.front(), 0u);
  EXPECT_EQ(three.back(), 7u);
  const auto four = harness::ConfigurationMasks(4);
  EXPECT_EQ(four, (std::vector<uint32_t>{0, 1, 2, 4, 8, 14, 13, 11, 7, 15}));
}

std::vector<SwapComponent> Two() {
  SwapComponent blas, profile;
  blas.component = "blas";
  blas.baseline = "OpenBLAS 0.3.21 Haswell (/usr/lib/libblas.so.3)";
  blas.candidate = "reference 3.11.0 (/usr/lib/blas/libblas.so.3)";
  blas.swappable = true;
  profile.component = "profile";
  profile.baseline = "inductor";
  profile.candidate = "sendnn";
  profile.swappable = true;
  return {blas, profile};
}

StepEffect Step(bool reproduced, double ratio) {
  StepEffect e;
  e.reproduced = reproduced;
  e.ratio = ratio;
  return e;
}

TEST(AttributionTest, OneComponentThatReproducesAloneIsTheCauseWithBothFigures) {
  const auto c = harness::Attribute(Two(), {}, {{1, Step(true, 1.41)}, {2, Step(false, 1.02)}, {3, Step(true, 1.43)}},
                                    std::nullopt, false);
  EXPECT_EQ(c.verdict, CauseVerdict::kCaused);
  EXPECT_EQ(c.components, std::vector<std::string>{"blas"});
  EXPECT_EQ(c.text,
            "caused by blas OpenBLAS 0.3.21 Haswell -> reference 3.11.0 (reproduced: +41.0% with it "
            "alone, +2.0% without)");
  EXPECT_EQ(c.evidence["steps"].size(), 3u);
}

TEST(AttributionTest, OnlyTheCombinationReproducingIsTogether) {
  const auto c = harness::Attribute(Two(), {}, {{1, Step(false, 1.01)}, {2, Step(false, 1.0)}, {3, Step(true, 1.4)}},
                                    std::nullopt, false);
  EXPECT_EQ(c.verdict, CauseVerdict::kTogether);
  EXPECT_EQ(c.components, (std::vector<std::string>{"blas", "profile"}));
  EXPECT_NE(c.text.find("together"), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("blas alone +1.0%"), std::string::npos) << c.text;
}

TEST(AttributionTest, TwoComponentsThatEachReproduceAloneAreBothNamed) {
  const auto c = harness::Attribute(Two(), {}, {{1, Step(true, 3.0)}, {2, Step(true, 1.3)}, {3, Step(true, 4.0)}},
                                    std::nullopt, false);
  EXPECT_EQ(c.verdict, CauseVerdict::kEach);
  EXPECT_EQ(c.components, (std::vector<std::string>{"blas", "profile"}));
}

TEST(AttributionTest, ASecondComponentsEffectShortOfTheLevelIsSaidNotHidden) {
  // blas reproduces it; profile alone moved it +27% without reaching the level.
  const auto c = harness::Attribute(Two(), {}, {{1, Step(true, 7.45)}, {2, Step(false, 1.271)}, {3, Step(true, 7.78)}},
                                    std::nullopt, false);
  EXPECT_EQ(c.verdict, CauseVerdict::kCaused);
  EXPECT_NE(c.text.find("; profile alone +27.1%, short of the judge's level"), std::string::npos) << c.text;
  // A second component within 5% is not mentioned.
  const auto quiet = harness::Attribute(Two(), {}, {{1, Step(true, 7.45)}, {2, Step(false, 1.02)}, {3, Step(true, 7.6)}},
                                        std::nullopt, false);
  EXPECT_EQ(quiet.text.find("short of"), std::string::npos) << quiet.text;
}

TEST(AttributionTest, AFindingTheFullSwapDoesNotReproduceIsNeverAttributed) {
  const auto c = harness::Attribute(Two(), {}, {{1, Step(false, 1.0)}, {2, Step(false, 1.0)}, {3, Step(false, 1.01)}},
                                    std::nullopt, false);
  EXPECT_EQ(c.verdict, CauseVerdict::kNotReproduced);
  EXPECT_TRUE(c.components.empty());
  EXPECT_EQ(c.text.rfind("not reproduced", 0), 0u) << c.text;
  // The same two runs' configurations (nothing to swap): the A/A figure.
  const auto same = harness::Attribute({}, {}, {{1, Step(false, 1.03)}}, std::nullopt, false);
  EXPECT_EQ(same.verdict, CauseVerdict::kNotReproduced);
  EXPECT_NE(same.text.find("+3.0%"), std::string::npos) << same.text;
}

TEST(AttributionTest, WhatCannotBeSwappedIsNamedNotBlamedOrAcquitted) {
  // Not reproduced by the swappable part, with a compiler change beside it.
  auto c = harness::Attribute(Two(), {"compiler", "libtorch"},
                              {{1, Step(false, 1.0)}, {2, Step(false, 1.0)}, {3, Step(false, 1.0)}}, std::nullopt, false);
  EXPECT_EQ(c.verdict, CauseVerdict::kNotSeparable);
  EXPECT_EQ(c.text.rfind("appeared with compiler and libtorch (not separable here", 0), 0u) << c.text;
  // What was swapped and made no difference is said to be ruled out.
  EXPECT_NE(c.text.find("every swappable component ruled out: swapping them makes no difference here"),
            std::string::npos)
      << c.text;
  // The baseline's settings run here do not show it against the recorded
  // baseline either (deterministic finding): not reproduced.
  c = harness::Attribute(Two(), {"compiler"}, {{1, Step(false, 1.0)}, {2, Step(false, 1.0)}, {3, Step(false, 1.0)}},
                         false, false);
  EXPECT_EQ(c.verdict, CauseVerdict::kNotReproduced);
  // Reproduced by a swappable component: attributed, the rest mentioned.
  c = harness::Attribute(Two(), {"compiler"}, {{1, Step(true, 2.0)}, {2, Step(false, 1.0)}, {3, Step(true, 2.0)}},
                         std::nullopt, false);
  EXPECT_EQ(c.verdict, CauseVerdict::kCaused);
  EXPECT_NE(c.text.find("compiler also changed"), std::string::npos) << c.text;
}

TEST(AttributionTest, RoundsCutShortByTheBudgetLeaveTheFindingUndecided) {
  const auto c = harness::Attribute(Two(), {}, {{1, Step(false, 1.4)}, {2, Step(false, 1.0)}, {3, Step(false, 1.4)}},
                                    std::nullopt, true);
  EXPECT_EQ(c.verdict, CauseVerdict::kUndecided);
  EXPECT_NE(c.text.find("--budget"), std::string::npos);
}

TEST(AttributionTest, RecordedCausesAreAttachedToTheirFindingsNewestFirst) {
  harness::Comparison comp;
  comp.baseline_run.run_id = 1;
  comp.candidate_run.run_id = 2;
  harness::Finding f;
  f.suite = "smoke";
  f.case_id = "mm";
  f.kind = harness::FindingKind::kLatency;
  f.metric = "wall_us_median";
  comp.regressions = {f};
  harness::AttributionRow old_row, new_row, other;
  old_row.bisect_id = 3;
  old_row.run_id = 2;
  old_row.baseline_run_id = 1;
  old_row.suite = "smoke";
  old_row.case_name = "mm";
  old_row.kind = "latency";
  old_row.verdict = "undecided";
  old_row.text = "old";
  new_row = old_row;
  new_row.bisect_id = 5;
  new_row.verdict = "caused";
  new_row.text = "caused by blas";
  other = new_row;
  other.bisect_id = 9;
  other.baseline_run_id = 7;  // another comparison of the same run
  other.text = "elsewhere";
  harness::AttachAttributions({new_row, other, old_row}, &comp);
  EXPECT_EQ(comp.regressions[0].cause_verdict, "caused");
  EXPECT_EQ(comp.regressions[0].cause, "caused by blas");
  EXPECT_NE(harness::FindingSummary(comp.regressions[0]).find("bisect: caused by blas"), std::string::npos);
  EXPECT_NE(harness::FormatComparison(comp).find("bisect: 1 caused"), std::string::npos);
  EXPECT_EQ(harness::ToJson(comp)["regressions"][0]["cause"]["verdict"], "caused");
}

}  // namespace
