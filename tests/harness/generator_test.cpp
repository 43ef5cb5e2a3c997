// The deterministic input generator: pinned digests (inputs must never move),
// independence of streams, distribution shapes and edge-mix contents.
#include <cmath>
#include <set>

#include <gtest/gtest.h>

#include "harness/inputs/generator.h"

namespace {

using harness::Distribution;
using harness::GenerateInput;
using harness::InputSpec;
using harness::TensorDigest;

InputSpec Spec(std::vector<int64_t> shape, at::ScalarType dtype, Distribution dist) {
  InputSpec s;
  s.shape = std::move(shape);
  s.dtype = dtype;
  s.dist = dist;
  return s;
}

// These digests pin the generator's output bit for bit. If one changes, every
// golden file's input digests no longer match: that is a breaking change.
TEST(GeneratorTest, DigestsArePinned) {
  EXPECT_EQ(TensorDigest(GenerateInput(Spec({33, 65}, at::kHalf, Distribution::kNormal), 1, 0)),
            "bd8edc13db48da61572b464b3e3e32d38e512fac3a3357f20f9b77f45d01ae06");
  EXPECT_EQ(TensorDigest(GenerateInput(Spec({7, 129}, at::kFloat, Distribution::kEdge), 42, 1)),
            "26badaa7547558c193e39d0a41028806b005a379615d6e0747a1e08976a8d35a");
  InputSpec u = Spec({100}, at::kBFloat16, Distribution::kUniform);
  u.low = -2;
  u.high = 3;
  EXPECT_EQ(TensorDigest(GenerateInput(u, 7, 2)), "d8b0fe2d1a0dbe99614f49eb3f0ad21fab606d3188f773d40d0946a533b909ed");
  InputSpec i = Spec({4, 9}, at::kLong, Distribution::kInt);
  i.low = 0;
  i.high = 999;
  EXPECT_EQ(TensorDigest(GenerateInput(i, 1, 1)), "9193ed7590abc08a22c96123d43393e47f5f734da607c5de50f9ba3b06c26ea6");
}

TEST(GeneratorTest, FirstValuesArePinned) {
  const at::Tensor x = GenerateInput(Spec({4}, at::kDouble, Distribution::kNormal), 1, 0);
  const double* p = x.data_ptr<double>();
  EXPECT_EQ(p[0], 0x1.6d571e64p-1);
  EXPECT_EQ(p[1], -0x1.041473b5p+0);
}

TEST(GeneratorTest, SameSeedSameBitsOtherSeedOtherBits) {
  const InputSpec s = Spec({64, 64}, at::kFloat, Distribution::kNormal);
  EXPECT_TRUE(at::equal(GenerateInput(s, 3, 0), GenerateInput(s, 3, 0)));
  EXPECT_FALSE(at::equal(GenerateInput(s, 3, 0), GenerateInput(s, 4, 0)));
  EXPECT_FALSE(at::equal(GenerateInput(s, 3, 0), GenerateInput(s, 3, 1)));
}

TEST(GeneratorTest, ElementIDependsOnlyOnItsCounter) {
  // A longer tensor starts with the shorter one's values: shapes can grow
  // without moving the existing elements.
  const at::Tensor a = GenerateInput(Spec({10}, at::kFloat, Distribution::kNormal), 9, 0);
  const at::Tensor b = GenerateInput(Spec({30}, at::kFloat, Distribution::kNormal), 9, 0);
  EXPECT_TRUE(at::equal(a, b.slice(0, 0, 10)));
}

TEST(GeneratorTest, NormalHasMeanZeroVarianceOneAndBoundedTails) {
  const at::Tensor x = GenerateInput(Spec({100000}, at::kDouble, Distribution::kNormal), 5, 0);
  EXPECT_NEAR(x.mean().item<double>(), 0.0, 0.02);
  EXPECT_NEAR(x.var().item<double>(), 1.0, 0.02);
  EXPECT_LE(x.abs().max().item<double>(), 6.0);
}

TEST(GeneratorTest, UniformAndIntStayInRange) {
  InputSpec u = Spec({10000}, at::kFloat, Distribution::kUniform);
  u.low = -3;
  u.high = 5;
  const at::Tensor x = GenerateInput(u, 1, 0);
  EXPECT_GE(x.min().item<float>(), -3.0f);
  EXPECT_LT(x.max().item<float>(), 5.0f);
  EXPECT_NEAR(x.mean().item<float>(), 1.0f, 0.1f);
  InputSpec i = Spec({10000}, at::kLong, Distribution::kInt);
  i.low = -2;
  i.high = 2;
  const at::Tensor k = GenerateInput(i, 1, 0);
  EXPECT_EQ(k.min().item<int64_t>(), -2);
  EXPECT_EQ(k.max().item<int64_t>(), 2);
}

TEST(GeneratorTest, EdgeMixHoldsZerosTiesLargeTinyAndNonFiniteOnlyWhenAllowed) {
  InputSpec s = Spec({4096}, at::kHalf, Distribution::kEdge);
  at::Tensor x = GenerateInput(s, 11, 0).to(at::kFloat);
  EXPECT_EQ(at::isfinite(x).all().item<bool>(), true);
  const float* p = x.data_ptr<float>();
  int pos_zero = 0, neg_zero = 0, ties = 0, large = 0, tiny = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    if (p[i] == 0) (std::signbit(p[i]) ? neg_zero : pos_zero)++;
    int e = 0;
    const double m = std::frexp(std::fabs(p[i]), &e);  // |x| = m 2^e, m in [0.5, 1)
    // A DL16 tie: exactly the 10th fraction bit set below the 9 DL16 keeps.
    const double scaled = m * 2048;
    if (p[i] != 0 && scaled == std::floor(scaled) && (static_cast<int>(scaled) & 1)) ++ties;
    if (std::fabs(p[i]) >= 256) ++large;
    if (p[i] != 0 && std::fabs(p[i]) < 1.0 / 4096) ++tiny;
  }
  EXPECT_GT(pos_zero, 100);
  EXPECT_GT(neg_zero, 100);
  EXPECT_GT(ties, 100);
  EXPECT_GT(large, 100);
  EXPECT_GT(tiny, 100);
  EXPECT_LE(x.abs().max().item<float>(), 65504.0f);  // finite in fp16
  s.nonfinite = true;
  x = GenerateInput(s, 11, 0).to(at::kFloat);
  EXPECT_GT(at::isnan(x).sum().item<int64_t>(), 100);
  EXPECT_GT(at::isinf(x).sum().item<int64_t>(), 100);
}

