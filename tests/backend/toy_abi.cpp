// The device ABI table that toy_backend_abi99 adds to the toy backend: its
// abi_version is TOY_ABI_VERSION, one the harness does not speak, so loading
// the library must be refused with a clear error.
#include "spyre_regress/device_abi.h"

namespace toy {
namespace {

const char* Name() { return "toy_backend"; }
const char* Version() { return "0.0.1"; }
spyre_device_abi MakeAbi() {
  spyre_device_abi abi{};
  abi.struct_size = sizeof(spyre_device_abi);
  abi.abi_version = TOY_ABI_VERSION;
  abi.name = &Name;
  abi.version = &Version;
  abi.build_id = &Version;
  return abi;
}
const spyre_device_abi g_abi = MakeAbi();

}  // namespace
}  // namespace toy

extern "C" __attribute__((visibility("default"))) const spyre_device_abi*
spyre_regress_device_abi() {
  return &toy::g_abi;
}
