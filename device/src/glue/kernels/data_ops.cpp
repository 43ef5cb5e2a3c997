// Data movement and creation: cat, index_select (embedding decomposes into
// it), arange. fp16/bf16/fp32 go through the core's row-block kernels;
// other dtypes are moved as bytes with the same row logic.
#include <ATen/Parallel.h>
#include <torch/library.h>

#include <cmath>
#include <cstring>

#include "glue/kernels/kernel_support.h"
#include "spyre_emu/dl16.h"
#include "spyre_emu/runtime.h"

namespace spyre_emu::device_kernels {
namespace {

// Copies a contiguous [outer, cols] block into [outer, out_cols] at offset,
// both of the same dtype, as bytes.
void CopyBlockBytes(const at::Tensor& in, const at::Tensor& out, int64_t outer, int64_t cols,
                    int64_t out_cols, int64_t offset) {
  const int64_t eb = in.element_size();
  const char* src = static_cast<const char*>(glue::Data(in));
  char* dst = static_cast<char*>(glue::Data(out));
  at::parallel_for(0, outer, std::max<int64_t>(1, 65536 / std::max<int64_t>(1, cols * eb)),
                   [&](int64_t b, int64_t e) {
                     for (int64_t o = b; o < e; ++o) {
                       std::memcpy(dst + (o * out_cols + offset) * eb, src + o * cols * eb,
                                   static_cast<size_t>(cols * eb));
                     }
                   });
}

at::Tensor Cat(const at::ITensorListRef& list, int64_t dim) {
  KernelCall call("cat");
  std::vector<at::Tensor> tensors;
  for (const at::Tensor& t : list) tensors.push_back(t);
  // Legacy rule: 1-d empty tensors are skipped.
  std::vector<at::Tensor> parts;
  for (const at::Tensor& t : tensors) {
    if (!(t.dim() == 1 && t.numel() == 0)) parts.push_back(t);
  }
  bool ok = !call.fallback() && !parts.empty();
  for (const at::Tensor& t : parts) {
    ok = ok && glue::IsDevice(t) && t.scalar_type() == parts[0].scalar_type() &&
         t.dim() == parts[0].dim();
  }
  if (!ok) return glue::CallCpuFallback<at::Tensor>("aten::cat", "", at::TensorList(tensors), dim);
  const int64_t d = at::maybe_wrap_dim(dim, parts[0].dim());
  std::vector<int64_t> sizes = parts[0].sizes().vec();
  sizes[d] = 0;
  for (const at::Tensor& t : parts) {
    for (int64_t i = 0; i < t.dim(); ++i) {
      TORCH_CHECK(i == d || t.size(i) == sizes[i], "cat: sizes of tensors must match except in ",
                  "dimension ", d, "; got ", t.sizes(), " and ", parts[0].sizes());
    }
    sizes[d] += t.size(d);
  }
  at::Tensor out = glue::EmptyDevice(sizes, parts[0].scalar_type());
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < d; ++i) outer *= sizes[i];
  for (int64_t i = d + 1; i < static_cast<int64_t>(sizes.size()); ++i) inner *= sizes[i];
  const int64_t out_cols = sizes[d] * inner;
  int64_t offset = 0;
  const bool floating = KernelDtype(parts[0]);
  for (const at::Tensor& t : parts) {
    const at::Tensor in = t.contiguous();
    const int64_t cols = in.size(d) * inner;
    glue::DeviceAccess access({in, out});
    if (floating) {
      const DType type = CoreType(in.scalar_type());
      RunCopyBlock(glue::Data(in), type, glue::Data(out), type, outer, cols, out_cols, offset,
                   MakeExec());
    } else if (cols > 0 && outer > 0) {
      CopyBlockBytes(in, out, outer, cols, out_cols, offset);
    }
    offset += cols;
  }
  call.Finish(
      parts, out,
      VectorCost(VectorKind::kElementwise, outer, out_cols, parts[0].scalar_type(), {out, out}, 1));
  return out;
}

at::Tensor IndexSelect(const at::Tensor& self, int64_t dim, const at::Tensor& index) {
  KernelCall call("index_select");
  const bool ok = !call.fallback() && KernelDtype(self) && glue::IsDevice(index) &&
                  index.scalar_type() == at::kLong && index.dim() <= 1;
  if (!ok) return glue::CallCpuFallback<at::Tensor>("aten::index_select", "", self, dim, index);
  const at::Tensor in = self.contiguous(), idx = index.contiguous();
  const int64_t d = at::maybe_wrap_dim(dim, std::max<int64_t>(1, in.dim()));
  const int64_t rows = in.dim() == 0 ? 1 : in.size(d);
  int64_t outer = 1, row = 1;
  for (int64_t i = 0; i < d; ++i) outer *= in.size(i);
  for (int64_t i = d + 1; i < in.dim(); ++i) row *= in.size(i);
  std::vector<int64_t> sizes = in.sizes().vec();
  if (!sizes.empty()) sizes[d] = idx.numel();
  at::Tensor out = glue::EmptyDevice(sizes, in.scalar_type());
  {
    glue::DeviceAccess access({in, idx, out});
    const int64_t* ix = glue::DataAs<int64_t>(idx);
    for (int64_t i = 0; i < idx.numel(); ++i) {
      TORCH_CHECK_INDEX(ix[i] >= 0 && ix[i] < rows, "index_select: index ", ix[i],
                        " is out of range for dimension ", d, " of size ", rows);
    }
    const DType type = CoreType(in.scalar_type());
    RunGatherRows(glue::Data(in), type, ix, idx.numel(), glue::Data(out), outer, rows, row,
                  MakeExec());
  }
  call.Finish({self, index}, out,
              VectorCost(VectorKind::kElementwise, outer * idx.numel(), row, in.scalar_type(),
                         {out, out, idx}, 1));
  return out;
}

at::Tensor& ArangeOut(const at::Scalar& start, const at::Scalar& end, const at::Scalar& step,
                      at::Tensor& out) {
  KernelCall call("arange");
  const at::ScalarType t = out.scalar_type();
  const bool ok = !call.fallback() && glue::IsDevice(out) &&
                  (t == at::kLong || t == at::kInt || KernelDtype(out));
  if (!ok) {
    glue::CallCpuFallback<at::Tensor>("aten::arange", "start_out", start, end, step, out);
    return out;
  }
  const double s = start.toDouble(), e = end.toDouble(), st = step.toDouble();
  TORCH_CHECK(st != 0, "arange: step must be nonzero");
  TORCH_CHECK((st > 0 && e >= s) || (st < 0 && e <= s), "arange: upper bound and larger bound ",
              "inconsistent with step sign");
  const bool integral = t == at::kLong || t == at::kInt;
  const int64_t n =
      integral && start.isIntegral(false) && end.isIntegral(false) && step.isIntegral(false)
          ? (end.toLong() - start.toLong() + step.toLong() - (st > 0 ? 1 : -1)) / step.toLong()
          : static_cast<int64_t>(std::ceil((e - s) / st));
  if (out.numel() != n) out.resize_({n});
  {
    glue::DeviceAccess access({out});
    if (t == at::kLong) {
      int64_t* p = glue::DataAs<int64_t>(out);
      for (int64_t i = 0; i < n; ++i) p[i] = start.toLong() + i * step.toLong();
    } else if (t == at::kInt) {
      int32_t* p = glue::DataAs<int32_t>(out);
      for (int64_t i = 0; i < n; ++i)
        p[i] = static_cast<int32_t>(start.toLong() + i * step.toLong());
    } else {
      std::vector<float> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(s + static_cast<double>(i) * st);
      const DType type = CoreType(t);
      if (type == DType::kFp32) {
        std::memcpy(glue::Data(out), v.data(), v.size() * sizeof(float));
      } else {
        Dl16FromFp32(v.data(), glue::DataAs<uint16_t>(out), v.size(), CurrentRounding());
      }
    }
  }
  call.Finish({}, out, VectorCost(VectorKind::kElementwise, 1, n, at::kFloat, {out}, 1));
  return out;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("cat", TORCH_FN(Cat));
  m.impl("index_select", TORCH_FN(IndexSelect));
  m.impl("arange.start_out", TORCH_FN(ArangeOut));
}

}  // namespace spyre_emu::device_kernels
