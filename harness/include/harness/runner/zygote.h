#pragma once
// The worker zygote: start-up paid once per run. Every exec of spyre-regress
// loads libtorch and its ~300 shared libraries (0.5-1.3 s on a shared
// 2-core host); a run starts a worker per round, per confirmation round and
// per replaced crashed worker. The zygote is a copy of the `run` process
// forked before anything else happens in it (no libtorch thread, no store
// open): a single-threaded process whose libraries are already mapped and
// relocated, and which then maps the device library and lets it register
// its kernels (`prepare` below) without running one. A worker is a fork of
// it that runs the worker verb in-process, so each worker is still its own
// fresh process (its own address space, device state, settings, libtorch
// threads and crash), started in milliseconds.
//
//   harness::StartWorkerZygote(self_exe, [](const std::vector<std::string>& argv) {
//     return RunCommandLine(argv);   // the program's main, in the forked worker
//   }, [] { harness::PreloadDeviceLibrary(); });
//   ... ExecuteRun(plan, &progress);  // workers of self_exe come from the zygote
//   harness::StopWorkerZygote();
//
// Workers of another executable (tests' fake workers), or every worker when
// the zygote could not start (more than one thread already, fork refused,
// SPYRE_REGRESS_ZYGOTE=0), are started by fork + exec as before; a zygote
// that dies is replaced by fork + exec for the rest of the run.
//
// The supervisor becomes a child subreaper: a worker is forked by a
// short-lived child of the zygote, so that it is re-parented to the
// supervisor, which then waits for it and reads its exit status exactly as
// for an exec'd worker.
#include <functional>
#include <string>
#include <vector>

#include "run/run.h"

namespace harness {

// Forks the zygote serving workers whose argv[0] is `exe`. Call it first
// thing in the process that will supervise, while it has one thread. The
// zygote runs `prepare` once before it serves: what every worker would
// otherwise do at its start (loading the device library) and that neither
// starts a thread nor runs a kernel (libgomp cannot serve a fork once a
// parallel region has run); a zygote left with more than one thread ends,
// and workers are exec'd. Returns false (workers are exec'd) when the zygote
// is disabled or cannot start.
bool StartWorkerZygote(const std::string& exe, WorkerEntry entry,
                       std::function<void()> prepare = nullptr);

// Ends the zygote (workers already started are not affected).
void StopWorkerZygote();

}  // namespace harness
