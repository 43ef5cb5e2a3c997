// Data movement: cat, embedding, index_select, and materialising strided
// views (contiguous of a permute / transpose).
#include "suites/ops/op_registry.h"

namespace suites {
namespace {

void RegisterData() {
  RegisterOp({"cat", 1, 8, {{"dim", AttrType::kInt, 0}},
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::cat(x, a["dim"].get<int64_t>())};
              },
              nullptr, "at::cat(inputs, dim)"});
  RegisterOp({"embedding", 2, 2, {},
              [](const Inputs& x, const Attrs&) { return Outputs{at::embedding(x[0], x[1])}; },
              nullptr, "at::embedding(weight, indices (int64))"});
  RegisterOp({"index_select", 2, 2, {{"dim", AttrType::kInt, 0}},
              [](const Inputs& x, const Attrs& a) {
                return Outputs{at::index_select(x[0], a["dim"].get<int64_t>(), x[1])};
              },
              nullptr, "at::index_select(x, dim, index (int64))"});
  RegisterOp({"contiguous", 1, 1, {},
              [](const Inputs& x, const Attrs&) { return Outputs{x[0].contiguous()}; }, nullptr,
              "x.contiguous() (give the input a \"permute\" to make it strided)"});
  RegisterOp({"transpose", 1, 1, {{"dim0", AttrType::kInt, 0}, {"dim1", AttrType::kInt, 1}},
              [](const Inputs& x, const Attrs& a) {
                return Outputs{
                    x[0].transpose(a["dim0"].get<int64_t>(), a["dim1"].get<int64_t>()).contiguous()};
              },
              nullptr, "x.transpose(dim0, dim1).contiguous()"});
  RegisterOp({"permute", 1, 1, {{"dims", AttrType::kIntList, nullptr}},
              [](const Inputs& x, const Attrs& a) {
                return Outputs{x[0].permute(IntList(a["dims"])).contiguous()};
              },
              nullptr, "x.permute(dims).contiguous()"});
}

SPYRE_REGISTER_OPS(RegisterData);

}  // namespace
}  // namespace suites
