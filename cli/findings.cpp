#include <ostream>

#include "cli.h"

namespace harness::cli {

void PrintFindings(std::ostream& out, const nlohmann::json& comparison) {
  if (!comparison.is_object()) return;
  const nlohmann::json regressions = comparison.value("regressions", nlohmann::json::array());
  if (regressions.empty()) return;
  const std::string why = comparison.value("attribution", "");
  out << "regressions" << (why.empty() ? "" : " " + why) << ":\n";
  for (size_t i = 0; i < regressions.size() && i < 20; ++i) {
    const nlohmann::json& f = regressions[i];
    out << "  " << f.value("suite", "") << "/" << f.value("case", "") << " [" << f.value("kind", "") << "] "
        << f.value("detail", "") << "\n";
  }
  if (regressions.size() > 20) {
    out << "  ... and " << regressions.size() - 20 << " more (spyre-regress compare, or report)\n";
  }
}

}  // namespace harness::cli
