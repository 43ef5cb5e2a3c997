#include "harness/compare/tolerance.h"

#include <cmath>

#include "harness/compare/device_format.h"

namespace harness {
namespace {

constexpr double kIeeeElementUlps = 8;
constexpr double kIeeeFloorUlps = 1;

}  // namespace

Tolerance DefaultTolerance(at::ScalarType dtype, int64_t reduction_length) {
  const double u = DeviceRelativeSpacing(dtype);
  const double k = static_cast<double>(std::max<int64_t>(1, reduction_length));
  Tolerance t;
  if (FormatKindOf(dtype) == FormatKind::kExact) {
    // Integers and bool are compared exactly (compare.h); no bound applies.
    t.m = 0;
    t.yardstick = false;
    return t;
  }
  // The 16-bit rows hold for fp16 and bf16 whether the device stores them
  // as DL16 or in their own format (u is then that format's spacing).
  const bool dl16 = dtype == at::kHalf || dtype == at::kBFloat16;
  // At the element, in ULPs of the output's format: DL16 results are the
  // correctly rounded value or its neighbour (one spacing: ties, the
  // rounding mode); fp32 results of the device's special functions are
  // within 2 to 8 fp32 ULPs of the correctly rounded value (erf's 8 is the
  // worst, special_math.h) where the CPU's are within one (kIeeeElementUlps).
  t.rtol = (dl16 ? 1.0 : kIeeeElementUlps) * u;
  // fp32 partial sums reduced in another order (or across cores) differ by a
  // few spacings of the typical magnitude, growing with log2 of the length:
  // a quarter of a DL16 spacing per doubling; in fp32, one spacing per
  // doubling, since one fp32 rounding of an operand (a * alpha before
  // a + alpha * b, a partial sum) is already a whole spacing of the typical
  // magnitude where the result itself cancels to a small value.
  t.atol_rms = u * (1.0 + std::log2(k)) / (dl16 ? 4.0 : 1.0);
  t.m = 3;
  // The aggregate floor: an eighth of a spacing in DL16; in fp32, where the
  // CPU's own error is often zero (correctly rounded ops), the device's
  // approximations may still add a couple of ULPs on average.
  t.floor = dl16 ? u / 8 : kIeeeFloorUlps * u;
  return t;
}

Status ApplyToleranceOverrides(const nlohmann::json& j, const std::string& pointer, Tolerance* t) {
  if (!j.is_object()) return InvalidInput(pointer + ": expected a tolerance object");
  for (const auto& [key, value] : j.items()) {
    const std::string where = pointer + "/" + key;
    if (key == "yardstick") {
      if (!value.is_boolean()) return InvalidInput(where + ": expected a boolean");
      t->yardstick = value.get<bool>();
      continue;
    }
    double* field = key == "atol"                   ? &t->atol_abs
                    : key == "atol_rms"             ? &t->atol_rms
                    : key == "rtol"                 ? &t->rtol
                    : key == "m"                    ? &t->m
                    : key == "floor"                ? &t->floor
                    : key == "max_fraction_outside" ? &t->max_fraction_outside
                    : key == "max_ulp"              ? &t->max_ulp
                    : key == "min_cosine"           ? &t->min_cosine
                                                    : nullptr;
    if (field == nullptr) {
      return InvalidInput(where + ": unknown tolerance field (use atol, atol_rms, rtol, m, floor, "
                                  "yardstick, max_fraction_outside, max_ulp, min_cosine)");
    }
    if (!value.is_number() || value.get<double>() < -1.0) {
      return InvalidInput(where + ": expected a number");
    }
    *field = value.get<double>();
  }
  return Status::Ok();
}

nlohmann::json ToJson(const Tolerance& t) {
  nlohmann::json j = {{"atol", t.atol_abs}, {"atol_rms", t.atol_rms}, {"rtol", t.rtol},
                      {"m", t.m},           {"floor", t.floor},       {"yardstick", t.yardstick},
                      {"max_fraction_outside", t.max_fraction_outside}};
  if (std::isfinite(t.max_ulp)) j["max_ulp"] = t.max_ulp;
  if (std::isfinite(t.min_cosine)) j["min_cosine"] = t.min_cosine;
  return j;
}

}  // namespace harness
