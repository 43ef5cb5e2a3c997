#pragma once
// Emulator settings, read from the environment (docs/cli.md):
//   SPYRE_EMU_PROFILE   inductor (default) | sendnn
//   SPYRE_EMU_ROUNDING  nearest-away (default) | nearest-even | truncate
//   SPYRE_EMU_CORES     1..32 (default 32)
//   SPYRE_EMU_MEMORY    device capacity in bytes (default 128 GiB)
//   SPYRE_EMU_FAULTS    fault spec, kept verbatim here; parsed by faults.h
//   SPYRE_EMU_FENCE     1 = device memory is PROT_NONE outside runtime access
//   SPYRE_EMU_STRICT    1 = a CPU fallback is an error naming the op
// Torch-free: part of the emulator core.
#include <cstdint>
#include <functional>
#include <string>

#include "spyre_emu/status.h"

namespace spyre_emu {

enum class Profile { kInductor, kSendnn };
enum class Rounding { kNearestAway, kNearestEven, kTruncate };

constexpr int kMaxCores = 32;
constexpr uint64_t kDefaultMemoryBytes = 128ull << 30;  // 128 GB LPDDR5

struct Config {
  Profile profile = Profile::kInductor;
  Rounding rounding = Rounding::kNearestAway;
  int cores = kMaxCores;
  uint64_t memory_bytes = kDefaultMemoryBytes;
  std::string faults;  // raw SPYRE_EMU_FAULTS text
  bool fence = false;
  bool strict = false;
};

const char* ProfileName(Profile p);    // "inductor" | "sendnn"
const char* RoundingName(Rounding r);  // "nearest-away" | "nearest-even" | "truncate"

// Looks up an environment variable; returns false when it is unset.
using EnvLookup = std::function<bool(const char* name, std::string* value)>;
// The process environment (getenv).
EnvLookup ProcessEnvironment();

// Parses the settings into *out. A malformed value is kInvalidArgument with
// one line naming the variable, the value and what is accepted; *out is then
// left unchanged.
Status ParseConfig(const EnvLookup& env, Config* out);

}  // namespace spyre_emu
