// Per-op tests of the device kernels against CPU libtorch in fp64, over
// random shapes including sizes that are not multiples of 64.
#include <ATen/ATen.h>

#include <functional>

#include <gtest/gtest.h>

#include "op_test_util.h"

namespace {

using kernels_test::MaxDl16UlpError;
using kernels_test::Random;
using kernels_test::ToDevice;
using kernels_test::Values;

const std::vector<std::vector<int64_t>> kShapes = {{129}, {3, 70}, {5, 100, 150}, {2, 3, 65}, {1}};

uint64_t DeviceCalls(const std::string& op) {
  const auto s = spyre_emu::stats();
  auto it = s.ops.find(op);
  return it == s.ops.end() ? 0 : it->second.device_kernel;
}
uint64_t FallbackCalls() { return spyre_emu::stats().fallback_calls(); }

struct Unary {
  const char* name;  // the ATen op name the kernel counts under
  std::function<at::Tensor(const at::Tensor&)> f;
  float lo, hi;
};

TEST(KernelOpsTest, UnaryOpsAreWithinOneDl16Ulp) {
  const Unary ops[] = {
      {"neg", [](const at::Tensor& x) { return at::neg(x); }, -3, 3},
      {"abs", [](const at::Tensor& x) { return at::abs(x); }, -3, 3},
      {"exp", [](const at::Tensor& x) { return at::exp(x); }, -8, 8},
      {"log", [](const at::Tensor& x) { return at::log(x); }, 0.01f, 50},
      {"sqrt", [](const at::Tensor& x) { return at::sqrt(x); }, 0, 50},
      {"rsqrt", [](const at::Tensor& x) { return at::rsqrt(x); }, 0.01f, 50},
      {"reciprocal", [](const at::Tensor& x) { return at::reciprocal(x); }, 0.1f, 9},
      {"tanh", [](const at::Tensor& x) { return at::tanh(x); }, -5, 5},
      {"sigmoid", [](const at::Tensor& x) { return at::sigmoid(x); }, -9, 9},
      {"relu", [](const at::Tensor& x) { return at::relu(x); }, -3, 3},
      {"gelu", [](const at::Tensor& x) { return at::gelu(x); }, -6, 6},
      {"gelu", [](const at::Tensor& x) { return at::gelu(x, "tanh"); }, -6, 6},
      {"silu", [](const at::Tensor& x) { return at::silu(x); }, -9, 9},
      {"erf", [](const at::Tensor& x) { return at::erf(x); }, -3, 3},
      {"sin", [](const at::Tensor& x) { return at::sin(x); }, -7, 7},
      {"cos", [](const at::Tensor& x) { return at::cos(x); }, -7, 7},
      {"pow", [](const at::Tensor& x) { return at::pow(x, 2); }, -3, 3},
      {"pow", [](const at::Tensor& x) { return at::pow(x, 3.5); }, 0, 3},
      {"clamp", [](const at::Tensor& x) { return at::clamp(x, -1, 0.5); }, -3, 3},
  };
  uint32_t seed = 1;
  for (const Unary& op : ops) {
    for (const auto& shape : kShapes) {
      for (at::ScalarType dtype : {at::kHalf, at::kBFloat16}) {
        const at::Tensor x = ToDevice(Random(shape, seed++, op.lo, op.hi), dtype);
        const uint64_t before = DeviceCalls(op.name), fb = FallbackCalls();
        const at::Tensor y = op.f(x);
        EXPECT_EQ(DeviceCalls(op.name), before + 1) << op.name;
        EXPECT_EQ(FallbackCalls(), fb) << op.name;
        EXPECT_EQ(y.scalar_type(), dtype);
        EXPECT_LE(MaxDl16UlpError(Values(y), op.f(Values(x).to(at::kDouble))), 1)
            << op.name << " " << at::IntArrayRef(shape);
      }
    }
  }
}

TEST(KernelOpsTest, Fp32TensorsStayFp32) {
  const at::Tensor x = Random({7, 33}, 5);
  const at::Tensor d = x.to(spyre_emu::device());
  EXPECT_TRUE(at::allclose(at::exp(d).cpu(), at::exp(x), 1e-6, 0));
  EXPECT_TRUE(at::equal((d * 3 + d).cpu(), x * 3 + x));  // no DL16 rounding of fp32
  EXPECT_TRUE(at::allclose(at::mm(d, d.t()).cpu(), at::mm(x, x.t()), 1e-5, 1e-5));
}

struct Binary {
  const char* name;
  std::function<at::Tensor(const at::Tensor&, const at::Tensor&)> f;
};

TEST(KernelOpsTest, BinaryOpsBroadcastAndAreWithinOneDl16Ulp) {
  const Binary ops[] = {
      {"add", [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b); }},
      {"add", [](const at::Tensor& a, const at::Tensor& b) { return at::add(a, b, 0.5); }},
      {"sub", [](const at::Tensor& a, const at::Tensor& b) { return at::sub(a, b); }},
      {"mul", [](const at::Tensor& a, const at::Tensor& b) { return at::mul(a, b); }},
      {"div", [](const at::Tensor& a, const at::Tensor& b) { return at::div(a, b); }},
      {"rsub", [](const at::Tensor& a, const at::Tensor& b) { return at::rsub(a, b); }},
      {"maximum", [](const at::Tensor& a, const at::Tensor& b) { return at::maximum(a, b); }},
      {"pow", [](const at::Tensor& a, const at::Tensor& b) { return at::pow(at::abs(a), b); }},
  };
  // (a shape, b shape): same, row broadcast, column broadcast, both ways.
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{3, 70}, {3, 70}}, {{5, 100, 150}, {150}}, {{4, 65, 1}, {4, 1, 3}}, {{2, 3, 65}, {3, 1}}};
  uint32_t seed = 100;
  for (const Binary& op : ops) {
    for (const auto& [sa, sb] : shapes) {
      const at::Tensor a = ToDevice(Random(sa, seed++)), b = ToDevice(Random(sb, seed++, 0.5, 2));
      const uint64_t before = DeviceCalls(op.name);
      const at::Tensor y = op.f(a, b);
      EXPECT_GE(DeviceCalls(op.name), before + 1) << op.name;
      EXPECT_LE(
          MaxDl16UlpError(Values(y), op.f(Values(a).to(at::kDouble), Values(b).to(at::kDouble))), 1)
          << op.name << " " << at::IntArrayRef(sa) << " . " << at::IntArrayRef(sb);
    }
  }
  // Scalars (wrapped numbers) stay fp32 constants.
  const at::Tensor a = ToDevice(Random({3, 70}, 9));
  const uint64_t fb = FallbackCalls();
  EXPECT_LE(MaxDl16UlpError(Values(a * 0.1), Values(a).to(at::kDouble) * 0.1f), 1);
  EXPECT_LE(MaxDl16UlpError(Values(a / 11.3137), Values(a).to(at::kDouble) / 11.3137f), 1);
  EXPECT_LE(MaxDl16UlpError(Values(a + 1), Values(a).to(at::kDouble) + 1), 1);
  EXPECT_LE(MaxDl16UlpError(Values(1 - a), 1 - Values(a).to(at::kDouble)), 1);
  EXPECT_EQ(FallbackCalls(), fb);
}

