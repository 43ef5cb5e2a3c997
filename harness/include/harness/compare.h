#pragma once
// Comparison of one device output with its golden reference (DESIGN.md,
// "Comparison"; the pass criteria are in tolerance.h). Returns a structured
// result, never a bare bool: every metric, the criterion that failed first,
// and the flat index of the first element that failed it.
//
//   OutputComparison c = CompareOutput("out0", device_out, golden, &yardstick, tol);
//   if (!c.passed) std::cerr << c.message << "\n";
//
// Edge cases: empty tensors pass with zero errors; metrics are over elements
// finite in both (a NaN never hides inside a max); rel_l2 with an all-zero
// reference is the absolute L2 norm of the error; cosine of two zero vectors
// is 1; max_rel skips elements with |ref| below rms(ref) / 512 (those are
// held to the absolute part of the bound).
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <ATen/ATen.h>

#include "harness/case_result.h"
#include "harness/tolerance.h"

namespace harness {

enum class Criterion {
  kNone,            // passed
  kShape,           // shapes differ
  kNonFinite,       // NaN/Inf disagreement
  kElementBound,    // fraction of elements outside atol + rtol|ref| + m|cpu - ref|
  kYardstickRelL2,  // rel_l2 above m x the CPU's own rel_l2 in the device format + floor
  kMaxUlp,
  kMinCosine,
};
const char* CriterionName(Criterion c);  // "shape", "nonfinite", "element_bound", ...

struct OutputComparison {
  std::string output;
  bool passed = true;
  Criterion failed = Criterion::kNone;
  int64_t first_fail_index = -1;  // flat (row-major) index; -1 when none
  std::string message;            // empty when passed

  int64_t elements = 0;
  double max_abs_err = 0, max_rel_err = 0, rel_l2 = 0, cosine = 1, max_ulp = 0;
  int64_t nonfinite_mismatches = 0;
  double fraction_outside = 0;
  double ref_rms = 0;
  double cpu_rel_l2 = std::numeric_limits<double>::quiet_NaN();  // yardstick; NaN without one
  double cpu_max_abs_err = std::numeric_limits<double>::quiet_NaN();

  // The metrics as CaseResult rows (limits filled where a criterion applies).
  std::vector<Metric> Metrics(const Tolerance& t) const;
};

// `out` and `ref` may have any dtype and layout; `cpu` (the yardstick) may be
// null. Everything is compared in double.
OutputComparison CompareOutput(const std::string& name, const at::Tensor& out,
                               const at::Tensor& ref, const at::Tensor* cpu, const Tolerance& t);

}  // namespace harness
