#pragma once
// The device under test: the one place in the engine that knows which
// backend runs the cases and what it can report (docs/backends.md).
//
//   --device emulator   the emulated Spyre device, libspyre_emu.so beside the
//                       harness library (the default)
//   --device cpu        libtorch's own CPU kernels, in each case's dtype
//   --device-lib PATH   any shared library that registers a PrivateUse1
//                       backend when loaded
//
// A backend library is dlopen()ed, must have registered PrivateUse1 kernels,
// and may export the device ABI (spyre_regress/device_abi.h); what it does
// not export is "not provided", never zero. The choice travels to worker
// processes in SPYRE_REGRESS_DEVICE / SPYRE_REGRESS_DEVICE_LIB.
//
//   StatusOr<const DeviceUnderTest*> d = LoadDeviceUnderTest();
//   at::Tensor x = input.to((*d)->torch_device());
//   DeviceActivity a = (*d)->Profile([&] { y = at::mm(x, x); });
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>
#include <nlohmann/json.hpp>

#include "base/case_result.h"
#include "base/status.h"

namespace harness {

// What the user asked for.
struct DeviceChoice {
  std::string device = "emulator";  // "emulator" | "cpu" | "lib"
  std::string lib;                  // the library (kind "lib"; resolved for "emulator")
};

// The choice from SPYRE_REGRESS_DEVICE and SPYRE_REGRESS_DEVICE_LIB (which
// the CLI's --device and --device-lib set); a bad value is a usage error.
StatusOr<DeviceChoice> DeviceChoiceFromEnvironment();

// The metrics a device reports beyond parity and wall time.
struct DeviceCapabilities {
  bool abi = false;        // exports the device ABI
  bool memory = false;     // live / peak device bytes
  bool op_counts = false;  // per-op kernel and CPU-fallback counts
  bool trace = false;      // per-call trace with modeled times
  bool faults = false;     // fault injection by spec
  bool storage_format = false;
};

// What one run of a function did on the device. A metric the device does
// not provide is NaN (modeled time) or -1 (counts, bytes).
struct DeviceActivity {
  double modeled_us = 0;
  int64_t fallback_ops = 0;
  int64_t peak_device_bytes = 0;
  std::vector<OpSummary> ops;  // sorted by op name; empty without a trace
};

class DeviceUnderTest {
 public:
  virtual ~DeviceUnderTest() = default;

  virtual c10::Device torch_device() const = 0;
  const std::string& kind() const { return kind_; }  // "emulator" | "cpu" | "lib"
  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::string& build_id() const { return build_id_; }
  const std::string& path() const { return path_; }      // "" for cpu
  const std::string& sha256() const { return sha256_; }  // of the library file
  const DeviceCapabilities& capabilities() const { return caps_; }

  // The fingerprint entry: kind, name, version, build id, path, SHA-256 and
  // the capabilities it provides.
  nlohmann::json Describe() const;
  // The device's own settings (fingerprint keys beside libtorch and BLAS);
  // an empty object when it has none.
  virtual nlohmann::json Settings() const { return nlohmann::json::object(); }
  // "" or one line naming a malformed device setting.
  virtual std::string SettingsError() const { return ""; }
  // Replaces the injected faults; an error when the spec is malformed or the
  // device cannot inject faults.
  virtual Status InjectFaults(const std::string& spec) const;
  // True when fp16 / bf16 tensors are stored as DL16 on the device (the
  // judge's yardstick); false means the dtype's own format.
  virtual bool StoresDl16(at::ScalarType dtype) const;
  // Runs fn and reports what it did on the device.
  virtual DeviceActivity Profile(const std::function<void()>& fn) const;
  // Names of the metrics the device does not provide ("modeled time", ...).
  std::vector<std::string> NotProvided() const;

 protected:
  std::string kind_, name_, version_, build_id_, path_, sha256_;
  DeviceCapabilities caps_;
};

// Loads the chosen device once per process and returns it; the same device
// on every later call (a process tests one device). Errors name the library
// and the reason: cannot be loaded, registers no PrivateUse1 backend,
// exports an ABI of another version.
StatusOr<const DeviceUnderTest*> LoadDeviceUnderTest();
StatusOr<const DeviceUnderTest*> LoadDeviceUnderTest(const DeviceChoice& choice);

// Opens the environment's device library (its kernels registered, its ABI
// read) ahead of LoadDeviceUnderTest, which then takes it and applies the
// settings and faults of the environment it finds. For a process that forks
// workers: the library is then mapped in each of them already. Runs no
// kernel and starts no thread. False (nothing kept) for the cpu device or
// when the library cannot be opened; LoadDeviceUnderTest then reports why.
bool PreloadDeviceLibrary();

// True when the environment's device library is already mapped in this
// process (it is then not loaded again); false for the cpu device.
bool DeviceLibraryMapped();

// The loaded device, loading the environment's choice if none is; throws
// c10::Error with the load error (for code that cannot return a Status).
const DeviceUnderTest& CurrentDevice();

// The emulator library the harness ships with (beside libspyre_harness.so).
std::string DefaultEmulatorLibrary();

}  // namespace harness
