#include <map>
#include <regex>

#include "cli.h"

namespace harness::cli {

// Parses repeated `--tag K=V` values. Keys are identifiers so they can name
// an environment component in reports (e.g. vllm=0.9.1).
StatusOr<std::map<std::string, std::string>> ParseTags(const std::vector<std::string>& tags) {
  static const std::regex kKey("[A-Za-z_][A-Za-z0-9_.-]*");
  std::map<std::string, std::string> out;
  for (const std::string& t : tags) {
    size_t eq = t.find('=');
    if (eq == std::string::npos || !std::regex_match(t.substr(0, eq), kKey)) {
      return UsageError("--tag '" + t + "' is not K=V: use a key of letters, digits, _ . - then '=' and a value");
    }
    std::string key = t.substr(0, eq);
    if (out.count(key) != 0) return UsageError("--tag '" + key + "' is given twice: give each key once");
    out[key] = t.substr(eq + 1);
  }
  return out;
}

}  // namespace harness::cli
