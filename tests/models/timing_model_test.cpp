// Timing-only execution: full-size decoders modeled without tensors, never
// faster than the roofline, each profile's ordering, and the calibration
// suite's published figures.
#include <algorithm>
#include <cstdio>

#include <gtest/gtest.h>

#include "harness/case_kinds/case_kinds.h"
#include "suites/models/timing_model.h"

namespace {

using spyre_emu::CostProfile;
using suites::Phase;

const CostProfile& Inductor() { return spyre_emu::CostProfileFor(spyre_emu::Profile::kInductor); }
const CostProfile& Sendnn() { return spyre_emu::CostProfileFor(spyre_emu::Profile::kSendnn); }

suites::ModelConfig Config(const char* name) {
  auto cfg = suites::BuiltinConfig(name);
  EXPECT_TRUE(cfg.ok()) << name;
  return cfg.ok() ? *cfg : suites::ModelConfig();
}

TEST(TimingModelTest, Granite8bDecodeKernelsAreBoundByTheirWeights) {
  const auto t =
      suites::ModelDecoderTime(Config("granite-3.3-8b"), {1, 1024, Phase::kDecode}, Inductor(), 32);
  const double weights_us = t.weight_bytes / 204.8e9 * 1e6;
  EXPECT_NEAR(t.weight_bytes, 2.0 * 8.17e9, 0.2e9);  // about 8.2B parameters in DL16
  EXPECT_GE(t.roofline_us, weights_us);
  EXPECT_GE(t.kernel_us(), t.roofline_us);
  // The kernels stay memory bound; the launches come on top of them.
  EXPECT_LT(t.kernel_us(), 1.5 * weights_us);
  EXPECT_DOUBLE_EQ(t.launch_us, t.launches * Inductor().launch_ns / 1000.0);
}

TEST(TimingModelTest, EveryPassIsAtLeastItsRooflineOnBothProfiles) {
  for (const char* name : {"granite-3.3-8b", "llama-3.1-8b"}) {
    for (const CostProfile* p : {&Inductor(), &Sendnn()}) {
      for (suites::TimingShape shape : {suites::TimingShape{1, 1024, Phase::kPrefill},
                                        suites::TimingShape{4, 128, Phase::kPrefill},
                                        suites::TimingShape{1, 1024, Phase::kDecode},
                                        suites::TimingShape{8, 4096, Phase::kDecode}}) {
        const auto t = suites::ModelDecoderTime(Config(name), shape, *p, 32);
        EXPECT_GE(t.kernel_us(), t.roofline_us) << name << " " << p->name;
        double sum = 0;
        for (const auto& k : t.kernels) sum += k.us;
        EXPECT_NEAR(sum, t.total_us, 1e-6 * t.total_us);
      }
    }
  }
}

TEST(TimingModelTest, PassesGrowWithTheSequenceAndBatchOnBothProfiles) {
  const suites::ModelConfig cfg = Config("llama-3.1-8b");
  for (const CostProfile* p : {&Inductor(), &Sendnn()}) {
    for (Phase phase : {Phase::kPrefill, Phase::kDecode}) {
      const auto a = suites::ModelDecoderTime(cfg, {1, 256, phase}, *p, 32);
      const auto b = suites::ModelDecoderTime(cfg, {1, 1024, phase}, *p, 32);
      const auto c = suites::ModelDecoderTime(cfg, {2, 1024, phase}, *p, 32);
      EXPECT_GT(b.total_us, a.total_us) << p->name;
      EXPECT_GT(c.total_us, b.total_us) << p->name;
      EXPECT_EQ(a.launches, c.launches);  // the same kernels, bigger
    }
  }
}

// Inductor is faster end to end on the 8B models, kernel by kernel, and only
// inductor pays launches (program correction).
TEST(TimingModelTest, InductorBeatsSendnnOnFullSizeModels) {
  for (const char* name : {"granite-3.3-8b", "llama-3.1-8b"}) {
    for (Phase phase : {Phase::kPrefill, Phase::kDecode}) {
      const auto i = suites::ModelDecoderTime(Config(name), {1, 1024, phase}, Inductor(), 32);
      const auto s = suites::ModelDecoderTime(Config(name), {1, 1024, phase}, Sendnn(), 32);
      EXPECT_LT(i.total_us, s.total_us) << name;
      EXPECT_GT(i.launch_us, 0);
      EXPECT_EQ(s.launch_us, 0);
      ASSERT_EQ(i.kernels.size(), s.kernels.size());
      for (size_t k = 0; k < i.kernels.size(); ++k) {
        EXPECT_LE(i.kernels[k].us - i.kernels[k].launch_us, s.kernels[k].us * (1 + 1e-12))
            << name << " " << i.kernels[k].name;
      }
    }
  }
}

// Every calibration case passes: the published speedups (decode is the
// launch cost's calibration point, prefill a prediction), the kernel figures,
// the roofline. Prints the table docs/device.md quotes ("Calibration").
TEST(TimingModelTest, CalibrationSuitePasses) {
  auto suite = harness::LoadSuite(SPYRE_SOURCE_DIR "/suites", "calibration");
  ASSERT_TRUE(suite.ok()) << suite.status().message();
  std::printf("%-28s %12s %10s %8s\n", "case", "modeled", "published", "error");
  for (const auto& c : suite->cases) {
    const harness::CaseResult r = harness::ExecuteCase(*suite, c, harness::ExecOptions());
    EXPECT_EQ(r.status, harness::CaseStatus::kPassed) << c.id << ": " << r.message;
    const double value = r.extra["value"].get<double>();
    if (r.extra.contains("expected")) {
      std::printf("%-28s %12.4g %10.4g %+7.2f%%\n", c.id.c_str(), value,
                  r.extra["expected"].get<double>(), 100 * r.extra["relative_error"].get<double>());
    } else if (r.extra.value("unit", "") == "x") {  // a speedup without a published figure
      std::printf("%-28s %11.3fx  sendnn / inductor\n", c.id.c_str(), value);
    } else if (r.extra.contains("roofline_us")) {
      std::printf("%-28s %10.1f ms  roofline %.1f ms, launches %.1f ms\n", c.id.c_str(),
                  value / 1e3, r.extra["roofline_us"].get<double>() / 1e3,
                  r.extra["launch_us"].get<double>() / 1e3);
    } else if (r.extra.contains("reductions")) {
      double high = 0;
      for (const auto& [name, red] : r.extra["reductions"].items())
        high = std::max(high, red.get<double>());
      std::printf("%-28s %5.1f-%4.1f%% %10s\n", c.id.c_str(), 100 * value, 100 * high, "29-69%");
    }
  }
}

}  // namespace
