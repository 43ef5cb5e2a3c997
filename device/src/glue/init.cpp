// Initialisers and scalar reads: fill_, zero_, uniform_, normal_, .item(),
// and the shallow-copy check torch::nn needs to move modules to the device.
#include <ATen/ATen.h>
#include <torch/library.h>

#include "glue/glue.h"
#include "spyre_emu/dl16.h"

namespace spyre_emu::glue {

namespace {

at::Tensor& FillScalar(at::Tensor& self, const at::Scalar& value) {
  if (self.numel() == 0) return self;
  DeviceAccess access({self});
  if (IsDl16(self.scalar_type())) {
    const uint16_t code = Dl16Encode(value.toFloat(), CurrentRounding());
    HostAlias(self).fill_(static_cast<int16_t>(code));
  } else {
    HostAlias(self).fill_(value);
  }
  return self;
}

at::Tensor& FillTensor(at::Tensor& self, const at::Tensor& value) {
  TORCH_CHECK(value.dim() == 0, "fill_ only supports a 0-dimension value tensor, got ", value.dim(),
              " dimensions");
  return FillScalar(self, value.item());
}

at::Tensor& Zero(at::Tensor& self) { return FillScalar(self, 0); }

at::Scalar LocalScalarDense(const at::Tensor& self) {
  TORCH_CHECK(self.numel() == 1, "a Tensor with ", self.numel(),
              " elements cannot be converted to Scalar");
  DeviceAccess access({self});
  if (IsDl16(self.scalar_type())) {
    return at::Scalar(static_cast<double>(Dl16Decode(*DataAs<uint16_t>(self))));
  }
  return HostAlias(self).item();
}

// Random values are drawn on the host (fp32 for DL16 tensors, so the
// generator's stream does not depend on the device) and written through the
// ordinary host -> device conversion.
at::Tensor HostLike(const at::Tensor& self) {
  return at::empty(self.sizes(), IsDl16(self.scalar_type()) ? at::kFloat : self.scalar_type());
}

at::Tensor& Uniform(at::Tensor& self, double from, double to, c10::optional<at::Generator> gen) {
  WriteFromHost(HostLike(self).uniform_(from, to, std::move(gen)), self);
  return self;
}

at::Tensor& Normal(at::Tensor& self, double mean, double std, c10::optional<at::Generator> gen) {
  WriteFromHost(HostLike(self).normal_(mean, std, std::move(gen)), self);
  return self;
}

// Module::to(device) swaps a parameter's data with set_data, which asks
// whether the CPU and device TensorImpls are interchangeable. They are: the
// device uses the plain TensorImpl.
bool HasCompatibleShallowCopyType(const at::Tensor&, const at::Tensor&) { return true; }

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("fill_.Scalar", TORCH_FN(FillScalar));
  m.impl("fill_.Tensor", TORCH_FN(FillTensor));
  m.impl("zero_", TORCH_FN(Zero));
  m.impl("_local_scalar_dense", TORCH_FN(LocalScalarDense));
  m.impl("uniform_", TORCH_FN(Uniform));
  m.impl("normal_", TORCH_FN(Normal));
  m.impl("_has_compatible_shallow_copy_type", TORCH_FN(HasCompatibleShallowCopyType));
}

TORCH_LIBRARY_IMPL(aten, AutogradPrivateUse1, m) {
  m.impl("_has_compatible_shallow_copy_type", TORCH_FN(HasCompatibleShallowCopyType));
}

}  // namespace spyre_emu::glue
