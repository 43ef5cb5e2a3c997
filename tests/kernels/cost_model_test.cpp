#include "spyre_emu/cost_model.h"

#include <cmath>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

namespace {

using spyre_emu::CostProfileFor;
using spyre_emu::KernelCost;
using spyre_emu::MatmulShape;
using spyre_emu::Profile;
using spyre_emu::VectorKind;
using spyre_emu::VectorShape;

VectorShape Softmax512x1024() {
  // [512,1024] fp16: 2 bytes in + 2 bytes out per element, 5 lowered steps.
  return VectorShape{VectorKind::kNormalization, 512, 1024, 2, 2 * 512 * 1024 * 2, 5};
}

// The calibration table: published figure, modeled figure, error. Fails past 5%.
TEST(CostCalibrationTest, SoftmaxMatchesThePublishedFiguresOnOneCore) {
  struct Row {
    const char* what;
    Profile profile;
    double published_us;
  };
  std::printf("%-34s %10s %10s %8s\n", "calibration point", "published", "modeled", "error");
  for (Row r : {Row{"softmax [512,1024] fp16, sendnn", Profile::kSendnn, 32.51},
                Row{"softmax [512,1024] fp16, inductor", Profile::kInductor, 23.67}}) {
    const KernelCost c = spyre_emu::ModelVector(Softmax512x1024(), CostProfileFor(r.profile), 1);
    const double modeled_us = c.total_ns / 1e3;
    const double error = std::fabs(modeled_us - r.published_us) / r.published_us;
    std::printf("%-34s %8.2f us %8.2f us %7.2f%%\n", r.what, r.published_us, modeled_us,
                100 * error);
    EXPECT_LT(error, 0.05) << r.what;
    EXPECT_EQ(c.split.cores(), 1);
  }
}

TEST(CostCalibrationTest, MatmulIs29To69PercentLowerOnInductorOverTheGraniteSet) {
  std::printf("%-14s %12s %12s %8s  %s\n", "matmul", "sendnn us", "inductor us", "lower",
              "published band 29-69%");
  for (const auto& mm : spyre_emu::GranitePrefillMatmuls()) {
    const KernelCost s = spyre_emu::ModelMatmul(mm.shape, CostProfileFor(Profile::kSendnn), 32);
    const KernelCost i = spyre_emu::ModelMatmul(mm.shape, CostProfileFor(Profile::kInductor), 32);
    const double lower = 1 - i.total_ns / s.total_ns;
    std::printf("%-14s %12.1f %12.1f %7.1f%%  sendnn %s, inductor %s\n", mm.name, s.total_ns / 1e3,
                i.total_ns / 1e3, 100 * lower, spyre_emu::SplitToString(s.split).c_str(),
                spyre_emu::SplitToString(i.split).c_str());
    EXPECT_GE(lower, 0.29) << mm.name;
    EXPECT_LE(lower, 0.69) << mm.name;
  }
}

TEST(CostModelTest, NeverBeatsTheRooflineAndKeepsToTheCores) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> dim(1, 3000);
  for (int trial = 0; trial < 200; ++trial) {
    const MatmulShape sh{1 + trial % 5, dim(rng), dim(rng), dim(rng), trial % 2 ? 2 : 4};
    const int cores = 1 + trial % 32;
    for (Profile p : {Profile::kInductor, Profile::kSendnn}) {
      const KernelCost c = spyre_emu::ModelMatmul(sh, CostProfileFor(p), cores);
      const double flops = 2.0 * sh.batch * sh.m * sh.n * sh.k;
      const double bytes =
          1.0 * sh.elem_bytes * sh.batch * (sh.m * sh.k + sh.k * sh.n + sh.m * sh.n);
      EXPECT_GE(c.total_ns, spyre_emu::RooflineNs(flops, bytes));
      EXPECT_GE(c.split.cores(), 1);
      EXPECT_LE(c.split.cores(), cores);
    }
    const VectorShape v{VectorKind::kElementwise, dim(rng), dim(rng), 2, 3 * dim(rng) * 128, 1};
    const KernelCost c = spyre_emu::ModelVector(v, CostProfileFor(Profile::kInductor), cores);
    EXPECT_GE(c.total_ns, spyre_emu::RooflineNs(0, static_cast<double>(v.io_bytes)));
    EXPECT_LE(c.split.cores(), cores);
  }
}

TEST(CostModelTest, MoreCoresNeverSlowTheCostDrivenSplit) {
  const MatmulShape sh{1, 1024, 4096, 4096, 2};
  double previous = 1e300;
  for (int cores : {1, 2, 4, 8, 16, 32}) {
    const KernelCost c = spyre_emu::ModelMatmul(sh, CostProfileFor(Profile::kInductor), cores);
    EXPECT_LE(c.total_ns, previous) << cores;
    previous = c.total_ns;
  }
  // And the split really uses them: 32 cores beat 1 core by far on this shape.
  const double one = spyre_emu::ModelMatmul(sh, CostProfileFor(Profile::kInductor), 1).total_ns;
  EXPECT_GT(one / previous, 8.0);
}

TEST(CostModelTest, KSplitPaysForItsPartialSums) {
  // Decode-like skinny matmul with a long K: a K split must add reduce time.
  const MatmulShape sh{1, 64, 64, 65536, 2};
  const KernelCost c = spyre_emu::ModelMatmul(sh, CostProfileFor(Profile::kInductor), 32);
  if (c.split.k > 1) {
    EXPECT_GT(c.reduce_ns, 0);
  } else {
    EXPECT_EQ(c.reduce_ns, 0);
  }
  const KernelCost legacy = spyre_emu::ModelMatmul(sh, CostProfileFor(Profile::kSendnn), 32);
  EXPECT_EQ(legacy.split.k, 1);  // sendnn never splits K
}

TEST(CostModelTest, EmptyMatmulCostsOnlyTheOverhead) {
  const KernelCost c =
      spyre_emu::ModelMatmul(MatmulShape{1, 0, 16, 16, 2}, CostProfileFor(Profile::kInductor), 4);
  EXPECT_DOUBLE_EQ(c.total_ns, CostProfileFor(Profile::kInductor).kernel_overhead_ns);
}

}  // namespace
