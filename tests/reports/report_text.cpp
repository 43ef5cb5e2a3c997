#include "report_text.h"

#include <regex>

namespace reports_test {

std::vector<std::string> ScientificNumbers(const std::string& text) {
  static const std::regex kSci(
      R"((^|[^0-9A-Za-z_.])([-+]?[0-9]+(\.[0-9]+)?[eE][-+]?[0-9]+)(?![0-9A-Za-z_]))");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kSci); it != std::sregex_iterator();
       ++it) {
    out.push_back((*it)[2]);
  }
  return out;
}

std::string Slice(const std::string& text, const std::string& open, const std::string& close) {
  const size_t at = text.find(open);
  if (at == std::string::npos) return "";
  const size_t end = text.find(close, at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace reports_test
