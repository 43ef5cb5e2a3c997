#include "spyre_emu/config.h"

#include <cerrno>
#include <cstdlib>
#include <utility>

namespace spyre_emu {

const char* ProfileName(Profile p) { return p == Profile::kSendnn ? "sendnn" : "inductor"; }

const char* RoundingName(Rounding r) {
  switch (r) {
    case Rounding::kNearestAway: return "nearest-away";
    case Rounding::kNearestEven: return "nearest-even";
    case Rounding::kTruncate: return "truncate";
  }
  return "nearest-away";
}

EnvLookup ProcessEnvironment() {
  return [](const char* name, std::string* value) {
    const char* v = std::getenv(name);
    if (v == nullptr) return false;
    *value = v;
    return true;
  };
}

namespace {

bool ParseUnsigned(const std::string& s, uint64_t* out) {
  if (s.empty() || s[0] == '-' || s[0] == '+') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long v = std::strtoull(s.c_str(), &end, 10);
  if (errno != 0 || end == s.c_str() || *end != '\0') return false;
  *out = v;
  return true;
}

Status Invalid(std::string message) {
  return Status(ErrorCode::kInvalidArgument, std::move(message));
}

Status ParseFlag(const char* name, const std::string& v, bool* out) {
  if (v == "1" || v == "true" || v == "on") { *out = true; return Status(); }
  if (v.empty() || v == "0" || v == "false" || v == "off") { *out = false; return Status(); }
  return Invalid(std::string(name) + "='" + v + "' is not a switch: use 1 or 0");
}

}  // namespace

Status ParseConfig(const EnvLookup& env, Config* out) {
  Config c;
  std::string v;
  if (env("SPYRE_EMU_PROFILE", &v) && !v.empty()) {
    if (v == "inductor") c.profile = Profile::kInductor;
    else if (v == "sendnn") c.profile = Profile::kSendnn;
    else return Invalid("SPYRE_EMU_PROFILE='" + v + "' is not a profile: use inductor or sendnn");
  }
  if (env("SPYRE_EMU_ROUNDING", &v) && !v.empty()) {
    if (v == "nearest-away") c.rounding = Rounding::kNearestAway;
    else if (v == "nearest-even") c.rounding = Rounding::kNearestEven;
    else if (v == "truncate") c.rounding = Rounding::kTruncate;
    else return Invalid("SPYRE_EMU_ROUNDING='" + v + "' is not a rounding mode: use nearest-away, nearest-even or truncate");
  }
  if (env("SPYRE_EMU_CORES", &v) && !v.empty()) {
    uint64_t n = 0;
    if (!ParseUnsigned(v, &n) || n < 1 || n > kMaxCores) {
      return Invalid("SPYRE_EMU_CORES='" + v + "' is out of range: use a whole number from 1 to 32");
    }
    c.cores = static_cast<int>(n);
  }
  if (env("SPYRE_EMU_MEMORY", &v) && !v.empty()) {
    uint64_t n = 0;
    if (!ParseUnsigned(v, &n) || n == 0) {
      return Invalid("SPYRE_EMU_MEMORY='" + v + "' is not a byte count: use a positive whole number of bytes");
    }
    c.memory_bytes = n;
  }
  if (env("SPYRE_EMU_FAULTS", &v)) c.faults = v;
  for (const auto& [name, flag] : {std::pair{"SPYRE_EMU_FENCE", &c.fence},
                                   std::pair{"SPYRE_EMU_STRICT", &c.strict}}) {
    if (!env(name, &v)) continue;
    Status parsed = ParseFlag(name, v, flag);
    if (!parsed.ok()) return parsed;
  }
  *out = c;
  return Status();
}

}  // namespace spyre_emu
