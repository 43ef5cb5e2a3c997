#include "harness/compare/compare.h"

#include <cmath>
#include <sstream>

#include "harness/compare/device_format.h"
#include "base/human_format.h"

namespace harness {
namespace {

at::Tensor AsFlatDouble(const at::Tensor& t) {
  return t.detach().cpu().to(at::kDouble).contiguous().reshape({-1});
}

// A value in a failure message: six significant digits, never an exponent
// ("bound 0.0000356633", not "3.56633e-05"); non-finite values by name.
std::string NumText(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return HumanNumber(v, 6);
}

// What was expected at an element whose NaN/Inf class differs, as the golden
// file says it and as the device's format holds it: DL16 has one code for
// NaN and both infinities, and a finite golden value may overflow the
// output dtype.
std::string ExpectedText(double golden, double on_device, bool ieee) {
  if (std::isfinite(on_device)) return NumText(on_device);
  if (!ieee) {
    return "NaN/Inf: the golden value " + NumText(golden) +
           " is DL16's one code for NaN and both infinities";
  }
  if (std::isfinite(golden)) {
    return NumText(on_device) + ": the golden value " + NumText(golden) + " overflows the dtype";
  }
  return NumText(on_device);
}

void Fail(OutputComparison* c, Criterion crit, int64_t index, const std::string& what) {
  if (!c->passed) return;  // the first failed criterion is the one reported
  c->passed = false;
  c->failed = crit;
  c->first_fail_index = index;
  c->message = c->output + " failed " + CriterionName(crit) + ": " + what;
}

}  // namespace

const char* CriterionName(Criterion c) {
  switch (c) {
    case Criterion::kNone: return "none";
    case Criterion::kShape: return "shape";
    case Criterion::kNonFinite: return "nonfinite";
    case Criterion::kElementBound: return "element_bound";
    case Criterion::kYardstickRelL2: return "yardstick_rel_l2";
    case Criterion::kMaxUlp: return "max_ulp";
    case Criterion::kMinCosine: return "min_cosine";
    case Criterion::kDtype: return "dtype";
    case Criterion::kExact: return "exact";
  }
  return "none";
}

std::string ReferenceDtypeProblem(at::ScalarType ref, at::ScalarType out) {
  const std::string r = c10::toString(ref), o = c10::toString(out);
  if (FormatKindOf(out) == FormatKind::kExact) {
    if (ref == out) return "";
    return "the reference is " + r + ", the output " + o +
           " (compared exactly, so of the same dtype)";
  }
  if (ref == at::kDouble || (ref == at::kFloat && out != at::kDouble)) return "";
  return "the reference is " + r + ", the output " + o +
         " (a floating reference is float32 or float64, at least as precise as the output)";
}

double ElementBound(const Tolerance& t, double ref_rms, double ref, const double* cpu_error) {
  double bound = t.atol_abs + t.atol_rms * ref_rms + t.rtol * std::fabs(ref);
  if (cpu_error != nullptr) bound += t.m * *cpu_error;
  return bound;
}

namespace {

// NaN, +Inf and -Inf are told apart in IEEE formats; DL16 has one code.
enum class ValueClass { kFinite, kNan, kPosInf, kNegInf };
ValueClass ClassOf(double v, bool ieee) {
  if (std::isfinite(v)) return ValueClass::kFinite;
  if (!ieee) return ValueClass::kNan;
  if (std::isnan(v)) return ValueClass::kNan;
  return v > 0 ? ValueClass::kPosInf : ValueClass::kNegInf;
}

// Integer and bool outputs: every value equal, compared as int64.
void CompareExact(const at::Tensor& out, const at::Tensor& ref, OutputComparison* c) {
  const at::Tensor o_t = out.detach().cpu().to(at::kLong).contiguous().reshape({-1});
  const at::Tensor r_t = ref.detach().cpu().to(at::kLong).contiguous().reshape({-1});
  const int64_t* o = o_t.data_ptr<int64_t>();
  const int64_t* r = r_t.data_ptr<int64_t>();
  int64_t differ = 0, first = -1;
  for (int64_t i = 0; i < c->elements; ++i) {
    if (o[i] == r[i]) continue;
    if (differ++ == 0) first = i;
  }
  c->fraction_outside =
      c->elements > 0 ? static_cast<double>(differ) / static_cast<double>(c->elements) : 0;
  if (differ > 0) {
    Fail(c, Criterion::kExact, first,
         std::to_string(differ) + " of " + std::to_string(c->elements) +
             " values differ (compared exactly); first at index " + std::to_string(first) +
             ": expected " + std::to_string(r[first]) + ", got " + std::to_string(o[first]));
  }
}

}  // namespace

OutputComparison CompareOutput(const std::string& name, const at::Tensor& out,
                               const at::Tensor& ref, const at::Tensor* cpu, const Tolerance& t,
                               c10::optional<at::ScalarType> expected, const at::Tensor* cpu_ref) {
  OutputComparison c;
  c.output = name;
  const at::ScalarType odt = out.scalar_type();
  if (expected.has_value() && odt != *expected) {
    Fail(&c, Criterion::kDtype, -1,
         std::string("dtype ") + c10::toString(odt) + ", expected " + c10::toString(*expected));
    return c;
  }
  const std::string ref_problem = ReferenceDtypeProblem(ref.scalar_type(), odt);
  if (!ref_problem.empty()) {
    Fail(&c, Criterion::kDtype, -1, ref_problem);
    return c;
  }
  if (out.sizes() != ref.sizes()) {
    std::ostringstream ss;
    ss << "shape " << out.sizes() << " differs from the reference's " << ref.sizes();
    Fail(&c, Criterion::kShape, -1, ss.str());
    return c;
  }
  const FormatKind kind = FormatKindOf(odt);
  const bool ieee = kind != FormatKind::kDl16;
  const at::Tensor o_t = AsFlatDouble(out), r_t = AsFlatDouble(ref);
  // What the reference becomes on the device decides where a non-finite
  // value is expected: fp16/bf16 live as DL16 (beyond +-8.57e9 is its NaN/Inf
  // code), then the output dtype (a golden 7e4 is Inf in fp16, 1e39 in fp32).
  const at::Tensor e_t =
      kind == FormatKind::kExact ? r_t : AsFlatDouble((ieee ? ref : RoundThroughDl16(ref)).to(odt));
  const at::Tensor y_t = cpu != nullptr ? AsFlatDouble(*cpu) : at::Tensor();
  const at::Tensor yr_t = cpu_ref != nullptr ? AsFlatDouble(*cpu_ref) : r_t;
  const double* o = o_t.data_ptr<double>();
  const double* r = r_t.data_ptr<double>();
  const double* e = e_t.data_ptr<double>();
  const double* y = cpu != nullptr ? y_t.data_ptr<double>() : nullptr;
  const int64_t n = o_t.numel();
  c.elements = n;
  // A yardstick (or its reference) of another size is no use.
  if (y != nullptr && (y_t.numel() != n || yr_t.numel() != n)) y = nullptr;
  const double* yr = y != nullptr ? yr_t.data_ptr<double>() : nullptr;
  // The yardstick's error at element i: what it adds to the bound.
  std::vector<double> width(y != nullptr ? static_cast<size_t>(n) : 0, 0.0);
  double yr2 = 0;
  for (size_t i = 0; i < width.size(); ++i) {
    if (std::isfinite(y[i]) && std::isfinite(yr[i])) {
      width[i] = std::fabs(y[i] - yr[i]);
      yr2 += yr[i] * yr[i];
    }
  }

  // Pass 1: non-finite agreement and the sums behind the aggregate metrics.
  double err2 = 0, ref2 = 0, out2 = 0, dot = 0, cpu_err2 = 0, cpu_max = 0;
  int64_t finite = 0, first_mismatch = -1;
  for (int64_t i = 0; i < n; ++i) {
    const ValueClass oc = ClassOf(o[i], ieee), ec = ClassOf(e[i], ieee);
    if (oc != ec) {
      if (c.nonfinite_mismatches++ == 0) first_mismatch = i;
      continue;
    }
    if (oc != ValueClass::kFinite || !std::isfinite(r[i])) continue;
    ++finite;
    const double d = o[i] - r[i];
    err2 += d * d;
    ref2 += r[i] * r[i];
    out2 += o[i] * o[i];
    dot += o[i] * r[i];
    c.max_abs_err = std::max(c.max_abs_err, std::fabs(d));
    c.max_ulp = std::max(c.max_ulp, std::fabs(d) / FormatUlp(r[i], odt));
    if (y != nullptr) {
      cpu_err2 += width[i] * width[i];
      cpu_max = std::max(cpu_max, width[i]);
    }
  }
  c.ref_rms = finite > 0 ? std::sqrt(ref2 / static_cast<double>(finite)) : 0.0;
  c.rel_l2 = ref2 > 0 ? std::sqrt(err2 / ref2) : std::sqrt(err2);
  c.cosine = (out2 == 0 && ref2 == 0) ? 1.0
             : (out2 == 0 || ref2 == 0) ? 0.0
                                        : dot / std::sqrt(out2 * ref2);
  if (y != nullptr) {
    const double base2 = cpu_ref != nullptr ? yr2 : ref2;
    c.cpu_rel_l2 = base2 > 0 ? std::sqrt(cpu_err2 / base2) : std::sqrt(cpu_err2);
    c.cpu_max_abs_err = cpu_max;
  }
  if (kind == FormatKind::kExact) {
    CompareExact(out, ref, &c);
    return c;
  }
  if (c.nonfinite_mismatches > 0) {
    Fail(&c, Criterion::kNonFinite, first_mismatch,
         std::to_string(c.nonfinite_mismatches) + " NaN/Inf disagreement(s), first at index " +
             std::to_string(first_mismatch) + " (expected " + ExpectedText(r[first_mismatch], e[first_mismatch], ieee) + ", got " +
             NumText(o[first_mismatch]) + ")");
  }

  // Pass 2: the element bound, with the yardstick's own error at the element.
  const double rel_floor = c.ref_rms / 512;
  const bool use_y = y != nullptr && t.yardstick;
  int64_t outside = 0, first_outside = -1;
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(o[i]) || !std::isfinite(r[i]) || !std::isfinite(e[i])) continue;
    const double d = std::fabs(o[i] - r[i]);
    if (std::fabs(r[i]) >= rel_floor && r[i] != 0) {
      c.max_rel_err = std::max(c.max_rel_err, d / std::fabs(r[i]));
    }
    if (d > ElementBound(t, c.ref_rms, r[i], use_y ? &width[i] : nullptr)) {
      if (outside++ == 0) first_outside = i;
    }
  }
  c.fraction_outside = finite > 0 ? static_cast<double>(outside) / static_cast<double>(finite) : 0;
  if (c.fraction_outside > t.max_fraction_outside) {
    const int64_t i = first_outside;
    Fail(&c, Criterion::kElementBound, i,
         std::to_string(outside) + " of " + std::to_string(finite) +
             " elements outside atol + rtol*|ref| + m*|cpu-ref|; first at index " +
             std::to_string(i) + ": ref " + NumText(r[i]) + ", got " + NumText(o[i]) + ", error " +
             NumText(std::fabs(o[i] - r[i])) + " (" +
             NumText(std::fabs(o[i] - r[i]) / FormatUlp(r[i], odt)) + " " + FormatName(odt) +
             " ULPs), bound " + NumText(ElementBound(t, c.ref_rms, r[i], use_y ? &width[i] : nullptr)));
  }
  if (use_y) {
    const double limit = t.m * c.cpu_rel_l2 + t.floor;
    if (c.rel_l2 > limit) {
      Fail(&c, Criterion::kYardstickRelL2, -1,
           "rel_l2 " + NumText(c.rel_l2) + " > " + NumText(limit) + " (" + NumText(t.m) +
               " x the CPU's own rel_l2 in the device format, " + NumText(c.cpu_rel_l2) +
               ", + floor " + NumText(t.floor) + ")");
    }
  }
  if (c.max_ulp > t.max_ulp) {
    Fail(&c, Criterion::kMaxUlp, -1,
         "max error " + NumText(c.max_ulp) + " " + FormatName(odt) + " ULPs > limit " + NumText(t.max_ulp));
  }
  if (c.cosine < t.min_cosine) {
    Fail(&c, Criterion::kMinCosine, -1,
         "cosine " + NumText(c.cosine) + " < limit " + NumText(t.min_cosine));
  }
  return c;
}

