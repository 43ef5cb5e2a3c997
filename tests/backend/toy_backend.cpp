// toy_backend: a second PrivateUse1 backend, written for the harness's own
// tests and independent of the emulator. Tensors live in plain host memory;
// a few ops run on libtorch's CPU kernels (in fp32 for fp16/bf16 inputs);
// one of them is wrong on purpose. It exports no device ABI, so the harness
// tests it in generic mode (parity and wall time only).
//
//   add.Tensor   every nonzero finite result TOY_ADD_ULPS ULPs of its dtype
//                away from zero: the deliberate bug the harness must name
//   mul.Tensor   correct
//   mm           correct
//   anything else: libtorch's "could not run ... PrivateUse1" error
//
// TOY_BACKEND_CRASH=OP makes OP (add, mul or mm) die of SIGSEGV, for the
// crash isolation test. Linked with toy_abi.cpp (toy_backend_abi99), it also
// exports a device ABI table of another version (the version check's test
// library).
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <ATen/ATen.h>
#include <ATen/EmptyTensor.h>
#include <ATen/InferSize.h>
#include <ATen/TensorUtils.h>
#include <ATen/native/Resize.h>
#include <c10/core/impl/DeviceGuardImplInterface.h>
#include <torch/library.h>

#include "spyre_regress/torch_compat.h"


