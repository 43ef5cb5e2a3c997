// The fault kinds that end or stop the process.
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "spyre_emu/faults.h"

namespace spyre_emu {

void CrashWithAbort(const std::string& op) {
  std::fprintf(stderr, "spyre_emu: injected fault 'abort' on op '%s'\n", op.c_str());
  std::fflush(stderr);
  std::abort();
}

void CrashWithSegv(const std::string& op) {
  std::fprintf(stderr, "spyre_emu: injected fault 'segv' on op '%s'\n", op.c_str());
  std::fflush(stderr);
  // Restore the default action so a handler installed by someone else cannot
  // swallow the crash; raise() then terminates with SIGSEGV like a real one.
  std::signal(SIGSEGV, SIG_DFL);
  std::raise(SIGSEGV);
  std::abort();  // unreachable unless SIGSEGV is blocked
}

void HangForever(const std::string& op) {
  std::fprintf(stderr, "spyre_emu: injected fault 'hang' on op '%s'\n", op.c_str());
  std::fflush(stderr);
  while (true) std::this_thread::sleep_for(std::chrono::hours(1));
}

float ErrorFactor(double relative, int64_t index) {
  // splitmix64 finaliser: a well-mixed bit per index, no state.
  uint64_t z = static_cast<uint64_t>(index) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  const double sign = (z & 1) ? 1.0 : -1.0;
  return static_cast<float>(1.0 + relative * sign);
}

}  // namespace spyre_emu
