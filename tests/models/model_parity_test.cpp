// The models on the CPU (fp32) and on the emulated device (fp16) agree
// within the documented tolerances; the fused layers agree with the
// portable ones; the KV cache gives the same logits as a full recompute.
#include <gtest/gtest.h>

#include "suites/models/decoder.h"
#include "suites/device_under_test.h"
#include "suites/models/encoder.h"

namespace {

using suites::DecoderModel;
using suites::LayerImpl;

at::Tensor Prompt(int64_t b, int64_t s, int64_t vocab) {
  return at::arange(b * s, at::kLong).mul(37).remainder(vocab).view({b, s});
}

double Cosine(const at::Tensor& a, const at::Tensor& b) {
  const at::Tensor x = a.to(at::kDouble).flatten(), y = b.to(at::kDouble).flatten();
  return (x.dot(y) / (x.norm() * y.norm())).item<double>();
}

double RelL2(const at::Tensor& out, const at::Tensor& ref) {
  const at::Tensor x = out.to(at::kDouble), y = ref.to(at::kDouble);
  return ((x - y).norm() / y.norm()).item<double>();
}

class DecoderParity : public ::testing::TestWithParam<std::string> {};

TEST_P(DecoderParity, DeviceFp16MatchesCpuFp32Golden) {
  auto cfg = suites::BuiltinConfig(GetParam());
  ASSERT_TRUE(cfg.ok());
  const suites::Weights w = suites::SyntheticWeights(*cfg, 5);
  const at::Tensor prompt = Prompt(2, 12, cfg->vocab);
  DecoderModel cpu(*cfg, w, at::kCPU, at::kFloat, LayerImpl::kPortable, 16);
  const at::Tensor ref = cpu.Prefill(prompt);
  for (LayerImpl impl : {LayerImpl::kPortable, LayerImpl::kFused}) {
    DecoderModel dev(*cfg, w, suites::DeviceUnderTest(), at::kHalf, impl, 16);
    const at::Tensor out = dev.Prefill(prompt).cpu();
    ASSERT_EQ(out.sizes(), ref.sizes());
    // docs/models.md: logits cosine >= 0.9995 on the tiny configurations.
    EXPECT_GE(Cosine(out, ref), 0.9995) << suites::LayerImplName(impl);
    EXPECT_LT(RelL2(out, ref), 0.02) << suites::LayerImplName(impl);
    EXPECT_GT(RelL2(out, ref), 0.0) << "fp16 on the device cannot be bitwise fp32";
  }
}

TEST_P(DecoderParity, FusedLayersEqualPortableOnTheCpu) {
  auto cfg = suites::BuiltinConfig(GetParam());
  const suites::Weights w = suites::SyntheticWeights(*cfg, 5);
  const at::Tensor prompt = Prompt(1, 9, cfg->vocab);
  DecoderModel portable(*cfg, w, at::kCPU, at::kFloat, LayerImpl::kPortable, 16);
  DecoderModel fused(*cfg, w, at::kCPU, at::kFloat, LayerImpl::kFused, 16);
  EXPECT_TRUE(at::allclose(fused.Prefill(prompt), portable.Prefill(prompt), 1e-4, 1e-4));
}

TEST_P(DecoderParity, KvCacheStepsMatchAFullRecompute) {
  auto cfg = suites::BuiltinConfig(GetParam());
  const suites::Weights w = suites::SyntheticWeights(*cfg, 5);
  const at::Tensor prompt = Prompt(2, 10, cfg->vocab);
  DecoderModel full(*cfg, w, at::kCPU, at::kFloat, LayerImpl::kPortable, 16);
  const at::Tensor all = full.Prefill(prompt);
  DecoderModel inc(*cfg, w, at::kCPU, at::kFloat, LayerImpl::kPortable, 16);
  inc.Prefill(prompt.narrow(1, 0, 7));
  for (int64_t i = 7; i < 10; ++i) {
    const at::Tensor step = inc.Step(prompt.narrow(1, i, 1));
    EXPECT_TRUE(at::allclose(step, all.select(1, i), 1e-4, 1e-4)) << "position " << i;
  }
  EXPECT_EQ(inc.cached_length(), 10);
}

INSTANTIATE_TEST_SUITE_P(TinyDecoders, DecoderParity,
                         ::testing::Values("llama-tiny", "granite-tiny", "granite-tiny-tied"));

TEST(DecoderTest, GraniteMultipliersChangeTheLogits) {
  auto cfg = suites::BuiltinConfig("granite-tiny");
  const suites::Weights w = suites::SyntheticWeights(*cfg, 5);
  const at::Tensor prompt = Prompt(1, 6, cfg->vocab);
  DecoderModel granite(*cfg, w, at::kCPU, at::kFloat, LayerImpl::kPortable, 8);
  suites::ModelConfig plain = *cfg;
  plain.logits_scaling = 1.0;
  DecoderModel unscaled(plain, w, at::kCPU, at::kFloat, LayerImpl::kPortable, 8);
  EXPECT_TRUE(at::allclose(unscaled.Prefill(prompt),
                           granite.Prefill(prompt).mul(cfg->logits_scaling), 1e-4, 1e-4));
  plain.residual_multiplier = 1.0;
  DecoderModel residual(plain, w, at::kCPU, at::kFloat, LayerImpl::kPortable, 8);
  EXPECT_FALSE(at::allclose(residual.Prefill(prompt), unscaled.Prefill(prompt), 1e-3, 1e-3));
}

TEST(EncoderTest, DeviceEmbeddingsMatchCpuGolden) {
  for (const char* name : {"bert-tiny", "roberta-tiny"}) {
    auto cfg = suites::BuiltinConfig(name);
    ASSERT_TRUE(cfg.ok());
    const suites::Weights w = suites::SyntheticWeights(*cfg, 2);
    const at::Tensor prompt = Prompt(3, 20, cfg->vocab);
    const at::Tensor ref = suites::EncoderModel(*cfg, w, at::kCPU, at::kFloat).Embed(prompt);
    const at::Tensor out =
        suites::EncoderModel(*cfg, w, suites::DeviceUnderTest(), at::kHalf).Embed(prompt).cpu();
    ASSERT_EQ(out.sizes(), (std::vector<int64_t>{3, cfg->hidden}));
    for (int64_t i = 0; i < 3; ++i)
      EXPECT_GE(Cosine(out[i], ref[i]), 0.9995) << name << " row " << i;
  }
}

}  // namespace
