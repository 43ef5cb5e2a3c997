#include "runner/worker_process.h"

#include "runner/zygote.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

extern char** environ;

namespace harness::runner_internal {
namespace {

constexpr size_t kOutputTailBytes = 4096;

void CloseFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return std::to_string(sig) + (abbrev != nullptr ? std::string(" (SIG") + abbrev + ")" : "");
}

}  // namespace

StatusOr<std::unique_ptr<WorkerProcess>> WorkerProcess::Spawn(
    const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
    bool exec) {
  // Everything the child needs is built before fork: after fork only
  // async-signal-safe calls until exec.
  std::vector<std::string> env_strings;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    if (env.count(entry.substr(0, entry.find('='))) == 0) env_strings.push_back(entry);
  }
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, args;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  int req[2], res[2], out[2];
  if (::pipe2(req, O_CLOEXEC) != 0) return IoError(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(res, O_CLOEXEC) != 0) {
    ::close(req[0]), ::close(req[1]);
    return IoError(std::string("pipe: ") + std::strerror(errno));
  }
  if (::pipe2(out, O_CLOEXEC) != 0) {
    ::close(req[0]), ::close(req[1]), ::close(res[0]), ::close(res[1]);
    return IoError(std::string("pipe: ") + std::strerror(errno));
  }
  // The zygote (runner/zygote.h) starts a worker of this program without
  // paying its start-up again; a worker of another program, or one the
  // zygote could not start, is exec'd.
  const int child_fds[3] = {req[0], res[1], out[1]};
  const pid_t forked = exec ? -1 : SpawnThroughZygote(argv, env_strings, child_fds);
  const pid_t parent = ::getpid();
  pid_t pid = forked > 0 ? forked : ::fork();
  if (pid < 0) {
    for (int fd : {req[0], req[1], res[0], res[1], out[0], out[1]}) ::close(fd);
    return IoError(std::string("cannot start a worker: fork: ") + std::strerror(errno));
  }
  if (pid == 0 && forked <= 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the supervisor died before prctl
    ::setpgid(0, 0);
    // Move the pipe ends out of the way first: dup2 onto 3/4 must not clobber them.
    int r = ::fcntl(req[0], F_DUPFD, 10), w = ::fcntl(res[1], F_DUPFD, 10);
    int o = ::fcntl(out[1], F_DUPFD, 10);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (r < 0 || w < 0 || o < 0 || devnull < 0) ::_exit(127);
    ::dup2(devnull, 0);
    ::dup2(o, 1);
    ::dup2(o, 2);
    ::dup2(r, kWorkerRequestFd);
    ::dup2(w, kWorkerResultFd);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    ::execve(args[0], args.data(), envp.data());
    const char msg[] = "spyre-regress: cannot exec the worker binary\n";
    ssize_t ignored = ::write(2, msg, sizeof(msg) - 1);
    (void)ignored;
    ::_exit(127);
  }
  ::close(req[0]);
  ::close(res[1]);
  ::close(out[1]);
  std::unique_ptr<WorkerProcess> w(new WorkerProcess());
  w->pid_ = pid;
  w->request_fd_ = req[1];
  w->result_fd_ = res[0];
  w->output_fd_ = out[0];
  SetNonBlocking(w->result_fd_);
  SetNonBlocking(w->output_fd_);
  return w;
}

WorkerProcess::~WorkerProcess() {
  if (!reaped_) {
    Kill();
    bool clean = false;
    Reap(0, &clean);
  }
  CloseFd(&request_fd_);
  CloseFd(&result_fd_);
  CloseFd(&output_fd_);
}

bool WorkerProcess::PumpResults(FrameDecoder* decoder) {
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(result_fd_, buf, sizeof(buf));
    if (n > 0) {
      decoder->Feed(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    return false;  // end-of-file or a broken pipe
  }
}

void WorkerProcess::PumpOutput() {
  char buf[4096];
  while (output_fd_ >= 0) {
    ssize_t n = ::read(output_fd_, buf, sizeof(buf));
    if (n > 0) {
      output_.append(buf, static_cast<size_t>(n));
      if (output_.size() > 2 * kOutputTailBytes) output_.erase(0, output_.size() - kOutputTailBytes);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    CloseFd(&output_fd_);
  }
}

std::string WorkerProcess::OutputTail() const {
  // The last two non-empty lines, on one line: enough for "injected abort on mm".
  std::string text = output_;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  size_t start = text.size();
  for (int lines = 0; lines < 2 && start > 0; ++lines) {
    size_t nl = text.rfind('\n', start - 1);
    start = nl == std::string::npos ? 0 : nl;
  }
  std::string tail = text.substr(start);
  for (char& c : tail) if (c == '\n' || c == '\r') c = ' ';
  tail.erase(0, tail.find_first_not_of(' '));
  if (tail.size() > 300) tail = "..." + tail.substr(tail.size() - 300);
  return tail;
}

void WorkerProcess::Kill() {
  if (!reaped_ && pid_ > 0) ::kill(pid_, SIGKILL);
}

std::string WorkerProcess::Reap(int grace_ms, bool* clean) {
  *clean = false;
  if (reaped_) return "already reaped";
  CloseFd(&request_fd_);
  int status = 0;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(grace_ms);
  for (;;) {
    pid_t r = ::waitpid(pid_, &status, WNOHANG);
    if (r == pid_) break;
    if (r < 0 && errno != EINTR) {
      reaped_ = true;
      return "lost (waitpid failed)";
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  reaped_ = true;
  PumpOutput();
  if (WIFSIGNALED(status)) return "killed by signal " + SignalName(WTERMSIG(status));
  if (WIFEXITED(status)) {
    *clean = WEXITSTATUS(status) == 0;
    return "exited with code " + std::to_string(WEXITSTATUS(status));
  }
  return "ended";
}

}  // namespace harness::runner_internal
