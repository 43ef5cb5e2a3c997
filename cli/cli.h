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
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "base/output_file.h"
#include "base/status.h"
#include "run/run.h"
#include "store/store.h"

namespace harness::cli {

// Options every verb shares; flags override the environment, which overrides
// the defaults found relative to the executable.
// Paths are absolute once main has resolved them (ResolvePaths).
struct GlobalOptions {
  std::string db;          // the store: see LocateStore for the lookup order
  std::string db_origin;   // how it was found: "--db", "SPYRE_REGRESS_DB", ...
  std::string suites_dir;  // --suites, SPYRE_REGRESS_SUITES, default <root>/suites
  std::string golden_dir;  // --golden, SPYRE_REGRESS_GOLDEN, else next to a given
                           // --suites (its sibling golden/), else <root>/golden
  std::string thresholds; // --thresholds, SPYRE_REGRESS_THRESHOLDS, default <root>/config/thresholds.json
  int threads = 0;         // --threads, SPYRE_REGRESS_THREADS, default: online cores
  bool quiet = false;      // --quiet
};

// What a chosen verb runs after parsing. Returns the exit code, or a non-OK
// Status that main prints as one line and turns into exit code 2.
using VerbAction = std::function<StatusOr<int>()>;

// The four options of a wall-time confirmation (--confirm-rounds,
// --confirm-max-rounds, --confirm-repeat, --confirm-budget, --confirm-jobs, --confirm-all), bound to
// `settings`, whose defaults they show; `run` and `confirm` both take them.
void AddConfirmOptions(CLI::App* cmd, ConfirmSettings* settings);

// Free text a user records with a run (--label, a --tag value): at most
// kMaxLabelBytes bytes and no control characters, since it is shown in
// terminals and reports on one line.
constexpr size_t kMaxLabelBytes = 200;
Status CheckLabelText(const std::string& text, const std::string& what);

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

// The store file's name, looked for in enclosing directories.
inline constexpr const char* kStoreFileName = "spyre-regress.db";

// Where the store is, in this order: `flag` (--db) when given; else the
// SPYRE_REGRESS_DB variable; else the nearest spyre-regress.db in the
// current directory or an enclosing one; else <project root>/spyre-regress.db.
// Returns the absolute path; *origin says which rule chose it.
std::string LocateStore(const std::string& flag, std::string* origin);

// `path` made absolute and normal, without a trailing separator.
std::string AbsolutePath(const std::string& path);

// What no verb may write over: the store, the suites and the golden files.
ProtectedPaths Protected(const GlobalOptions& global);

// A report directory and the report files in it (the stack matrix's with
// `stacks`) may be written: none of them is the store, a suite or a golden
// file, and the directory is not a file. `flag` names the option.
Status CheckReportDir(const std::string& dir, const GlobalOptions& global, const std::string& flag,
                      bool stacks);

// A run as the user names it: an id ("7"), "latest" (the newest run),
// "~N" or "latest~N" (N runs before the newest), or "label:NAME" (the
// newest run with that label). `flag` names the option in errors. A
// reference to no run is NotFound; a malformed one a UsageError.
StatusOr<int64_t> ResolveRunRef(Store& store, const std::string& ref, const std::string& flag);

// True when `ref` has run-reference syntax other than a plain id or
// label:NAME ("latest", "~N", "latest~N").
bool IsRelativeRunRef(const std::string& ref);

// The regressions of a comparison (the compare --json shape), at most 20
// lines, under a heading with the upstream change they appeared with; nothing
// when there are none. `run` and `merge --group` print it before their
// closing lines.
void PrintFindings(std::ostream& out, const nlohmann::json& comparison);
// "regressions: 7 (baseline run 5; 14 findings)": the summary line counts
// cases; the findings are added when there are more of them.
std::string RegressionsLine(int cases, int findings, int64_t baseline_run_id);

}  // namespace harness::cli
