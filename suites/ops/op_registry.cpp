#include "suites/ops/op_registry.h"

#include <algorithm>
#include <map>
#include <mutex>

namespace suites {
namespace {

std::map<std::string, OpDef>& Registry() {
  static std::map<std::string, OpDef> ops;
  return ops;
}

bool TypeMatches(AttrType t, const nlohmann::json& v) {
  switch (t) {
    case AttrType::kInt: return v.is_number_integer();
    case AttrType::kNumber: return v.is_number();
    case AttrType::kBool: return v.is_boolean();
    case AttrType::kString: return v.is_string();
    case AttrType::kIntList:
      return v.is_array() && std::all_of(v.begin(), v.end(),
                                         [](const auto& e) { return e.is_number_integer(); });
  }
  return false;
}

}  // namespace

const char* AttrTypeName(AttrType t) {
  switch (t) {
    case AttrType::kInt: return "an integer";
    case AttrType::kNumber: return "a number";
    case AttrType::kBool: return "a boolean";
    case AttrType::kString: return "a string";
    case AttrType::kIntList: return "an array of integers";
  }
  return "?";
}

void RegisterOp(OpDef def) {
  const std::string name = def.name;
  Registry()[name] = std::move(def);
}

const OpDef* FindOp(const std::string& name) {
  auto it = Registry().find(name);
  return it == Registry().end() ? nullptr : &it->second;
}

std::vector<std::string> OpNames() {
  std::vector<std::string> names;
  for (const auto& [name, unused] : Registry()) names.push_back(name);
  return names;
}

harness::StatusOr<Attrs> ResolveAttrs(const OpDef& op, const nlohmann::json& given,
                                      const std::string& pointer) {
  if (!given.is_null() && !given.is_object()) {
    return harness::InvalidInput(pointer + ": expected an object of attributes");
  }
  Attrs out = nlohmann::json::object();
  if (given.is_object()) {
    for (const auto& [key, value] : given.items()) {
      // C++17 lambdas cannot capture a structured binding (clang rejects it).
      const std::string& name = key;
      auto spec = std::find_if(op.attrs.begin(), op.attrs.end(),
                               [&](const AttrSpec& a) { return a.name == name; });
      if (spec == op.attrs.end()) {
        std::string known;
        for (const auto& a : op.attrs) known += (known.empty() ? "" : ", ") + a.name;
        return harness::InvalidInput(pointer + "/" + key + ": op '" + op.name +
                                     "' has no attribute '" + key + "' (known: " +
                                     (known.empty() ? "none" : known) + ")");
      }
      if (!TypeMatches(spec->type, value)) {
        return harness::InvalidInput(pointer + "/" + key + ": expected " +
                                     AttrTypeName(spec->type) + ", got " + value.dump());
      }
      if (!spec->choices.empty() &&
          std::find(spec->choices.begin(), spec->choices.end(), value.get<std::string>()) ==
              spec->choices.end()) {
        std::string known;
        for (const auto& c : spec->choices) known += (known.empty() ? "" : ", ") + c;
        return harness::InvalidInput(pointer + "/" + key + ": " + value.dump() +
                                     " is not one of " + known);
      }
      out[key] = value;
    }
  }
  for (const auto& a : op.attrs) {
    if (out.contains(a.name)) continue;
    if (a.default_value.is_null() && !a.optional) {
      return harness::InvalidInput(pointer + ": op '" + op.name + "' needs attribute '" + a.name +
                                   "' (" + AttrTypeName(a.type) + ")");
    }
    out[a.name] = a.default_value;
  }
  return out;
}

std::vector<int64_t> IntList(const nlohmann::json& j) {
  std::vector<int64_t> v;
  for (const auto& e : j) v.push_back(e.get<int64_t>());
  return v;
}

int64_t DimsNumel(const at::Tensor& t, const std::vector<int64_t>& dims) {
  if (dims.empty()) return t.numel();
  int64_t n = 1;
  for (int64_t d : dims) n *= t.size(d);
  return n;
}

}  // namespace suites
