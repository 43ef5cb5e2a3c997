// The two CPU computations of an op case: the golden reference and the
// yardstick in the device's format.
#include "harness/device_format.h"
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
at::Tensor Dl16(const at::Tensor& t) { return harness::RoundThroughDl16(t); }

}  // namespace

Outputs RunReference(const OpCase& oc, const Inputs& inputs) {
  Outputs outs = oc.op->run(Convert(inputs, ToDouble), oc.attrs);
  return Convert(outs, ToFloat);
}

Outputs RunYardstick(const OpCase& oc, const Inputs& inputs) {
  Outputs outs = oc.op->run(Convert(inputs, Dl16), oc.attrs);
  return Convert(outs, Dl16);
}

}  // namespace suites
