// torch::nn modules moved to the device with .to(device) run there and agree
// with the CPU within DL16 tolerance. (The one device test needing torch.h.)
#include <torch/torch.h>

#include <gtest/gtest.h>

#include "spyre_emu/spyre_emu.h"

namespace spyre_emu {
namespace {

// DL16 keeps 9 fraction bits: 2^-9 relative per rounding; a few roundings
// (inputs, weights, output) and fp32 accumulation stay well inside 2^-6.
void ExpectClose(const at::Tensor& device_out, const at::Tensor& cpu_out) {
  ASSERT_EQ(device_out.device(), device());
  const at::Tensor got = device_out.cpu().to(at::kFloat);
  const at::Tensor err = (got - cpu_out).abs();
  const float scale = cpu_out.abs().max().item<float>();
  EXPECT_LE(err.max().item<float>(), scale * 0x1p-6f)
      << "max error " << err.max().item<float>() << " at scale " << scale;
}

TEST(NnTest, LinearRunsOnTheDevice) {
  torch::manual_seed(3);
  torch::nn::Linear cpu(32, 16);
  at::Tensor x = torch::randn({8, 32});
  const at::Tensor want = cpu->forward(x).detach();
  for (at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16}) {
    auto dev = std::dynamic_pointer_cast<torch::nn::LinearImpl>(cpu->clone());
    dev->to(device(), dtype);
    EXPECT_EQ(dev->weight.device(), device());
    torch::NoGradGuard no_grad;
    ExpectClose(dev->forward(x.to(device(), dtype)), want);
  }
}

TEST(NnTest, SequentialRunsOnTheDevice) {
  torch::manual_seed(4);
  torch::nn::Sequential cpu(torch::nn::Linear(24, 48), torch::nn::GELU(),
                            torch::nn::LayerNorm(torch::nn::LayerNormOptions({48})),
                            torch::nn::Linear(48, 10), torch::nn::Softmax(1));
  at::Tensor x = torch::randn({5, 24});
  const at::Tensor want = cpu->forward(x).detach();
  auto dev = std::dynamic_pointer_cast<torch::nn::SequentialImpl>(cpu->clone());
  dev->to(device(), at::kHalf);
  torch::NoGradGuard no_grad;
  ExpectClose(dev->forward(x.to(device(), at::kHalf)), want);
}

}  // namespace
}  // namespace spyre_emu
