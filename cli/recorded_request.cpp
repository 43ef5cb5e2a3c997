// Re-creating a recorded run's plan (`confirm`, `bisect`), and the paths
// every request of the torch part carries.
#include <sstream>

#include "store/store.h"
#include "torch_part.h"

namespace harness::cli {

// The request that re-creates run `id`'s plan: its suites and the options
// it was run with (options_json), read from the store.
StatusOr<RunRequest> RecordedRequest(Store& store, int64_t id, const std::string& verb) {
  SPYRE_ASSIGN_OR_RETURN(const RunState state, ReadRunState(store, id));
  if (!state.Complete()) {
    return InvalidInput(state.Describe() + ": only a completed run can be " + verb + "; run the suites again");
  }
  SPYRE_ASSIGN_OR_RETURN(const auto row, store.FindRun(id));
  if (!row) return NotFound("run " + std::to_string(id) + " is not in the store");
  const nlohmann::json options = nlohmann::json::parse(row->options_json, nullptr, false);
  const nlohmann::json env = nlohmann::json::parse(row->env_json, nullptr, false);
  if (!options.is_object() || !env.is_object()) {
    return InvalidInput("run " + std::to_string(id) +
                        " has no readable options or fingerprint in the store: it cannot be re-created");
  }
  RunRequest request;
  std::stringstream in(row->suite);
  for (std::string name; std::getline(in, name, ',');) {
    if (!name.empty()) request.suites.push_back(name);
  }
  request.threads = row->threads;
  ApplyRecordedOptions(options, &request);
  if (env.contains("tags") && env["tags"].is_object()) {
    for (const auto& [k, v] : env["tags"].items()) {
      request.tags[k] = v.is_string() ? v.get<std::string>() : v.dump();
    }
  }
  request.label = row->label;
  return request;
}

Status FillRunPaths(const GlobalOptions& g, RunRequest* request) {
  request->db = g.db;
  request->suites_dir = g.suites_dir;
  request->golden_dir = g.golden_dir;
  // Workers are this program (`__worker`), which loads the torch part as
  // this process does.
  request->worker_exe = ExecutablePath();
  if (request->worker_exe.empty()) return InternalError("cannot find this executable (/proc/self/exe)");
  return Status::Ok();
}

}  // namespace harness::cli
