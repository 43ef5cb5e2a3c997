#include <map>
#include <regex>

#include "cli.h"
#include "base/human_format.h"

namespace harness::cli {

Status CheckLabelText(const std::string& text, const std::string& what) {
  if (text.size() > kMaxLabelBytes) {
    return UsageError(what + " is " + std::to_string(text.size()) + " bytes long; at most " +
                      std::to_string(kMaxLabelBytes) + " are kept with a run: shorten it");
  }
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool c1 = c == 0xC2 && i + 1 < text.size() &&
                    static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                    static_cast<unsigned char>(text[i + 1]) <= 0x9F;
    if (c < 0x20 || c == 0x7F || c1) {
      return UsageError(what + " holds a control character (" +
                        EscapeControl(text.substr(i, c1 ? 2 : 1)) + " at byte " +
                        std::to_string(i + 1) +
                        "): it is shown in terminals and reports on one line; use printable text");
    }
  }
  return Status::Ok();
}

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
    SPYRE_RETURN_IF_ERROR(CheckLabelText(t.substr(eq + 1), "--tag " + key + "'s value"));
    out[key] = t.substr(eq + 1);
  }
  return out;
}

}  // namespace harness::cli