TEST(GeneratorTest, PermutedInputIsAStridedViewWithTheLogicalShape) {
  InputSpec s = Spec({3, 5}, at::kFloat, Distribution::kNormal);
  s.permute = {1, 0};
  const at::Tensor x = GenerateInput(s, 1, 0);
  EXPECT_EQ(x.sizes(), (at::IntArrayRef{3, 5}));
  EXPECT_FALSE(x.is_contiguous());
  const at::Tensor storage = GenerateInput(Spec({5, 3}, at::kFloat, Distribution::kNormal), 1, 0);
  EXPECT_TRUE(at::equal(x, storage.t()));
}

TEST(GeneratorTest, ParseInputSpecNamesTheBadMember) {
  auto bad = harness::ParseInputSpec({{"shape", {2, "x"}}, {"dtype", "float16"}}, "/cases/0/inputs/1");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "/cases/0/inputs/1/shape/1: expected a non-negative integer");
  bad = harness::ParseInputSpec({{"shape", {2}}, {"dtype", "float8"}}, "/p");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/p/dtype: unknown dtype 'float8'"), std::string::npos);
  bad = harness::ParseInputSpec({{"shape", {2, 3}}, {"dtype", "float16"}, {"permute", {0, 0}}}, "/p");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("/p/permute"), std::string::npos);
}

}  // namespace
