// The worker zygote (harness/runner/zygote.h). One request per worker over a
// SOCK_SEQPACKET pair: the payload is argc, argv and the environment as
// NUL-terminated strings, and the three pipe ends travel as SCM_RIGHTS. The
// zygote forks a short-lived child, which forks the worker and exits; the
// worker, re-parented to the supervisor (a child subreaper), sets its death
// signal, takes its pipes as fds 0-4, closes everything else, takes the
// environment it was sent and runs the program's entry with its argv.
#include "runner/zygote.h"

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "harness/runner/frames.h"

namespace harness {
namespace {

struct ZygoteState {
  pid_t pid = -1;
  int sock = -1;
  std::string exe;
};

ZygoteState& State() {
  static ZygoteState state;
  return state;
}

constexpr size_t kMaxRequestBytes = 1 << 20;
// The first reply waits for the zygote's `prepare` (loading the device
// library: seconds on a loaded host), later ones for two forks.
constexpr int kReplyTimeoutMs = 30000;

// Threads of this process (/proc/self/task); -1 when unknown.
int ThreadCount() {
  DIR* dir = ::opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int n = 0;
  while (const dirent* e = ::readdir(dir)) n += e->d_name[0] != '.' ? 1 : 0;
  ::closedir(dir);
  return n;
}

std::vector<std::string> SplitNul(const char* data, size_t size) {
  std::vector<std::string> out;
  size_t begin = 0;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == '\0') {
      out.emplace_back(data + begin, i - begin);
      begin = i + 1;
    }
  }
  return out;
}

// The forked worker: never returns.
[[noreturn]] void BecomeWorker(int sock, const int fds[3], pid_t supervisor,
                               const std::vector<std::string>& argv,
                               const std::vector<std::string>& env, const WorkerEntry& entry) {
  ::close(sock);
  // Re-parented to the supervisor once the intermediate child has exited.
  for (int i = 0; i < 20000 && ::getppid() != supervisor; ++i) ::usleep(100);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != supervisor) ::_exit(127);
  ::setpgid(0, 0);
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull < 0) ::_exit(127);
  // Out of the way of 0-4 first: dup2 onto 3/4 must not clobber them.
  const int r = ::fcntl(fds[0], F_DUPFD, 10), w = ::fcntl(fds[1], F_DUPFD, 10),
            o = ::fcntl(fds[2], F_DUPFD, 10);
  if (r < 0 || w < 0 || o < 0) ::_exit(127);
  ::dup2(devnull, 0);
  ::dup2(o, 1);
  ::dup2(o, 2);
  ::dup2(r, kWorkerRequestFd);
  ::dup2(w, kWorkerResultFd);
  ::close_range(5, ~0U, 0);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGQUIT}) ::signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::clearenv();
  for (const std::string& e : env) ::putenv(::strdup(e.c_str()));
  int code = 2;
  try {
    code = entry(argv);
  } catch (const std::exception& e) {
    std::cerr << "spyre-regress worker: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "spyre-regress worker: a non-standard exception escaped\n";
  }
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  ::_exit(code);
}

// The zygote's loop: never returns.
[[noreturn]] void ServeZygote(int sock, pid_t supervisor, const WorkerEntry& entry) {
  std::vector<char> buf(kMaxRequestBytes);
  for (;;) {
    alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))];
    iovec iov = {buf.data(), buf.size()};
    msghdr msg = {};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof(control);
    const ssize_t n = ::recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ::_exit(0);  // the supervisor closed its end or is gone
    int fds[3] = {-1, -1, -1};
    const cmsghdr* c = CMSG_FIRSTHDR(&msg);
    const bool have_fds = c != nullptr && c->cmsg_level == SOL_SOCKET &&
                          c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(3 * sizeof(int));
    if (have_fds) std::memcpy(fds, CMSG_DATA(c), sizeof(fds));
    std::vector<std::string> words = SplitNul(buf.data(), static_cast<size_t>(n));
    pid_t worker = -1;
    const size_t argc = words.empty() ? 0 : std::strtoul(words[0].c_str(), nullptr, 10);
    if (have_fds && (msg.msg_flags & MSG_TRUNC) == 0 && argc >= 1 && argc < words.size()) {
      const std::vector<std::string> argv(words.begin() + 1, words.begin() + 1 + argc);
      const std::vector<std::string> env(words.begin() + 1 + argc, words.end());
      int pid_pipe[2];
      if (::pipe2(pid_pipe, O_CLOEXEC) == 0) {
        const pid_t middle = ::fork();
        if (middle == 0) {
          ::close(pid_pipe[0]);
          const pid_t w = ::fork();
          if (w == 0) {
            ::close(pid_pipe[1]);
            BecomeWorker(sock, fds, supervisor, argv, env, entry);
          }
          ssize_t ignored = ::write(pid_pipe[1], &w, sizeof(w));
          (void)ignored;
          ::_exit(0);
        }
        ::close(pid_pipe[1]);
        if (middle > 0) {
          pid_t w = -1;
          ssize_t got;
          while ((got = ::read(pid_pipe[0], &w, sizeof(w))) < 0 && errno == EINTR) {
          }
          if (got == static_cast<ssize_t>(sizeof(w))) worker = w;
          int status = 0;
          // The worker is the supervisor's child once this returns.
          while (::waitpid(middle, &status, 0) < 0 && errno == EINTR) {
          }
        }
        ::close(pid_pipe[0]);
      }
    }
    for (int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
    if (::send(sock, &worker, sizeof(worker), MSG_NOSIGNAL) < 0 && errno != EINTR) ::_exit(0);
  }
}

}  // namespace

