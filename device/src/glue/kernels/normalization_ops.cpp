// _softmax, _log_softmax and native_layer_norm on the device.
#include <torch/library.h>

#include "glue/kernels/kernel_support.h"

namespace spyre_emu::device_kernels {
namespace {

// The lowered softmax is five vector steps per element (max, sub, exp, sum,
// div); layer norm is six (sum, sub, square-sum, sub, mul, affine).
constexpr double kSoftmaxSteps = 5;
constexpr double kLayerNormSteps = 6;

at::Tensor SoftmaxKernel(const char* op, bool log, const at::Tensor& x, int64_t dim,
                         bool half_to_float) {
  KernelCall call(op);
  if (call.fallback() || !KernelDtype(x) || half_to_float) {
    return glue::CallCpuFallback<at::Tensor>(log ? "aten::_log_softmax" : "aten::_softmax", "", x,
                                             dim, half_to_float);
  }
  const at::Tensor in = x.contiguous();
  const int64_t d = at::maybe_wrap_dim(dim, std::max<int64_t>(1, in.dim()));
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= in.size(i);
  for (int64_t i = d + 1; i < in.dim(); ++i) inner *= in.size(i);
  const int64_t len = in.dim() == 0 ? 1 : in.size(d);
  at::Tensor out = glue::EmptyDevice(in.sizes(), in.scalar_type());
  {
    glue::DeviceAccess access({in, out});
    RunSoftmax(log, glue::Data(in), glue::Data(out), CoreType(in.scalar_type()), outer, len, inner,
               MakeExec());
  }
  call.Finish({x}, out,
              VectorCost(VectorKind::kNormalization, outer * inner, len, in.scalar_type(),
                         {in, out}, kSoftmaxSteps));
  return out;
}

at::Tensor Softmax(const at::Tensor& x, int64_t dim, bool half_to_float) {
  return SoftmaxKernel("_softmax", false, x, dim, half_to_float);
}
at::Tensor LogSoftmax(const at::Tensor& x, int64_t dim, bool half_to_float) {
  return SoftmaxKernel("_log_softmax", true, x, dim, half_to_float);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> LayerNorm(const at::Tensor& x,
                                                         at::IntArrayRef normalized_shape,
                                                         const c10::optional<at::Tensor>& weight,
                                                         const c10::optional<at::Tensor>& bias,
                                                         double eps) {
  KernelCall call("native_layer_norm");
  const at::Tensor w = weight.value_or(at::Tensor()), b = bias.value_or(at::Tensor());
  const int64_t axis = x.dim() - static_cast<int64_t>(normalized_shape.size());
  bool ok =
      !call.fallback() && KernelDtype(x) && axis >= 0 && x.sizes().slice(axis) == normalized_shape;
  for (const at::Tensor& p : {w, b}) {
    ok = ok && (!p.defined() || (KernelDtype(p) && p.scalar_type() == x.scalar_type() &&
                                 p.sizes() == normalized_shape));
  }
  if (!ok) {
    return glue::CallCpuFallback<std::tuple<at::Tensor, at::Tensor, at::Tensor>>(
        "aten::native_layer_norm", "", x, normalized_shape, weight, bias, eps);
  }
  const at::Tensor in = x.contiguous();
  const at::Tensor wc = w.defined() ? w.contiguous() : w, bc = b.defined() ? b.contiguous() : b;
  int64_t rows = 1, cols = 1;
  for (int64_t i = 0; i < axis; ++i) rows *= in.size(i);
  for (int64_t i = axis; i < in.dim(); ++i) cols *= in.size(i);
  // mean and rstd keep the reduced dims as size 1, like the CPU kernel.
  std::vector<int64_t> stat_sizes(in.sizes().begin(), in.sizes().begin() + axis);
  stat_sizes.resize(in.dim(), 1);
  at::Tensor out = glue::EmptyDevice(in.sizes(), in.scalar_type());
  at::Tensor mean = glue::EmptyDevice(stat_sizes, in.scalar_type());
  at::Tensor rstd = glue::EmptyDevice(stat_sizes, in.scalar_type());
  {
    glue::DeviceAccess access({in, wc, bc, out, mean, rstd});
    RunLayerNorm(glue::Data(in), wc.defined() ? glue::Data(wc) : nullptr,
                 bc.defined() ? glue::Data(bc) : nullptr, glue::Data(out), glue::Data(mean),
                 glue::Data(rstd), CoreType(in.scalar_type()), rows, cols, static_cast<float>(eps),
                 MakeExec());
  }
  call.Finish({x, w, b}, out,
              VectorCost(VectorKind::kNormalization, rows, cols, in.scalar_type(),
                         {in, wc, bc, out}, kLayerNormSteps));
  return {out, mean, rstd};
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_softmax", TORCH_FN(Softmax));
  m.impl("_log_softmax", TORCH_FN(LogSoftmax));
  m.impl("native_layer_norm", TORCH_FN(LayerNorm));
}

}  // namespace spyre_emu::device_kernels
