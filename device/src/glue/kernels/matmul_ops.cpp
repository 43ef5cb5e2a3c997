// mm, bmm, addmm, baddbmm on the device (matmul and linear decompose into
// these). Operands may be strided (transposed weights are read in place).
#include "glue/kernels/kernel_support.h"

#include <torch/library.h>

namespace spyre_emu::device_kernels {
namespace {

bool Runnable(const KernelCall& call, std::initializer_list<at::Tensor> ts) {
  if (call.fallback()) return false;
  const at::ScalarType dtype = ts.begin()->scalar_type();
  for (const at::Tensor& t : ts) {
    if (t.defined() && (!KernelDtype(t) || t.scalar_type() != dtype)) return false;
  }
  return true;
}

// out[b] = alpha * a[b] . w[b] + beta * bias; a: [B, m, k], w: [B, k, n] (3-d
// views), bias broadcast to [B, m, n] or undefined.
void Launch(const at::Tensor& a, const at::Tensor& w, const at::Tensor& bias, float beta,
            float alpha, const at::Tensor& out) {
  MatmulArgs g;
  g.batch = a.size(0), g.m = a.size(1), g.k = a.size(2), g.n = w.size(2);
  g.a_type = g.w_type = g.out_type = g.bias_type = CoreType(a.scalar_type());
  for (int d = 0; d < 3; ++d) {
    g.a_strides[d] = a.size(d) == 1 ? 0 : a.stride(d);
    g.w_strides[d] = w.size(d) == 1 ? 0 : w.stride(d);
  }
  g.alpha = alpha, g.beta = beta;
  glue::DeviceAccess access({a, w, bias, out});
  g.a = glue::Data(a), g.w = glue::Data(w), g.out = glue::Data(out);
  if (bias.defined()) {
    const std::vector<int64_t> s = BroadcastStrides(bias, {g.batch, g.m, g.n});
    g.bias = glue::Data(bias);
    for (int d = 0; d < 3; ++d) g.bias_strides[d] = s[d];
  }
  RunMatmul(g, MakeExec());
}

at::Tensor Matmul3d(const char* op, const at::Tensor& a3, const at::Tensor& w3,
                    const at::Tensor& bias, const at::Scalar& beta, const at::Scalar& alpha,
                    at::IntArrayRef out_sizes, KernelCall& call) {
  TORCH_CHECK(a3.size(2) == w3.size(1), op, ": shapes cannot be multiplied (", a3.sizes(), " and ",
              w3.sizes(), ")");
  at::Tensor out = glue::EmptyDevice(out_sizes, a3.scalar_type());
  Launch(a3, w3, bias, beta.toFloat(), alpha.toFloat(), out);
  call.Finish({a3, w3}, out,
              MatmulCost(a3.size(0), a3.size(1), w3.size(2), a3.size(2), a3.scalar_type()));
  return out;
}

at::Tensor Mm(const at::Tensor& a, const at::Tensor& b) {
  KernelCall call("mm");
  if (!Runnable(call, {a, b}) || a.dim() != 2 || b.dim() != 2) {
    return glue::CallCpuFallback<at::Tensor>("aten::mm", "", a, b);
  }
  return Matmul3d("mm", a.unsqueeze(0), b.unsqueeze(0), at::Tensor(), 0, 1, {a.size(0), b.size(1)},
                  call);
}

at::Tensor Bmm(const at::Tensor& a, const at::Tensor& b) {
  KernelCall call("bmm");
  if (!Runnable(call, {a, b}) || a.dim() != 3 || b.dim() != 3 || a.size(0) != b.size(0)) {
    return glue::CallCpuFallback<at::Tensor>("aten::bmm", "", a, b);
  }
  return Matmul3d("bmm", a, b, at::Tensor(), 0, 1, {a.size(0), a.size(1), b.size(2)}, call);
}

at::Tensor Addmm(const at::Tensor& self, const at::Tensor& a, const at::Tensor& b,
                 const at::Scalar& beta, const at::Scalar& alpha) {
  KernelCall call("addmm");
  if (!Runnable(call, {a, b, self}) || a.dim() != 2 || b.dim() != 2 || self.dim() > 2) {
    return glue::CallCpuFallback<at::Tensor>("aten::addmm", "", self, a, b, beta, alpha);
  }
  return Matmul3d("addmm", a.unsqueeze(0), b.unsqueeze(0), self, beta, alpha,
                  {a.size(0), b.size(1)}, call);
}

at::Tensor Baddbmm(const at::Tensor& self, const at::Tensor& a, const at::Tensor& b,
                   const at::Scalar& beta, const at::Scalar& alpha) {
  KernelCall call("baddbmm");
  if (!Runnable(call, {a, b, self}) || a.dim() != 3 || b.dim() != 3 || self.dim() > 3 ||
      a.size(0) != b.size(0)) {
    return glue::CallCpuFallback<at::Tensor>("aten::baddbmm", "", self, a, b, beta, alpha);
  }
  return Matmul3d("baddbmm", a, b, self, beta, alpha, {a.size(0), a.size(1), b.size(2)}, call);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("mm", TORCH_FN(Mm));
  m.impl("bmm", TORCH_FN(Bmm));
  m.impl("addmm", TORCH_FN(Addmm));
  m.impl("baddbmm", TORCH_FN(Baddbmm));
}

}  // namespace spyre_emu::device_kernels
