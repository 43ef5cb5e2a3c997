// Element-wise ops: arithmetic with broadcasting and scalars, unary math and
// activations, where / clamp / masked_fill.
#include "suites/ops/op_registry.h"

namespace suites {
namespace {

using Unary = at::Tensor (*)(const at::Tensor&);

void AddUnary(const std::string& name, Unary fn) {
  RegisterOp({name, 1, 1, {}, [fn](const Inputs& x, const Attrs&) { return Outputs{fn(x[0])}; },
              nullptr, "at::" + name + "(x)"});
}

// add/sub: two tensors (broadcasting) or a tensor and the scalar `other`,
// with `alpha` scaling the second operand.
void AddArith(const std::string& name, bool with_alpha) {
  std::vector<AttrSpec> attrs = {{"other", AttrType::kNumber, nullptr, true}};
  if (with_alpha) attrs.push_back({"alpha", AttrType::kNumber, 1});
  RegisterOp({name, 1, 2, attrs,
              [name, with_alpha](const Inputs& x, const Attrs& a) {
                const at::Scalar alpha = with_alpha ? a["alpha"].get<double>() : 1.0;
                at::Tensor out;
                const bool scalar = x.size() == 1;
                const at::Scalar other = scalar ? at::Scalar(a["other"].get<double>()) : 0.0;
                if (name == "add") out = scalar ? at::add(x[0], other, alpha) : at::add(x[0], x[1], alpha);
                if (name == "sub") out = scalar ? at::sub(x[0], other, alpha) : at::sub(x[0], x[1], alpha);
                if (name == "mul") out = scalar ? at::mul(x[0], other) : at::mul(x[0], x[1]);
                if (name == "div") out = scalar ? at::div(x[0], other) : at::div(x[0], x[1]);
                return Outputs{out};
              },
              nullptr, "at::" + name + "(a, b or scalar `other`)"});
}

// Comparisons: two tensors (broadcasting) or a tensor and the scalar
// `other`; a bool output.
void AddComparison(const std::string& name,
                   at::Tensor (*tensor_fn)(const at::Tensor&, const at::Tensor&),
                   at::Tensor (*scalar_fn)(const at::Tensor&, const at::Scalar&)) {
  RegisterOp({name,
              1,
              2,
              {{"other", AttrType::kNumber, nullptr, true}},
              [tensor_fn, scalar_fn](const Inputs& x, const Attrs& a) {
                if (x.size() == 2) return Outputs{tensor_fn(x[0], x[1])};
                return Outputs{scalar_fn(x[0], at::Scalar(a["other"].get<double>()))};
              },
              nullptr,
              "at::" + name + "(a, b or scalar `other`): bool"});
}

void RegisterElementwise() {
  AddComparison(
      "gt", [](const at::Tensor& a, const at::Tensor& b) { return at::gt(a, b); },
      [](const at::Tensor& a, const at::Scalar& b) { return at::gt(a, b); });
  AddComparison(
      "eq", [](const at::Tensor& a, const at::Tensor& b) { return at::eq(a, b); },
      [](const at::Tensor& a, const at::Scalar& b) { return at::eq(a, b); });
  AddArith("add", true);
  AddArith("sub", true);
  AddArith("mul", false);
  AddArith("div", false);
  AddUnary("neg", [](const at::Tensor& x) { return at::neg(x); });
  AddUnary("abs", [](const at::Tensor& x) { return at::abs(x); });
  AddUnary("exp", [](const at::Tensor& x) { return at::exp(x); });
  AddUnary("log", [](const at::Tensor& x) { return at::log(x); });
  AddUnary("sqrt", [](const at::Tensor& x) { return at::sqrt(x); });
  AddUnary("rsqrt", [](const at::Tensor& x) { return at::rsqrt(x); });
  AddUnary("reciprocal", [](const at::Tensor& x) { return at::reciprocal(x); });
  AddUnary("tanh", [](const at::Tensor& x) { return at::tanh(x); });
  AddUnary("sigmoid", [](const at::Tensor& x) { return at::sigmoid(x); });
  AddUnary("relu", [](const at::Tensor& x) { return at::relu(x); });
  AddUnary("silu", [](const at::Tensor& x) { return at::silu(x); });
  AddUnary("erf", [](const at::Tensor& x) { return at::erf(x); });
  RegisterOp({"gelu", 1, 1, {{"approximate", AttrType::kString, "none", false, {"none", "tanh"}}},
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::gelu(x[0], a["approximate"].get<std::string>())};
              },
              nullptr, "at::gelu(x, approximate)"});
  RegisterOp({"pow", 1, 2, {{"exponent", AttrType::kNumber, nullptr, true}},
              [](const Inputs& x, const Attrs& a) {
                if (x.size() == 2) return Outputs{at::pow(x[0], x[1])};
                // An integer exponent stays an integer Scalar: pow of an
                // integer tensor is then integer, as in libtorch.
                const nlohmann::json& e = a["exponent"];
                return Outputs{at::pow(x[0], e.is_number_integer() ? at::Scalar(e.get<int64_t>())
                                                                   : at::Scalar(e.get<double>()))};
              },
              nullptr, "at::pow(x, exponent tensor or scalar)"});
  RegisterOp({"clamp", 1, 1,
              {{"min", AttrType::kNumber, nullptr, true}, {"max", AttrType::kNumber, nullptr, true}},
              [](const Inputs& x, const Attrs& a) {
                c10::optional<at::Scalar> lo, hi;
                if (!a["min"].is_null()) lo = a["min"].get<double>();
                if (!a["max"].is_null()) hi = a["max"].get<double>();
                return Outputs{at::clamp(x[0], lo, hi)};
              },
              nullptr, "at::clamp(x, min, max)"});
  RegisterOp({"where", 3, 3, {},
              [](const Inputs& x, const Attrs&) { return Outputs{at::where(x[0], x[1], x[2])}; },
              nullptr, "at::where(cond (bool), a, b)"});
  RegisterOp({"masked_fill", 2, 2, {{"value", AttrType::kNumber, nullptr}},
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::masked_fill(x[0], x[1], a["value"].get<double>())};
              },
              nullptr, "at::masked_fill(x, mask (bool), value)"});
}

SPYRE_REGISTER_OPS(RegisterElementwise);

}  // namespace
}  // namespace suites
