#pragma once
// The supervisor's side of the worker zygote (harness/runner/zygote.h).
#include <sys/types.h>

#include <string>
#include <vector>

#include "harness/runner/zygote.h"

namespace harness::runner_internal {

// True while a zygote is serving this process.
bool WorkerZygoteRunning();

// Starts a worker through the zygote: `argv` and `env` ("K=V") as an exec
// would get them, `fds` the child's request (read), result (write) and
// output (write) pipe ends. Returns the worker's pid, a child of this
// process; -1 when the zygote does not serve argv[0] or failed (it is then
// stopped, and the caller execs the worker itself).
// Environment variables read while libraries load, which a process forked
// from the zygote cannot take on: the dynamic loader's (LD_*) and
// OpenBLAS's (OPENBLAS_*).
bool LoadTimeVariable(const std::string& name);

pid_t SpawnThroughZygote(const std::vector<std::string>& argv,
                         const std::vector<std::string>& env, const int fds[3]);

}  // namespace harness::runner_internal
