#pragma once
// The statistics' shared state: the memory manager updates live/peak bytes
// under the same lock as the counters, so a snapshot is consistent.
#include <mutex>

#include "spyre_emu/stats.h"

namespace spyre_emu {

struct StatsState {
  std::mutex mu;
  Stats stats;
};

StatsState& GetStatsState();

}  // namespace spyre_emu
