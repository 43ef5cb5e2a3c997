#pragma once
// Shared pieces of the spyre-regress command line. Each verb lives in its own
// file (verb_<name>.cpp) and registers itself through one Add<Name>Verb call in
// main.cpp; a verb's action returns the process exit code (0/1/2, see
// shared/CONTRACT.md) and reports expected failures as a Status.
#include <functional>
#include <map>
#include <vector>
#include <string>

#include <CLI/CLI.hpp>

#include "harness/status.h"

namespace harness::cli {

// Options every verb shares; flags override the environment, which overrides
// the defaults found relative to the executable.
struct GlobalOptions {
  std::string db;          // --db, SPYRE_REGRESS_DB, default ./spyre-regress.db
  std::string suites_dir;  // --suites, SPYRE_REGRESS_SUITES, default <source>/suites
  std::string golden_dir;  // --golden, SPYRE_REGRESS_GOLDEN, default <source>/golden
  int threads = 0;         // --threads, SPYRE_REGRESS_THREADS, default: online cores
  bool quiet = false;      // --quiet
};

// What a chosen verb runs after parsing. Returns the exit code, or a non-OK
// Status that main prints as one line and turns into exit code 2.
using VerbAction = std::function<StatusOr<int>()>;

// Parses repeated `--tag K=V` values into a map; a malformed or repeated key
// is a usage error naming it.
StatusOr<std::map<std::string, std::string>> ParseTags(const std::vector<std::string>& tags);

// Registration hooks, one per verb file.
void AddEnvVerb(CLI::App& app, GlobalOptions& global, VerbAction* action);

// The directory holding suites/ and golden/ when not configured: the nearest
// ancestor of the executable's directory that has a suites/ folder, else the
// source tree the binary was built from.
std::string DefaultProjectRoot();

}  // namespace harness::cli
