// Fuzz entry: the SPYRE_EMU_FAULTS parser (device core, torch-free).
// Any byte string must give either a plan whose values keep the documented
// bounds, or one error line naming the entry, with the output plan untouched.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_check.h"
#include "spyre_emu/faults.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  spyre_emu::FaultPlan plan;
  const spyre_emu::Status parsed = spyre_emu::FaultPlan::Parse(spec, &plan);
  if (!parsed.ok()) {
    const std::string& error = parsed.message();
    FUZZ_CHECK(parsed.code() == spyre_emu::ErrorCode::kInvalidArgument, error);
    FUZZ_CHECK(!error.empty(), "a rejected spec must say why");
    FUZZ_CHECK(error.find('\n') == std::string::npos, error);
    FUZZ_CHECK(error.rfind("SPYRE_EMU_FAULTS", 0) == 0, error);
    FUZZ_CHECK(plan.empty(), "a failed parse must leave the plan unchanged");
    return 0;
  }
  for (const auto& [op, f] : plan.ops()) {
    FUZZ_CHECK(!op.empty(), "empty op name accepted");
    FUZZ_CHECK(plan.Find(op) == &f, op);
    FUZZ_CHECK(std::isfinite(f.slow) && f.slow >= 1.0, op);
    FUZZ_CHECK(std::isfinite(f.error) && f.error >= 0.0, op);
    if (f.error > 0) (void)spyre_emu::ErrorFactor(f.error, static_cast<int64_t>(size));
  }
  return 0;
}
