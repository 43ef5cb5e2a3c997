#pragma once
// The bad-input catalogue's workspace: one temporary directory holding a
// store seeded with one real run, and every wrong file the catalogue hands
// the CLI (suites, golden files, thresholds, checkpoints, stores). Built once
// per test binary; the paths below are what catalogue entries refer to as
// {ws} and {db}.
//
//   {ws}/seed.db                 a real `run --suite smoke --filter add` store
//   {ws}/suites/<name>.json      bad suite files, and "gold" and the checkpoint
//                                suites whose other files are bad
//   {ws}/suites/models/<dir>/    HF checkpoints: ok, missing_tensor,
//                                bad_shape, bad_config
//   {ws}/golden-<what>/gold/     golden trees: ok, missing, corrupt, shape,
//                                dtype, other (another case's file)
//   {ws}/thresholds-<what>.json  thresholds files: json, key, type
//   {ws}/corrupt.db, {ws}/dir.db/, {ws}/plain-file   bad stores
#include <string>

namespace badinput {

// Builds the workspace under `ws` (an empty directory); the seed run and the
// golden generation use the real CLI. Returns "" or what went wrong.
std::string BuildWorkspace(const std::string& ws);

}  // namespace badinput
