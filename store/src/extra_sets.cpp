#include "extra_sets.h"

namespace harness::store_internal {

bool StaysWithResult(const std::string& member) {
  return member == "harness" || member == "host_probe_us" || member == "host_busy" ||
         member == "wall_batch" ||
         member == "confirm";
}

SplitExtra Split(const nlohmann::json& extra) {
  SplitExtra out;
  for (const auto& [key, value] : extra.items()) {
    (StaysWithResult(key) ? out.own : out.shared)[key] = value;
  }
  return out;
}

nlohmann::json JoinExtra(nlohmann::json own, const nlohmann::json& shared) {
  if (!own.is_object() || !shared.is_object()) return own;
  for (const auto& [key, value] : shared.items()) {
    if (!own.contains(key)) own[key] = value;
  }
  return own;
}

nlohmann::json JoinExtraText(const std::string& own, const std::string& shared) {
  nlohmann::json doc = nlohmann::json::parse(own, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) doc = nlohmann::json::object();
  if (shared.empty()) return doc;
  return JoinExtra(std::move(doc), nlohmann::json::parse(shared, nullptr, false));
}

}  // namespace harness::store_internal
