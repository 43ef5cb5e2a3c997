#include "harness/env.h"

#include <dlfcn.h>
#include <gnu/libc-version.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <filesystem>

#include <ATen/Parallel.h>
#include <torch/csrc/api/include/torch/version.h>

#include "base/build_info.h"
#include "harness/device/device.h"
#include "base/sha256.h"

namespace harness {
namespace {

std::string RealPath(const std::string& p) {
  char buf[PATH_MAX];
  if (::realpath(p.c_str(), buf) == nullptr) return p;
  return buf;
}

bool Contains(const std::string& s, const char* needle) { return s.find(needle) != std::string::npos; }

// "OpenBLAS 0.3.21 DYNAMIC_ARCH NO_AFFINITY Haswell MAX_THREADS=64" -> "0.3.21"
std::string SecondWord(const std::string& s) {
  std::istringstream in(s);
  std::string a, b;
  in >> a >> b;
  return b;
}

std::string ReadFirstMatch(const char* file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    size_t pos = line.find_first_of(":=", key.size());
    if (pos == std::string::npos) continue;
    std::string v = line.substr(pos + 1);
    v.erase(0, v.find_first_not_of(" \t\""));
    while (!v.empty() && (v.back() == '"' || v.back() == ' ')) v.pop_back();
    return v;
  }
  return "";
}

std::string CompilerName() {
#if defined(__clang__)
  return std::string("clang ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("GCC ") + __VERSION__;
#else
  return "unknown";
#endif
}

std::string OsName() {
  std::string pretty = ReadFirstMatch("/etc/os-release", "PRETTY_NAME");
  struct utsname u {};
  std::string kernel = ::uname(&u) == 0 ? std::string(u.sysname) + " " + u.release : "";
  if (pretty.empty()) return kernel;
  return pretty + "; " + kernel;
}

// The dpkg package (name and version) whose file list holds `file`, looking
// only at packages whose name starts with `prefix`; empty when none does.
std::pair<std::string, std::string> OwningPackage(const std::string& file,
                                                  const std::string& prefix) {
  namespace fs = std::filesystem;
  const fs::path info = "/var/lib/dpkg/info";
  std::error_code ec;
  std::string owner;
  for (const auto& entry : fs::directory_iterator(info, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) != 0 || entry.path().extension() != ".list") continue;
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      // usrmerge: a package may list /lib/... for a file found at /usr/lib/...
      if (line == file || "/usr" + line == file || RealPath(line) == file) {
        owner = entry.path().stem().string();
        break;
      }
    }
    if (!owner.empty()) break;
  }
  if (owner.empty()) return {};
  const std::string package = owner.substr(0, owner.find(':'));  // "libtorch1.13:amd64"
  std::ifstream status("/var/lib/dpkg/status");
  std::string line;
  bool in_stanza = false;
  while (std::getline(status, line)) {
    if (line.empty()) in_stanza = false;
    if (line == "Package: " + package) in_stanza = true;
    if (in_stanza && line.compare(0, 9, "Version: ") == 0) return {package, line.substr(9)};
  }
  return {package, ""};
}

}  // namespace

std::string UpstreamVersion(const std::string& debian_version) {
  std::string v = debian_version;
  if (size_t colon = v.find(':'); colon != std::string::npos) v = v.substr(colon + 1);
  if (size_t dash = v.rfind('-'); dash != std::string::npos) v = v.substr(0, dash);
  if (size_t plus = v.find_first_of("+~"); plus != std::string::npos) v = v.substr(0, plus);
  return v;
}

LibtorchInfo DetectLibtorch() {
  static const LibtorchInfo info = [] {
    LibtorchInfo i;
    i.headers = TORCH_VERSION;
    i.version = TORCH_VERSION;
    Dl_info dl{};
    if (::dladdr(reinterpret_cast<void*>(&at::get_num_threads), &dl) != 0 && dl.dli_fname) {
      i.path = RealPath(dl.dli_fname);
      auto [package, version] = OwningPackage(i.path, "libtorch");
      if (!package.empty() && !version.empty()) {
        i.package = package + " " + version;
        i.version = UpstreamVersion(version);
      }
    }
    return i;
  }();
  return info;
}

bool PinBlasThreads(int n) {
  void* sym = ::dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
  if (sym == nullptr) return false;
  reinterpret_cast<void (*)(int)>(sym)(n);
  return true;
}

