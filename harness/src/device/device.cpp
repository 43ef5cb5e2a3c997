// The device under test: libtorch's CPU, or a backend library loaded with
// dlopen and read through the device ABI when it exports one.
#include "harness/device/device.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

#include <ATen/core/dispatch/Dispatcher.h>
#include <c10/util/Exception.h>
#include <torch/csrc/api/include/torch/version.h>

#include "harness/compare/device_format.h"
#include "harness/device/registration_guard.h"
#include "base/sha256.h"
#include "spyre_regress/device_abi.h"

namespace harness {
namespace {

std::string FileSha256(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  Sha256 h;
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof(buf));
    if (in.gcount() > 0) h.Update(std::string_view(buf, static_cast<size_t>(in.gcount())));
  }
  return h.FinishHex();
}

// A member the library's table holds (inside its struct_size) and set.
#define SPYRE_ABI_HAS(abi, member)                                                     \
  ((abi) != nullptr &&                                                                 \
   offsetof(spyre_device_abi, member) + sizeof((abi)->member) <= (abi)->struct_size && \
   (abi)->member != nullptr)

std::string Str(const char* s) { return s == nullptr ? "" : s; }

// The op kernels a PrivateUse1 backend cannot do without: a library that
// registered none of them registered no backend.
bool PrivateUse1Registered() {
  auto op = c10::Dispatcher::singleton().findSchema({"aten::empty", "memory_format"});
  return op.has_value() && op->hasKernelForDispatchKey(c10::DispatchKey::PrivateUse1);
}

class CpuDevice final : public DeviceUnderTest {
 public:
  CpuDevice() {
    kind_ = "cpu";
    name_ = "cpu";
    version_ = std::string("libtorch ") + TORCH_VERSION;
  }
  c10::Device torch_device() const override { return c10::Device(c10::kCPU); }
};

class LibraryDevice final : public DeviceUnderTest {
 public:
  LibraryDevice(std::string kind, std::string path, const spyre_device_abi* abi) : abi_(abi) {
    kind_ = std::move(kind);
    path_ = std::move(path);
    sha256_ = FileSha256(path_);
    name_ = std::filesystem::path(path_).filename().string();
    if (abi_ == nullptr) return;
    caps_.abi = true;
    name_ = Str(abi_->name());
    version_ = Str(abi_->version());
    build_id_ = Str(abi_->build_id());
    caps_.memory = SPYRE_ABI_HAS(abi_, memory_stats);
    caps_.op_counts = SPYRE_ABI_HAS(abi_, op_counts);
    caps_.trace = SPYRE_ABI_HAS(abi_, trace_begin) && SPYRE_ABI_HAS(abi_, trace_end);
    caps_.faults = SPYRE_ABI_HAS(abi_, inject_faults);
    caps_.storage_format = SPYRE_ABI_HAS(abi_, storage_format);
  }

  c10::Device torch_device() const override { return c10::Device(c10::DeviceType::PrivateUse1, 0); }

  nlohmann::json Settings() const override {
    if (!SPYRE_ABI_HAS(abi_, settings_json)) return nlohmann::json::object();
    nlohmann::json j = nlohmann::json::parse(Str(abi_->settings_json()), nullptr, false);
    return j.is_object() ? j : nlohmann::json::object();
  }

  std::string SettingsError() const override {
    return SPYRE_ABI_HAS(abi_, settings_error) ? Str(abi_->settings_error()) : "";
  }

  Status InjectFaults(const std::string& spec) const override {
    if (!caps_.faults) return DeviceUnderTest::InjectFaults(spec);
    char error[512] = {0};
    if (abi_->inject_faults(spec.c_str(), error, sizeof(error)) != 0) {
      return UsageError(error[0] != '\0' ? error
                                         : "the device refused the fault spec '" + spec + "'");
    }
    return Status::Ok();
  }

  bool StoresDl16(at::ScalarType dtype) const override {
    if (!caps_.storage_format) return false;
    int32_t code = 0;
    if (dtype == at::kHalf) code = SPYRE_DTYPE_FP16;
    if (dtype == at::kBFloat16) code = SPYRE_DTYPE_BF16;
    if (dtype == at::kFloat) code = SPYRE_DTYPE_FP32;
    return code != 0 && abi_->storage_format(code) == SPYRE_FORMAT_DL16;
  }

