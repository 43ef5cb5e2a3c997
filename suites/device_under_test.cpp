#include "suites/device_under_test.h"

#include <chrono>
#include <cstdlib>
#include <exception>
#include <string>

#include "harness/device/device.h"
#include "harness/device/op_check.h"
#include "base/op_error.h"

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

void RecordOpErrors(const std::function<void()>& fn, harness::CaseResult* r) {
  const char* off = std::getenv("SPYRE_REGRESS_OP_CHECK");
  if (off != nullptr && std::string(off) == "0") return;
  const auto start = std::chrono::steady_clock::now();
  // What the check costs, beside the worker's other timings (a member that
  // changes from run to run, kept out of the op_error summary).
  const auto cost = [&] {
    r->extra["harness"]["op_check_us"] =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  };
  try {
    r->extra["op_error"] = harness::CheckOpsOnDevice(fn);
  } catch (const std::exception& e) {
    cost();
    std::string what = e.what();
    what = what.substr(0, what.find('\n'));
    r->extra["op_error"] = {{"error", "the checked run failed: " + what}};
    return;
  }
  cost();
  harness::NameDepartedOp(r);
}

}  // namespace suites
