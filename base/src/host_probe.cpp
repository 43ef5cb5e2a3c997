#include "base/host_probe.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "base/stats.h"

namespace harness {
namespace {

// A dependent multiply-add chain: latency-bound, so neither vectorisation
// nor the memory system changes it, only how fast this core runs for us.
// About 10 us on the 2-core CI machine.
constexpr int kIterations = 7000;

}  // namespace

double HostProbeOnceUs() {
  static volatile double seed = 1.0;
  const auto start = std::chrono::steady_clock::now();
  double x = seed;
  for (int i = 0; i < kIterations; ++i) x = x * 0.9999999 + 1e-7;
  asm volatile("" : "+x"(x));  // the loop finishes before the clock is read
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double, std::micro>(stop - start).count();
}

int64_t ThreadRunQueueWaitNs() {
  const int fd = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof(buf) - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buf[n] = '\0';
  // "ns on a CPU" "ns waiting on a run queue" "timeslices"
  char* end = nullptr;
  std::strtoll(buf, &end, 10);
  if (end == buf) return -1;
  char* after = nullptr;
  const long long wait = std::strtoll(end, &after, 10);
  return after == end || wait < 0 ? -1 : static_cast<int64_t>(wait);
}

CpuTicks ReadCpuTicks() {
  CpuTicks t;
  {
    std::ifstream in("/proc/stat");
    std::string label;
    in >> label;
    if (label == "cpu") {
      // user nice system idle iowait irq softirq steal (guest time is in user)
      int64_t v[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      for (int64_t& x : v) in >> x;
      if (in) {
        t.machine_busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
        t.machine_total = t.machine_busy + v[3] + v[4];
      }
    }
  }
  std::ifstream self("/proc/self/stat");
  std::string text;
  std::getline(self, text);
  // The command name (field 2) may hold spaces: count fields after its ')'.
  const size_t close = text.rfind(')');
  if (close != std::string::npos) {
    std::istringstream fields(text.substr(close + 1));
    std::string field;
    int64_t utime = -1, stime = -1;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
      if (i == 14) utime = std::strtoll(field.c_str(), nullptr, 10);
      if (i == 15) stime = std::strtoll(field.c_str(), nullptr, 10);
    }
    if (utime >= 0 && stime >= 0) t.self = utime + stime;
  }
  return t;
}

BusyTicks OtherBusyTicks(const CpuTicks& begin, const CpuTicks& end) {
  BusyTicks b;
  if (begin.machine_total < 0 || end.machine_total < 0 || begin.self < 0 || end.self < 0) return b;
  b.total = std::max<int64_t>(end.machine_total - begin.machine_total, 0);
  // The two files are read a moment apart: clamp what that skews.
  b.others = std::clamp<int64_t>(
      (end.machine_busy - begin.machine_busy) - (end.self - begin.self), 0, b.total);
  return b;
}

void HostProbe::Sample() {
  if (samples_.empty()) first_ = ReadCpuTicks();
  ends_.push_back(ThreadRunQueueWaitNs());  // the previous sample ends here
  samples_.push_back(HostProbeOnceUs());
  starts_.push_back(ThreadRunQueueWaitNs());
}

std::vector<double> QueueWaitPerCallUs(const std::vector<int64_t>& starts,
                                       const std::vector<int64_t>& ends, double calls_per_sample) {
  std::vector<double> out;
  if (starts.size() != ends.size() || !(calls_per_sample >= 1)) return {};
  for (size_t i = 0; i < starts.size(); ++i) {
    if (starts[i] < 0 || ends[i] < starts[i]) return {};
    out.push_back(static_cast<double>(ends[i] - starts[i]) / 1000.0 / calls_per_sample);
  }
  return out;
}

void HostProbe::Record(CaseResult* r) {
  if (samples_.empty()) return;
  r->extra["host_probe_us"] = Median(samples_);
  const BusyTicks busy = OtherBusyTicks(first_, ReadCpuTicks());
  if (busy.total > 0) r->extra["host_busy"] = BusyJson(busy);
  if (r->HasQueueWait()) return;  // the sampler read the waits itself, closer to the samples
  // Sample i ends where sample i + 1's probe starts; the last one here.
  std::vector<int64_t> ends(ends_.begin() + 1, ends_.end());
  ends.push_back(ThreadRunQueueWaitNs());
  double batch = 1;
  auto it = r->extra.find("wall_batch");
  if (it != r->extra.end() && it->is_number()) batch = it->get<double>();
  std::vector<double> waits = QueueWaitPerCallUs(starts_, ends, batch);
  if (waits.size() == r->wall_us.size()) r->queue_us = std::move(waits);
}

BusyTicks HostBusy(const CaseResult& r) {
  BusyTicks b;
  auto it = r.extra.find("host_busy");
  if (it == r.extra.end() || !it->is_object()) return b;
  const auto others = it->find("others"), ticks = it->find("ticks");
  if (others == it->end() || ticks == it->end() || !others->is_number_integer() ||
      !ticks->is_number_integer()) {
    return b;
  }
  const int64_t o = others->get<int64_t>(), t = ticks->get<int64_t>();
  if (t <= 0 || o < 0 || o > t) return b;
  b.others = o;
  b.total = t;
  return b;
}

nlohmann::json BusyJson(const BusyTicks& b) { return {{"others", b.others}, {"ticks", b.total}}; }

double HostProbeUs(const CaseResult& r) {
  auto it = r.extra.find("host_probe_us");
  if (it == r.extra.end() || !it->is_number()) return std::nan("");
  const double v = it->get<double>();
  return v > 0 && std::isfinite(v) ? v : std::nan("");
}

}  // namespace harness
