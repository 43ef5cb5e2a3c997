// The PrivateUse1 glue: copies, storage semantics, views, memory accounting,
// fallback accounting, strict mode, trace and the fence, on device tensors.
#include <ATen/ATen.h>

#include <cmath>
#include <csignal>
#include <future>
#include <limits>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "spyre_regress/torch_compat.h"

#include "spyre_emu/spyre_emu.h"

namespace spyre_emu {
namespace {

class GlueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = CurrentConfig();
    reset_stats();
  }
  void TearDown() override { SetConfig(saved_); }
  void SetStrict(bool on) {
    Config c = CurrentConfig();
    c.strict = on;
    SetConfig(c);
  }
  Config saved_;
};

// What an fp16 host value becomes after a round trip through the device.
float Fp16ThroughDevice(float v) {
  const uint16_t h = FloatToFp16(v);
  uint16_t d = 0;
  Dl16FromFp16(&h, &d, 1, kFp16InputRounding);
  return Fp16ToFloat(FloatToFp16(Dl16Decode(d)));
}

TEST_F(GlueTest, DeviceIsPrivateUse1NamedSpyreWhereLibtorchNamesBackends) {
  EXPECT_EQ(device().type(), c10::DeviceType::PrivateUse1);
  EXPECT_EQ(device().str(), spyre_compat::kNamesBackends ? "spyre:0" : "privateuseone:0");
  at::Tensor x = at::ones({2, 3}).to(device());
  EXPECT_EQ(x.device(), device());
}

TEST_F(GlueTest, Fp32AndInt64RoundTripExactly) {
  at::Tensor f = at::randn({7, 33});
  EXPECT_TRUE(at::equal(f.to(device()).cpu(), f));
  at::Tensor i = at::randint(-1000000000000LL, 1000000000000LL, {5, 9}, at::kLong);
  EXPECT_TRUE(at::equal(i.to(device()).cpu(), i));
  at::Tensor b = at::rand({4, 4}) > 0.5;
  EXPECT_TRUE(at::equal(b.to(device()).cpu(), b));
}

TEST_F(GlueTest, Fp16LosesItsTenthFractionBit) {
  at::Tensor x = at::full({1}, -2.002, at::kHalf);
  EXPECT_EQ(x.to(device()).cpu().item<float>(), -2.0f);
  at::Tensor r = at::randn({64, 65}).to(at::kHalf);
  at::Tensor back = r.to(device()).cpu();
  ASSERT_EQ(back.scalar_type(), at::kHalf);
  const at::Tensor rf = r.to(at::kFloat).contiguous();
  const at::Tensor bf = back.to(at::kFloat).contiguous();
  for (int64_t k = 0; k < rf.numel(); ++k) {
    ASSERT_EQ(bf.data_ptr<float>()[k], Fp16ThroughDevice(rf.data_ptr<float>()[k])) << k;
  }
}

// docs/device.md: what fp16 cannot hold on the way back.
TEST_F(GlueTest, ValuesOutsideTheFormatsComeBackAsDocumented) {
  const float inf = std::numeric_limits<float>::infinity();
  at::Tensor x = at::tensor({inf, -1e10f, 1e-12f, 65520.0f, 65472.0f, 1e-6f});
  at::Tensor back = x.to(device(), at::kHalf).cpu().to(at::kFloat);
  EXPECT_TRUE(std::isnan(back[0].item<float>())) << "DL16 has one NaN/Inf code";
  EXPECT_TRUE(std::isnan(back[1].item<float>())) << "beyond 2^32 * (1 + 510/512)";
  EXPECT_EQ(back[2].item<float>(), 0.0f) << "below DL16's smallest value";
  EXPECT_EQ(back[3].item<float>(), inf) << "rounds to 65536 in DL16, past fp16's range";
  EXPECT_EQ(back[4].item<float>(), 65472.0f);
  EXPECT_EQ(back[5].item<float>(), at::tensor({1e-6f}).to(at::kHalf).item<float>())
      << "fp16 subnormal";
  at::Tensor big = at::tensor({1e10f, 1e-12f}).to(at::kBFloat16);
  at::Tensor bback = big.to(device()).cpu().to(at::kFloat);
  EXPECT_TRUE(std::isnan(bback[0].item<float>()));
  EXPECT_EQ(bback[1].item<float>(), 0.0f);
}

