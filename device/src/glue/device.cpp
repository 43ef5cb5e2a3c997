// The device itself: spyre_emu::device() and the PrivateUse1 device guard.
// One emulated device (index 0) with one default stream: work is synchronous.
#include <c10/core/impl/DeviceGuardImplInterface.h>

#include <ATen/ATen.h>

#include "spyre_emu/device.h"
#include "spyre_emu/runtime.h"
#include "spyre_regress/torch_compat.h"

namespace spyre_emu {

c10::Device device() {
  const std::string error = ConfigError();
  TORCH_CHECK(error.empty(), "spyre_emu: bad device settings: ", error);
  return c10::Device(c10::DeviceType::PrivateUse1, 0);
}

namespace {

struct SpyreGuardImpl final : c10::impl::DeviceGuardImplInterface {
  c10::DeviceType type() const override { return c10::DeviceType::PrivateUse1; }
  c10::Device exchangeDevice(c10::Device d) const override {
    setDevice(d);
    return c10::Device(c10::DeviceType::PrivateUse1, 0);
  }
  c10::Device getDevice() const override { return c10::Device(c10::DeviceType::PrivateUse1, 0); }
  void setDevice(c10::Device d) const override {
    TORCH_CHECK(d.type() == c10::DeviceType::PrivateUse1 && d.index() <= 0,
                "spyre_emu: there is one device, ", getDevice().str(), "; asked for ", d.str());
  }
  void uncheckedSetDevice(c10::Device) const noexcept override {}
  c10::Stream getStream(c10::Device d) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, d);
  }
  c10::Stream exchangeStream(c10::Stream s) const noexcept override {
    return c10::Stream(c10::Stream::DEFAULT, s.device());
  }
  c10::DeviceIndex deviceCount() const noexcept override { return 1; }
  bool queryStream(const c10::Stream&) const override { return true; }
  void synchronizeStream(const c10::Stream&) const override {}
};

C10_REGISTER_GUARD_IMPL(PrivateUse1, SpyreGuardImpl);

// On libtorch 2.x the device prints as spyre:0 and answers libtorch's
// backend hooks (generator, pinned memory); on 1.13 this does nothing.
spyre_compat::HostBackedHooks g_hooks;
[[maybe_unused]] const bool g_named = [] {
  spyre_compat::RegisterBackend("spyre", &g_hooks);
  return true;
}();

}  // namespace
}  // namespace spyre_emu