BlasInfo DetectBlas() {
  BlasInfo info;
  void* sym = ::dlsym(RTLD_DEFAULT, "sgemm_");
  Dl_info dl{};
  if (sym == nullptr || ::dladdr(sym, &dl) == 0 || dl.dli_fname == nullptr) {
    info.name = "none";
    return info;
  }
  info.path = RealPath(dl.dli_fname);
  // Ask the library that owns sgemm_ (and what it pulls in) for its identity.
  void* handle = ::dlopen(dl.dli_fname, RTLD_NOW | RTLD_NOLOAD);
  auto lookup = [&](const char* name) -> void* {
    void* p = handle ? ::dlsym(handle, name) : nullptr;
    return p;
  };
  if (auto get_config = reinterpret_cast<char* (*)()>(lookup("openblas_get_config"))) {
    info.name = "OpenBLAS";
    info.config = get_config();
    info.version = SecondWord(info.config);
    // The core name says which kernels run: on another CPU (or under
    // OPENBLAS_CORETYPE) the same library rounds float32 products differently.
    if (auto core = reinterpret_cast<char* (*)()>(lookup("openblas_get_corename"))) {
      info.core = core();
    }
    if (auto threads = reinterpret_cast<int (*)()>(lookup("openblas_get_num_threads"))) {
      info.threads = threads();
    }
  } else if (auto blis = reinterpret_cast<const char* (*)()>(lookup("bli_info_get_version_str"))) {
    info.name = "BLIS";
    info.version = blis();
  } else if (lookup("mkl_get_version_string") != nullptr) {
    info.name = "MKL";
  } else if (Contains(info.path, "atlas")) {
    info.name = "ATLAS";
  } else if (Contains(info.path, "/blas/") || Contains(info.path, "libblas.so")) {
    info.name = "reference";  // Netlib reference BLAS, Debian's default alternative
  } else {
    info.name = info.path.substr(info.path.find_last_of('/') + 1);
  }
  if (handle != nullptr) ::dlclose(handle);
  // Debian's libraries carry their version in the resolved file name:
  // libblas.so.3.11.0 -> "3.11.0".
  size_t so = info.path.rfind(".so.");
  if (info.version.empty() && so != std::string::npos) info.version = info.path.substr(so + 4);
  return info;
}

StatusOr<int> ConfigureThreads(int requested) {
  int n = requested;
  if (n <= 0) {
    if (const char* v = std::getenv("SPYRE_REGRESS_THREADS"); v != nullptr && *v != '\0') {
      char* end = nullptr;
      long parsed = std::strtol(v, &end, 10);
      if (*end != '\0' || parsed < 1 || parsed > 1024) {
        return UsageError(std::string("SPYRE_REGRESS_THREADS='") + v +
                          "' is not a thread count: use a whole number from 1 to 1024");
      }
      n = static_cast<int>(parsed);
    }
  }
  if (n <= 0) n = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  at::set_num_threads(n);
  // OpenBLAS keeps its own count (the machine's cores unless
  // OPENBLAS_NUM_THREADS says otherwise); a worker given one thread whose
  // sgemm still fans out to every core waits on its neighbours and lands in
  // a 2-3x slower mode in some processes.
  PinBlasThreads(n);
  return at::get_num_threads();
}

StatusOr<nlohmann::json> CollectFingerprint(const std::map<std::string, std::string>& tags) {
  SPYRE_ASSIGN_OR_RETURN(const DeviceUnderTest* device, LoadDeviceUnderTest());
  // A malformed device setting (SPYRE_EMU_FAULTS...) is an error here too,
  // not a value that only fails once a worker reads it.
  if (std::string error = device->SettingsError(); !error.empty()) return UsageError(error);
  BlasInfo blas = DetectBlas();
  nlohmann::json j;
  const LibtorchInfo libtorch = DetectLibtorch();
  j["libtorch"] = libtorch.version;
  if (!libtorch.package.empty()) j["libtorch_package"] = libtorch.package;
  j["blas"] = {{"name", blas.name}, {"version", blas.version}, {"path", blas.path},
               {"config", blas.config}, {"core", blas.core}, {"threads", blas.threads}};
  j["compiler"] = CompilerName();
  j["libc"] = std::string("glibc ") + gnu_get_libc_version();
  // The device under test: which library (file and contents), and its own
  // settings beside libtorch and BLAS (the emulator's profile, rounding,
  // cores and faults), so that a change of either is attributed.
  j["device"] = device->Describe();
  const nlohmann::json settings = device->Settings();
  for (const auto& [k, v] : settings.items()) {
    if (!j.contains(k)) j[k] = v;
  }
  j["os"] = OsName();
  j["cpu"] = ReadFirstMatch("/proc/cpuinfo", "model name");
  j["threads"] = at::get_num_threads();
  j["harness"] = {{"version", HarnessVersion()}, {"git", HarnessGitRevision()}};
  j["tags"] = nlohmann::json::object();
  for (const auto& [k, v] : tags) j["tags"][k] = v;
  return j;
}

std::string FingerprintHash(const nlohmann::json& fingerprint) {
  // The software and machine only: the suite files' digests are what was
  // tested, not where, so `env` and a run of any suite agree.
  nlohmann::json what = fingerprint;
  if (what.is_object()) what.erase("suite_files");
  // nlohmann::json objects are key-sorted, so dump() is canonical.
  return Sha256Hex(what.dump()).substr(0, 16);
}

}  // namespace harness
