// Dtype names and the parser of a suite file's generated-input object.
#include <algorithm>

#include "harness/inputs/generator.h"

namespace harness {
namespace {

struct DtypeNames {
  at::ScalarType type;
  const char* name;
  const char* short_name;
};
constexpr DtypeNames kDtypes[] = {
    {at::kHalf, "float16", "f16"}, {at::kBFloat16, "bfloat16", "bf16"},
    {at::kFloat, "float32", "f32"}, {at::kDouble, "float64", "f64"},
    {at::kLong, "int64", "i64"},    {at::kInt, "int32", "i32"},
    {at::kBool, "bool", "b"},
};

Status BadSpec(const std::string& pointer, const std::string& what) {
  return InvalidInput(pointer + ": " + what);
}

// Reads an optional number member; wrong type is an error.
Status ReadNumber(const nlohmann::json& j, const char* key, const std::string& pointer,
                  double* out) {
  if (!j.contains(key)) return Status::Ok();
  if (!j[key].is_number()) return BadSpec(pointer + "/" + key, "expected a number");
  *out = j[key].get<double>();
  return Status::Ok();
}

StatusOr<std::vector<int64_t>> ReadDims(const nlohmann::json& j, const std::string& pointer) {
  if (!j.is_array()) return BadSpec(pointer, "expected an array of non-negative integers");
  std::vector<int64_t> dims;
  for (size_t i = 0; i < j.size(); ++i) {
    if (!j[i].is_number_integer() || j[i].get<int64_t>() < 0) {
      return BadSpec(pointer + "/" + std::to_string(i), "expected a non-negative integer");
    }
    dims.push_back(j[i].get<int64_t>());
  }
  return dims;
}

}  // namespace

StatusOr<at::ScalarType> ParseDtypeName(const std::string& name) {
  for (const auto& d : kDtypes) {
    if (name == d.name) return d.type;
  }
  return InvalidInput("unknown dtype '" + name +
                      "' (use float16, bfloat16, float32, float64, int64, int32 or bool)");
}

const char* DtypeName(at::ScalarType t) {
  for (const auto& d : kDtypes) {
    if (d.type == t) return d.name;
  }
  return "unknown";
}

const char* DtypeShortName(at::ScalarType t) {
  for (const auto& d : kDtypes) {
    if (d.type == t) return d.short_name;
  }
  return "unknown";
}

StatusOr<InputSpec> ParseInputSpec(const nlohmann::json& j, const std::string& pointer) {
  if (!j.is_object()) return BadSpec(pointer, "expected an input object");
  InputSpec s;
  if (!j.contains("shape")) return BadSpec(pointer, "missing \"shape\"");
  SPYRE_ASSIGN_OR_RETURN(auto shape, ReadDims(j["shape"], pointer + "/shape"));
  s.shape = shape;
  if (!j.contains("dtype")) return BadSpec(pointer, "missing \"dtype\"");
  if (!j["dtype"].is_string()) return BadSpec(pointer + "/dtype", "expected a string");
  SPYRE_ASSIGN_OR_RETURN_CTX(s.dtype, ParseDtypeName(j["dtype"].get<std::string>()),
                             pointer + "/dtype");
  if (j.contains("dist")) {
    if (!j["dist"].is_string()) return BadSpec(pointer + "/dist", "expected a string");
    const std::string d = j["dist"].get<std::string>();
    bool found = false;
    for (Distribution c : {Distribution::kNormal, Distribution::kUniform, Distribution::kInt,
                           Distribution::kEdge, Distribution::kConst}) {
      if (d == DistributionName(c)) { s.dist = c; found = true; }
    }
    if (!found) {
      return BadSpec(pointer + "/dist",
                 "unknown distribution '" + d + "' (use normal, uniform, int, edge or const)");
    }
  }
  SPYRE_RETURN_IF_ERROR(ReadNumber(j, "mean", pointer, &s.mean));
  SPYRE_RETURN_IF_ERROR(ReadNumber(j, "scale", pointer, &s.scale));
  SPYRE_RETURN_IF_ERROR(ReadNumber(j, "low", pointer, &s.low));
  SPYRE_RETURN_IF_ERROR(ReadNumber(j, "high", pointer, &s.high));
  SPYRE_RETURN_IF_ERROR(ReadNumber(j, "value", pointer, &s.value));
  if (s.dist == Distribution::kUniform && !(s.low < s.high)) {
    return BadSpec(pointer, "uniform needs low < high");
  }
  if (s.dist == Distribution::kInt && !(s.low <= s.high)) {
    return BadSpec(pointer, "int needs low <= high");
  }
  if (j.contains("nonfinite")) {
    if (!j["nonfinite"].is_boolean()) return BadSpec(pointer + "/nonfinite", "expected a boolean");
    s.nonfinite = j["nonfinite"].get<bool>();
  }
  if (j.contains("permute")) {
    SPYRE_ASSIGN_OR_RETURN(auto perm, ReadDims(j["permute"], pointer + "/permute"));
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    bool is_perm = sorted.size() == s.shape.size();
    for (size_t i = 0; is_perm && i < sorted.size(); ++i) is_perm = sorted[i] == int64_t(i);
    if (!is_perm) return BadSpec(pointer + "/permute", "expected a permutation of the shape's dims");
    s.permute = perm;
  }
  return s;
}

}  // namespace harness
