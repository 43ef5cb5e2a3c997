#pragma once
// A result's extra JSON in two parts (schema version 7). The members that
// change from run to run stay with the result (results.extra_json); the
// members that describe the case (its op, device or model, its round sizes)
// go into an extra set (extra_sets.members), one JSON object shared by every
// result with the very same members (results.extra_set). `prune` splits the
// extra JSON of every finished run's results; the readers join the two
// parts back into the object that was recorded.
#include <string>

#include <nlohmann/json.hpp>

namespace harness::store_internal {

// Whether a top-level member stays with the result: the worker's and
// supervisor's timings (`harness`), the host probe, the calls per sample the
// sampler sized to the machine's speed (`wall_batch`) and the confirmation
// rounds (`confirm`). Anything else may be shared.
bool StaysWithResult(const std::string& member);

struct SplitExtra {
  nlohmann::json own = nlohmann::json::object();     // stays in results.extra_json
  nlohmann::json shared = nlohmann::json::object();  // the extra set's members
};
// `extra` (an object) split by StaysWithResult.
SplitExtra Split(const nlohmann::json& extra);

// The result's extra JSON: its own members, and every member of `shared`
// it does not have itself. `shared` that is not an object adds nothing.
nlohmann::json JoinExtra(nlohmann::json own, const nlohmann::json& shared);
// The same from stored text; `shared` empty: no set.
nlohmann::json JoinExtraText(const std::string& own, const std::string& shared);

}  // namespace harness::store_internal
