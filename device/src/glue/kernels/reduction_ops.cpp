// sum, mean, amax, max (full), var along dims. Reduced dims that are not one
// contiguous block are first moved to the end (a device copy), so the core
// always reduces the middle dim of [outer, len, inner].
#include <torch/library.h>

#include <cmath>
#include <numeric>

#include "glue/kernels/kernel_support.h"
#include "spyre_regress/torch_compat.h"

namespace spyre_emu::device_kernels {
namespace {

// Vector steps per element (cost model): a sum/mean/max is one (accumulate);
// var is three (sum, subtract the mean, square-accumulate); max/min with
// indices two (compare, select value and index).
constexpr double kReduceSteps = 1, kVarSteps = 3, kIndexedSteps = 2;

struct Plan {
  at::Tensor in;  // contiguous, reduced dims in one block
  int64_t outer = 1, len = 1, inner = 1;
  std::vector<int64_t> out_sizes;  // with keepdim applied
};

Plan MakePlan(const at::Tensor& x, at::OptionalIntArrayRef dims_opt, bool keepdim) {
  const int64_t nd = x.dim();
  std::vector<bool> reduced(static_cast<size_t>(nd), false);
  if (!dims_opt.has_value() || dims_opt->empty()) {
    std::fill(reduced.begin(), reduced.end(), true);  // [] and None reduce everything
  } else {
    for (int64_t d : *dims_opt) reduced[at::maybe_wrap_dim(d, std::max<int64_t>(1, nd))] = true;
  }
  Plan p;
  std::vector<int64_t> kept, red;
  for (int64_t d = 0; d < nd; ++d) (reduced[d] ? red : kept).push_back(d);
  for (int64_t d = 0; d < nd; ++d) {
    if (!reduced[d])
      p.out_sizes.push_back(x.size(d));
    else if (keepdim)
      p.out_sizes.push_back(1);
  }
  // Contiguous block [first, last] of reduced dims? Then no permutation.
  const bool block =
      red.empty() || red.back() - red.front() + 1 == static_cast<int64_t>(red.size());
  if (block) {
    p.in = x.contiguous();
    const int64_t first = red.empty() ? nd : red.front();
    const int64_t last = red.empty() ? nd : red.back() + 1;
    for (int64_t d = 0; d < first; ++d) p.outer *= x.size(d);
    for (int64_t d = first; d < last; ++d) p.len *= x.size(d);
    for (int64_t d = last; d < nd; ++d) p.inner *= x.size(d);
  } else {
    std::vector<int64_t> order = kept;
    order.insert(order.end(), red.begin(), red.end());
    p.in = x.permute(order).contiguous();
    for (int64_t d : kept) p.outer *= x.size(d);
    for (int64_t d : red) p.len *= x.size(d);
  }
  return p;
}

at::Tensor Reduce(const char* op, ReduceOp kind, const at::Tensor& x, at::OptionalIntArrayRef dims,
                  bool keepdim, int64_t correction, c10::optional<at::ScalarType> dtype,
                  const std::function<at::Tensor()>& fallback) {
  KernelCall call(op);
  const at::ScalarType out_type = dtype.value_or(x.scalar_type());
  if (call.fallback() || !KernelDtype(x) ||
      (out_type != at::kHalf && out_type != at::kBFloat16 && out_type != at::kFloat)) {
    return fallback();
  }
  const Plan p = MakePlan(x, dims, keepdim);
  TORCH_CHECK(p.len > 0 || (kind != ReduceOp::kMax && kind != ReduceOp::kMin), op,
              ": cannot reduce over a zero-size dimension");
  at::Tensor out = glue::EmptyDevice(p.out_sizes, out_type);
  {
    glue::DeviceAccess access({p.in, out});
    RunReduce(kind, glue::Data(p.in), CoreType(x.scalar_type()), glue::Data(out),
              CoreType(out_type), p.outer, p.len, p.inner, correction, MakeExec());
  }
  call.Finish({x}, out,
              VectorCost(VectorKind::kReduction, p.outer * p.inner, p.len, x.scalar_type(),
                         {p.in, out}, kind == ReduceOp::kVar ? kVarSteps : kReduceSteps));
  return out;
}

at::Tensor SumDim(const at::Tensor& x, at::OptionalIntArrayRef dims, bool keepdim,
                  c10::optional<at::ScalarType> dtype) {
  return Reduce("sum", ReduceOp::kSum, x, dims, keepdim, 0, dtype, [&] {
    return glue::CallCpuFallback<at::Tensor>("aten::sum", "dim_IntList", x, dims, keepdim, dtype);
  });
}

at::Tensor MeanDim(const at::Tensor& x, at::OptionalIntArrayRef dims, bool keepdim,
                   c10::optional<at::ScalarType> dtype) {
  return Reduce("mean", ReduceOp::kMean, x, dims, keepdim, 0, dtype, [&] {
    return glue::CallCpuFallback<at::Tensor>("aten::mean", "dim", x, dims, keepdim, dtype);
  });
}

at::Tensor Amax(const at::Tensor& x, at::IntArrayRef dims, bool keepdim) {
  return Reduce("amax", ReduceOp::kMax, x, dims, keepdim, 0, c10::nullopt, [&] {
    return glue::CallCpuFallback<at::Tensor>("aten::amax", "", x, dims, keepdim);
  });
}

at::Tensor MaxAll(const at::Tensor& x) {
  return Reduce("max", ReduceOp::kMax, x, c10::nullopt, false, 0, c10::nullopt,
                [&] { return glue::CallCpuFallback<at::Tensor>("aten::max", "", x); });
}

at::Tensor VarCorrection(const at::Tensor& x, at::OptionalIntArrayRef dims,
                         spyre_compat::CorrectionArg correction, bool keepdim) {
  auto on_cpu = [&] {
    return glue::CallCpuFallback<at::Tensor>("aten::var", "correction", x, dims, correction,
                                             keepdim);
  };
  // The device kernel takes a whole-number correction; libtorch 2.x also
  // allows a fractional one, which the CPU computes.
  const double c = spyre_compat::CorrectionValue(correction, 1.0);
  if (c != std::floor(c)) return on_cpu();
  return Reduce("var", ReduceOp::kVar, x, dims, keepdim, static_cast<int64_t>(c), c10::nullopt,
                on_cpu);
}

std::tuple<at::Tensor, at::Tensor> ReduceWithIndex(const char* op, bool max, const at::Tensor& x,
                                                   int64_t dim, bool keepdim) {
  KernelCall call(op);
  if (call.fallback() || !KernelDtype(x) || x.numel() == 0) {
    return glue::CallCpuFallback<std::tuple<at::Tensor, at::Tensor>>(
        max ? "aten::max" : "aten::min", "dim", x, dim, keepdim);
  }
  const Plan p = MakePlan(x, at::IntArrayRef{dim}, keepdim);
  at::Tensor values = glue::EmptyDevice(p.out_sizes, x.scalar_type());
  at::Tensor indices = glue::EmptyDevice(p.out_sizes, at::kLong);
  {
    glue::DeviceAccess access({p.in, values, indices});
    RunReduceWithIndex(max, glue::Data(p.in), CoreType(x.scalar_type()), glue::Data(values),
                       glue::DataAs<int64_t>(indices), p.outer, p.len, p.inner, MakeExec());
  }
  call.Finish({x}, values,
              VectorCost(VectorKind::kReduction, p.outer * p.inner, p.len, x.scalar_type(),
                         {p.in, values, indices}, kIndexedSteps));
  return {values, indices};
}

// argmax / argmin: the indices of max.dim / min.dim (the first extreme; a NaN
// wins), over all elements when dim is None.
at::Tensor ArgExtreme(const char* op, bool max, const at::Tensor& x, c10::optional<int64_t> dim,
                      bool keepdim) {
  KernelCall call(op);
  if (call.fallback() || !KernelDtype(x) || x.numel() == 0) {
    return glue::CallCpuFallback<at::Tensor>(max ? "aten::argmax" : "aten::argmin", "", x, dim,
                                             keepdim);
  }
  const at::Tensor flat = dim.has_value() ? x : x.reshape({-1});
  const Plan p = MakePlan(flat, at::IntArrayRef{dim.value_or(0)}, keepdim && dim.has_value());
  std::vector<int64_t> out_sizes = p.out_sizes;
  if (!dim.has_value() && keepdim) out_sizes.assign(static_cast<size_t>(x.dim()), 1);
  at::Tensor values = glue::EmptyDevice(p.out_sizes, x.scalar_type());
  at::Tensor indices = glue::EmptyDevice(out_sizes, at::kLong);
  {
    glue::DeviceAccess access({p.in, values, indices});
    RunReduceWithIndex(max, glue::Data(p.in), CoreType(x.scalar_type()), glue::Data(values),
                       glue::DataAs<int64_t>(indices), p.outer, p.len, p.inner, MakeExec());
  }
  call.Finish({x}, indices,
              VectorCost(VectorKind::kReduction, p.outer * p.inner, p.len, x.scalar_type(),
                         {p.in, indices}, kIndexedSteps));
  return indices;
}

at::Tensor Argmax(const at::Tensor& x, c10::optional<int64_t> dim, bool keepdim) {
  return ArgExtreme("argmax", true, x, dim, keepdim);
}
at::Tensor Argmin(const at::Tensor& x, c10::optional<int64_t> dim, bool keepdim) {
  return ArgExtreme("argmin", false, x, dim, keepdim);
}

std::tuple<at::Tensor, at::Tensor> MaxDim(const at::Tensor& x, int64_t dim, bool keepdim) {
  return ReduceWithIndex("max", true, x, dim, keepdim);
}
std::tuple<at::Tensor, at::Tensor> MinDim(const at::Tensor& x, int64_t dim, bool keepdim) {
  return ReduceWithIndex("min", false, x, dim, keepdim);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("sum.dim_IntList", TORCH_FN(SumDim));
  m.impl("mean.dim", TORCH_FN(MeanDim));
  m.impl("amax", TORCH_FN(Amax));
  m.impl("max", TORCH_FN(MaxAll));
  m.impl("max.dim", TORCH_FN(MaxDim));
  m.impl("min.dim", TORCH_FN(MinDim));
  m.impl("argmax", TORCH_FN(Argmax));
  m.impl("argmin", TORCH_FN(Argmin));
  m.impl("var.correction", TORCH_FN(VarCorrection));
}

}  // namespace spyre_emu::device_kernels
