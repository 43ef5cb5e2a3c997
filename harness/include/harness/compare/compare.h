#pragma once
// Comparison of one device output with its golden reference (the pass
// criteria are in tolerance.h). Returns a structured
// result, never a bare bool: every metric, the criterion that failed first,
// and the flat index of the first element that failed it.
//
//   OutputComparison c = CompareOutput("out0", device_out, golden, &yardstick, tol);
//   if (!c.passed) std::cerr << c.message << "\n";
//
// What is compared depends on the output's device format (device_format.h):
// the dtype (when the expected one is given) and the reference's dtype
// first, then the shape; integer and bool outputs must equal the reference
// exactly; floating outputs must agree on every non-finite value (NaN, +Inf
// and -Inf told apart in fp32/fp64, one NaN/Inf class in DL16) and stay
// within the bounds of tolerance.h, counted in ULPs of the output's format.
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

#include "base/case_result.h"
#include "harness/compare/tolerance.h"

namespace harness {

enum class Criterion {
  kNone,            // passed
  kShape,           // shapes differ
  kNonFinite,       // NaN/Inf disagreement
  kElementBound,    // fraction of elements outside atol + rtol|ref| + m|cpu - ref|
  kYardstickRelL2,  // rel_l2 above m x the CPU's own rel_l2 in the device format + floor
  kMaxUlp,
  kMinCosine,
  kDtype,  // the output's dtype is not the expected one, or the reference's cannot serve it
  kExact,  // integer / bool values differ
};
const char* CriterionName(
    Criterion c);  // "shape", "nonfinite", "element_bound", "dtype", "exact", ...

struct OutputComparison {
  std::string output;
  bool passed = true;
  Criterion failed = Criterion::kNone;
  int64_t first_fail_index = -1;  // flat (row-major) index; -1 when none
  std::string message;            // empty when passed

  int64_t elements = 0;
  double max_abs_err = 0, max_rel_err = 0, rel_l2 = 0, cosine = 1;
  double max_ulp = 0;  // in ULPs of the output's device format (FormatUlp)
  int64_t nonfinite_mismatches = 0;
  double fraction_outside = 0;
  double ref_rms = 0;
  // The yardstick's own error (against cpu_ref when given, else ref); NaN without one.
  double cpu_rel_l2 = std::numeric_limits<double>::quiet_NaN();
  double cpu_max_abs_err = std::numeric_limits<double>::quiet_NaN();

  // The metrics as CaseResult rows (limits filled where a criterion applies).
  std::vector<Metric> Metrics(const Tolerance& t) const;
};

// Why a reference of dtype `ref` cannot serve as the golden values of an
// output of dtype `out`, or empty when it can: a floating output needs an
// fp32 or fp64 reference (at least as precise as the device's own result),
// an integer or bool output a reference of its own dtype.
std::string ReferenceDtypeProblem(at::ScalarType ref, at::ScalarType out);

// The element bound of tolerance.h at one element: atol + rtol * |ref| +
// m * cpu_error (the last term only with a yardstick: its error at the
// element, see CompareOutput), where atol = atol_abs + atol_rms * ref_rms.
double ElementBound(const Tolerance& t, double ref_rms, double ref, const double* cpu_error);

// `out` and `ref` may have any layout; `cpu` (the yardstick) may be null.
// `expected`, when given, is the dtype the output must have. `cpu_ref`, when
// given, is a fresh high-precision reference of the same output that the
// yardstick's error is measured against instead of `ref`: the width the
// yardstick adds to the bounds then does not depend on the golden values
// being judged, so a wrong golden value cannot widen its own bound. Floating
// values are compared in double, integers as int64.
OutputComparison CompareOutput(const std::string& name, const at::Tensor& out,
                               const at::Tensor& ref, const at::Tensor* cpu, const Tolerance& t,
                               c10::optional<at::ScalarType> expected = c10::nullopt,
                               const at::Tensor* cpu_ref = nullptr);

}  // namespace harness
