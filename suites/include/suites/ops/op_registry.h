#pragma once
// The op registry: an op name and its attributes -> a libtorch call. The
// "op" case kind looks ops up here; each group of ops registers itself from
// its own file (suites/ops/ops_*.cpp) with SPYRE_REGISTER_OPS.
//
// An op function receives its inputs already placed (CPU in reference
// precision for golden outputs, the device under test for the run) and its
// attributes with every default filled in, and returns its outputs.
//
//   RegisterOp({"gelu", 1, 1, {{"approximate", AttrType::kString, "none"}},
//               [](const Inputs& x, const Attrs& a) {
//                 return Outputs{at::gelu(x[0], a["approximate"].get<std::string>())};
//               }});
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>

#include "base/status.h"

namespace suites {

using Inputs = std::vector<at::Tensor>;
using Outputs = std::vector<at::Tensor>;
using Attrs = nlohmann::json;  // an object, defaults filled in

enum class AttrType {
  kInt,      // JSON integer
  kNumber,   // JSON integer or float
  kBool,
  kString,
  kIntList,  // array of integers
};
const char* AttrTypeName(AttrType t);

struct AttrSpec {
  std::string name;
  AttrType type;
  nlohmann::json default_value;  // null: the attribute is required...
  bool optional = false;         // ...unless optional (then absent stays null)
  std::vector<std::string> choices = {};  // kString: the accepted values, empty = any
};

struct OpDef {
  std::string name;
  int min_inputs = 1;
  int max_inputs = 1;
  std::vector<AttrSpec> attrs;
  std::function<Outputs(const Inputs&, const Attrs&)> run;
  // Terms each output element sums over (tolerance growth); null = 1.
  std::function<int64_t(const Inputs&, const Attrs&)> reduction_length = nullptr;
  std::string summary = "";  // one line for `list` and the docs
};

void RegisterOp(OpDef def);
const OpDef* FindOp(const std::string& name);  // nullptr when unknown
std::vector<std::string> OpNames();            // sorted

// Checks `given` (the case's "attrs", may be null) against the op's specs
// and fills defaults. Unknown names, wrong types and missing required
// attributes are errors naming `pointer` + "/<attr>".
harness::StatusOr<Attrs> ResolveAttrs(const OpDef& op, const nlohmann::json& given,
                                      const std::string& pointer);

// Registers a group of ops from a static object in the group's file.
struct OpGroupRegistrar {
  explicit OpGroupRegistrar(void (*register_group)()) { register_group(); }
};
#define SPYRE_REGISTER_OPS(fn) static ::suites::OpGroupRegistrar spyre_op_group_##fn(fn)

// Helpers for op functions.
std::vector<int64_t> IntList(const nlohmann::json& j);
// Product of the sizes of `dims` of `t` (negative dims wrap; empty = all dims).
int64_t DimsNumel(const at::Tensor& t, const std::vector<int64_t>& dims);

}  // namespace suites
