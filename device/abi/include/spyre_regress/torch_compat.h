#pragma once
// Every difference of libtorch's C++ API that this project meets between the
// versions it builds against: libtorch 1.13 (Debian 12), 2.6 (Debian 13) and
// 2.13 and later (Debian sid). Code elsewhere calls what is here and holds no
// version #if of its own. Backend libraries (the emulator, the test
// backends, a team's own) may include it too.
//
//   struct MyAllocator final : spyre_compat::DeviceAllocator {
//     at::DataPtr Allocate(size_t bytes) const override { ... }
//     void CopyBytes(void* dst, const void* src, size_t n) const override { ... }
//   };
//   void* p = spyre_compat::MutableData(tensor.storage());
//   at::Tensor Var(const at::Tensor&, at::OptionalIntArrayRef, spyre_compat::CorrectionArg, bool);
//   spyre_compat::RegisterBackend("spyre", hooks);  // spyre:0 on 2.x
//
// Versions between 1.13 and 2.6 (2.0 to 2.5) are not built here: where the
// change happened inside that range, the 2.6 form is taken for all of 2.x.
#include <c10/core/Allocator.h>
#include <c10/core/Device.h>
#include <c10/core/Storage.h>
#include <c10/util/Optional.h>
#include <torch/csrc/api/include/torch/version.h>

#include <cstddef>
#include <string>

#if TORCH_VERSION_MAJOR >= 2
#include <ATen/CPUGeneratorImpl.h>
#include <ATen/core/Generator.h>
#include <c10/core/CPUAllocator.h>
#include <ATen/detail/PrivateUse1HooksInterface.h>
#include <c10/core/DeviceType.h>
#endif

// True when the libtorch being compiled against is MAJOR.MINOR or later.
#define SPYRE_TORCH_AT_LEAST(major, minor) \
  (TORCH_VERSION_MAJOR > (major) ||        \
   (TORCH_VERSION_MAJOR == (major) && TORCH_VERSION_MINOR >= (minor)))

namespace spyre_compat {

// ---- Allocator ----
// 1.13: `DataPtr allocate(size_t) const`. 2.x: `allocate` is non-const and
// `copy_data` (used to clone an allocation) is pure virtual. A device
// allocator derives from this and implements both members below on every
// version.
struct DeviceAllocator : c10::Allocator {
  virtual at::DataPtr Allocate(size_t bytes) const = 0;
  // Copies n bytes between two allocations of this allocator.
  virtual void CopyBytes(void* dst, const void* src, size_t n) const = 0;

#if TORCH_VERSION_MAJOR >= 2
  at::DataPtr allocate(size_t n) override { return Allocate(n); }
  void copy_data(void* dst, const void* src, size_t n) const override { CopyBytes(dst, src, n); }
#else
  at::DataPtr allocate(size_t n) const override { return Allocate(n); }
#endif
};

// ---- Storage ----
// 2.x: Storage::data() returns const void* (copy-on-write storages) and
// mutable_data() the writable pointer; 1.13 has only data().
inline void* MutableData(const c10::Storage& storage) {
#if TORCH_VERSION_MAJOR >= 2
  return storage.mutable_data();
#else
  return const_cast<c10::Storage&>(storage).data();
#endif
}

// ---- Operator schemas that changed ----
// aten::var.correction / std.correction: `int? correction` in 1.13,
// `Scalar? correction` in 2.x.
#if TORCH_VERSION_MAJOR >= 2
using CorrectionArg = const c10::optional<at::Scalar>&;
inline double CorrectionValue(CorrectionArg c, double if_absent) {
  return c.has_value() ? c->toDouble() : if_absent;
}
#else
using CorrectionArg = c10::optional<int64_t>;
inline double CorrectionValue(CorrectionArg c, double if_absent) {
  return c.has_value() ? static_cast<double>(*c) : if_absent;
}
#endif

// ---- Naming the backend ----
// 2.x names the PrivateUse1 key after the backend (`spyre:0`) and asks a
// backend for hooks (default generator, pinned memory, pointer -> device)
// that some operators call. 1.13 has neither and prints `privateuseone:0`.
// True where RegisterBackend names the device (2.x): spyre:0, not privateuseone:0.
constexpr bool kNamesBackends = TORCH_VERSION_MAJOR >= 2;

#if TORCH_VERSION_MAJOR >= 2
// Hooks for a backend whose memory is host memory behind a device key: its
// random numbers come from the CPU generator, pinned memory is ordinary host
// memory, every pointer belongs to device 0.
struct HostBackedHooks : at::PrivateUse1HooksInterface {
  const at::Generator& getDefaultGenerator(c10::DeviceIndex) const override {
    return at::detail::getDefaultCPUGenerator();
  }
  at::Device getDeviceFromPtr(void*) const override {
    return at::Device(c10::DeviceType::PrivateUse1, 0);
  }
  bool isPinnedPtr(const void*) const override { return false; }
  c10::Allocator* getPinnedMemoryAllocator() const override { return c10::GetCPUAllocator(); }
  bool hasPrimaryContext(c10::DeviceIndex) const override { return true; }
  c10::DeviceIndex deviceCount() const override { return 1; }
};

// Gives PrivateUse1 the name `name` and installs `hooks`; does nothing on
// 1.13. Call once, while the backend library loads; `hooks` must outlive it.
inline void RegisterBackend(const std::string& name, HostBackedHooks* hooks) {
  c10::register_privateuse1_backend(name);
  at::RegisterPrivateUse1HooksInterface(hooks);
}
#else
struct HostBackedHooks {};
inline void RegisterBackend(const std::string&, HostBackedHooks*) {}
#endif

}  // namespace spyre_compat