  DeviceActivity Profile(const std::function<void()>& fn) const override {
    if (abi_ == nullptr) return DeviceUnderTest::Profile(fn);
    if (SPYRE_ABI_HAS(abi_, reset)) abi_->reset();
    const int64_t scope = caps_.trace ? abi_->trace_begin() : -1;
    std::map<std::string, OpSummary> by_op;
    DeviceActivity a;
    a.modeled_us = caps_.trace ? 0.0 : std::nan("");
    struct Sink {
      std::map<std::string, OpSummary>* by_op;
      DeviceActivity* a;
    } sink{&by_op, &a};
    auto collect = [](void* context, const spyre_device_event* e) {
      auto* s = static_cast<Sink*>(context);
      OpSummary& o = (*s->by_op)[Str(e->op)];
      o.op = Str(e->op);
      ++o.calls;
      o.modeled_us += static_cast<double>(e->modeled_ns) / 1000.0;
      o.wall_us += static_cast<double>(e->wall_ns) / 1000.0;
      if (e->kind == SPYRE_EVENT_FALLBACK) ++o.fallbacks;
      s->a->modeled_us += static_cast<double>(e->modeled_ns) / 1000.0;
    };
    auto ignore = [](void*, const spyre_device_event*) {};
    try {
      fn();
    } catch (...) {
      if (scope >= 0) abi_->trace_end(scope, ignore, nullptr);
      throw;
    }
    if (scope >= 0) abi_->trace_end(scope, collect, &sink);
    a.fallback_ops = -1;
    if (caps_.op_counts) {
      a.fallback_ops = 0;
      auto count = [](void* context, const char*, uint64_t, uint64_t fallback) {
        *static_cast<int64_t*>(context) += static_cast<int64_t>(fallback);
      };
      abi_->op_counts(count, &a.fallback_ops);
    }
    a.peak_device_bytes = -1;
    if (caps_.memory) {
      uint64_t live = 0, peak = 0;
      if (abi_->memory_stats(&live, &peak) == 0) a.peak_device_bytes = static_cast<int64_t>(peak);
    }
    for (auto& [op, s] : by_op) a.ops.push_back(std::move(s));
    return a;
  }

 private:
  const spyre_device_abi* abi_;
};

// report: whether a kernel registration that does not fit this libtorch is
// reported here (see RegistrationGuard).
StatusOr<std::unique_ptr<DeviceUnderTest>> OpenLibrary(const std::string& kind,
                                                       const std::string& given,
                                                       bool report = true) {
  std::error_code ec;
  const std::filesystem::path p = std::filesystem::absolute(given, ec);
  const std::string path = std::filesystem::weakly_canonical(p, ec).string();
  const std::string flag = kind == "emulator" ? "--device emulator (" + path + ")" : path;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return UsageError("device library " + flag +
                      ": no such file; build it, or give --device-lib the path of a backend "
                      "library");
  }
  dlerror();
  void* handle = nullptr;
  {
    // A kernel registration that does not fit this libtorch throws inside
    // dlopen: one line and exit 2 instead of std::terminate.
    RegistrationGuard guard(flag, report);
    handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  }
  if (handle == nullptr) {
    std::string why = Str(dlerror());
    why = why.substr(0, why.find('\n'));
    return UsageError("device library " + flag + ": cannot be loaded: " + why);
  }
  // Never dlclose()d: libtorch keeps the kernels it registered.
  if (!PrivateUse1Registered()) {
    return UsageError("device library " + flag +
                      ": registers no PrivateUse1 backend (no PrivateUse1 kernel for "
                      "aten::empty.memory_format after loading it)");
  }
  const spyre_device_abi* abi = nullptr;
  if (void* sym = ::dlsym(handle, SPYRE_DEVICE_ABI_SYMBOL)) {
    abi = reinterpret_cast<spyre_device_abi_fn>(sym)();
    if (abi == nullptr) {
      return UsageError("device library " + flag + ": " + SPYRE_DEVICE_ABI_SYMBOL +
                        "() returned no ABI table");
    }
    if (abi->abi_version != SPYRE_DEVICE_ABI_VERSION) {
      return UsageError("device library " + flag + ": exports device ABI version " +
                        std::to_string(abi->abi_version) + ", this harness reads version " +
                        std::to_string(SPYRE_DEVICE_ABI_VERSION) +
                        "; rebuild it against this harness's spyre_regress/device_abi.h");
    }
    const size_t required = offsetof(spyre_device_abi, build_id) + sizeof(abi->build_id);
    if (abi->struct_size < required || abi->name == nullptr || abi->version == nullptr ||
        abi->build_id == nullptr) {
      return UsageError("device library " + flag +
                        ": its device ABI table lacks name, version or build_id");
    }
  }
  return std::unique_ptr<DeviceUnderTest>(new LibraryDevice(kind, path, abi));
}