std::vector<Metric> OutputComparison::Metrics(const Tolerance& t) const {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  auto row = [&](const char* metric, double value, double limit, Criterion crit) {
    return Metric{output, metric, value, limit, !passed && failed == crit};
  };
  const double ulp_limit = std::isfinite(t.max_ulp) ? t.max_ulp : nan;
  const double cos_limit = std::isfinite(t.min_cosine) ? t.min_cosine : nan;
  const double l2_limit = t.yardstick && !std::isnan(cpu_rel_l2) ? t.m * cpu_rel_l2 + t.floor : nan;
  return {
      row("max_abs_err", max_abs_err, nan, Criterion::kNone),
      row("max_rel_err", max_rel_err, nan, Criterion::kNone),
      row("rel_l2", rel_l2, l2_limit, Criterion::kYardstickRelL2),
      row("cosine", cosine, cos_limit, Criterion::kMinCosine),
      row("max_ulp", max_ulp, ulp_limit, Criterion::kMaxUlp),
      row("nonfinite_mismatches", static_cast<double>(nonfinite_mismatches), 0,
          Criterion::kNonFinite),
      Metric{output, "fraction_outside", fraction_outside, t.max_fraction_outside,
             !passed && (failed == Criterion::kElementBound || failed == Criterion::kExact)},
      row("cpu_rel_l2", cpu_rel_l2, nan, Criterion::kNone),
      row("cpu_max_abs_err", cpu_max_abs_err, nan, Criterion::kNone),
  };
}

}  // namespace harness
