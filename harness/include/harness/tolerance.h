#pragma once
// The tolerance policy (README, "Tolerance policy"). An output passes when
//  1. every non-finite reference value (after rounding through DL16 for
//     fp16/bf16 outputs, then to the output dtype) is non-finite on the
//     device and vice versa (DL16 has one NaN/Inf code, so NaN and +-Inf are
//     not told apart);
//  2. at most `max_fraction_outside` of the elements has
//       |out - ref| > atol + rtol * |ref| + m * |cpu - ref|
//     where `cpu` is the yardstick: the CPU computing the same case in the
//     device's format (operands and result rounded through DL16), and
//       atol = atol_abs + atol_rms * rms(ref),
//       atol_rms = u * (1 + log2(K)) / 4, rtol = u,
//     u = DeviceRelativeSpacing(dtype) (2^-9, bf16 2^-7), K = reduction length;
//  3. rel_l2(out, ref) <= m * rel_l2(cpu, ref) + floor (floor = u / 8), the
//     aggregate yardstick: the device may be at most m times as wrong as the
//     CPU is in the device's own format;
//  4. optional limits when set: max_ulp (DL16 ULPs) and min_cosine.
// Suite files override any field per op ("tolerances": {"op": {...}}) and per
// case ("tolerance": {...}); the case wins.
#include <cstdint>
#include <limits>
#include <string>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "harness/status.h"

namespace harness {

struct Tolerance {
  double atol_abs = 0;                // absolute floor of the element bound
  double atol_rms = 0;                // ... plus this times rms(ref)
  double rtol = 0;                    // relative part of the element bound
  double m = 3;                       // yardstick factor (per element and aggregate)
  double floor = 0;                   // aggregate yardstick floor on rel_l2
  bool yardstick = true;              // false: criteria 2-3 ignore the CPU's error
  double max_fraction_outside = 0;    // of finite elements
  double max_ulp = std::numeric_limits<double>::infinity();  // DL16 ULPs; inf = no limit
  double min_cosine = -std::numeric_limits<double>::infinity();
};

// The default for an output of `dtype` whose elements each reduce over
// `reduction_length` products or terms (1 for element-wise ops).
Tolerance DefaultTolerance(at::ScalarType dtype, int64_t reduction_length);

// Applies the members of an override object ("atol", "atol_rms", "rtol",
// "m", "floor", "yardstick", "max_fraction_outside", "max_ulp",
// "min_cosine"); an unknown member or a wrong type is an error naming
// `pointer`.
Status ApplyToleranceOverrides(const nlohmann::json& j, const std::string& pointer, Tolerance* t);

nlohmann::json ToJson(const Tolerance& t);

}  // namespace harness