TEST_F(GlueTest, ScalarCodecFollowsTheRoundingSetting) {
  const float tie = 1.0f + 1.0f / 1024;
  Config c = CurrentConfig();
  c.rounding = Rounding::kNearestAway;
  SetConfig(c);
  EXPECT_EQ(dl16_from_float(tie), (31 << 9) | 1);
  EXPECT_EQ(at::tensor({tie}).to(device(), at::kHalf).cpu().item<float>(), 1.0f + 1.0f / 512);
  c.rounding = Rounding::kNearestEven;
  SetConfig(c);
  EXPECT_EQ(dl16_from_float(tie), 31 << 9);
  EXPECT_EQ(at::tensor({tie}).to(device(), at::kHalf).cpu().item<float>(), 1.0f);
  EXPECT_EQ(dl16_to_float(31 << 9), 1.0f);
}

TEST_F(GlueTest, Bf16RoundTripsExactly) {
  at::Tensor x = at::randn({40, 70}).to(at::kBFloat16);
  EXPECT_TRUE(at::equal(x.to(device()).cpu(), x));
}

TEST_F(GlueTest, StridedRoundTrips) {
  for (at::ScalarType dtype : {at::kFloat, at::kHalf, at::kBFloat16, at::kLong}) {
    at::Tensor x = (at::randn({6, 10}) * 8).to(dtype);
    at::Tensor want = x.to(device()).cpu();  // the device's own rounding of x
    // A strided host source, a strided device view, and a strided host target.
    at::Tensor dt = x.t().to(device());
    EXPECT_TRUE(at::equal(dt.cpu(), want.t())) << dtype;
    at::Tensor d = x.to(device());
    EXPECT_TRUE(at::equal(d.t().cpu(), want.t())) << dtype;
    EXPECT_TRUE(at::equal(d.slice(1, 1, 9, 3).cpu(), want.slice(1, 1, 9, 3))) << dtype;
    at::Tensor host = at::zeros({10, 6}, dtype).t();
    host.copy_(d);
    EXPECT_TRUE(at::equal(host, want)) << dtype;
    at::Tensor dst = at::zeros({10, 6}, at::TensorOptions().dtype(dtype).device(device())).t();
    dst.copy_(x);  // host -> strided device view
    EXPECT_TRUE(at::equal(dst.cpu(), want)) << dtype;
  }
}

TEST_F(GlueTest, Fp64IsAClearError) {
  try {
    at::ones({2}, at::kDouble).to(device());
    FAIL() << "fp64 reached the device";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("float64"), std::string::npos) << e.what();
  }
}

TEST_F(GlueTest, ViewsShareStorageAndNeverFallBack) {
  at::Tensor x = at::arange(120, at::kFloat).reshape({2, 3, 4, 5}).to(device());
  at::Tensor h = x.to(at::kHalf);
  SetStrict(true);  // a fallback would now throw, naming the op
  const void* base = x.storage().data();
  std::vector<at::Tensor> views = {x.view({6, 20}),
                                   x.reshape({24, 5}),
                                   x.unsqueeze(1),
                                   x.unsqueeze(0).squeeze(0),
                                   x.unsqueeze(2).squeeze(2),
                                   x.transpose(1, 3),
                                   x.permute({3, 2, 1, 0}),
                                   x.select(1, 2),
                                   x.slice(3, 1, 4, 2),
                                   x[0][1].t(),
                                   x.narrow(2, 1, 2),
                                   x.as_strided({3, 3}, {5, 1}, 7),
                                   x.unfold(3, 2, 1),
                                   x.diagonal(0, 2, 3),
                                   x.alias(),
                                   x.detach(),
                                   x.flatten(),
                                   x.expand({3, 2, 3, 4, 5}),
                                   x.chunk(2, 3)[1],
                                   x.split(2, 1)[0],
                                   x.unbind(0)[1],
                                   x.movedim(0, 3),
                                   x.view_as(x),
                                   x[1][2][3],
                                   x.swapaxes(0, 1),
                                   x.mT(),
                                   x.expand_as(at::empty({2, 2, 3, 4, 5})),
                                   x.unflatten(3, {5, 1}),
                                   x.split_with_sizes({1, 3}, 2)[1],
                                   x.tensor_split(2, 3)[0],
                                   x.view(at::kInt)};
  for (const at::Tensor& v : views) {
    EXPECT_EQ(v.storage().data(), base);
    EXPECT_TRUE(v.device() == device());
  }
  EXPECT_EQ(h.view({120}).storage().data(), h.storage().data());
  // In-place view ops rewrite the metadata of the same tensor.
  at::Tensor y = x.view({6, 20});
  y.t_();
  y.unsqueeze_(0);
  y.squeeze_(0);
  y.transpose_(0, 1);
  y.as_strided_({2, 2}, {1, 20});
  EXPECT_EQ(y.storage().data(), base);
  // fp16 and bf16 both hold DL16 on the device: a dtype view keeps the values.
  EXPECT_EQ(h.view(at::kBFloat16).flatten()[7].item<float>(), 7.0f);
  // Writes through a view are visible in the base.
  x.select(1, 0).fill_(-1);
  SetStrict(false);
  EXPECT_EQ(x.cpu()[1][0][2][2].item<float>(), -1.0f);
  EXPECT_EQ(stats().fallback_calls(), 0u);
}

