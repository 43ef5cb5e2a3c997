// View ops: metadata-only, sharing the device storage, never falling back.
//
// ATen's own view kernels are device-independent (they only rewrite sizes,
// strides and offset), so the device registers them for PrivateUse1. Every
// other view op in libtorch 1.13 (unsqueeze, squeeze, transpose, permute,
// expand, select, slice, t, diagonal, narrow, alias, detach, ...) is a
// composite kernel built on these; tests/device check that none falls back.
#include <ATen/ATen.h>
#include <ATen/NativeFunctions.h>
#include <torch/library.h>

namespace spyre_emu::glue {

namespace {

at::Tensor AsStrided(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride,
                     c10::optional<int64_t> storage_offset) {
  return at::native::as_strided_tensorimpl(self, size, stride, storage_offset);
}

at::Tensor View(const at::Tensor& self, at::IntArrayRef size) {
  return at::native::view(self, size);
}

at::Tensor ReshapeAlias(const at::Tensor& self, at::IntArrayRef size, at::IntArrayRef stride) {
  return at::native::_reshape_alias(self, size, stride);
}

at::Tensor Unfold(const at::Tensor& self, int64_t dimension, int64_t size, int64_t step) {
  return at::native::unfold(self, dimension, size, step);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("as_strided", TORCH_FN(AsStrided));
  m.impl("view", TORCH_FN(View));
  m.impl("_reshape_alias", TORCH_FN(ReshapeAlias));
  m.impl("unfold", TORCH_FN(Unfold));
}

}  // namespace spyre_emu::glue