TEST(KernelOpsTest, WhereAndMaskedFill) {
  const at::Tensor x = ToDevice(Random({4, 65}, 11)), y = ToDevice(Random({65}, 12));
  const at::Tensor mask_cpu = Random({4, 65}, 13) > 0;
  const at::Tensor mask = mask_cpu.to(spyre_emu::device());
  const uint64_t fb = FallbackCalls();
  const at::Tensor w = at::where(mask, x, y);
  EXPECT_TRUE(at::equal(Values(w), at::where(mask_cpu, Values(x), Values(y))));
  at::Tensor z = x.clone();
  z.masked_fill_(mask, -1e4);
  EXPECT_EQ(MaxDl16UlpError(Values(z), at::where(mask_cpu, -1e4, Values(x)).to(at::kDouble)), 0);
  const at::Tensor causal = at::ones({6, 6}, at::kBool).triu(1);
  // DL16 has one NaN/Inf code, so masks use a large finite value.
  const at::Tensor s =
      ToDevice(Random({2, 6, 6}, 14)).masked_fill(causal.to(spyre_emu::device()), -1e9);
  EXPECT_TRUE(at::equal(
      Values(s),
      Values(ToDevice(Random({2, 6, 6}, 14)))
          .masked_fill(causal, spyre_emu::RoundToDl16(-1e9f, spyre_emu::Rounding::kNearestAway))));
  EXPECT_EQ(FallbackCalls(), fb);
}

