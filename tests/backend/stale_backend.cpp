// stale_backend: a backend built against another libtorch's schemas, as a
// team's library is when libtorch moves under it. It registers a PrivateUse1
// kernel for aten::var.correction whose C++ signature fits no libtorch
// version (the correction as a double), so libtorch refuses it while the
// library loads.
#include <ATen/ATen.h>
#include <torch/library.h>

namespace {

at::Tensor VarWithDoubleCorrection(const at::Tensor& self, double correction) {
  return self.var(/*unbiased=*/correction != 0.0);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("var.correction", TORCH_FN(VarWithDoubleCorrection));
}