TEST_F(GlueTest, MemoryAccountingFollowsSticks) {
  const uint64_t before = stats().live_bytes;
  {
    at::Tensor a = at::empty({5, 100, 150}, at::TensorOptions().dtype(at::kHalf).device(device()));
    EXPECT_EQ(stats().live_bytes - before, 192000u);
    at::Tensor b = at::empty({512, 256}, at::TensorOptions().dtype(at::kHalf).device(device()));
    EXPECT_EQ(stats().live_bytes - before, 192000u + 262144u);
    at::Tensor c = at::empty_strided({512, 256}, {1, 512},
                                     at::TensorOptions().dtype(at::kHalf).device(device()));
    EXPECT_EQ(stats().live_bytes - before, 192000u + 2 * 262144u);
  }
  EXPECT_EQ(stats().live_bytes, before);
  EXPECT_EQ(stats().peak_bytes - before, 192000u + 2 * 262144u);
}

TEST_F(GlueTest, OutOfMemoryIsAnErrorNamingTheNumbers) {
  Config c = CurrentConfig();
  c.memory_bytes = stats().live_bytes + 300000;
  SetConfig(c);
  at::Tensor a = at::empty({5, 100, 150}, at::TensorOptions().dtype(at::kHalf).device(device()));
  try {
    at::empty({512, 256}, at::TensorOptions().dtype(at::kHalf).device(device()));
    FAIL() << "allocation past capacity succeeded";
  } catch (const c10::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("out of memory"), std::string::npos) << m;
    EXPECT_NE(m.find("requested 262144 device bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("[512, 256] fp16"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(stats().live_bytes) + " bytes live"), std::string::npos) << m;
    EXPECT_NE(m.find(std::to_string(c.memory_bytes) + " bytes capacity"), std::string::npos) << m;
  }
}

// The ops below are ones no device kernel is planned for (glue/kernels/ may
// serve mm, add, ... directly), so they exercise the fallback.
TEST_F(GlueTest, FallbackUpcastsRoundsAndCounts) {
  at::Tensor a = at::randn({8, 16}).to(at::kHalf);
  at::Tensor da = a.to(device());
  // libtorch 1.13's CPU has no fp16 logcumsumexp: the fallback must upcast.
  at::Tensor out = at::logcumsumexp(da, 1);
  EXPECT_EQ(out.scalar_type(), at::kHalf);
  EXPECT_EQ(out.device(), device());
  // The CPU computes in fp32 on the DL16 values, then the result rounds to DL16.
  at::Tensor ref = at::logcumsumexp(da.cpu().to(at::kFloat), 1);
  at::Tensor want = ref.to(device()).to(at::kHalf);  // fp32 -> DL16 with the setting
  EXPECT_TRUE(at::equal(out.cpu(), want.cpu()));
  EXPECT_EQ(stats().ops["_logcumsumexp"].cpu_fallback, 1u);
  // 0-dim fp32 tensors do not promote; explicit dtypes do.
  EXPECT_EQ(at::hypot(da, at::scalar_tensor(2.0).to(device())).scalar_type(), at::kHalf);
  EXPECT_EQ(at::hypot(da, at::ones({16}).to(device())).scalar_type(), at::kFloat);
  EXPECT_EQ(at::cumsum(da, 0, at::kFloat).scalar_type(), at::kFloat);
  EXPECT_EQ(at::cumsum(da, 0).scalar_type(), at::kHalf);
}

TEST_F(GlueTest, FallbackWritesBackInPlaceAndOutArguments) {
  at::Tensor x = at::arange(6, at::kFloat).to(at::kHalf).to(device());
  at::Tensor& same = x.hypot_(at::zeros({6}, at::kHalf).to(device()));
  EXPECT_TRUE(same.is_same(x));
  EXPECT_TRUE(at::equal(x.cpu().to(at::kFloat), at::arange(6, at::kFloat)));
  at::Tensor out = at::empty({0}, at::TensorOptions().dtype(at::kHalf).device(device()));
  at::Tensor& r = at::cumsum_out(out, x, 0);  // out= grows from 0 elements
  EXPECT_TRUE(r.is_same(out));
  EXPECT_TRUE(at::equal(out.cpu().to(at::kFloat), at::tensor({0.f, 1.f, 3.f, 6.f, 10.f, 15.f})));
  // A strided in-place target.
  at::Tensor m = at::zeros({3, 4}, at::TensorOptions().device(device()));
  m.t().hypot_(at::ones({4, 3}).to(device()));
  EXPECT_TRUE(at::equal(m.cpu(), at::ones({3, 4})));
  EXPECT_EQ(stats().ops["cumsum"].cpu_fallback, 1u);
  EXPECT_EQ(stats().ops["hypot"].cpu_fallback, 2u);
}

TEST_F(GlueTest, IndexingWithDeviceIndexTensors) {
  at::Tensor table = at::arange(12, at::kFloat).reshape({4, 3}).to(at::kHalf).to(device());
  at::Tensor ids = at::tensor({3, 0, 3}, at::kLong).to(device());
  at::Tensor rows = at::embedding(table, ids);
  EXPECT_EQ(rows.device(), device());
  EXPECT_EQ(rows.scalar_type(), at::kHalf);
  EXPECT_TRUE(
      at::equal(rows.cpu().to(at::kFloat),
                at::tensor({9.f, 10.f, 11.f, 0.f, 1.f, 2.f, 9.f, 10.f, 11.f}).reshape({3, 3})));
  // Tensor?[] arguments (index, index_put_) carry device tensors too.
  at::Tensor picked = table.index({ids});
  EXPECT_TRUE(at::equal(picked.cpu(), rows.cpu()));
  table.index_put_({at::tensor({1}, at::kLong).to(device())},
                   at::zeros({3}, at::kHalf).to(device()));
  EXPECT_EQ(table.cpu().to(at::kFloat)[1].abs().sum().item<float>(), 0.0f);
}

// SPYRE_EMU_FAULTS reach ops served by the fallback too (the hook in
// glue/kernels/fallback_faults.h).
TEST_F(GlueTest, FaultsApplyToFallbackOps) {
  at::Tensor x = at::ones({8}).to(at::kHalf).to(device());
  Config c = CurrentConfig();
  c.faults = "cumsum:nan";
  SetConfig(c);
  EXPECT_TRUE(at::cumsum(x, 0).cpu().isnan().any().item<bool>());
  c.faults = "cumsum:oom";
  SetConfig(c);
  EXPECT_THROW(at::cumsum(x, 0), c10::OutOfMemoryError);
  c.faults = "";
  SetConfig(c);
  EXPECT_FALSE(at::cumsum(x, 0).cpu().isnan().any().item<bool>());
}

// A kernel call reads the fault plan through a per-thread cache keyed by
// ConfigGeneration: a SetConfig must still reach the next call on a thread
// that cached the previous plan.
TEST_F(GlueTest, ASettingChangeReachesTheNextCallOnEveryThread) {
  at::Tensor x = at::ones({8}).to(at::kHalf).to(device());
  auto has_nan = [&] { return at::mul(x, x).cpu().isnan().any().item<bool>(); };
  const uint64_t before = ConfigGeneration();
  Config c = CurrentConfig();
  c.faults = "mul:nan";
  SetConfig(c);
  EXPECT_GT(ConfigGeneration(), before);
  EXPECT_TRUE(has_nan());
  // Another thread caches the plan with the fault, then sees it cleared.
  std::promise<void> cleared;
  std::future<void> cleared_seen = cleared.get_future();
  std::promise<bool> first, second;
  std::thread other([&] {
    first.set_value(has_nan());
    cleared_seen.wait();
    second.set_value(has_nan());
  });
  const bool other_first = first.get_future().get();
  c.faults = "";
  SetConfig(c);
  cleared.set_value();
  const bool other_second = second.get_future().get();
  other.join();
  EXPECT_TRUE(other_first);
  EXPECT_FALSE(other_second);
  EXPECT_FALSE(has_nan());
  c.profile = Profile::kSendnn;
  SetConfig(c);
  EXPECT_EQ(CurrentProfile(), Profile::kSendnn);
}

TEST_F(GlueTest, StrictModeNamesTheOp) {
  at::Tensor x = at::ones({4}).to(device());
  SetStrict(true);
  try {
    at::cumsum(x, 0);
    FAIL() << "strict mode let a fallback through";
  } catch (const c10::Error& e) {
    EXPECT_NE(std::string(e.what()).find("aten::cumsum"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("SPYRE_EMU_STRICT"), std::string::npos) << e.what();
  }
}

TEST_F(GlueTest, InitialisersAndItem) {
  auto opts = at::TensorOptions().dtype(at::kHalf).device(device());
  at::Tensor z = at::zeros({3, 70}, opts);
  EXPECT_EQ(z.cpu().abs().sum().item<float>(), 0.0f);
  at::Tensor o = at::full({2, 2}, 1.5, opts);
  EXPECT_EQ(o[1][1].item<float>(), 1.5f);
  at::Tensor u = at::empty({1000}, opts).uniform_(-2, 2);
  EXPECT_LE(u.cpu().abs().max().item<float>(), 2.0f);
  EXPECT_GT(u.cpu().std().item<float>(), 0.5f);
  at::Tensor n = at::randn({1000}, opts.dtype(at::kFloat));
  EXPECT_NEAR(n.cpu().mean().item<float>(), 0.0f, 0.2f);
  at::Tensor i = at::full({1}, 7, opts.dtype(at::kLong));
  EXPECT_EQ(i.item<int64_t>(), 7);
  EXPECT_EQ(stats().fallback_calls(), 0u);
}

TEST_F(GlueTest, ResizeAndSet) {
  at::Tensor x = at::arange(4, at::kFloat).to(device());
  x.resize_({2, 4});
  EXPECT_EQ(x.sizes(), at::IntArrayRef({2, 4}));
  EXPECT_TRUE(at::equal(x.cpu().flatten().slice(0, 0, 4), at::arange(4, at::kFloat)));
  at::Tensor y = at::empty({0}, x.options());
  y.set_(x);
  EXPECT_EQ(y.storage().data(), x.storage().data());
  y.set_(x.storage(), 1, {3}, {1});
  EXPECT_TRUE(at::equal(y.cpu(), at::arange(1, 4, at::kFloat)));
  y.set_();
  EXPECT_EQ(y.numel(), 0);
}

TEST_F(GlueTest, TraceRecordsCopies) {
  TraceScope scope;
  at::Tensor x = at::ones({16, 64}, at::kHalf);
  at::Tensor d = x.to(device());
  at::Tensor back = d.cpu();
  const auto events = scope.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].kind, EventKind::kHostToDevice);
  EXPECT_EQ(events[0].bytes, 16u * 64 * 2);
  EXPECT_EQ(events[0].dtype, "fp16");
  EXPECT_EQ(events[0].shapes.at(0), (std::vector<int64_t>{16, 64}));
  EXPECT_EQ(events[1].kind, EventKind::kDeviceToHost);
  EXPECT_EQ(stats().h2d_bytes, 2048u);
  EXPECT_EQ(stats().d2h_bytes, 2048u);
}

TEST_F(GlueTest, PrintsADeviceTensor) {
  std::ostringstream out;
  out << at::tensor({1.5f, -2.25f}).to(at::kHalf).to(device());
  EXPECT_NE(out.str().find("1.5"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("-2.25"), std::string::npos) << out.str();
}

TEST_F(GlueTest, FenceCatchesAHostReadOfDeviceMemory) {
  // ctest runs every test with SPYRE_EMU_FENCE=1; switch it on here too so
  // the binary also proves this when run by hand.
  Config c = CurrentConfig();
  c.fence = true;
  SetConfig(c);
  at::Tensor d = at::ones({256}).to(device());
  EXPECT_EXIT(
      {
        volatile float v = d.data_ptr<float>()[3];
        (void)v;
      },
      ::testing::KilledBySignal(SIGSEGV), "");
  EXPECT_EQ(d.cpu()[3].item<float>(), 1.0f) << "runtime copies still work";
}

}  // namespace
}  // namespace spyre_emu
