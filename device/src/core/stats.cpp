#include "spyre_emu/stats.h"

#include <mutex>

#include "core/stats_internal.h"
#include "spyre_emu/runtime.h"

namespace spyre_emu {

uint64_t Stats::kernel_calls() const {
  uint64_t n = 0;
  for (const auto& [op, count] : ops) n += count.device_kernel;
  return n;
}

uint64_t Stats::fallback_calls() const {
  uint64_t n = 0;
  for (const auto& [op, count] : ops) n += count.cpu_fallback;
  return n;
}

StatsState& GetStatsState() {
  static StatsState* state = new StatsState();  // never destroyed: used by static destructors
  return *state;
}

Stats stats() {
  StatsState& s = GetStatsState();
  std::lock_guard<std::mutex> lock(s.mu);
  Stats snapshot = s.stats;
  snapshot.capacity_bytes = CurrentCapacity();
  return snapshot;
}

void reset_stats() {
  StatsState& s = GetStatsState();
  std::lock_guard<std::mutex> lock(s.mu);
  Stats fresh;
  fresh.live_bytes = s.stats.live_bytes;
  fresh.peak_bytes = s.stats.live_bytes;
  fresh.capacity_bytes = s.stats.capacity_bytes;
  fresh.live_allocations = s.stats.live_allocations;
  s.stats = fresh;
}

void CountDeviceKernel(const std::string& op) {
  StatsState& s = GetStatsState();
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.stats.ops[op].device_kernel;
}

void CountCpuFallback(const std::string& op) {
  StatsState& s = GetStatsState();
  std::lock_guard<std::mutex> lock(s.mu);
  ++s.stats.ops[op].cpu_fallback;
}

void CountHostToDevice(uint64_t bytes) {
  StatsState& s = GetStatsState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.stats.h2d_bytes += bytes;
}

void CountDeviceToHost(uint64_t bytes) {
  StatsState& s = GetStatsState();
  std::lock_guard<std::mutex> lock(s.mu);
  s.stats.d2h_bytes += bytes;
}

}  // namespace spyre_emu
