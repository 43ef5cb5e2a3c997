#include "schema_check.h"

#include "base/input_file.h"

#include <filesystem>
#include <regex>

namespace harness {
namespace {

class Validator {
 public:
  explicit Validator(const nlohmann::json& root) : root_(root) {}

  // Returns the first problem as "<pointer>: <what>", or "" when valid.
  std::string Check(const nlohmann::json& v, const nlohmann::json& s, const std::string& ptr) const {
    if (s.contains("$ref")) {
      const std::string ref = s["$ref"].get<std::string>();
      const nlohmann::json::json_pointer jp(ref.substr(1));  // "#/$defs/x" -> "/$defs/x"
      return Check(v, root_.at(jp), ptr);
    }
    if (s.contains("type") && !TypeMatches(v, s["type"])) {
      return At(ptr) + "expected " + TypeText(s["type"]) + ", got " + v.type_name() + " " + Short(v);
    }
    if (s.contains("enum")) {
      bool found = false;
      for (const auto& e : s["enum"]) found = found || e == v;
      if (!found) return At(ptr) + Short(v) + " is not one of " + s["enum"].dump();
    }
    if (v.is_number()) {
      const double x = v.get<double>();
      if (s.contains("minimum") && x < s["minimum"].get<double>()) {
        return At(ptr) + "must be >= " + s["minimum"].dump();
      }
      if (s.contains("maximum") && x > s["maximum"].get<double>()) {
        return At(ptr) + Short(v) + " is out of range: at most " + s["maximum"].dump();
      }
      if (s.contains("exclusiveMinimum") && x <= s["exclusiveMinimum"].get<double>()) {
        return At(ptr) + "must be > " + s["exclusiveMinimum"].dump();
      }
    }
    if (v.is_string() && s.contains("pattern") &&
        !std::regex_search(v.get<std::string>(), std::regex(s["pattern"].get<std::string>()))) {
      return At(ptr) + Short(v) + " does not match " + s["pattern"].dump();
    }
    if (v.is_array()) {
      if (s.contains("minItems") && v.size() < s["minItems"].get<size_t>()) {
        return At(ptr) + "needs at least " + s["minItems"].dump() + " item(s)";
      }
      if (s.contains("items")) {
        for (size_t i = 0; i < v.size(); ++i) {
          std::string e = Check(v[i], s["items"], ptr + "/" + std::to_string(i));
          if (!e.empty()) return e;
        }
      }
    }
    if (v.is_object()) {
      if (s.contains("required")) {
        for (const auto& r : s["required"]) {
          if (!v.contains(r.get<std::string>())) return At(ptr) + "missing required member " + r.dump();
        }
      }
      for (const auto& [key, value] : v.items()) {
        const std::string p = ptr + "/" + key;
        if (s.contains("properties") && s["properties"].contains(key)) {
          std::string e = Check(value, s["properties"][key], p);
          if (!e.empty()) return e;
        } else if (s.contains("additionalProperties")) {
          const nlohmann::json& ap = s["additionalProperties"];
          if (ap.is_boolean() && !ap.get<bool>()) {
            return At(p) + "unknown member" + Known(s);
          }
          if (ap.is_object()) {
            std::string e = Check(value, ap, p);
            if (!e.empty()) return e;
          }
        }
      }
    }
    if (s.contains("anyOf")) {
      std::string first;
      for (const auto& alt : s["anyOf"]) {
        std::string e = Check(v, alt, ptr);
        if (e.empty()) return "";
        if (first.empty()) first = e;
      }
      return first;
    }
    return "";
  }

 private:
  static std::string At(const std::string& ptr) { return (ptr.empty() ? "/" : ptr) + ": "; }
  static std::string Short(const nlohmann::json& v) {
    std::string d = v.dump();
    return d.size() > 40 ? d.substr(0, 37) + "..." : d;
  }
  static std::string Known(const nlohmann::json& s) {
    if (!s.contains("properties")) return "";
    std::string names;
    for (const auto& [k, unused] : s["properties"].items()) names += (names.empty() ? "" : ", ") + k;
    return " (known: " + names + ")";
  }
  static bool OneType(const nlohmann::json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    return false;
  }
  static bool TypeMatches(const nlohmann::json& v, const nlohmann::json& t) {
    if (t.is_string()) return OneType(v, t.get<std::string>());
    for (const auto& one : t) {
      if (OneType(v, one.get<std::string>())) return true;
    }
    return false;
  }
  static std::string TypeText(const nlohmann::json& t) {
    if (t.is_string()) return t.get<std::string>();
    std::string s;
    for (const auto& one : t) s += (s.empty() ? "" : " or ") + one.get<std::string>();
    return s;
  }
  const nlohmann::json& root_;
};

}  // namespace

Status ValidateJsonSchema(const nlohmann::json& doc, const nlohmann::json& schema) {
  const std::string problem = Validator(schema).Check(doc, schema, "");
  if (problem.empty()) return Status::Ok();
  return InvalidInput(problem);
}

Status CheckAgainstSchema(const nlohmann::json& doc, const std::string& suites_dir) {
  namespace fs = std::filesystem;
  fs::path path = fs::path(suites_dir) / "schema.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) path = fs::path(SPYRE_SOURCE_DIR) / "suites" / "schema.json";
  SPYRE_ASSIGN_OR_RETURN(auto text,
                         ReadInputFile(path.string(), kMaxJsonFileBytes, "suite schema"));
  nlohmann::json schema = nlohmann::json::parse(text, nullptr, false);
  if (schema.is_discarded()) return InternalError(path.string() + ": the suite schema is not valid JSON");
  return ValidateJsonSchema(doc, schema);
}

}  // namespace harness
