// The two CPU computations of an op case: the golden reference and the
// yardstick, the op computed the way the device computes it.
#include "harness/compare/device_format.h"
#include "op_case.h"

namespace suites {
namespace {

Inputs Convert(const Inputs& inputs, at::Tensor (*fn)(const at::Tensor&)) {
  Inputs out;
  for (const auto& t : inputs) out.push_back(at::isFloatingType(t.scalar_type()) ? fn(t) : t);
  return out;
}

at::Tensor ToDouble(const at::Tensor& t) { return t.to(at::kDouble); }
at::Tensor ToFloat(const at::Tensor& t) { return t.to(at::kFloat); }
// An operand as the device holds it: fp16/bf16 as DL16 values (decoded to
// fp32 exactly), fp32 and fp64 as they are.
at::Tensor AsOnDevice(const at::Tensor& t) {
  if (t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16) {
    return harness::RoundThroughDl16(t);
  }
  return t;
}

}  // namespace

std::vector<at::ScalarType> ExpectedOutputDtypes(const std::vector<at::ScalarType>& inputs,
                                                 const Outputs& outs) {
  c10::optional<at::ScalarType> floating;
  for (const at::ScalarType t : inputs) {
    if (!at::isFloatingType(t)) continue;
    floating = floating ? at::promoteTypes(*floating, t) : t;
  }
  std::vector<at::ScalarType> dtypes;
  for (const auto& t : outs) {
    const bool f = at::isFloatingType(t.scalar_type());
    dtypes.push_back(f && floating ? *floating : t.scalar_type());
  }
  return dtypes;
}

Outputs RunReferenceInDouble(const OpCase& oc, const Inputs& inputs) {
  return oc.op->run(Convert(inputs, ToDouble), oc.attrs);
}

Outputs RunReference(const OpCase& oc, const Inputs& inputs) {
  return Convert(RunReferenceInDouble(oc, inputs), ToFloat);
}

Outputs RunYardstick(const OpCase& oc, const Inputs& inputs) {
  Outputs outs = oc.op->run(Convert(inputs, AsOnDevice), oc.attrs);
  std::vector<at::ScalarType> in_dtypes;
  for (const auto& t : inputs) in_dtypes.push_back(t.scalar_type());
  const std::vector<at::ScalarType> dtypes = ExpectedOutputDtypes(in_dtypes, outs);
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!at::isFloatingType(outs[i].scalar_type())) continue;
    const bool dl16 = harness::FormatKindOf(dtypes[i]) == harness::FormatKind::kDl16;
    outs[i] = (dl16 ? harness::RoundThroughDl16(outs[i]) : outs[i]).to(dtypes[i]);
  }
  return outs;
}

}  // namespace suites
