#pragma once
// The torch part's verbs (cli/torch_part.h), one file each; entry.cpp
// hands them to the program as its TorchVerbs.
#include "torch_part.h"

namespace harness::cli {

StatusOr<RunSummary> TorchRun(const RunRequest& request, const GlobalOptions& global,
                              WorkerEntry entry);
StatusOr<int> TorchGoldenGenerate(const GoldenOptions& options, const GlobalOptions& global);
StatusOr<int> TorchGoldenVerify(const GoldenOptions& options, const GlobalOptions& global);
StatusOr<int> TorchList(const ListOptions& options, const GlobalOptions& global);
StatusOr<int> TorchEnv(const EnvRequest& request, const GlobalOptions& global);
StatusOr<BisectOutcome> TorchBisect(const RunRequest& request, const BisectRequest& bisect,
                                    const GlobalOptions& global, WorkerEntry entry);
StatusOr<int> TorchWorker(const WorkerOptions& options, const GlobalOptions& global);

}  // namespace harness::cli
