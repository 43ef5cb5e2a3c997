#include "spyre_emu/runtime.h"

#include <atomic>
#include <mutex>

namespace spyre_emu {

namespace {

// The emulated device's settings: the one piece of global state the core
// keeps besides the memory manager and stats. The hot fields are mirrored in
// atomics so kernels can read them without taking the lock.
struct Settings {
  std::mutex mu;
  Config config;
  std::string error;
  std::atomic<int> rounding{0};
  std::atomic<int> profile{0};
  std::atomic<uint64_t> generation{0};
  std::atomic<int> cores{kMaxCores};
  std::atomic<uint64_t> capacity{kDefaultMemoryBytes};
  std::atomic<bool> fence{false};
  std::atomic<bool> strict{false};
  std::atomic<bool> has_error{false};

  Settings() {
    const Status parsed = ParseConfig(ProcessEnvironment(), &config);
    if (!parsed.ok()) error = parsed.message();
    Mirror();
  }
  void Mirror() {
    rounding = static_cast<int>(config.rounding);
    profile = static_cast<int>(config.profile);
    cores = config.cores;
    capacity = config.memory_bytes;
    fence = config.fence;
    strict = config.strict;
    has_error = !error.empty();
  }
};

Settings& GetSettings() {
  static Settings* settings = new Settings();  // never destroyed: used by static destructors
  return *settings;
}

}  // namespace

Config CurrentConfig() {
  Settings& s = GetSettings();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.config;
}

Rounding CurrentRounding() { return static_cast<Rounding>(GetSettings().rounding.load()); }
Profile CurrentProfile() { return static_cast<Profile>(GetSettings().profile.load()); }
uint64_t ConfigGeneration() { return GetSettings().generation.load(std::memory_order_acquire); }
int CurrentCores() { return GetSettings().cores.load(); }
uint64_t CurrentCapacity() { return GetSettings().capacity.load(); }
bool FenceEnabled() { return GetSettings().fence.load(); }
bool StrictEnabled() { return GetSettings().strict.load(); }

std::string ConfigError() {
  Settings& s = GetSettings();
  if (!s.has_error.load()) return std::string();
  std::lock_guard<std::mutex> lock(s.mu);
  return s.error;
}

void SetConfig(const Config& config) {
  Settings& s = GetSettings();
  std::lock_guard<std::mutex> lock(s.mu);
  s.config = config;
  s.error.clear();
  s.Mirror();
  s.generation.fetch_add(1, std::memory_order_release);
}

}  // namespace spyre_emu
