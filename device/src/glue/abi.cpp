// The emulator's side of the device ABI (spyre_regress/device_abi.h): what
// the harness reads from it after loading the library, and nothing else.
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "spyre_emu/config.h"
#include "spyre_emu/faults.h"
#include "spyre_emu/runtime.h"
#include "spyre_emu/stats.h"
#include "spyre_emu/trace.h"
#include "spyre_emu/version.h"
#include "spyre_regress/device_abi.h"

namespace spyre_emu {
namespace {

struct AbiState {
  std::mutex mu;
  int64_t next_scope = 0;
  std::map<int64_t, std::unique_ptr<TraceScope>> scopes;
  bool injected = false;  // inject_faults was called: its spec replaces SPYRE_EMU_FAULTS
  std::string injected_spec;
};

AbiState& State() {
  static AbiState* state = new AbiState();  // never destroyed: used by static destructors
  return *state;
}

thread_local std::string tls_text;

const char* Keep(std::string text) {
  tls_text = std::move(text);
  return tls_text.c_str();
}

const char* AbiName() { return "spyre_emu"; }
const char* AbiVersion() { return Version(); }
const char* AbiBuildId() { return Keep(std::string("spyre_emu ") + Version() + " " + __VERSION__); }

// The settings are read from the environment each time, as a worker reads
// them at its start: the harness may set SPYRE_EMU_PROFILE after loading.
const char* AbiSettingsJson() {
  Config config;
  // A malformed setting is AbiSettingsError's to report; the defaults stand.
  (void)ParseConfig(ProcessEnvironment(), &config);
  AbiState& s = State();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.injected) config.faults = s.injected_spec;
  }
  nlohmann::json j = {{"spyre_emu", Version()},
                      {"profile", ProfileName(config.profile)},
                      {"rounding", RoundingName(config.rounding)},
                      {"cores", config.cores},
                      {"faults", config.faults}};
  return Keep(j.dump());
}

const char* AbiSettingsError() {
  Config config;
  if (Status s = ParseConfig(ProcessEnvironment(), &config); !s.ok()) return Keep(s.message());
  FaultPlan faults;
  if (Status s = FaultPlan::Parse(config.faults, &faults); !s.ok()) return Keep(s.message());
  return "";
}

int32_t AbiMemoryStats(uint64_t* live, uint64_t* peak) {
  const Stats s = stats();
  *live = s.live_bytes;
  *peak = s.peak_bytes;
  return 0;
}

void AbiOpCounts(spyre_device_op_count_sink sink, void* context) {
  const Stats s = stats();
  for (const auto& [op, count] : s.ops) {
    sink(context, op.c_str(), count.device_kernel, count.cpu_fallback);
  }
}

int64_t AbiTraceBegin() {
  AbiState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  const int64_t id = s.next_scope++;
  s.scopes[id] = std::make_unique<TraceScope>();
  return id;
}

void AbiTraceEnd(int64_t scope, spyre_device_event_sink sink, void* context) {
  std::unique_ptr<TraceScope> open;
  {
    AbiState& s = State();
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.scopes.find(scope);
    if (it == s.scopes.end()) return;
    open = std::move(it->second);
    s.scopes.erase(it);
  }
  // Copies and transfers are device activity but not operator calls.
  for (const TraceEvent& e : open->events()) {
    if (e.kind != EventKind::kKernel && e.kind != EventKind::kCpuFallback) continue;
    spyre_device_event out{};
    out.op = e.op.c_str();
    out.kind =
        e.fallback || e.kind == EventKind::kCpuFallback ? SPYRE_EVENT_FALLBACK : SPYRE_EVENT_KERNEL;
    out.modeled_ns = e.modeled_ns;
    out.wall_ns = e.wall_ns;
    sink(context, &out);
  }
}

int32_t AbiInjectFaults(const char* spec, char* error, size_t error_size) {
  FaultPlan plan;
  if (Status parsed = FaultPlan::Parse(spec == nullptr ? "" : spec, &plan); !parsed.ok()) {
    if (error != nullptr && error_size > 0) {
      std::strncpy(error, parsed.message().c_str(), error_size - 1);
      error[error_size - 1] = '\0';
    }
    return 1;
  }
  Config config = CurrentConfig();
  config.faults = spec == nullptr ? "" : spec;
  SetConfig(config);
  AbiState& s = State();
  std::lock_guard<std::mutex> lock(s.mu);
  s.injected = true;
  s.injected_spec = config.faults;
  return 0;
}

void AbiReset() { reset_stats(); }

int32_t AbiStorageFormat(int32_t dtype) {
  return dtype == SPYRE_DTYPE_FP16 || dtype == SPYRE_DTYPE_BF16 ? SPYRE_FORMAT_DL16
                                                                : SPYRE_FORMAT_NATIVE;
}

const spyre_device_abi kAbi = {
    sizeof(spyre_device_abi),
    SPYRE_DEVICE_ABI_VERSION,
    AbiName,
    AbiVersion,
    AbiBuildId,
    AbiSettingsJson,
    AbiSettingsError,
    AbiMemoryStats,
    AbiOpCounts,
    AbiTraceBegin,
    AbiTraceEnd,
    AbiInjectFaults,
    AbiReset,
    AbiStorageFormat,
};

}  // namespace
}  // namespace spyre_emu

extern "C" __attribute__((visibility("default"))) const spyre_device_abi*
spyre_regress_device_abi() {
  return &spyre_emu::kAbi;
}
