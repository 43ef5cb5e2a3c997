#include "sweep.h"

#include <map>

namespace harness {
namespace {

std::string ShapeText(const nlohmann::json& shape) {
  if (shape.empty()) return "s";
  std::string s;
  for (const auto& d : shape) s += (s.empty() ? "" : "x") + d.dump();
  return s;
}

Status CheckShape(const nlohmann::json& shape, const std::string& pointer) {
  if (!shape.is_array()) return InvalidInput(pointer + ": expected a shape (array of integers)");
  for (size_t i = 0; i < shape.size(); ++i) {
    if (!shape[i].is_number_integer() || shape[i].get<int64_t>() < 0) {
      return InvalidInput(pointer + "/" + std::to_string(i) + ": expected a non-negative integer");
    }
  }
  return Status::Ok();
}

// Sets the dtype of every generated input that does not name its own. A
// file input gets it as "case_dtype": its floating tensor is converted to it,
// while an integer or bool tensor (indices, masks) keeps its own dtype.
void ApplyDtype(nlohmann::json* c, const nlohmann::json& dtype) {
  if (!c->contains("inputs") || !(*c)["inputs"].is_array()) return;
  for (auto& in : (*c)["inputs"]) {
    if (!in.is_object() || in.contains("dtype")) continue;
    in[in.contains("file") ? "case_dtype" : "dtype"] = dtype;
  }
}

}  // namespace

StatusOr<std::vector<nlohmann::json>> ExpandSweep(const nlohmann::json& c,
                                                  const std::string& pointer) {
  if (!c.contains("sweep")) {
    nlohmann::json one = c;
    if (one.contains("dtype")) ApplyDtype(&one, one["dtype"]);
    one.erase("dtype");
    return std::vector<nlohmann::json>{one};
  }
  const nlohmann::json& sw = c["sweep"];
  const std::string sp = pointer + "/sweep";
  if (!sw.is_object()) return InvalidInput(sp + ": expected an object");
  for (const auto& [key, value] : sw.items()) {
    if (key != "shapes" && key != "shape" && key != "dtypes") {
      return InvalidInput(sp + "/" + key + ": unknown sweep member (use shapes, shape or dtypes)");
    }
    if (!value.is_array() || value.empty()) {
      return InvalidInput(sp + "/" + key + ": expected a non-empty array");
    }
  }
  if (sw.contains("shapes") && sw.contains("shape")) {
    return InvalidInput(sp + ": give either \"shapes\" or \"shape\", not both");
  }
  const size_t n_inputs = c.contains("inputs") && c["inputs"].is_array() ? c["inputs"].size() : 0;
  // Each shape item: a list of per-input shapes.
  std::vector<nlohmann::json> shape_items;
  if (sw.contains("shapes")) {
    for (size_t i = 0; i < sw["shapes"].size(); ++i) {
      const nlohmann::json& item = sw["shapes"][i];
      const std::string ip = sp + "/shapes/" + std::to_string(i);
      if (!item.is_array() || item.size() != n_inputs) {
        return InvalidInput(ip + ": expected one shape per input (" + std::to_string(n_inputs) + ")");
      }
      for (size_t k = 0; k < item.size(); ++k) {
        SPYRE_RETURN_IF_ERROR(CheckShape(item[k], ip + "/" + std::to_string(k)));
      }
      shape_items.push_back(item);
    }
  } else if (sw.contains("shape")) {
    for (size_t i = 0; i < sw["shape"].size(); ++i) {
      SPYRE_RETURN_IF_ERROR(CheckShape(sw["shape"][i], sp + "/shape/" + std::to_string(i)));
      shape_items.push_back(nlohmann::json(std::vector<nlohmann::json>(n_inputs, sw["shape"][i])));
    }
  } else {
    shape_items.push_back(nullptr);  // shapes from the inputs themselves
  }
  std::vector<nlohmann::json> dtypes;
  if (sw.contains("dtypes")) {
    for (const auto& d : sw["dtypes"]) dtypes.push_back(d);
  } else {
    dtypes.push_back(c.contains("dtype") ? c["dtype"] : nullptr);
  }
  static const std::map<std::string, std::string> kShort = {
      {"float16", "f16"}, {"bfloat16", "bf16"}, {"float32", "f32"}, {"float64", "f64"},
      {"int64", "i64"},   {"int32", "i32"},     {"bool", "b"}};

  std::vector<nlohmann::json> out;
  out.reserve(shape_items.size() * dtypes.size());
  const std::string base = c.value("id", std::string());
  // The case without its sweep, copied once per expanded case: copying the
  // sweep too would make expansion quadratic in its size.
  nlohmann::json templ = nlohmann::json::object();
  for (const auto& [key, value] : c.items()) {
    if (key != "sweep" && key != "dtype") templ[key] = value;
  }
  for (const auto& shapes : shape_items) {
    for (size_t di = 0; di < dtypes.size(); ++di) {
      const nlohmann::json& dtype = dtypes[di];
      nlohmann::json one = templ;
      std::string id = base;
      if (!shapes.is_null()) {
        std::string text;
        for (size_t k = 0; k < n_inputs; ++k) {
          nlohmann::json& in = one["inputs"][k];
          if (in.is_object() && !in.contains("file")) in["shape"] = shapes[k];
          text += (k ? "-" : "") + ShapeText(shapes[k]);
        }
        id += "." + text;
      }
      if (!dtype.is_null()) {
        if (!dtype.is_string() || !kShort.count(dtype.get<std::string>())) {
          return InvalidInput(sp + "/dtypes/" + std::to_string(di) + ": unknown dtype " +
                              dtype.dump() + " (use float16, bfloat16, float32, ...)");
        }
        ApplyDtype(&one, dtype);
        if (sw.contains("dtypes")) id += "." + kShort.at(dtype.get<std::string>());
      }
      one["id"] = id;
      out.push_back(std::move(one));
    }
  }
  return out;
}

}  // namespace harness
