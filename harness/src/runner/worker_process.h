#pragma once
// One worker child process and its three pipes (RAII: the destructor kills
// and reaps a worker still alive). Forked from the worker zygote
// (runner/zygote.h) or spawned with fork + immediate exec, so no libtorch
// state of the supervisor is ever inherited either way.
#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/runner/worker_loop.h"
#include "base/status.h"

namespace harness::runner_internal {

class WorkerProcess {
 public:
  // Starts argv[0] (a path) with `env` added to the environment. The child
  // gets requests on fd 3, writes records to fd 4, its stdout and stderr go to
  // one capture pipe; it is killed if the supervisor dies (PDEATHSIG) and
  // sits in its own process group, so a terminal Ctrl-C reaches only the
  // supervisor, which then ends the workers itself. `exec` true: never
  // forked from the run's zygote (runner/zygote.h).
  static StatusOr<std::unique_ptr<WorkerProcess>> Spawn(const std::vector<std::string>& argv,
                                                        const std::map<std::string, std::string>& env,
                                                        bool exec = false);
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  pid_t pid() const { return pid_; }
  int result_fd() const { return result_fd_; }  // non-blocking
  int output_fd() const { return output_fd_; }  // non-blocking; -1 once closed
  Status Send(const nlohmann::json& request) { return WriteFrame(request_fd_, request); }

  // Reads what is available on the result pipe into the decoder; false on
  // end-of-file (the worker exited or died).
  bool PumpResults(FrameDecoder* decoder);
  // Reads what is available on the output pipe into the kept tail.
  void PumpOutput();
  // The last lines the worker printed (at most a few hundred bytes).
  std::string OutputTail() const;

  void Kill();  // SIGKILL (idempotent)
  // Closes the request pipe and waits for the exit status (killing the
  // worker when it does not exit within `grace_ms`). Returns a description
  // such as "killed by signal 11 (SIGSEGV)" or "exited with code 3", and
  // whether it ended cleanly (exit code 0).
  std::string Reap(int grace_ms, bool* clean);

 private:
  WorkerProcess() = default;
  pid_t pid_ = -1;
  int request_fd_ = -1, result_fd_ = -1, output_fd_ = -1;
  bool reaped_ = false;
  std::string output_;  // tail of stdout+stderr
};

}  // namespace harness::runner_internal
