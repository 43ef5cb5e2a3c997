// Mask building on the device: comparisons of float tensors (eq, ne, lt, le,
// gt, ge; tensor or scalar right-hand side) into bool tensors, and triu /
// tril of any dtype. Comparisons of integer tensors (token ids) take the
// counted CPU fallback. A scalar compares as an fp32 constant (as in every
// kernel), not rounded to the tensor's dtype first as the CPU does: results
// differ only for a value exactly between the two roundings.
#include <torch/library.h>

#include <algorithm>
#include <cstring>

#include "glue/kernels/kernel_support.h"

namespace spyre_emu::device_kernels {
namespace {

bool FloatSide(const at::Tensor& t) {
  return (!glue::IsDevice(t) && t.dim() == 0) || KernelDtype(t);
}

Operand Side(const at::Tensor& t, at::IntArrayRef shape) {
  Operand o;
  if (!glue::IsDevice(t)) {
    o.scalar = t.item<float>();
    return o;
  }
  o.data = glue::Data(t);
  o.type = CoreType(t.scalar_type());
  o.strides = BroadcastStrides(t, shape);
  return o;
}

at::Tensor Compare(const char* op, CompareOp kind, const at::Tensor& a, const at::Tensor& b,
                   const char* overload) {
  KernelCall call(op);
  const bool ok = !call.fallback() && glue::IsDevice(a) && FloatSide(a) && FloatSide(b);
  if (!ok) {
    return glue::CallCpuFallback<at::Tensor>((std::string("aten::") + op).c_str(), overload, a, b);
  }
  const std::vector<int64_t> shape = at::infer_size(a.sizes(), b.sizes());
  at::Tensor out = glue::EmptyDevice(shape, at::kBool);
  {
    glue::DeviceAccess access({a, b, out});
    RunCompare(kind, Side(a, shape), Side(b, shape), glue::DataAs<uint8_t>(out), shape, MakeExec());
  }
  const int64_t cols = shape.empty() ? 1 : shape.back();
  call.Finish({a, b}, out,
              VectorCost(VectorKind::kElementwise, out.numel() / std::max<int64_t>(1, cols), cols,
                         a.scalar_type(), {a, b, out}, 1));
  return out;
}

#define SPYRE_COMPARE(Name, op, kind)                                         \
  at::Tensor Name##Tensor(const at::Tensor& a, const at::Tensor& b) {         \
    return Compare(op, kind, a, b, "Tensor");                                 \
  }                                                                           \
  at::Tensor Name##Scalar(const at::Tensor& a, const at::Scalar& b) {         \
    if (!KernelDtype(a)) {                                                    \
      return glue::CallCpuFallback<at::Tensor>("aten::" op, "Scalar", a, b);  \
    }                                                                         \
    return Compare(op, kind, a, at::scalar_tensor(b, at::kDouble), "Tensor"); \
  }
SPYRE_COMPARE(Eq, "eq", CompareOp::kEq)
SPYRE_COMPARE(Ne, "ne", CompareOp::kNe)
SPYRE_COMPARE(Lt, "lt", CompareOp::kLt)
SPYRE_COMPARE(Le, "le", CompareOp::kLe)
SPYRE_COMPARE(Gt, "gt", CompareOp::kGt)
SPYRE_COMPARE(Ge, "ge", CompareOp::kGe)
#undef SPYRE_COMPARE

// Keeps element (r, c) of every matrix when keep(c - r), else zero (all-zero
// bits are zero in every device dtype, DL16 included).
at::Tensor Triangle(const char* op, bool upper, const at::Tensor& x, int64_t diagonal) {
  KernelCall call(op);
  if (call.fallback() || !glue::IsDevice(x) || x.dim() < 2) {
    return glue::CallCpuFallback<at::Tensor>(upper ? "aten::triu" : "aten::tril", "", x, diagonal);
  }
  const at::Tensor in = x.contiguous();
  at::Tensor out = glue::EmptyDevice(in.sizes(), in.scalar_type());
  const int64_t rows = in.size(-2), cols = in.size(-1), eb = in.element_size();
  const int64_t matrices = rows * cols == 0 ? 0 : in.numel() / (rows * cols);
  {
    glue::DeviceAccess access({in, out});
    const char* src = static_cast<const char*>(glue::Data(in));
    char* dst = static_cast<char*>(glue::Data(out));
    for (int64_t m = 0; m < matrices; ++m) {
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t base = (m * rows + r) * cols;
        // triu keeps c >= r + diagonal; tril keeps c <= r + diagonal.
        const int64_t edge = std::clamp<int64_t>(r + diagonal + (upper ? 0 : 1), 0, cols);
        const int64_t zero_begin = upper ? 0 : edge, zero_end = upper ? edge : cols;
        std::memcpy(dst + base * eb, src + base * eb, static_cast<size_t>(cols * eb));
        std::memset(dst + (base + zero_begin) * eb, 0,
                    static_cast<size_t>((zero_end - zero_begin) * eb));
      }
    }
  }
  call.Finish({x}, out,
              VectorCost(VectorKind::kElementwise, in.numel() / std::max<int64_t>(1, cols), cols,
                         in.scalar_type() == at::kFloat ? at::kFloat : at::kHalf, {in, out}, 1));
  return out;
}

at::Tensor Triu(const at::Tensor& x, int64_t diagonal) {
  return Triangle("triu", true, x, diagonal);
}
at::Tensor Tril(const at::Tensor& x, int64_t diagonal) {
  return Triangle("tril", false, x, diagonal);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("eq.Tensor", TORCH_FN(EqTensor));
  m.impl("eq.Scalar", TORCH_FN(EqScalar));
  m.impl("ne.Tensor", TORCH_FN(NeTensor));
  m.impl("ne.Scalar", TORCH_FN(NeScalar));
  m.impl("lt.Tensor", TORCH_FN(LtTensor));
  m.impl("lt.Scalar", TORCH_FN(LtScalar));
  m.impl("le.Tensor", TORCH_FN(LeTensor));
  m.impl("le.Scalar", TORCH_FN(LeScalar));
  m.impl("gt.Tensor", TORCH_FN(GtTensor));
  m.impl("gt.Scalar", TORCH_FN(GtScalar));
  m.impl("ge.Tensor", TORCH_FN(GeTensor));
  m.impl("ge.Scalar", TORCH_FN(GeScalar));
  m.impl("triu", TORCH_FN(Triu));
  m.impl("tril", TORCH_FN(Tril));
}

}  // namespace spyre_emu::device_kernels
