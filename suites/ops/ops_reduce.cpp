// Reductions and normalisations: sum, mean, amax, max, any, var along dims;
// softmax, log_softmax, layer_norm.
#include "suites/ops/op_registry.h"

namespace suites {
namespace {

int64_t ReducedTerms(const Inputs& x, const Attrs& a) {
  return DimsNumel(x[0], IntList(a["dim"]));
}

int64_t RowLength(const Inputs& x, const Attrs& a) {
  return x[0].dim() == 0 ? 1 : x[0].size(a["dim"].get<int64_t>());
}

void RegisterReductions() {
  const std::vector<AttrSpec> dims = {{"dim", AttrType::kIntList, nlohmann::json::array()},
                                      {"keepdim", AttrType::kBool, false}};
  RegisterOp({"sum", 1, 1, dims,
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::sum(x[0], IntList(a["dim"]), a["keepdim"].get<bool>())};
              },
              ReducedTerms, "at::sum(x, dim, keepdim); dim [] = all"});
  RegisterOp({"mean", 1, 1, dims,
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::mean(x[0], IntList(a["dim"]), a["keepdim"].get<bool>())};
              },
              ReducedTerms, "at::mean(x, dim, keepdim); dim [] = all"});
  RegisterOp({"amax", 1, 1, dims,
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::amax(x[0], IntList(a["dim"]), a["keepdim"].get<bool>())};
              },
              nullptr, "at::amax(x, dim, keepdim)"});
  RegisterOp({"max",
              1,
              1,
              {{"dim", AttrType::kInt, -1}, {"keepdim", AttrType::kBool, false}},
              [](const Inputs& x, const Attrs& a) {
                auto [values, indices] =
                    at::max(x[0], a["dim"].get<int64_t>(), a["keepdim"].get<bool>());
                return Outputs{values, indices};
              },
              nullptr,
              "at::max(x, dim, keepdim): values and indices (int64)"});
  RegisterOp({"any",
              1,
              1,
              {{"dim", AttrType::kInt, -1}, {"keepdim", AttrType::kBool, false}},
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::any(x[0], a["dim"].get<int64_t>(), a["keepdim"].get<bool>())};
              },
              nullptr,
              "at::any(x, dim, keepdim): bool"});
  std::vector<AttrSpec> var_attrs = dims;
  var_attrs.push_back({"correction", AttrType::kInt, 1});
  RegisterOp({"var", 1, 1, var_attrs,
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::var(x[0], at::OptionalIntArrayRef(IntList(a["dim"])),
                                       c10::optional<int64_t>(a["correction"].get<int64_t>()),
                                       a["keepdim"].get<bool>())};
              },
              ReducedTerms, "at::var(x, dim, correction, keepdim)"});
  RegisterOp({"softmax", 1, 1, {{"dim", AttrType::kInt, -1}},
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::_softmax(x[0], a["dim"].get<int64_t>(), false)};
              },
              RowLength, "at::_softmax(x, dim)"});
  RegisterOp({"log_softmax", 1, 1, {{"dim", AttrType::kInt, -1}},
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::_log_softmax(x[0], a["dim"].get<int64_t>(), false)};
              },
              RowLength, "at::_log_softmax(x, dim)"});
  RegisterOp({"layer_norm",
              1,
              3,
              {{"normalized_dims", AttrType::kInt, 1}, {"eps", AttrType::kNumber, 1e-5}},
              [](const Inputs& x, const Attrs& a) {
                const int64_t k = a["normalized_dims"].get<int64_t>();
                const auto shape = x[0].sizes().slice(x[0].dim() - k);
                c10::optional<at::Tensor> w, b;
                if (x.size() > 1) w = x[1];
                if (x.size() > 2) b = x[2];
                auto [out, mean, rstd] =
                    at::native_layer_norm(x[0], shape, w, b, a["eps"].get<double>());
                return Outputs{out, mean, rstd};
              },
              [](const Inputs& x, const Attrs& a) {
                const int64_t k = a["normalized_dims"].get<int64_t>();
                int64_t n = 1;
                for (int64_t d = x[0].dim() - k; d < x[0].dim(); ++d) n *= x[0].size(d);
                return n;
              },
              "at::native_layer_norm(x, last normalized_dims dims, [weight], [bias], eps): "
              "out, mean, rstd"});
}

SPYRE_REGISTER_OPS(RegisterReductions);

}  // namespace
}  // namespace suites