// Matmul bound: |out - ref| <= 2^-9 |ref| (DL16 rounding) + K 2^-23 (|A||B|)
// (fp32 accumulation over K), ref exact from the DL16 operands.
void ExpectMatmulBound(const at::Tensor& got, const at::Tensor& ref, const at::Tensor& mag,
                       int64_t k) {
  const at::Tensor err = (Values(got).to(at::kDouble) - ref).abs();
  const at::Tensor bound = ref.abs() * std::ldexp(1.0, -9) + mag * (k * std::ldexp(1.0, -23));
  EXPECT_TRUE(at::all(err <= bound).item<bool>())
      << "max excess " << (err - bound).max().item<double>() << " k=" << k;
}

TEST(KernelOpsTest, MatmulFamilyMeetsTheBound) {
  uint32_t seed = 200;
  for (int64_t k : {1, 63, 300, 2049}) {
    const at::Tensor a = ToDevice(Random({37, k}, seed++)), b = ToDevice(Random({k, 101}, seed++));
    const at::Tensor a64 = Values(a).to(at::kDouble), b64 = Values(b).to(at::kDouble);
    const at::Tensor mag = at::mm(a64.abs(), b64.abs());
    ExpectMatmulBound(at::mm(a, b), at::mm(a64, b64), mag, k);
    // linear: weight [out, in] used transposed, plus bias (addmm).
    const at::Tensor w = ToDevice(Random({101, k}, seed++)), bias = ToDevice(Random({101}, seed++));
    const at::Tensor w64 = Values(w).to(at::kDouble), bias64 = Values(bias).to(at::kDouble);
    ExpectMatmulBound(at::linear(a, w, bias), at::linear(a64, w64, bias64),
                      at::mm(a64.abs(), w64.abs().t()) + bias64.abs(), k);
  }
  const at::Tensor q = ToDevice(Random({6, 33, 64}, 300)), kk = ToDevice(Random({6, 65, 64}, 301));
  const at::Tensor q64 = Values(q).to(at::kDouble), k64 = Values(kk).to(at::kDouble);
  const uint64_t fb = FallbackCalls();
  ExpectMatmulBound(at::matmul(q, kk.transpose(1, 2)), at::matmul(q64, k64.transpose(1, 2)),
                    at::matmul(q64.abs(), k64.abs().transpose(1, 2)), 64);
  const at::Tensor bias = ToDevice(Random({1, 33, 65}, 302));
  ExpectMatmulBound(at::baddbmm(bias, q, kk.transpose(1, 2), 0.5, 2.0),
                    at::baddbmm(Values(bias).to(at::kDouble), q64, k64.transpose(1, 2), 0.5, 2.0),
                    2.0 * at::matmul(q64.abs(), k64.abs().transpose(1, 2)) + 1, 64);
  // 4-d matmul (attention with heads) goes through bmm on views.
  const at::Tensor x4 = ToDevice(Random({2, 3, 17, 40}, 303)),
                   y4 = ToDevice(Random({2, 3, 40, 9}, 304));
  const at::Tensor x64 = Values(x4).to(at::kDouble), y64 = Values(y4).to(at::kDouble);
  ExpectMatmulBound(at::matmul(x4, y4), at::matmul(x64, y64), at::matmul(x64.abs(), y64.abs()), 40);
  // More output rows than one 4M-result block: several sgemm calls, and the
  // same bound; fp32 outputs are written in place.
  const at::Tensor tall = ToDevice(Random({3000, 64}, 305)),
                   wide = ToDevice(Random({64, 2048}, 306));
  const at::Tensor t64 = Values(tall).to(at::kDouble), w64b = Values(wide).to(at::kDouble);
  ExpectMatmulBound(at::mm(tall, wide), at::mm(t64, w64b), at::mm(t64.abs(), w64b.abs()), 64);
  const at::Tensor tall32 = Random({3000, 64}, 307), wide32 = Random({64, 2048}, 308);
  EXPECT_TRUE(
      at::allclose(at::mm(tall32.to(spyre_emu::device()), wide32.to(spyre_emu::device())).cpu(),
                   at::mm(tall32, wide32), 1e-5, 1e-4));
  EXPECT_EQ(FallbackCalls(), fb);
}

