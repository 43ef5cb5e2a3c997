// The internal glue API (device/src/glue/glue.h) the device kernels use.
#include "glue/glue.h"

#include <gtest/gtest.h>

#include "spyre_emu/spyre_emu.h"

namespace spyre_emu::glue {
namespace {

TEST(GlueApiTest, RawAccessInsideAScope) {
  at::Tensor x = at::tensor({1.0f, 2.0f, -3.0f}).to(at::kHalf).to(device());
  {
    DeviceAccess access({x});
    const uint16_t* codes = DataAs<uint16_t>(x);
    EXPECT_EQ(Dl16Decode(codes[2]), -3.0f);
    at::Tensor alias = HostAlias(x);
    EXPECT_EQ(alias.scalar_type(), at::kShort);
    EXPECT_EQ(static_cast<uint16_t>(alias[1].item<int16_t>()), Dl16Encode(2.0f, CurrentRounding()));
  }
  at::Tensor view = x.slice(0, 1);
  DeviceAccess access({view});
  EXPECT_EQ(Dl16Decode(*DataAs<uint16_t>(view)), 2.0f) << "Data() includes the storage offset";
}

TEST(GlueApiTest, ReadAndWriteValues) {
  at::Tensor out = EmptyDevice({2, 3}, at::kBFloat16);
  EXPECT_EQ(out.device(), device());
  const at::Tensor src =
      at::tensor({1.0f, 1.0f + 1.0f / 1024, 3.0f, 4.0f, 5.0f, 6.0f}).reshape({2, 3});
  WriteFromHost(src, out.t().t());
  const at::Tensor back = ReadAsFloat(out);
  EXPECT_EQ(back.scalar_type(), at::kFloat);
  EXPECT_EQ(back[0][1].item<float>(), RoundToDl16(1.0f + 1.0f / 1024, CurrentRounding()));
  EXPECT_EQ(back[1][2].item<float>(), 6.0f);
  at::Tensor strided = EmptyDeviceStrided({3, 2}, {1, 3}, at::kFloat);
  WriteFromHost(src.t(), strided);
  EXPECT_TRUE(at::equal(ReadAsFloat(strided), src.t()));
}

TEST(GlueApiTest, RecordKernelCountsAndTraces) {
  reset_stats();
  TraceScope scope;
  at::Tensor a = EmptyDevice({4, 8}, at::kHalf);
  const KernelTimer timer;
  RecordKernel("my_op", {a, a}, a, 1234, 7, 64, timer);
  EXPECT_EQ(stats().ops["my_op"].device_kernel, 1u);
  const auto events = scope.events();
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].kind, EventKind::kKernel);
  EXPECT_EQ(events[0].op, "my_op");
  EXPECT_EQ(events[0].shapes.size(), 2u);
  EXPECT_EQ(events[0].dtype, "fp16");
  EXPECT_EQ(events[0].modeled_ns, 1234u);
  EXPECT_EQ(events[0].cores_used, 7);
  EXPECT_EQ(events[0].bytes, 64u);
  EXPECT_FALSE(events[0].fallback);
}

TEST(GlueApiTest, AFallbackWithTwoReturnsHandsBackBoth) {
  // int64 has no device reduction kernel: max.dim falls back, and the
  // boxed call leaves values and indices as two stack entries.
  reset_stats();
  const at::Tensor cpu = at::tensor({3, -7, 12, 5, 12, -1}, at::kLong).view({2, 3});
  const at::Tensor x = cpu.to(device());
  const auto [values, indices] = at::max(x, 1, /*keepdim=*/true);
  const auto [want_values, want_indices] = at::max(cpu, 1, true);
  EXPECT_EQ(values.device(), device());
  EXPECT_TRUE(at::equal(values.cpu(), want_values));
  EXPECT_TRUE(at::equal(indices.cpu(), want_indices));
  const auto [low, where] = at::min(x, 0);
  EXPECT_TRUE(at::equal(low.cpu(), std::get<0>(at::min(cpu, 0))));
  EXPECT_TRUE(at::equal(where.cpu(), std::get<1>(at::min(cpu, 0))));
  EXPECT_EQ(stats().ops["max"].cpu_fallback, 1u);
  EXPECT_EQ(stats().ops["min"].cpu_fallback, 1u);
}

TEST(GlueApiTest, ExplicitFallbackIsCounted) {
  reset_stats();
  TraceScope scope;
  at::Tensor x = at::tensor({1.0f, 2.0f, 3.0f}).to(at::kHalf).to(device());
  const at::Tensor y = CallCpuFallback<at::Tensor>("aten::cumsum", "", x, int64_t{0},
                                                   c10::optional<at::ScalarType>());
  EXPECT_EQ(y.device(), device());
  EXPECT_EQ(y.scalar_type(), at::kHalf);
  EXPECT_TRUE(at::equal(y.cpu().to(at::kFloat), at::tensor({1.0f, 3.0f, 6.0f})));
  EXPECT_EQ(stats().ops["cumsum"].cpu_fallback, 1u);
  std::vector<TraceEvent> fallbacks;
  for (const TraceEvent& e : scope.events()) {
    if (e.fallback) fallbacks.push_back(e);
  }
  ASSERT_EQ(fallbacks.size(), 1u);
  EXPECT_EQ(fallbacks[0].kind, EventKind::kCpuFallback);
  EXPECT_EQ(fallbacks[0].op, "cumsum");
  EXPECT_EQ(fallbacks[0].dtype, "fp16");
  EXPECT_EQ(OpName(FindOp("aten::cumsum")), "cumsum");
  // An in-place op hands back the caller's device tensor.
  const at::Tensor z = CallCpuFallback<at::Tensor>("aten::hypot_", "", x, x);
  EXPECT_TRUE(z.is_same(x));
}

}  // namespace
}  // namespace spyre_emu::glue