std::mutex& LoadMutex() {
  static std::mutex mu;
  return mu;
}

struct Loaded {
  DeviceChoice choice;
  std::unique_ptr<DeviceUnderTest> device;
};

Loaded*& LoadedDevice() {
  static Loaded* loaded = nullptr;  // never destroyed: kernels may run at exit
  return loaded;
}

// A library opened by PreloadDeviceLibrary, waiting for LoadDeviceUnderTest
// to apply its settings.
Loaded*& PreloadedDevice() {
  static Loaded* preloaded = nullptr;
  return preloaded;
}

std::string LibraryPath(const DeviceChoice& choice) {
  return choice.device == "emulator" ? DefaultEmulatorLibrary() : choice.lib;
}

}  // namespace

nlohmann::json DeviceUnderTest::Describe() const {
  std::vector<std::string> provides;
  if (caps_.memory) provides.push_back("memory");
  if (caps_.op_counts) provides.push_back("op_counts");
  if (caps_.trace) provides.push_back("trace");
  if (caps_.faults) provides.push_back("faults");
  if (caps_.storage_format) provides.push_back("storage_format");
  return {{"kind", kind_}, {"name", name_},     {"version", version_}, {"build_id", build_id_},
          {"path", path_}, {"sha256", sha256_}, {"abi", caps_.abi},    {"provides", provides}};
}

Status DeviceUnderTest::InjectFaults(const std::string& spec) const {
  if (spec.find_first_not_of(" \t;") == std::string::npos) return Status::Ok();
  return UsageError("--inject: the device under test (" + name_ +
                    ") does not provide fault injection; use --device emulator");
}

bool DeviceUnderTest::StoresDl16(at::ScalarType) const { return false; }

DeviceActivity DeviceUnderTest::Profile(const std::function<void()>& fn) const {
  fn();
  DeviceActivity a;
  a.modeled_us = std::nan("");
  a.fallback_ops = -1;
  a.peak_device_bytes = -1;
  return a;
}

std::vector<std::string> DeviceUnderTest::NotProvided() const {
  std::vector<std::string> out;
  if (!caps_.trace) out.push_back("modeled time");
  if (!caps_.op_counts) out.push_back("CPU-fallback counts");
  if (!caps_.memory) out.push_back("peak device memory");
  return out;
}

StatusOr<DeviceChoice> DeviceChoiceFromEnvironment() {
  DeviceChoice c;
  const char* device = std::getenv("SPYRE_REGRESS_DEVICE");
  const char* lib = std::getenv("SPYRE_REGRESS_DEVICE_LIB");
  const std::string d = device == nullptr ? "" : device;
  const std::string l = lib == nullptr ? "" : lib;
  if (!l.empty()) {
    if (!d.empty() && d != "lib") {
      return UsageError("--device " + d + " and --device-lib " + l +
                        " name two devices: give one of them");
    }
    c.device = "lib";
    c.lib = l;
    return c;
  }
  if (d.empty() || d == "emulator") return c;
  if (d == "cpu") {
    c.device = "cpu";
    return c;
  }
  return UsageError("--device '" + d + "' is not a device: use emulator or cpu, or " +
                    "--device-lib PATH.so for a backend library");
}