bool StartWorkerZygote(const std::string& exe, WorkerEntry entry, std::function<void()> prepare) {
  ZygoteState& z = State();
  if (z.pid > 0) return true;
  if (const char* v = std::getenv("SPYRE_REGRESS_ZYGOTE"); v != nullptr && std::string(v) == "0") {
    return false;
  }
  // A fork copies only the calling thread: a process with others may hold
  // locks that no thread of the copy would ever release. OpenBLAS starts
  // its thread pool when it is loaded; its own shutdown joins those threads
  // (the pool restarts at the next BLAS call, in whichever process makes
  // it), as OpenBLAS does itself before any fork.
  using BlasShutdown = int (*)();
  if (auto shutdown = reinterpret_cast<BlasShutdown>(::dlsym(RTLD_DEFAULT, "blas_thread_shutdown_"))) {
    shutdown();
  }
  if (exe.empty() || ThreadCount() != 1) return false;
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return false;
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return false;
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t supervisor = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(sv[0]);
    ::close(sv[1]);
    return false;
  }
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != supervisor) ::_exit(0);
    ::setpgid(0, 0);  // a terminal's Ctrl-C reaches the supervisor only
    ::signal(SIGINT, SIG_IGN);
    ::signal(SIGPIPE, SIG_IGN);
    ::close(sv[0]);
    if (prepare) prepare();
    // What `prepare` loaded must not have started a thread: a fork of a
    // process with more than one may inherit a lock nobody releases. The
    // supervisor's first request then finds no zygote and execs workers.
    if (ThreadCount() != 1) ::_exit(0);
    ServeZygote(sv[1], supervisor, entry);
  }
  ::close(sv[1]);
  z.pid = pid;
  z.sock = sv[0];
  z.exe = exe;
  return true;
}

void StopWorkerZygote() {
  ZygoteState& z = State();
  if (z.pid <= 0) return;
  ::close(z.sock);  // the zygote ends at end-of-file
  int status = 0;
  for (int i = 0; i < 200; ++i) {
    const pid_t r = ::waitpid(z.pid, &status, WNOHANG);
    if (r == z.pid || (r < 0 && errno != EINTR)) break;
    if (i == 199) {
      ::kill(z.pid, SIGKILL);
      while (::waitpid(z.pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  z = ZygoteState();
}

namespace runner_internal {

bool WorkerZygoteRunning() { return State().pid > 0; }

bool LoadTimeVariable(const std::string& name) {
  return name.rfind("LD_", 0) == 0 || name.rfind("OPENBLAS_", 0) == 0;
}

pid_t SpawnThroughZygote(const std::vector<std::string>& argv,
                         const std::vector<std::string>& env, const int fds[3]) {
  ZygoteState& z = State();
  if (z.pid <= 0 || argv.empty() || argv[0] != z.exe) return -1;
  // What is read while libraries load (LD_PRELOAD, OPENBLAS_CORETYPE...)
  // takes effect only in a program started afresh: a worker asked to load
  // or set up other libraries than the zygote did (a baseline's BLAS) is
  // exec'd.
  for (const std::string& e : env) {
    const size_t eq = e.find('=');
    if (!LoadTimeVariable(e.substr(0, eq))) continue;
    const char* ours = std::getenv(e.substr(0, eq).c_str());
    if (eq == std::string::npos || ours == nullptr || e.compare(eq + 1, std::string::npos, ours) != 0) {
      return -1;
    }
  }
  std::string payload = std::to_string(argv.size());
  payload.push_back('\0');
  for (const std::string& a : argv) payload.append(a).push_back('\0');
  for (const std::string& e : env) payload.append(e).push_back('\0');
  if (payload.size() > kMaxRequestBytes) return -1;
  alignas(cmsghdr) char control[CMSG_SPACE(3 * sizeof(int))] = {};
  iovec iov = {payload.data(), payload.size()};
  msghdr msg = {};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof(control);
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(3 * sizeof(int));
  std::memcpy(CMSG_DATA(c), fds, 3 * sizeof(int));
  ssize_t sent;
  while ((sent = ::sendmsg(z.sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  pid_t worker = -1;
  bool answered = false;
  if (sent == static_cast<ssize_t>(payload.size())) {
    pollfd p = {z.sock, POLLIN, 0};
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(kReplyTimeoutMs);
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            deadline - std::chrono::steady_clock::now())
                            .count();
      if (left <= 0) break;
      const int ready = ::poll(&p, 1, static_cast<int>(left));
      if (ready < 0 && errno == EINTR) continue;
      if (ready <= 0) break;
      const ssize_t got = ::recv(z.sock, &worker, sizeof(worker), 0);
      if (got < 0 && errno == EINTR) continue;
      answered = got == static_cast<ssize_t>(sizeof(worker));
      break;
    }
  }
  if (!answered) {
    // A zygote that cannot answer is not asked again: workers are exec'd.
    ::kill(z.pid, SIGKILL);
    StopWorkerZygote();
    return -1;
  }
  return worker > 0 ? worker : -1;
}

}  // namespace runner_internal
}  // namespace harness
