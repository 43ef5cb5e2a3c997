// Matrix products: mm, bmm, addmm, baddbmm, matmul (broadcasting), linear.
// Transposed operands come from inputs with "permute" (strided views).
#include "suites/ops/op_registry.h"

namespace suites {
namespace {

// K is the second-to-last dim of the right operand (its rows).
int64_t InnerDim(const Inputs& x, size_t right) {
  const at::Tensor& b = x[right];
  return b.dim() >= 2 ? b.size(-2) : b.size(0);
}

void RegisterMatmul() {
  const std::vector<AttrSpec> scale = {{"alpha", AttrType::kNumber, 1},
                                       {"beta", AttrType::kNumber, 1}};
  RegisterOp({"mm", 2, 2, {}, [](const Inputs& x, const Attrs&) { return Outputs{at::mm(x[0], x[1])}; },
              [](const Inputs& x, const Attrs&) { return InnerDim(x, 1); }, "at::mm(a, b)"});
  RegisterOp({"bmm", 2, 2, {},
              [](const Inputs& x, const Attrs&) { return Outputs{at::bmm(x[0], x[1])}; },
              [](const Inputs& x, const Attrs&) { return InnerDim(x, 1); }, "at::bmm(a, b)"});
  RegisterOp({"matmul", 2, 2, {},
              [](const Inputs& x, const Attrs&) { return Outputs{at::matmul(x[0], x[1])}; },
              [](const Inputs& x, const Attrs&) { return InnerDim(x, 1); },
              "at::matmul(a, b) with broadcasting batch dims"});
  RegisterOp({"addmm", 3, 3, scale,
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::addmm(x[0], x[1], x[2], a["beta"].get<double>(),
                                         a["alpha"].get<double>())};
              },
              [](const Inputs& x, const Attrs&) { return InnerDim(x, 2); },
              "at::addmm(bias, a, b, beta, alpha)"});
  RegisterOp({"baddbmm", 3, 3, scale,
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::baddbmm(x[0], x[1], x[2], a["beta"].get<double>(),
                                           a["alpha"].get<double>())};
              },
              [](const Inputs& x, const Attrs&) { return InnerDim(x, 2); },
              "at::baddbmm(bias, a, b, beta, alpha)"});
  RegisterOp({"linear", 2, 3, {},
              [](const Inputs& x, const Attrs&) {
                c10::optional<at::Tensor> bias;
                if (x.size() > 2) bias = x[2];
                return Outputs{at::linear(x[0], x[1], bias)};
              },
              [](const Inputs& x, const Attrs&) { return x[1].size(-1); },
              "at::linear(x, weight [out, in], [bias])"});
}

SPYRE_REGISTER_OPS(RegisterMatmul);

}  // namespace
}  // namespace suites
