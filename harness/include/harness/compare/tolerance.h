#pragma once
// The tolerance policy (docs/judging.md). Integer and bool
// outputs are compared exactly (compare.h); no tolerance applies. A floating
// output passes when
//  1. every non-finite reference value is non-finite on the device in the
//     same way: NaN, +Inf and -Inf told apart for fp32/fp64 outputs; for
//     fp16/bf16 outputs (DL16 on the device, one NaN/Inf code) the
//     reference is rounded through DL16 and then to the output dtype, and
//     only finite vs non-finite counts;
//  2. at most `max_fraction_outside` of the elements has
//       |out - ref| > atol + rtol * |ref| + m * |cpu - ref64|
//     where `cpu` is the yardstick (the CPU computing the case the way the
//     device does: fp32 ops in fp32, fp16/bf16 ops through DL16) and ref64
//     a fresh fp64 computation of it, and
//       atol = atol_abs + atol_rms * rms(ref),
//       fp32/fp64: rtol = 8u, atol_rms = u * (1 + log2(K)),
//       fp16/bf16: rtol = u,  atol_rms = u * (1 + log2(K)) / 4,
//     u = DeviceRelativeSpacing(dtype) (fp32 2^-23, fp16 2^-9, bf16 2^-7),
//     K = reduction length (1 for element-wise ops);
//  3. rel_l2(out, ref) <= m * rel_l2(cpu, ref64) + floor (floor = u for
//     fp32, u / 8 for DL16), the aggregate yardstick: the device may be at
//     most m times as wrong as the CPU is in the device's own format;
//  4. optional limits when set: max_ulp (ULPs of the output's format) and
//     min_cosine.
// Suite files override any field per op ("tolerances": {"op": {...}}) and per
// case ("tolerance": {...}); the case wins.
#include <cstdint>
#include <limits>
#include <string>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "base/status.h"

namespace harness {

struct Tolerance {
  double atol_abs = 0;                // absolute floor of the element bound
  double atol_rms = 0;                // ... plus this times rms(ref)
  double rtol = 0;                    // relative part of the element bound
  double m = 3;                       // yardstick factor (per element and aggregate)
  double floor = 0;                   // aggregate yardstick floor on rel_l2
  bool yardstick = true;              // false: criteria 2-3 ignore the CPU's error
  double max_fraction_outside = 0;    // of finite elements
  double max_ulp = std::numeric_limits<double>::infinity();  // format ULPs; inf = no limit
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
