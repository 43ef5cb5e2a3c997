#include "suites/device_under_test.h"

#include "harness/device/device.h"

namespace suites {

c10::Device DeviceUnderTest() { return harness::CurrentDevice().torch_device(); }

DeviceProfile ProfileOnDevice(const std::function<void()>& fn) {
  harness::DeviceActivity a = harness::CurrentDevice().Profile(fn);
  DeviceProfile p;
  p.modeled_us = a.modeled_us;
  p.fallback_ops = a.fallback_ops;
  p.peak_device_bytes = a.peak_device_bytes;
  p.ops = std::move(a.ops);
  return p;
}

}  // namespace suites
