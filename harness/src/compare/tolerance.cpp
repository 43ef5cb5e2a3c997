#include "harness/tolerance.h"

#include <cmath>

#include "harness/device_format.h"

namespace harness {

Tolerance DefaultTolerance(at::ScalarType dtype, int64_t reduction_length) {
  const double u = DeviceRelativeSpacing(dtype);
  const double k = static_cast<double>(std::max<int64_t>(1, reduction_length));
  Tolerance t;
  // One spacing at the element: the device may round a result the other way
  // than the yardstick (ties, a special function's approximation).
  t.rtol = u;
  // fp32 partial sums reduced in another order (or across cores) differ by a
  // few spacings of the typical magnitude, growing with log2 of the length.
  t.atol_rms = u * (1.0 + std::log2(k)) / 4.0;
  t.m = 3;
  t.floor = u / 8;
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
