// A test-only worker for the supervisor tests: it speaks the real protocol
// (harness::ServeWorker) but its cases are scripted by their id's prefix, so
// every way a worker can end is reproducible without the device:
//   pass*  passed        fail*  failed        throw*  throws std::runtime_error
//   segv*  SIGSEGV       abort* abort()       exit*   _exit(3)
//   hang*  never returns slow*  passes after 200 ms
//   noise* prints to stdout and stderr, then passes
//   pair*  passes with three samples of 100 (1000 while the injected fault
//          spec is "x10") plus the number of cases executed before it
//   ipair* samples through harness::TakeWallSamples (four samples, one call
//          each): a call sleeps 100 us, 20 ms while the spec is "x10", and
//          notes the spec it ran under in extra["sequence"] ('b' for "",
//          'c' for "x10")
// Faults switch in place for paired requests; the spec "refuse" fails.
// argv[1]: the thread count it reports in its hello (default 1).
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "harness/runner/worker_loop.h"
#include "harness/wall_sampler.h"

namespace {

bool Starts(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string g_faults;  // the spec in force
int g_executed = 0;

harness::Status SwitchFaults(const std::string& spec) {
  if (spec == "refuse") return harness::InvalidInput("fake worker: refused fault spec 'refuse'");
  g_faults = spec;
  return harness::Status::Ok();
}

harness::CaseResult Execute(const std::string& suite, const std::string& id, bool timed,
                            bool judged) {
  if (Starts(id, "segv")) std::raise(SIGSEGV);
  if (Starts(id, "abort")) {
    std::fprintf(stderr, "fake worker: aborting on %s\n", id.c_str());
    std::abort();
  }
  if (Starts(id, "exit")) ::_exit(3);
  if (Starts(id, "hang")) {
    for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));
  }
  if (Starts(id, "throw")) throw std::runtime_error("boom in " + id);
  if (Starts(id, "slow")) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  if (Starts(id, "noise")) {
    std::printf("stdout noise that must not reach the protocol\n");
    std::fflush(stdout);
    std::fprintf(stderr, "stderr noise\n");
  }
  harness::CaseResult r;
  r.suite = suite;
  r.case_id = id;
  r.status = Starts(id, "fail") ? harness::CaseStatus::kFailed : harness::CaseStatus::kPassed;
  if (timed) r.wall_us = {1.0, 2.0, 3.0};
  if (Starts(id, "pair")) r.wall_us.assign(3, (g_faults == "x10" ? 1000 : 100) + g_executed);
  if (Starts(id, "ipair")) {
    harness::SamplingPlan plan;
    plan.warmup = 0;
    plan.repeat = 4;
    plan.min_sample_us = 0;
    plan.timed = timed;
    r.wall_us.clear();
    std::string sequence;
    harness::TakeWallSamples(
        plan,
        [&] {
          sequence += g_faults == "x10" ? 'c' : 'b';
          std::this_thread::sleep_for(std::chrono::microseconds(g_faults == "x10" ? 20000 : 100));
        },
        &r);
    r.extra["sequence"] = sequence;
  }
  if (!g_faults.empty()) r.extra["faults"] = g_faults;
  ++g_executed;
  if (!judged) r.extra["judged"] = false;  // what the request said, for the tests to see
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const int threads = argc > 1 ? std::atoi(argv[1]) : 1;
  return harness::ServeWorker(harness::kWorkerRequestFd, harness::kWorkerResultFd, threads, Execute,
                              false, SwitchFaults);
}
