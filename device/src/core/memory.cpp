// Device memory: allocation, stick-padded accounting and the fence.
#include "spyre_emu/memory.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "core/stats_internal.h"
#include "spyre_emu/runtime.h"

namespace spyre_emu {

namespace {

struct Entry {
  size_t host_bytes = 0;
  size_t mapped_bytes = 0;  // fenced: the mmap length; 0 otherwise
  uint64_t device_bytes = 0;
  int open_scopes = 0;
};

struct Registry {
  std::mutex mu;
  std::map<uintptr_t, Entry> live;  // by base address
  // Live fenced allocations: with none, AccessScope has nothing to open and
  // skips the lock (the common case outside tests).
  std::atomic<int64_t> fenced{0};
};

Registry& GetRegistry() {
  static Registry* registry = new Registry();  // never destroyed: tensors outlive statics
  return *registry;
}

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// The live entry whose buffer contains p, or live.end(). Needs the lock.
std::map<uintptr_t, Entry>::iterator Find(Registry& r, const void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = r.live.upper_bound(a);
  if (it == r.live.begin()) return r.live.end();
  --it;
  if (a >= it->first + it->second.host_bytes) return r.live.end();
  return it;
}

void Protect(uintptr_t base, const Entry& e, int prot) {
  if (mprotect(reinterpret_cast<void*>(base), e.mapped_bytes, prot) != 0) {
    // Running on with the wrong protection would make the fence lie.
    std::perror("spyre_emu: mprotect of fenced device memory failed");
    std::abort();
  }
}

}  // namespace

Status DeviceAllocate(size_t host_bytes, uint64_t device_bytes, void** out) {
  *out = nullptr;
  const std::string config_error = ConfigError();
  if (!config_error.empty()) {
    return Status(ErrorCode::kInvalidArgument, "spyre_emu: bad device settings: " + config_error);
  }
  const uint64_t capacity = CurrentCapacity();
  {
    StatsState& s = GetStatsState();
    std::lock_guard<std::mutex> lock(s.mu);
    if (device_bytes > capacity - std::min(capacity, s.stats.live_bytes)) {
      return Status(ErrorCode::kOutOfMemory,
                    "spyre_emu: device out of memory: requested " + std::to_string(device_bytes) +
                        " device bytes with " + std::to_string(s.stats.live_bytes) +
                        " bytes live of " + std::to_string(capacity) +
                        " bytes capacity (SPYRE_EMU_MEMORY); free device tensors or raise "
                        "SPYRE_EMU_MEMORY");
    }
    // Reserve first, so two threads cannot both pass the check.
    s.stats.live_bytes += device_bytes;
    s.stats.capacity_bytes = capacity;
    if (s.stats.live_bytes > s.stats.peak_bytes) s.stats.peak_bytes = s.stats.live_bytes;
    ++s.stats.live_allocations;
  }
  Entry entry;
  entry.host_bytes = host_bytes;
  entry.device_bytes = device_bytes;
  void* data = nullptr;
  if (host_bytes > 0) {
    if (FenceEnabled()) {
      entry.mapped_bytes = RoundUp(host_bytes, static_cast<size_t>(sysconf(_SC_PAGESIZE)));
      data = mmap(nullptr, entry.mapped_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (data == MAP_FAILED) data = nullptr;
    } else {
      data = std::aligned_alloc(64, RoundUp(host_bytes, 64));
    }
    if (data == nullptr) {
      StatsState& s = GetStatsState();
      std::lock_guard<std::mutex> lock(s.mu);
      s.stats.live_bytes -= device_bytes;
      --s.stats.live_allocations;
      return Status(ErrorCode::kInternal,
                    "spyre_emu: the host could not back a device allocation of " +
                        std::to_string(host_bytes) + " bytes");
    }
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    r.live[reinterpret_cast<uintptr_t>(data)] = entry;
    if (entry.mapped_bytes > 0) ++r.fenced;
  }
  *out = data;
  return Status();
}

void DeviceFree(void* data) {
  if (data == nullptr) return;
  Entry entry;
  {
    Registry& r = GetRegistry();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.live.find(reinterpret_cast<uintptr_t>(data));
    if (it == r.live.end()) {
      std::fprintf(stderr, "spyre_emu: DeviceFree of %p, which is not a device allocation\n", data);
      std::abort();
    }
    entry = it->second;
    r.live.erase(it);
    if (entry.mapped_bytes > 0) --r.fenced;
  }
  if (entry.mapped_bytes > 0) {
    munmap(data, entry.mapped_bytes);
  } else {
    std::free(data);
  }
  StatsState& s = GetStatsState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.stats.live_bytes -= entry.device_bytes;
  --s.stats.live_allocations;
}

bool IsDevicePointer(const void* ptr) {
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  return Find(r, ptr) != r.live.end();
}

void AccessScope::Add(const void* ptr) {
  Registry& r = GetRegistry();
  if (ptr == nullptr || r.fenced.load(std::memory_order_relaxed) == 0) return;
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = Find(r, ptr);
  if (it == r.live.end() || it->second.mapped_bytes == 0) return;
  if (it->second.open_scopes++ == 0) Protect(it->first, it->second, PROT_READ | PROT_WRITE);
  opened_.push_back(reinterpret_cast<void*>(it->first));
}

AccessScope::~AccessScope() {
  if (opened_.empty()) return;
  Registry& r = GetRegistry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (void* base : opened_) {
    auto it = r.live.find(reinterpret_cast<uintptr_t>(base));
    if (it == r.live.end()) continue;  // freed while open
    if (it->second.open_scopes > 0 && --it->second.open_scopes == 0)
      Protect(it->first, it->second, PROT_NONE);
  }
}

}  // namespace spyre_emu
