#include <ostream>

#include "cli.h"

namespace harness::cli {

void PrintFindings(std::ostream& out, const nlohmann::json& comparison) {
  if (!comparison.is_object()) return;
  const nlohmann::json regressions = comparison.value("regressions", nlohmann::json::array());
  if (regressions.empty()) return;
  const std::string why = comparison.value("attribution", "");
  out << "regressions" << (why.empty() ? "" : " " + why) << ":\n";
  // By group (kind and op), the largest effect first, as compare lists them.
  const nlohmann::json groups = comparison.value("groups", nlohmann::json::array());
  size_t shown = 0;
  for (const nlohmann::json& g : groups) {
    out << "  " << g.value("headline", "") << "\n";
    for (const nlohmann::json& i : g.value("findings", nlohmann::json::array())) {
      if (shown == 20 || !i.is_number_unsigned() || i.get<size_t>() >= regressions.size()) break;
      const nlohmann::json& f = regressions[i.get<size_t>()];
      // The same line as compare's: kind, metric, figures, statistic, evidence.
      out << "    " << f.value("suite", "") << "/" << f.value("case", "") << " "
          << f.value("summary", "[" + f.value("kind", "") + "] " + f.value("detail", "")) << "\n";
      ++shown;
    }
  }
  if (regressions.size() > shown) {
    out << "  ... and " << regressions.size() - shown << " more (spyre-regress compare, or report)\n";
  }
}

std::string RegressionsLine(int cases, int findings, int64_t baseline_run_id) {
  std::string s = "regressions: " + std::to_string(cases) + " (baseline run " + std::to_string(baseline_run_id);
  if (findings != cases) s += "; " + std::to_string(findings) + " findings";
  return s + ")";
}

}  // namespace harness::cli
