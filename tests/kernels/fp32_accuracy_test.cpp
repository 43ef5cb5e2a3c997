// fp32 tensors stay fp32 through every device kernel, so their results must
// be as accurate as the CPU's fp32: the error of each fp32 kernel against an
// fp64 reference, in fp32 ULPs of the reference (or of the output's rms
// where the reference is smaller), is at most 4 ULPs or twice the CPU's own
// fp32 error, whichever is larger. The inputs are the ones
// that expose cancellation: rows far from zero (1e4 +- a few), long rows
// (large sums), and a row whose log_softmax subtracts a small log-sum from a
// large shift.
#include <ATen/ATen.h>

#include <cmath>
#include <cstdio>
#include <functional>

#include <gtest/gtest.h>

#include "op_test_util.h"

namespace {

using kernels_test::Random;
using kernels_test::ToDevice;
using kernels_test::Values;

// Largest |got - ref| in fp32 ULPs at the reference (ref fp64), or at the
// output's rms where the reference is smaller: a layer_norm output near zero
// or a softmax probability of 1e-40 is judged at the scale of the output.
double MaxFp32Ulps(const at::Tensor& got, const at::Tensor& ref) {
  const at::Tensor g = got.to(at::kDouble).contiguous().reshape({-1});
  const at::Tensor r = ref.contiguous().reshape({-1});
  const double rms = std::sqrt(r.pow(2).mean().item<double>());
  const double* pg = g.data_ptr<double>();
  const double* pr = r.data_ptr<double>();
  double worst = 0;
  for (int64_t i = 0; i < g.numel(); ++i) {
    int e = 0;
    std::frexp(std::max(std::fabs(pr[i]), rms), &e);
    const double ulp = std::ldexp(1.0, std::max(e, -125) - 24);
    worst = std::max(worst, std::fabs(pg[i] - pr[i]) / ulp);
  }
  return worst;
}

TEST(Fp32AccuracyTest, LogSoftmaxOfALargeRowIsWithinFourUlps) {
  const at::Tensor x = at::tensor({10000.0f, 10001.0f, 10002.0f, 10003.0f});
  const at::Tensor ref = at::log_softmax(x.to(at::kDouble), -1);
  const at::Tensor got = at::log_softmax(ToDevice(x, at::kFloat), -1).cpu();
  const double ulps = MaxFp32Ulps(got, ref);
  std::printf("log_softmax([10000..10003]) fp32: %.2f ULPs (last element %.9g, reference %.9g)\n",
              ulps, got[3].item<float>(), ref[3].item<double>());
  EXPECT_LE(ulps, 4);
  EXPECT_NEAR(got[0].item<float>(), -3.4401897, 2e-6);
}

struct Op {
  const char* name;
  std::function<at::Tensor(const at::Tensor&)> f;
};

TEST(Fp32AccuracyTest, EveryNormalisationAndReductionIsAsAccurateAsTheCpu) {
  const std::vector<Op> ops = {
      {"softmax", [](const at::Tensor& x) { return at::softmax(x, -1); }},
      {"log_softmax", [](const at::Tensor& x) { return at::log_softmax(x, -1); }},
      {"layer_norm", [](const at::Tensor& x) { return at::layer_norm(x, {x.size(-1)}); }},
      {"var", [](const at::Tensor& x) { return at::var(x, {-1}); }},
      {"mean", [](const at::Tensor& x) { return at::mean(x, {-1}); }},
      {"sum", [](const at::Tensor& x) { return at::sum(x, {-1}); }},
  };
  struct Input {
    const char* what;
    at::Tensor x;
  };
  const std::vector<Input> inputs = {
      {"1e4 + U(-3, 3), rows of 1000", Random({8, 1000}, 901) + 1e4f},
      {"1e4 + U(-3, 3), rows of 8193", Random({3, 8193}, 902) + 1e4f},
      {"U(-3, 3), rows of 20000", Random({2, 20000}, 903)},
      {"U(0, 1) * 100, rows of 4097", (Random({4, 4097}, 904, 0, 1) * 100.0f)},
  };
  for (const Input& in : inputs) {
    const at::Tensor x64 = in.x.to(at::kDouble);
    const at::Tensor dev = ToDevice(in.x, at::kFloat);
    for (const Op& op : ops) {
      const at::Tensor ref = op.f(x64);
      const double device = MaxFp32Ulps(op.f(dev).cpu(), ref);
      const double cpu = MaxFp32Ulps(op.f(in.x), ref);
      std::printf("%-12s %-32s device %8.2f ULPs, CPU fp32 %8.2f ULPs\n", op.name, in.what, device,
                  cpu);
      EXPECT_LE(device, std::max(4.0, 2 * cpu)) << op.name << " on " << in.what;
    }
  }
}

}  // namespace