TEST(KernelOpsTest, SoftmaxAndLayerNormMeetTheirBounds) {
  uint32_t seed = 400;
  for (const auto& shape : kShapes) {
    const at::Tensor x = ToDevice(Random(shape, seed++, -6, 6));
    const at::Tensor x64 = Values(x).to(at::kDouble);
    // Softmax: sums of n terms in fp32 then one division: within 2 DL16 ULP
    // for these lengths (<= 150 + rounding of exp), documented in docs/device.md.
    EXPECT_LE(MaxDl16UlpError(Values(at::softmax(x, -1)), at::softmax(x64, -1)), 2);
    EXPECT_LE(MaxDl16UlpError(Values(at::softmax(x, 0)), at::softmax(x64, 0)), 2);
    // log_softmax: absolute error (values near 0 have tiny ULPs).
    EXPECT_LT((Values(at::log_softmax(x, -1)).to(at::kDouble) - at::log_softmax(x64, -1))
                  .abs()
                  .max()
                  .item<double>(),
              0.02);
    const int64_t n = shape.back();
    const at::Tensor w = ToDevice(Random({n}, seed++)), b = ToDevice(Random({n}, seed++));
    const at::Tensor ln = at::layer_norm(x, {n}, w, b, 1e-5);
    const at::Tensor ref =
        at::layer_norm(x64, {n}, Values(w).to(at::kDouble), Values(b).to(at::kDouble), 1e-5);
    // |err| <= 2 ULP of the output scale |w| * 6 + |b| (cancellation in x - mean).
    const double tol = 2 * std::ldexp(1.0, -9) * 12;
    EXPECT_LT((Values(ln).to(at::kDouble) - ref).abs().max().item<double>(), tol);
  }
}

TEST(KernelOpsTest, ReductionsMeetTheirBound) {
  uint32_t seed = 500;
  const at::Tensor x = ToDevice(Random({5, 100, 150}, seed++));
  const at::Tensor x64 = Values(x).to(at::kDouble);
  const uint64_t fb = FallbackCalls();
  // Sum bound: 2^-9 |ref| + len 2^-23 sum|x|.
  struct Case {
    std::vector<int64_t> dims;
    int64_t len;
  };
  for (const Case& c : {Case{{-1}, 150}, Case{{0}, 5}, Case{{0, 2}, 750}, Case{{1}, 100}}) {
    const at::Tensor s = at::sum(x, c.dims), ref = at::sum(x64, c.dims);
    const at::Tensor bound = ref.abs() * std::ldexp(1.0, -9) +
                             at::sum(x64.abs(), c.dims) * (c.len * std::ldexp(1.0, -23));
    EXPECT_TRUE(at::all((Values(s).to(at::kDouble) - ref).abs() <= bound).item<bool>());
    EXPECT_LE(MaxDl16UlpError(Values(at::amax(x, c.dims)), at::amax(x64, c.dims)), 0);
    const at::Tensor m = at::mean(x, c.dims, true), mref = at::mean(x64, c.dims, true);
    EXPECT_EQ(m.sizes(), mref.sizes());
    EXPECT_TRUE(at::allclose(Values(m).to(at::kDouble), mref, 4e-3, 1e-3));
    EXPECT_TRUE(
        at::allclose(Values(at::var(x, c.dims)).to(at::kDouble), at::var(x64, c.dims), 4e-3, 1e-3));
  }
  EXPECT_TRUE(at::allclose(Values(x.sum()).to(at::kDouble), x64.sum(), 4e-3, 1e-1));
  for (int64_t dim : {0, 1, -1}) {
    const auto [values, indices] = at::max(x, dim, true);
    const auto [ref_values, ref_indices] = at::max(Values(x), dim, true);
    EXPECT_TRUE(at::equal(Values(values), ref_values)) << dim;
    EXPECT_TRUE(at::equal(indices.cpu(), ref_indices)) << dim;
    EXPECT_TRUE(at::equal(at::argmax(x, dim, true).cpu(), at::argmax(Values(x), dim, true)));
    EXPECT_TRUE(at::equal(at::argmin(x, dim).cpu(), at::argmin(Values(x), dim)));
    const auto [min_values, min_indices] = at::min(x, dim);
    EXPECT_TRUE(at::equal(min_indices.cpu(), std::get<1>(at::min(Values(x), dim)))) << dim;
    EXPECT_TRUE(at::equal(Values(min_values), std::get<0>(at::min(Values(x), dim)))) << dim;
  }
  EXPECT_EQ(Values(x.max()).item<float>(), x64.max().item<double>());
  EXPECT_EQ(x.argmax().item<int64_t>(), Values(x).argmax().item<int64_t>());
  EXPECT_EQ(FallbackCalls(), fb);
}

