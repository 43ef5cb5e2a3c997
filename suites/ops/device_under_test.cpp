#include "suites/device_under_test.h"

namespace suites {

c10::Device DeviceUnderTest() {
  // TODO(suites): spyre_emu::device() once the PrivateUse1 glue lands.
  return c10::Device(c10::kCPU);
}

}  // namespace suites
