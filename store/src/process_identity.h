#pragma once
// Who is running a run: host name, pid and the pid's start time (so a reused
// pid is not mistaken for the supervisor that started the run).
#include <cstdint>
#include <string>

namespace harness::store_internal {

std::string HostName();
// Start time of `pid` in clock ticks since boot (/proc/<pid>/stat field 22);
// 0 when the process does not exist.
int64_t ProcessStartTime(int64_t pid);
// True when `pid` exists and, if `start_time` is non-zero, started then.
bool ProcessAlive(int64_t pid, int64_t start_time);
// Why a run left `running` by a supervisor that is gone is aborted: the note
// every reader shows for it.
std::string AbandonedNote(int64_t pid);
// A random RFC 4122 UUID from the kernel.
std::string NewUuid();

}  // namespace harness::store_internal
