#include "support/run_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

extern char** environ;

namespace spyre_test {

CommandResult RunCommand(const std::vector<std::string>& argv,
                         const std::map<std::string, std::string>& env, int timeout_s) {
  return RunCommandIn("", argv, env, timeout_s);
}

CommandResult RunCommandIn(const std::string& cwd, const std::vector<std::string>& argv,
                           const std::map<std::string, std::string>& env, int timeout_s) {
  CommandResult r;
  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) return r;
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      std::fprintf(stderr, "chdir %s failed: %s\n", cwd.c_str(), std::strerror(errno));
      ::_exit(127);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::fprintf(stderr, "exec %s failed: %s\n", args[0], std::strerror(errno));
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  bool killed = false;
  char buf[65536];
  while (open_fds > 0) {
    int left_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                       deadline - std::chrono::steady_clock::now())
                                       .count());
    if (left_ms <= 0) {
      ::kill(pid, SIGKILL);
      killed = true;
      break;
    }
    if (::poll(fds, 2, left_ms) < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof(buf));
      if (n > 0) {
        (i == 0 ? r.out : r.err).append(buf, static_cast<size_t>(n));
      } else {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) ::close(f.fd);
  int status = 0;
  struct rusage usage {};
  ::wait4(pid, &status, 0, &usage);
  r.max_rss_kb = usage.ru_maxrss;
  if (WIFEXITED(status))
    r.exit_code = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    r.exit_code = 128 + WTERMSIG(status);
  if (killed) r.err += "\n[run_command: killed after timeout]\n";
  return r;
}

std::string CliPath() {
  const char* other = std::getenv("SPYRE_REGRESS_TEST_BIN");
  return other != nullptr && *other != '\0' ? other : SPYRE_REGRESS_BIN;
}

CommandResult RunCli(const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& env, int timeout_s) {
  return RunCliIn("", args, env, timeout_s);
}

CommandResult RunCliIn(const std::string& cwd, const std::vector<std::string>& args,
                       const std::map<std::string, std::string>& env, int timeout_s) {
  std::vector<std::string> argv{CliPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommandIn(cwd, argv, env, timeout_s);
}

std::string FindProgram(const std::vector<std::string>& names) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const std::string& name : names) {
      const std::string candidate = dir + "/" + name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
  }
  return "";
}

int LineCount(const std::string& text) {
  int n = 0;
  for (char c : text) n += (c == '\n');
  if (!text.empty() && text.back() != '\n') ++n;
  return n;
}

}  // namespace spyre_test
