#include "spyre_emu/cost_model.h"

#include <cmath>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

namespace {

using spyre_emu::CostProfile;
using spyre_emu::CostProfileFor;
using spyre_emu::KernelCost;
using spyre_emu::MatmulShape;
using spyre_emu::Profile;
using spyre_emu::VectorKind;
using spyre_emu::VectorShape;

const CostProfile& Inductor() { return CostProfileFor(Profile::kInductor); }
const CostProfile& Sendnn() { return CostProfileFor(Profile::kSendnn); }

VectorShape Softmax512x1024() {
  // [512,1024] fp16: 2 bytes in + 2 bytes out per element, 5 lowered steps.
  return VectorShape{VectorKind::kNormalization, 512, 1024, 2, 2 * 512 * 1024 * 2, 5};
}

double MatmulFlops(const MatmulShape& s) { return 2.0 * s.batch * s.m * s.n * s.k; }
double MatmulBytes(const MatmulShape& s) {
  return 1.0 * s.elem_bytes * s.batch * (s.m * s.k + s.k * s.n + s.m * s.n);
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

// "29-69% lower" is the spread over a kernel set IBM does not list: every
// kernel of ours must fall inside it (cost_model.h says why not the ends).
TEST(CostCalibrationTest, MatmulIs29To69PercentLowerOnInductorOverTheGraniteSet) {
  std::printf("%-14s %12s %12s %8s  %s\n", "matmul", "sendnn us", "inductor us", "lower",
              "published band 29-69%");
  for (const auto& mm : spyre_emu::GranitePrefillMatmuls()) {
    const KernelCost s = spyre_emu::ModelMatmul(mm.shape, Sendnn(), 32);
    const KernelCost i = spyre_emu::ModelMatmul(mm.shape, Inductor(), 32);
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
    const VectorShape v{static_cast<VectorKind>(trial % 3),
                        dim(rng),
                        dim(rng),
                        2,
                        3 * dim(rng) * 128,
                        1.0 + trial % 8};
    for (const CostProfile* p : {&Inductor(), &Sendnn()}) {
      const KernelCost c = spyre_emu::ModelMatmul(sh, *p, cores);
      EXPECT_GE(c.total_ns, spyre_emu::RooflineNs(MatmulFlops(sh), MatmulBytes(sh)));
      EXPECT_GE(c.split.cores(), 1);
      EXPECT_LE(c.split.cores(), cores);
      const KernelCost vc = spyre_emu::ModelVector(v, *p, cores);
      EXPECT_GE(vc.total_ns, spyre_emu::RooflineNs(0, static_cast<double>(v.io_bytes)));
      EXPECT_LE(vc.split.cores(), cores);
    }
  }
}

// A bigger problem never models faster: on inductor in every dimension; on
// sendnn in batch, M and K (its legacy split follows N's stick count, so a
// wider N can land on a better split: that is the policy, not a model bug).
TEST(CostModelTest, MatmulTimeNeverFallsAsTheShapeGrows) {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int64_t> dim(1, 2000), grow(1, 600);
  for (int trial = 0; trial < 120; ++trial) {
    const MatmulShape sh{1 + trial % 4, dim(rng), dim(rng), dim(rng), 2};
    const int cores = 1 << (trial % 6);  // 1..32
    for (int d = 0; d < 4; ++d) {
      MatmulShape big = sh;
      int64_t* dims[] = {&big.batch, &big.m, &big.n, &big.k};
      *dims[d] += grow(rng);
      const double inductor = spyre_emu::ModelMatmul(sh, Inductor(), cores).total_ns;
      EXPECT_GE(spyre_emu::ModelMatmul(big, Inductor(), cores).total_ns, inductor) << d;
      if (d == 2) continue;
      const double sendnn = spyre_emu::ModelMatmul(sh, Sendnn(), cores).total_ns;
      EXPECT_GE(spyre_emu::ModelMatmul(big, Sendnn(), cores).total_ns, sendnn) << d;
    }
  }
}

TEST(CostModelTest, VectorTimeNeverFallsAsTheShapeGrows) {
  for (const CostProfile* p : {&Inductor(), &Sendnn()}) {
    for (VectorKind kind :
         {VectorKind::kElementwise, VectorKind::kReduction, VectorKind::kNormalization}) {
      double previous = 0;
      for (int64_t rows : {1, 7, 32, 100, 1024, 8192}) {
        const VectorShape v{kind, rows, 1024, 2, rows * 1024 * 2 * 2, 5};
        const double t = spyre_emu::ModelVector(v, *p, 32).total_ns;
        EXPECT_GE(t, previous) << p->name << " rows " << rows;
        previous = t;
      }
    }
  }
}

// Inductor's split search includes the legacy split and LX planning only
// removes traffic, so no kernel is slower on inductor; the launch cost is
// inductor's alone and lives outside the kernel's time.
TEST(CostModelTest, InductorKernelsAreNeverSlowerThanSendnn) {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int64_t> dim(1, 4096);
  for (int trial = 0; trial < 100; ++trial) {
    const MatmulShape sh{1 + trial % 3, dim(rng), dim(rng), dim(rng), 2};
    const int cores = 1 + trial % 32;
    EXPECT_LE(spyre_emu::ModelMatmul(sh, Inductor(), cores).total_ns,
              spyre_emu::ModelMatmul(sh, Sendnn(), cores).total_ns);
    const int64_t rows = dim(rng), cols = dim(rng);
    const VectorShape v{static_cast<VectorKind>(trial % 3), rows, cols, 2, rows * cols * 4, 5};
    const double inductor = spyre_emu::ModelVector(v, Inductor(), cores).total_ns;
    const double sendnn = spyre_emu::ModelVector(v, Sendnn(), cores).total_ns;
    EXPECT_LE(inductor, sendnn);
    if (v.kind != VectorKind::kNormalization) {
      EXPECT_EQ(inductor, sendnn);  // LX planning only changes multi-step kernels
    }
  }
  EXPECT_GT(Inductor().launch_ns, 0);
  EXPECT_EQ(Sendnn().launch_ns, 0);
}

// Only a matmul's broadcast operands contend past 8 sharers: a vector kernel
// on all 32 cores streams at the full DDR bandwidth on either profile.
TEST(CostModelTest, VectorKernelsPayNoCohortPenalty) {
  const VectorShape add{VectorKind::kElementwise, 32768, 4096, 2, 3LL * 32768 * 4096 * 2, 1};
  for (const CostProfile* p : {&Inductor(), &Sendnn()}) {
    const KernelCost c = spyre_emu::ModelVector(add, *p, 32);
    EXPECT_EQ(c.split.cores(), 32) << p->name;
    EXPECT_DOUBLE_EQ(c.memory_ns, add.io_bytes / spyre_emu::kDdrBytesPerSecond * 1e9) << p->name;
  }
  // The legacy matmul on 32 cores (n split 32) pays 32 / 8 = 4x on its bytes.
  const MatmulShape proj{1, 1, 4096, 4096, 2};
  const KernelCost legacy = spyre_emu::ModelMatmul(proj, Sendnn(), 32);
  EXPECT_EQ(legacy.split.n, 32);
  const double padded_bytes = 2.0 * (4096 + 4096.0 * 4096 + 4096);  // A (one row), B, out
  EXPECT_NEAR(legacy.memory_ns, 4 * padded_bytes / spyre_emu::kDdrBytesPerSecond * 1e9, 1.0);
}

// The matmul's terms add up (torch-spyre's fitted form), K split included.
TEST(CostModelTest, MatmulTermsAddUp) {
  for (const MatmulShape& sh :
       {MatmulShape{1, 1024, 4096, 4096, 2}, MatmulShape{1, 64, 64, 65536, 2},
        MatmulShape{8, 4, 1025, 128, 2}}) {
    for (const CostProfile* p : {&Inductor(), &Sendnn()}) {
      const KernelCost c = spyre_emu::ModelMatmul(sh, *p, 32);
      EXPECT_DOUBLE_EQ(c.total_ns, c.compute_ns + c.memory_ns + c.reduce_ns + c.overhead_ns);
      EXPECT_EQ(c.overhead_ns, p->kernel_overhead_ns);
    }
  }
}

TEST(CostModelTest, MoreCoresNeverSlowTheCostDrivenSplit) {
  const MatmulShape sh{1, 1024, 4096, 4096, 2};
  double previous = 1e300;
  for (int cores : {1, 2, 4, 8, 16, 32}) {
    const KernelCost c = spyre_emu::ModelMatmul(sh, Inductor(), cores);
    EXPECT_LE(c.total_ns, previous) << cores;
    previous = c.total_ns;
  }
  // And the split really uses them: 32 cores beat 1 core by far on this shape.
  const double one = spyre_emu::ModelMatmul(sh, Inductor(), 1).total_ns;
  EXPECT_GT(one / previous, 8.0);
}

TEST(CostModelTest, KSplitPaysForItsPartialSums) {
  // Decode-like skinny matmul with a long K: a K split must add reduce time.
  const MatmulShape sh{1, 64, 64, 65536, 2};
  const KernelCost c = spyre_emu::ModelMatmul(sh, Inductor(), 32);
  if (c.split.k > 1) {
    EXPECT_GT(c.reduce_ns, 0);
  } else {
    EXPECT_EQ(c.reduce_ns, 0);
  }
  const KernelCost legacy = spyre_emu::ModelMatmul(sh, Sendnn(), 32);
  EXPECT_EQ(legacy.split.k, 1);  // sendnn never splits K
}

TEST(CostModelTest, EmptyMatmulCostsOnlyTheOverhead) {
  const KernelCost c = spyre_emu::ModelMatmul(MatmulShape{1, 0, 16, 16, 2}, Inductor(), 4);
  EXPECT_DOUBLE_EQ(c.total_ns, Inductor().kernel_overhead_ns);
}

}  // namespace
