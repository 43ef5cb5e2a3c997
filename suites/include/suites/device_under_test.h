#pragma once
// The one place that says where cases run. Everything that moves inputs to
// the device under test goes through DeviceUnderTest(), so switching the
// harness between the emulated Spyre device and the CPU is one line.
#include <string>

#include <c10/core/Device.h>

namespace suites {

// The emulated Spyre device (spyre_emu::device()).
c10::Device DeviceUnderTest();

}  // namespace suites
