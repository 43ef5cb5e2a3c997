#include "process_identity.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>

namespace harness::store_internal {

std::string HostName() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof(buf) - 1) != 0) return "unknown";
  return buf;
}

int64_t ProcessStartTime(int64_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return 0;
  // The command name (field 2) may contain spaces and ')': fields after the
  // last ')' are plain numbers; starttime is field 22, the 20th after it.
  size_t close = stat.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(stat.substr(close + 1));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 22) return std::stoll(field);
  }
  return 0;
}

bool ProcessAlive(int64_t pid, int64_t start_time) {
  if (pid <= 0) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return false;
  if (start_time == 0) return true;
  return ProcessStartTime(pid) == start_time;
}

std::string NewUuid() {
  // random_device reads the kernel's entropy source (getrandom) on Linux.
  std::random_device rd;
  uint32_t w[4] = {rd(), rd(), rd(), rd()};
  w[1] = (w[1] & 0xffff0fffu) | 0x00004000u;  // version 4
  w[2] = (w[2] & 0x3fffffffu) | 0x80000000u;  // RFC 4122 variant
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%08x-%04x-%04x-%04x-%04x%08x", w[0], w[1] >> 16, w[1] & 0xffff,
                w[2] >> 16, w[2] & 0xffff, w[3]);
  return buf;
}

}  // namespace harness::store_internal
