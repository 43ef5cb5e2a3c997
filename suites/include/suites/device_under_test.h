#pragma once
// The one place that says where cases run, and how a case's device activity
// is summarised. Everything that moves inputs to the device under test goes
// through DeviceUnderTest(), so switching the harness between the emulated
// Spyre device and the CPU is one line.
//
//   DeviceProfile p = ProfileOnDevice([&] { outs = op.run(device_inputs, attrs); });
//   result.modeled_us = p.modeled_us;
//   RecordOpErrors([&] { op.run(device_inputs, attrs); }, &result);  // after judging
#include <cstdint>
#include <functional>
#include <vector>

#include <c10/core/Device.h>

#include "base/case_result.h"

namespace suites {

// The device under test (harness/device/device.h: the emulator unless
// --device or --device-lib chose another). Throws c10::Error when it cannot
// be loaded.
c10::Device DeviceUnderTest();

// What one run of `fn` did on the device, as far as the device reports it:
// modeled device time of its kernels, CPU-fallback calls, peak device bytes
// (including tensors already live when it started) and per-op totals. A
// metric the device does not provide is NaN (modeled_us) or -1.
struct DeviceProfile {
  double modeled_us = 0;
  int64_t fallback_ops = 0;
  int64_t peak_device_bytes = 0;
  std::vector<harness::OpSummary> ops;  // sorted by op name
};
DeviceProfile ProfileOnDevice(const std::function<void()>& fn);

// One more run of fn, untimed, with each op call on the device checked
// against the CPU from the same inputs (harness/device/op_check.h). The
// summary goes to r->extra["op_error"] (base/op_error.h); a failed
// case's message then names the first op whose own output departed. Call
// it in a judged pass after the verdict, never in a timed one. With
// SPYRE_REGRESS_OP_CHECK=0 it does nothing. A device error in that run is
// recorded as extra["op_error"]["error"] and leaves the verdict alone. Its
// wall time goes to extra["harness"]["op_check_us"].
void RecordOpErrors(const std::function<void()>& fn, harness::CaseResult* r);

}  // namespace suites
