#pragma once
// Helpers for the nightly end-to-end tests: ci/nightly and workflow steps run
// as child processes, and one-column queries on the store they leave.
#include <map>
#include <string>
#include <vector>

#include "support/run_command.h"

namespace nightly_test {

// The environment every nightly command gets: the built CLI (SPYRE_REGRESS),
// so ci/nightly never builds, plus `extra`.
std::map<std::string, std::string> NightlyEnv(const std::map<std::string, std::string>& extra = {});

// Runs `script` as GitHub Actions runs a step's `run:` (a file run by
// `bash --noprofile --norc -eo pipefail`), with `cwd` as the working directory.
spyre_test::CommandResult RunStep(const std::string& cwd, const std::string& script,
                                  const std::map<std::string, std::string>& env);

// Runs the source tree's ci/nightly with `args`.
spyre_test::CommandResult RunNightly(const std::vector<std::string>& args,
                                     const std::map<std::string, std::string>& env);

// The first column of every row of `sql` (NULL as "<null>") on the store at
// `db`, opened read-only; `params` bound as ?1, ?2, ... texts.
std::vector<std::string> Query(const std::string& db, const std::string& sql,
                               const std::vector<std::string>& params = {});

}  // namespace nightly_test