namespace toy {
namespace {

const c10::DispatchKeySet kKeys(c10::DispatchKey::PrivateUse1);

void FreeBuffer(void* p) { std::free(p); }

struct HostAllocator final : spyre_compat::DeviceAllocator {
  c10::DataPtr Allocate(size_t n) const override {
    void* p = std::malloc(n == 0 ? 1 : n);
    TORCH_CHECK(p != nullptr, "toy_backend: out of memory");
    return {p, p, &FreeBuffer, c10::Device(c10::DeviceType::PrivateUse1, 0)};
  }
  void CopyBytes(void* dst, const void* src, size_t n) const override { std::memcpy(dst, src, n); }
  c10::DeleterFnPtr raw_deleter() const override { return &FreeBuffer; }
};
HostAllocator g_allocator;
spyre_compat::HostBackedHooks g_hooks;

// A CPU tensor over the same bytes (the memory is host memory).
at::Tensor OnHost(const at::Tensor& t) {
  if (!t.defined() || t.is_cpu()) return t;
  if (t.numel() == 0) return at::empty(t.sizes(), t.options().device(at::kCPU));
  return at::from_blob(t.data_ptr(), t.sizes(), t.strides(), t.options().device(at::kCPU));
}

at::Tensor ToDevice(const at::Tensor& host) {
  at::Tensor out(at::detail::empty_generic(host.sizes(), &g_allocator, kKeys, host.scalar_type(),
                                           c10::nullopt));
  if (host.numel() > 0) OnHost(out).copy_(host);
  return out;
}

void MaybeCrash(const char* op) {
  const char* crash = std::getenv("TOY_BACKEND_CRASH");
  if (crash != nullptr && std::strcmp(crash, op) == 0) std::raise(SIGSEGV);
}

at::Tensor Empty(at::IntArrayRef size, c10::optional<at::ScalarType> dtype,
                 c10::optional<at::Layout>, c10::optional<at::Device>, c10::optional<bool>,
                 c10::optional<at::MemoryFormat> format) {
  return at::Tensor(
      at::detail::empty_generic(size, &g_allocator, kKeys, c10::dtype_or_default(dtype), format));
}

at::Tensor EmptyStrided(at::IntArrayRef size, at::IntArrayRef stride,
                        c10::optional<at::ScalarType> dtype, c10::optional<at::Layout>,
                        c10::optional<at::Device>, c10::optional<bool>) {
  return at::Tensor(at::detail::empty_strided_generic(size, stride, &g_allocator, kKeys,
                                                      c10::dtype_or_default(dtype)));
}

at::Tensor CopyFrom(const at::Tensor& self, const at::Tensor& dst, bool) {
  OnHost(dst).copy_(OnHost(self));
  return dst;
}

at::Tensor CopyFromAndResize(const at::Tensor& self, const at::Tensor& dst) {
  at::native::resize_impl_cpu_(dst.unsafeGetTensorImpl(), self.sizes(), self.strides());
  return CopyFrom(self, dst, false);
}

const at::Tensor& Resize(const at::Tensor& self, at::IntArrayRef size,
                         c10::optional<at::MemoryFormat>) {
  at::native::resize_impl_cpu_(self.unsafeGetTensorImpl(), size, c10::nullopt);
  return self;
}

at::Tensor AsStrided(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride,
                     c10::optional<int64_t> offset) {
  at::Tensor out = at::detail::make_tensor<c10::TensorImpl>(
      c10::TensorImpl::VIEW, c10::Storage(self.storage()), self.key_set(), self.dtype());
  out.unsafeGetTensorImpl()->set_storage_offset(offset.value_or(self.storage_offset()));
  out.unsafeGetTensorImpl()->set_sizes_and_strides(size, stride);
  return out;
}

at::Tensor View(const at::Tensor& self, at::IntArrayRef size) {
  const at::DimVector shape = at::infer_size_dv(size, self.numel());
  c10::optional<at::DimVector> stride =
      at::detail::computeStride(self.sizes(), self.strides(), shape);
  TORCH_CHECK(stride.has_value(), "toy_backend: view size is not compatible with the strides");
  return AsStrided(self, shape, *stride, self.storage_offset());
}

at::Tensor ReshapeAlias(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride) {
  return AsStrided(self, size, stride, self.storage_offset());
}

// Reduced precision is computed in fp32 and rounded once to the result dtype.
at::Tensor Wide(const at::Tensor& t) {
  const at::Tensor h = OnHost(t);
  return h.scalar_type() == at::kHalf || h.scalar_type() == at::kBFloat16 ? h.to(at::kFloat) : h;
}

// The bug: each nonzero finite value moved `ulps` steps of its own format away
// from zero (its bit pattern's magnitude grows by `ulps`).
template <typename Bits>
void Nudge(at::Tensor& t, int ulps) {
  const at::Tensor values = t.to(at::kFloat).contiguous();
  const float* v = values.data_ptr<float>();
  Bits* p = static_cast<Bits*>(t.data_ptr());
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (v[i] == 0.0f || !std::isfinite(v[i])) continue;
    p[i] = static_cast<Bits>(p[i] + ulps);
  }
}

at::Tensor Add(const at::Tensor& a, const at::Tensor& b, const at::Scalar& alpha) {
  MaybeCrash("add");
  const at::ScalarType dtype = at::result_type(a, b);
  at::Tensor r = at::add(Wide(a), Wide(b), alpha).to(dtype).contiguous();
  if (r.scalar_type() == at::kFloat) Nudge<uint32_t>(r, TOY_ADD_ULPS);
  if (r.scalar_type() == at::kHalf || r.scalar_type() == at::kBFloat16) {
    Nudge<uint16_t>(r, TOY_ADD_ULPS);
  }
  return ToDevice(r);
}

at::Tensor Mul(const at::Tensor& a, const at::Tensor& b) {
  MaybeCrash("mul");
  const at::ScalarType dtype = at::result_type(a, b);
  return ToDevice(at::mul(Wide(a), Wide(b)).to(dtype));
}

at::Tensor Mm(const at::Tensor& a, const at::Tensor& b) {
  MaybeCrash("mm");
  return ToDevice(at::mm(Wide(a), Wide(b)).to(a.scalar_type()));
}

struct GuardImpl final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return c10::DeviceType::PrivateUse1; }
  c10::Device exchangeDevice(c10::Device) const override { return getDevice(); }
  c10::Device getDevice() const override { return c10::Device(c10::DeviceType::PrivateUse1, 0); }
  void setDevice(c10::Device) const override {}
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override { return s; }
  c10::DeviceIndex deviceCount() const noexcept override { return 1; }
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, GuardImpl);
[[maybe_unused]] const bool g_named = [] {
  spyre_compat::RegisterBackend("toy", &g_hooks);
  return true;
}();
REGISTER_ALLOCATOR(c10::DeviceType::PrivateUse1, &g_allocator);

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("empty.memory_format", TORCH_FN(Empty));
  m.impl("empty_strided", TORCH_FN(EmptyStrided));
  m.impl("_copy_from", TORCH_FN(CopyFrom));
  m.impl("_copy_from_and_resize", TORCH_FN(CopyFromAndResize));
  m.impl("resize_", TORCH_FN(Resize));
  m.impl("as_strided", TORCH_FN(AsStrided));
  m.impl("view", TORCH_FN(View));
  m.impl("_reshape_alias", TORCH_FN(ReshapeAlias));
  m.impl("add.Tensor", TORCH_FN(Add));
  m.impl("mul.Tensor", TORCH_FN(Mul));
  m.impl("mm", TORCH_FN(Mm));
}

}  // namespace
}  // namespace toy