TEST(KernelOpsTest, CatEmbeddingAndArange) {
  const at::Tensor a = ToDevice(Random({2, 3, 65}, 600)), b = ToDevice(Random({2, 5, 65}, 601));
  const uint64_t fb = FallbackCalls();
  EXPECT_TRUE(at::equal(Values(at::cat({a, b}, 1)), at::cat({Values(a), Values(b)}, 1)));
  EXPECT_TRUE(at::equal(Values(at::cat({a, a}, -1)), at::cat({Values(a), Values(a)}, -1)));
  const at::Tensor table = ToDevice(Random({100, 70}, 602));
  const at::Tensor ids_cpu = at::tensor({3, 99, 0, 3}, at::kLong).view({2, 2});
  const at::Tensor ids = ids_cpu.to(spyre_emu::device());
  EXPECT_TRUE(at::equal(Values(at::embedding(table, ids)), at::embedding(Values(table), ids_cpu)));
  const at::Tensor r =
      at::arange(0, 70, at::TensorOptions().dtype(at::kLong).device(spyre_emu::device()));
  EXPECT_TRUE(at::equal(r.cpu(), at::arange(0, 70, at::kLong)));
  const at::Tensor rf =
      at::arange(0, 5, 0.5, at::TensorOptions().dtype(at::kHalf).device(spyre_emu::device()));
  EXPECT_TRUE(at::equal(Values(rf), at::arange(0, 5, 0.5, at::kFloat)));
  EXPECT_EQ(FallbackCalls(), fb);
  EXPECT_THROW(at::embedding(table, at::tensor({100}, at::kLong).to(spyre_emu::device())),
               c10::Error);
}

}  // namespace

namespace {

TEST(KernelMaskOpsTest, ComparisonsAndTriangles) {
  const at::Tensor x = ToDevice(Random({4, 65}, 700)), y = ToDevice(Random({65}, 701));
  const at::Tensor xv = Values(x), yv = Values(y);
  const uint64_t fb = FallbackCalls();
  EXPECT_TRUE(at::equal((x > y).cpu(), xv > yv));
  EXPECT_TRUE(at::equal((x <= y).cpu(), xv <= yv));
  EXPECT_TRUE(at::equal(at::eq(x, x).cpu(), at::ones({4, 65}, at::kBool)));
  EXPECT_TRUE(at::equal(at::ne(x, y).cpu(), at::ne(xv, yv)));
  EXPECT_TRUE(at::equal((x < 0.5).cpu(), xv < 0.5));
  EXPECT_TRUE(at::equal((x >= -1).cpu(), xv >= -1));
  const at::Tensor ones =
      at::ones({3, 6, 6}, at::TensorOptions().dtype(at::kHalf).device(spyre_emu::device()));
  for (int64_t d : {-2, 0, 1, 9}) {
    EXPECT_TRUE(at::equal(Values(ones.triu(d)), at::ones({3, 6, 6}).triu(d))) << d;
    EXPECT_TRUE(at::equal(Values(ones.tril(d)), at::ones({3, 6, 6}).tril(d))) << d;
  }
  const at::Tensor causal =
      at::ones({5, 5}, at::TensorOptions().dtype(at::kBool).device(spyre_emu::device())).triu(1);
  EXPECT_TRUE(at::equal(causal.cpu(), at::ones({5, 5}, at::kBool).triu(1)));
  EXPECT_EQ(FallbackCalls(), fb);
  // Integer comparisons (token ids) take the counted fallback.
  const at::Tensor ids = at::tensor({1, 0, 3}, at::kLong).to(spyre_emu::device());
  EXPECT_TRUE(at::equal((ids == 0).cpu().to(at::kLong), at::tensor({0, 1, 0}, at::kLong)));
  EXPECT_EQ(FallbackCalls(), fb + 1);
}

}  // namespace
