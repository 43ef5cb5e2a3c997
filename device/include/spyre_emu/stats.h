#pragma once
// Device statistics (torch-free): memory, copies and per-op call counts.
//
//   spyre_emu::reset_stats();
//   ... run a case ...
//   spyre_emu::Stats s = spyre_emu::stats();
//   s.peak_bytes; s.fallback_calls(); s.ops["mm"].device_kernel;
//
// Op names are ATen operator names without namespace and overload ("mm",
// "add", "_softmax"), the names SPYRE_EMU_FAULTS uses.
#include <cstdint>
#include <map>
#include <string>

namespace spyre_emu {

struct OpCount {
  uint64_t device_kernel = 0;  // calls served by a device kernel
  uint64_t cpu_fallback = 0;   // calls served by the CPU fallback
};

struct Stats {
  uint64_t live_bytes = 0;      // device bytes (stick-padded) allocated now
  uint64_t peak_bytes = 0;      // highest live_bytes since the last reset
  uint64_t capacity_bytes = 0;  // SPYRE_EMU_MEMORY
  uint64_t live_allocations = 0;
  // Bytes moved by user copies (copy_, .to(), .cpu()) since the reset; the
  // CPU fallback's own transfers are not counted here.
  uint64_t h2d_bytes = 0;
  uint64_t d2h_bytes = 0;
  std::map<std::string, OpCount> ops;

  uint64_t kernel_calls() const;
  uint64_t fallback_calls() const;
};

// A snapshot of the statistics.
Stats stats();
// Zeroes the counters and sets the peak to the live bytes (live bytes stay).
void reset_stats();

// Recording (used by the runtime, the glue and the kernels).
void CountDeviceKernel(const std::string& op);
void CountCpuFallback(const std::string& op);
void CountHostToDevice(uint64_t bytes);
void CountDeviceToHost(uint64_t bytes);

}  // namespace spyre_emu
