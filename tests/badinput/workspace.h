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
//   {ws}/corrupt-pages.db        intact header and schema, corrupt tables
//   {ws}/aborted.db, running.db  the seed run aborted / left running by a
//                                supervisor that is gone
//   {ws}/runs.db                 run 1 (seed), 2 (partial, supervisor gone),
//                                3 (completed, another suite)
//   {ws}/newer.db                written by a newer schema
//   {ws}/suites/{devzero,urandom,fifo,dirsuite}.json  devices, FIFO, directory
//   {ws}/suites/{deep,sweep1e6,repeatwrap,bigmodel,bigshape}.json  limits
//   {ws}/golden-{devzero,urandom,fifo,dir,sparse}/    golden files that are
//                                devices, a FIFO, a directory, 1 GiB sparse
#include <string>

namespace badinput {

// Builds the workspace under `ws` (an empty directory); the seed run and the
// golden generation use the real CLI. Returns "" or what went wrong.
std::string BuildWorkspace(const std::string& ws);

}  // namespace badinput
