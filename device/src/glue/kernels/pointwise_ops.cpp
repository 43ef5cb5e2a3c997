// Element-wise ops: add/sub/mul/div/pow with broadcasting and scalars, the
// unary maps, clamp, where and masked_fill_. Integer and bool tensors (and
// comparisons, which produce bool) go to the counted CPU fallback.
#include <torch/library.h>

#include "glue/kernels/kernel_support.h"

namespace spyre_emu::device_kernels {
namespace {

// A CPU 0-dim tensor (a wrapped Python/C++ number) acts as a scalar.
bool IsHostScalar(const at::Tensor& t) { return !glue::IsDevice(t) && t.dim() == 0; }

bool FloatOperand(const at::Tensor& t) { return IsHostScalar(t) || KernelDtype(t); }

Operand MakeOperand(const at::Tensor& t, at::IntArrayRef shape) {
  Operand o;
  if (IsHostScalar(t)) {
    o.scalar = t.item<float>();
    return o;
  }
  o.data = glue::Data(t);
  o.type = CoreType(t.scalar_type());
  o.strides = BroadcastStrides(t, shape);
  return o;
}

// Vector steps per element of each unary op (cost model). A special function
// counts as one step, as exp does in the calibrated softmax (max, sub, exp,
// sum, div = 5 steps); composites count their elementary steps.
double UnarySteps(UnaryOp op) {
  switch (op) {
    case UnaryOp::kSilu:       // sigmoid, mul
    case UnaryOp::kPowScalar:  // log, exp (x^2 is one mul, counted the same)
      return 2;
    case UnaryOp::kGelu:  // scale, erf, add, mul
      return 4;
    case UnaryOp::kGeluTanh:  // cube, fused add, scale, tanh, add, mul
      return 6;
    default:
      return 1;
  }
}

at::Tensor BinaryKernel(const char* op, BinaryOp kind, const at::Tensor& a, const at::Tensor& b,
                        float alpha) {
  KernelCall call(op);
  const at::ScalarType dtype = at::result_type(a, b);
  const bool device_ok = (glue::IsDevice(a) || glue::IsDevice(b)) && FloatOperand(a) &&
                         FloatOperand(b) &&
                         (dtype == at::kHalf || dtype == at::kBFloat16 || dtype == at::kFloat);
  if (call.fallback() || !device_ok) return at::Tensor();
  const std::vector<int64_t> shape = at::infer_size(a.sizes(), b.sizes());
  at::Tensor out = glue::EmptyDevice(shape, dtype);
  {
    glue::DeviceAccess access({a, b, out});
    RunBinary(kind, alpha, MakeOperand(a, shape), MakeOperand(b, shape), glue::Data(out),
              CoreType(dtype), shape, MakeExec());
  }
  const int64_t cols = shape.empty() ? 1 : shape.back();
  call.Finish({a, b}, out,
              VectorCost(VectorKind::kElementwise, out.numel() / std::max<int64_t>(1, cols), cols,
                         dtype, {a, b, out}, 1));
  return out;
}

at::Tensor Add(const at::Tensor& a, const at::Tensor& b, const at::Scalar& alpha) {
  at::Tensor out = BinaryKernel("add", BinaryOp::kAdd, a, b, alpha.toFloat());
  return out.defined() ? out
                       : glue::CallCpuFallback<at::Tensor>("aten::add", "Tensor", a, b, alpha);
}
at::Tensor Sub(const at::Tensor& a, const at::Tensor& b, const at::Scalar& alpha) {
  at::Tensor out = BinaryKernel("sub", BinaryOp::kSub, a, b, alpha.toFloat());
  return out.defined() ? out
                       : glue::CallCpuFallback<at::Tensor>("aten::sub", "Tensor", a, b, alpha);
}
at::Tensor Rsub(const at::Tensor& a, const at::Tensor& b, const at::Scalar& alpha) {
  // rsub(a, b, alpha) = b - alpha * a.
  at::Tensor out = BinaryKernel("rsub", BinaryOp::kSub, b, a, alpha.toFloat());
  return out.defined() ? out
                       : glue::CallCpuFallback<at::Tensor>("aten::rsub", "Tensor", a, b, alpha);
}
at::Tensor Mul(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor out = BinaryKernel("mul", BinaryOp::kMul, a, b, 1);
  return out.defined() ? out : glue::CallCpuFallback<at::Tensor>("aten::mul", "Tensor", a, b);
}
at::Tensor Div(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor out = BinaryKernel("div", BinaryOp::kDiv, a, b, 1);
  return out.defined() ? out : glue::CallCpuFallback<at::Tensor>("aten::div", "Tensor", a, b);
}
at::Tensor PowTensor(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor out = BinaryKernel("pow", BinaryOp::kPow, a, b, 1);
  return out.defined() ? out
                       : glue::CallCpuFallback<at::Tensor>("aten::pow", "Tensor_Tensor", a, b);
}
at::Tensor Maximum(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor out = BinaryKernel("maximum", BinaryOp::kMaximum, a, b, 1);
  return out.defined() ? out : glue::CallCpuFallback<at::Tensor>("aten::maximum", "", a, b);
}
at::Tensor Minimum(const at::Tensor& a, const at::Tensor& b) {
  at::Tensor out = BinaryKernel("minimum", BinaryOp::kMinimum, a, b, 1);
  return out.defined() ? out : glue::CallCpuFallback<at::Tensor>("aten::minimum", "", a, b);
}

// In-place forms: compute out of place, then copy into self (a device copy).
at::Tensor& Inplace(const char* op, BinaryOp kind, at::Tensor& self, const at::Tensor& b,
                    float alpha, const std::function<void()>& fallback) {
  at::Tensor out = BinaryKernel(op, kind, self, b, alpha);
  if (!out.defined() || out.scalar_type() != self.scalar_type() || out.sizes() != self.sizes()) {
    fallback();
    return self;
  }
  return self.copy_(out);
}
at::Tensor& AddInplace(at::Tensor& self, const at::Tensor& b, const at::Scalar& alpha) {
  return Inplace("add_", BinaryOp::kAdd, self, b, alpha.toFloat(), [&] {
    glue::CallCpuFallback<at::Tensor>("aten::add_", "Tensor", self, b, alpha);
  });
}
at::Tensor& SubInplace(at::Tensor& self, const at::Tensor& b, const at::Scalar& alpha) {
  return Inplace("sub_", BinaryOp::kSub, self, b, alpha.toFloat(), [&] {
    glue::CallCpuFallback<at::Tensor>("aten::sub_", "Tensor", self, b, alpha);
  });
}
at::Tensor& MulInplace(at::Tensor& self, const at::Tensor& b) {
  return Inplace("mul_", BinaryOp::kMul, self, b, 1,
                 [&] { glue::CallCpuFallback<at::Tensor>("aten::mul_", "Tensor", self, b); });
}
at::Tensor& DivInplace(at::Tensor& self, const at::Tensor& b) {
  return Inplace("div_", BinaryOp::kDiv, self, b, 1,
                 [&] { glue::CallCpuFallback<at::Tensor>("aten::div_", "Tensor", self, b); });
}

at::Tensor UnaryKernel(const char* op, UnaryOp kind, const at::Tensor& x, UnaryParams params,
                       const std::function<at::Tensor()>& fallback) {
  KernelCall call(op);
  if (call.fallback() || !KernelDtype(x)) return fallback();
  const at::Tensor in = x.contiguous();
  at::Tensor out = glue::EmptyDevice(in.sizes(), in.scalar_type());
  {
    glue::DeviceAccess access({in, out});
    const DType t = CoreType(in.scalar_type());
    RunUnary(kind, params, glue::Data(in), t, glue::Data(out), t, in.numel(), MakeExec());
  }
  const int64_t cols = in.dim() == 0 ? 1 : in.size(-1);
  call.Finish({x}, out,
              VectorCost(VectorKind::kElementwise, in.numel() / std::max<int64_t>(1, cols), cols,
                         in.scalar_type(), {in, out}, UnarySteps(kind)));
  return out;
}

#define SPYRE_UNARY(Name, op, kind)                                                            \
  at::Tensor Name(const at::Tensor& x) {                                                       \
    return UnaryKernel(op, kind, x, {},                                                        \
                       [&] { return glue::CallCpuFallback<at::Tensor>("aten::" op, "", x); }); \
  }
SPYRE_UNARY(Neg, "neg", UnaryOp::kNeg)
SPYRE_UNARY(Abs, "abs", UnaryOp::kAbs)
SPYRE_UNARY(Exp, "exp", UnaryOp::kExp)
SPYRE_UNARY(Log, "log", UnaryOp::kLog)
SPYRE_UNARY(Sqrt, "sqrt", UnaryOp::kSqrt)
SPYRE_UNARY(Rsqrt, "rsqrt", UnaryOp::kRsqrt)
SPYRE_UNARY(Reciprocal, "reciprocal", UnaryOp::kReciprocal)
SPYRE_UNARY(Tanh, "tanh", UnaryOp::kTanh)
SPYRE_UNARY(Sigmoid, "sigmoid", UnaryOp::kSigmoid)
SPYRE_UNARY(Relu, "relu", UnaryOp::kRelu)
SPYRE_UNARY(Silu, "silu", UnaryOp::kSilu)
SPYRE_UNARY(Erf, "erf", UnaryOp::kErf)
SPYRE_UNARY(Sin, "sin", UnaryOp::kSin)
SPYRE_UNARY(Cos, "cos", UnaryOp::kCos)
#undef SPYRE_UNARY

at::Tensor Gelu(const at::Tensor& x, c10::string_view approximate) {
  TORCH_CHECK(approximate == "none" || approximate == "tanh",
              "gelu: approximate must be 'none' or 'tanh', got '", approximate, "'");
  const UnaryOp kind = approximate == "tanh" ? UnaryOp::kGeluTanh : UnaryOp::kGelu;
  return UnaryKernel("gelu", kind, x, {}, [&] {
    return glue::CallCpuFallback<at::Tensor>("aten::gelu", "", x, approximate);
  });
}

at::Tensor PowScalar(const at::Tensor& x, const at::Scalar& exponent) {
  return UnaryKernel("pow", UnaryOp::kPowScalar, x, {exponent.toFloat(), 0}, [&] {
    return glue::CallCpuFallback<at::Tensor>("aten::pow", "Tensor_Scalar", x, exponent);
  });
}

at::Tensor Clamp(const at::Tensor& x, const c10::optional<at::Scalar>& lo,
                 const c10::optional<at::Scalar>& hi) {
  const UnaryParams p{lo ? lo->toFloat() : NAN, hi ? hi->toFloat() : NAN};
  return UnaryKernel("clamp", UnaryOp::kClamp, x, p, [&] {
    return glue::CallCpuFallback<at::Tensor>("aten::clamp", "", x, lo, hi);
  });
}

// out = cond ? a : b over the broadcast shape.
at::Tensor WhereKernel(const at::Tensor& cond, const at::Tensor& a, const at::Tensor& b,
                       KernelCall& call) {
  const at::ScalarType dtype = at::result_type(a, b);
  const bool ok = glue::IsDevice(cond) && cond.scalar_type() == at::kBool && FloatOperand(a) &&
                  FloatOperand(b) &&
                  (dtype == at::kHalf || dtype == at::kBFloat16 || dtype == at::kFloat);
  if (call.fallback() || !ok) return at::Tensor();
  const std::vector<int64_t> shape =
      at::infer_size(cond.sizes(), at::infer_size(a.sizes(), b.sizes()));
  at::Tensor out = glue::EmptyDevice(shape, dtype);
  {
    glue::DeviceAccess access({cond, a, b, out});
    RunWhere(glue::DataAs<uint8_t>(cond), BroadcastStrides(cond, shape), MakeOperand(a, shape),
             MakeOperand(b, shape), glue::Data(out), CoreType(dtype), shape, MakeExec());
  }
  const int64_t cols = shape.empty() ? 1 : shape.back();
  call.Finish({cond, a, b}, out,
              VectorCost(VectorKind::kElementwise, out.numel() / std::max<int64_t>(1, cols), cols,
                         dtype, {cond, a, b, out}, 1));
  return out;
}

at::Tensor Where(const at::Tensor& cond, const at::Tensor& a, const at::Tensor& b) {
  KernelCall call("where");
  at::Tensor out = WhereKernel(cond, a, b, call);
  return out.defined() ? out : glue::CallCpuFallback<at::Tensor>("aten::where", "self", cond, a, b);
}

at::Tensor& MaskedFillScalar(at::Tensor& self, const at::Tensor& mask, const at::Scalar& value) {
  KernelCall call("masked_fill_");
  const at::Tensor v = at::scalar_tensor(value, at::kFloat);  // a host scalar operand
  at::Tensor out;
  if (KernelDtype(self)) out = WhereKernel(mask, v, self, call);
  if (!out.defined() || out.sizes() != self.sizes() || out.scalar_type() != self.scalar_type()) {
    glue::CallCpuFallback<at::Tensor>("aten::masked_fill_", "Scalar", self, mask, value);
    return self;
  }
  return self.copy_(out);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("add.Tensor", TORCH_FN(Add));
  m.impl("sub.Tensor", TORCH_FN(Sub));
  m.impl("rsub.Tensor", TORCH_FN(Rsub));
  m.impl("mul.Tensor", TORCH_FN(Mul));
  m.impl("div.Tensor", TORCH_FN(Div));
  m.impl("pow.Tensor_Tensor", TORCH_FN(PowTensor));
  m.impl("pow.Tensor_Scalar", TORCH_FN(PowScalar));
  m.impl("maximum", TORCH_FN(Maximum));
  m.impl("minimum", TORCH_FN(Minimum));
  m.impl("add_.Tensor", TORCH_FN(AddInplace));
  m.impl("sub_.Tensor", TORCH_FN(SubInplace));
  m.impl("mul_.Tensor", TORCH_FN(MulInplace));
  m.impl("div_.Tensor", TORCH_FN(DivInplace));
  m.impl("neg", TORCH_FN(Neg));
  m.impl("abs", TORCH_FN(Abs));
  m.impl("exp", TORCH_FN(Exp));
  m.impl("log", TORCH_FN(Log));
  m.impl("sqrt", TORCH_FN(Sqrt));
  m.impl("rsqrt", TORCH_FN(Rsqrt));
  m.impl("reciprocal", TORCH_FN(Reciprocal));
  m.impl("tanh", TORCH_FN(Tanh));
  m.impl("sigmoid", TORCH_FN(Sigmoid));
  m.impl("relu", TORCH_FN(Relu));
  m.impl("silu", TORCH_FN(Silu));
  m.impl("erf", TORCH_FN(Erf));
  m.impl("sin", TORCH_FN(Sin));
  m.impl("cos", TORCH_FN(Cos));
  m.impl("gelu", TORCH_FN(Gelu));
  m.impl("clamp", TORCH_FN(Clamp));
  m.impl("where.self", TORCH_FN(Where));
  m.impl("masked_fill_.Scalar", TORCH_FN(MaskedFillScalar));
}

}  // namespace spyre_emu::device_kernels