std::string DefaultEmulatorLibrary() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&DefaultEmulatorLibrary), &info) != 0 &&
      info.dli_fname != nullptr) {
    return (std::filesystem::path(info.dli_fname).parent_path() / "libspyre_emu.so").string();
  }
  return "libspyre_emu.so";
}

StatusOr<const DeviceUnderTest*> LoadDeviceUnderTest(const DeviceChoice& choice) {
  std::lock_guard<std::mutex> lock(LoadMutex());
  Loaded*& loaded = LoadedDevice();
  if (loaded != nullptr) {
    if (loaded->choice.device != choice.device || loaded->choice.lib != choice.lib) {
      return UsageError("this process already tests " + loaded->device->name() +
                        "; one process tests one device");
    }
    return static_cast<const DeviceUnderTest*>(loaded->device.get());
  }
  std::unique_ptr<DeviceUnderTest> device;
  Loaded*& preloaded = PreloadedDevice();
  if (preloaded != nullptr && preloaded->choice.device == choice.device &&
      preloaded->choice.lib == choice.lib) {
    device = std::move(preloaded->device);
    delete preloaded;
    preloaded = nullptr;
  } else if (choice.device == "cpu") {
    device = std::make_unique<CpuDevice>();
  } else {
    SPYRE_ASSIGN_OR_RETURN(device, OpenLibrary(choice.device, LibraryPath(choice)));
  }
  // Faults given to the run (--inject) reach every worker this way.
  if (const char* spec = std::getenv("SPYRE_REGRESS_INJECT"); spec != nullptr && *spec != '\0') {
    SPYRE_RETURN_IF_ERROR(device->InjectFaults(spec));
  }
  // The judge's yardstick: the format the device stores reduced precision in.
  SetDeviceStorage(device->StoresDl16(at::kHalf), device->StoresDl16(at::kBFloat16));
  loaded = new Loaded{choice, std::move(device)};
  return static_cast<const DeviceUnderTest*>(loaded->device.get());
}

bool PreloadDeviceLibrary() {
  StatusOr<DeviceChoice> choice = DeviceChoiceFromEnvironment();
  if (!choice.ok() || choice->device == "cpu") return false;
  std::lock_guard<std::mutex> lock(LoadMutex());
  if (LoadedDevice() != nullptr || PreloadedDevice() != nullptr) return false;
  // Opening it runs the library's static initialisers (its kernel
  // registrations) and reads its ABI table; nothing here runs a kernel or
  // reads the device's settings, which a worker's own environment sets.
  StatusOr<std::unique_ptr<DeviceUnderTest>> device =
      OpenLibrary(choice->device, LibraryPath(*choice), /*report=*/false);
  // The worker reports it when it loads the device; a library whose kernels
  // do not fit this libtorch ends the zygote silently, and the run process
  // or its worker says why.
  if (!device.ok()) return false;
  PreloadedDevice() = new Loaded{*choice, std::move(*device)};
  return true;
}

bool DeviceLibraryMapped() {
  StatusOr<DeviceChoice> choice = DeviceChoiceFromEnvironment();
  if (!choice.ok() || choice->device == "cpu") return false;
  std::error_code ec;
  const std::string path =
      std::filesystem::weakly_canonical(std::filesystem::absolute(LibraryPath(*choice), ec), ec)
          .string();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_LOCAL);
  if (handle == nullptr) return false;
  ::dlclose(handle);  // drops only the reference RTLD_NOLOAD took
  return true;
}

StatusOr<const DeviceUnderTest*> LoadDeviceUnderTest() {
  {
    std::lock_guard<std::mutex> lock(LoadMutex());
    if (LoadedDevice() != nullptr)
      return static_cast<const DeviceUnderTest*>(LoadedDevice()->device.get());
  }
  SPYRE_ASSIGN_OR_RETURN(const DeviceChoice choice, DeviceChoiceFromEnvironment());
  return LoadDeviceUnderTest(choice);
}

const DeviceUnderTest& CurrentDevice() {
  StatusOr<const DeviceUnderTest*> d = LoadDeviceUnderTest();
  TORCH_CHECK(d.ok(), d.status().message());
  return **d;
}

}  // namespace harness
