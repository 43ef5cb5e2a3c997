#pragma once
// Shared pieces of the spyre-regress command line. Each verb lives in its own
// file (verb_<name>.cpp) and registers itself with SPYRE_REGISTER_VERB; a
// verb's action returns the process exit code (0/1/2, see docs/cli.md)
// and reports expected failures as a Status, which main prints as one line and
// turns into exit code 2.
//
//   void AddFooVerb(CLI::App& app, GlobalOptions& g, VerbAction* action) {
//     CLI::App* cmd = app.add_subcommand("foo", "does foo");
//     cmd->callback([&g, action] { *action = [&g]() -> StatusOr<int> { ... }; });
//   }
//   SPYRE_REGISTER_VERB(30, AddFooVerb);
#include <functional>
#include <iosfwd>
#include <map>
#include <vector>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "harness/status.h"

namespace harness::cli {

// Options every verb shares; flags override the environment, which overrides
// the defaults found relative to the executable.
struct GlobalOptions {
  std::string db;          // --db, SPYRE_REGRESS_DB, default ./spyre-regress.db
  std::string suites_dir;  // --suites, SPYRE_REGRESS_SUITES, default <source>/suites
  std::string golden_dir;  // --golden, SPYRE_REGRESS_GOLDEN, default <source>/golden
  std::string thresholds; // --thresholds, SPYRE_REGRESS_THRESHOLDS, default <root>/config/thresholds.json
  int threads = 0;         // --threads, SPYRE_REGRESS_THREADS, default: online cores
  bool quiet = false;      // --quiet
};

// What a chosen verb runs after parsing. Returns the exit code, or a non-OK
// Status that main prints as one line and turns into exit code 2.
using VerbAction = std::function<StatusOr<int>()>;

// Parses repeated `--tag K=V` values into a map; a malformed or repeated key
// is a usage error naming it.
StatusOr<std::map<std::string, std::string>> ParseTags(const std::vector<std::string>& tags);

// Adds one verb's subcommand to `app`; when the verb is chosen its callback
// stores the action to run in *action.
using AddVerbFn = void (*)(CLI::App& app, GlobalOptions& global, VerbAction* action);

// The verb registry: (order in --help, add function), filled by static
// registrars in the verb files.
std::vector<std::pair<int, AddVerbFn>>& VerbRegistry();
struct VerbRegistrar {
  VerbRegistrar(int order, AddVerbFn fn) { VerbRegistry().emplace_back(order, fn); }
};
#define SPYRE_REGISTER_VERB(order, fn) \
  static ::harness::cli::VerbRegistrar spyre_verb_registrar_##fn(order, fn)

// The directory holding suites/ and golden/ when not configured: the nearest
// ancestor of the executable's directory that has a suites/ folder, else the
// source tree the binary was built from.
std::string DefaultProjectRoot();

// The regressions of a comparison (the compare --json shape), at most 20
// lines, under a heading with the upstream change they appeared with; nothing
// when there are none. `run` and `merge --group` print it before their
// closing lines.
void PrintFindings(std::ostream& out, const nlohmann::json& comparison);

}  // namespace harness::cli
