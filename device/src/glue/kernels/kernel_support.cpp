#include "glue/kernels/kernel_support.h"

#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>

#include "spyre_emu/dl16.h"
#include "spyre_emu/runtime.h"

namespace spyre_emu::device_kernels {

bool KernelDtype(const at::Tensor& t) {
  const at::ScalarType s = t.scalar_type();
  return glue::IsDevice(t) && (s == at::kHalf || s == at::kBFloat16 || s == at::kFloat);
}

DType CoreType(at::ScalarType dtype) {
  TORCH_INTERNAL_ASSERT(dtype == at::kHalf || dtype == at::kBFloat16 || dtype == at::kFloat);
  return dtype == at::kFloat ? DType::kFp32 : DType::kDl16;
}

void RunOnHostThreads(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body) {
  const int64_t g = std::max<int64_t>(1, grain);
  const int64_t blocks = (n + g - 1) / g;
  if (blocks <= 1 || at::in_parallel_region() || at::get_num_threads() <= 1) {
    if (n > 0) body(0, n);
    return;
  }
  // Each thread takes the next block until none is left: a thread that a
  // neighbour's process holds off the CPU delays one block, not a fixed half
  // of the call. libtorch's at::parallel_for splits statically instead.
  std::atomic<int64_t> next{0};
  std::atomic_flag failed = ATOMIC_FLAG_INIT;
  std::exception_ptr error;
#pragma omp parallel
  {
    for (int64_t b = next.fetch_add(1); b < blocks; b = next.fetch_add(1)) {
      try {
        body(b * g, std::min(n, (b + 1) * g));
      } catch (...) {
        if (!failed.test_and_set()) error = std::current_exception();
        next.store(blocks);
      }
    }
  }
  if (error) std::rethrow_exception(error);
}

Exec MakeExec() {
  Exec e;
  e.rounding = CurrentRounding();
  e.parallel_for = RunOnHostThreads;
  return e;
}

std::vector<int64_t> BroadcastStrides(const at::Tensor& t, at::IntArrayRef shape) {
  std::vector<int64_t> strides(shape.size(), 0);
  const int64_t offset = static_cast<int64_t>(shape.size()) - t.dim();
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) != 1) strides[offset + d] = t.stride(d);
  }
  return strides;
}

namespace {

// The fault plan of one generation of the settings (ConfigGeneration).
struct ParsedFaults {
  uint64_t generation = 0;
  FaultPlan plan;
  std::string error;
};

// The plan for the settings in force, parsed once per SetConfig. Each thread
// keeps the last plan it used and compares one atomic counter per kernel
// call; only a thread that sees a new generation takes the lock.
const ParsedFaults& CurrentFaults() {
  thread_local std::shared_ptr<const ParsedFaults> mine;
  const uint64_t generation = ConfigGeneration();
  if (mine != nullptr && mine->generation == generation) return *mine;
  static std::mutex mu;
  static std::shared_ptr<const ParsedFaults> shared;
  std::lock_guard<std::mutex> lock(mu);
  if (shared == nullptr || shared->generation != generation) {
    auto fresh = std::make_shared<ParsedFaults>();
    fresh->generation = generation;
    // Read after the generation: a SetConfig in between makes this plan
    // newer than its label, and the next call parses again.
    const Status parsed = FaultPlan::Parse(CurrentConfig().faults, &fresh->plan);
    if (!parsed.ok()) fresh->error = parsed.message();
    shared = std::move(fresh);
  }
  mine = shared;
  return *mine;
}

}  // namespace

const OpFaults* FaultsFor(const std::string& op) {
  const ParsedFaults& faults = CurrentFaults();
  TORCH_CHECK(faults.error.empty(), "spyre_emu: ", faults.error);
  return faults.plan.Find(op);
}

KernelCost MatmulCost(int64_t batch, int64_t m, int64_t n, int64_t k, at::ScalarType dtype) {
  const MatmulShape shape{batch, m, n, k, dtype == at::kFloat ? 4 : 2};
  const Profile profile = CurrentProfile();
  const int cores = CurrentCores();
  // The inductor profile searches every split of the cores for the cheapest
  // (hundreds of candidates, 8-25 us of host time for the suites' matmuls),
  // the sendnn profile takes one fixed split (0.02 us). The search runs
  // inside the kernel's wall time, so without this memo a profile switch
  // changed the measured host time of every small matmul, not just its
  // modeled time. One entry per shape, profile and core count, per thread:
  // the first call of a shape (a warm-up) pays the search, later calls a
  // lookup. The memo is dropped when it grows past a bound (a sweep of many
  // shapes), so it never holds more than that.
  using Key = std::array<int64_t, 7>;
  struct KeyHash {
    size_t operator()(const Key& key) const {
      size_t h = 0;
      for (int64_t x : key) h = h * 1000003u ^ std::hash<int64_t>()(x);
      return h;
    }
  };
  thread_local std::unordered_map<Key, KernelCost, KeyHash> memo;
  const Key key{batch, m, n, k, shape.elem_bytes, static_cast<int64_t>(profile), cores};
  if (auto it = memo.find(key); it != memo.end()) return it->second;
  constexpr size_t kMemoEntries = 4096;
  if (memo.size() >= kMemoEntries) memo.clear();
  const KernelCost cost = ModelMatmul(shape, CostProfileFor(profile), cores);
  memo.emplace(key, cost);
  return cost;
}

KernelCost VectorCost(VectorKind kind, int64_t rows, int64_t cols, at::ScalarType dtype,
                      std::initializer_list<at::Tensor> tensors, double steps_per_element) {
  VectorShape shape;
  shape.kind = kind;
  shape.rows = rows;
  shape.cols = cols;
  shape.elem_bytes = dtype == at::kFloat ? 4 : 2;
  for (const at::Tensor& t : tensors) {
    if (!t.defined()) continue;
    shape.io_bytes += static_cast<int64_t>(PaddedDeviceBytes(t.sizes().vec(), t.element_size()));
  }
  shape.steps_per_element = steps_per_element;
  return ModelVector(shape, CostProfileFor(CurrentProfile()), CurrentCores());
}

KernelCall::KernelCall(std::string op) : op_(std::move(op)) {
  if (const OpFaults* f = FaultsFor(op_)) faults_ = *f;
  if (faults_.abort) CrashWithAbort(op_);
  if (faults_.segv) CrashWithSegv(op_);
  if (faults_.hang) HangForever(op_);
  if (faults_.oom) {
    TORCH_CHECK_WITH(OutOfMemoryError, false, "spyre_emu: out of device memory in op '", op_,
                     "' (injected fault 'oom' from SPYRE_EMU_FAULTS)");
  }
  stretch_ = WallStretch(faults_.wall_factor(), op_);
}

void PerturbOutput(const OpFaults& faults, const at::Tensor& out) {
  if ((faults.error == 0.0 && !faults.nan) || !KernelDtype(out) || out.numel() == 0) return;
  TORCH_INTERNAL_ASSERT(out.is_contiguous());
  glue::DeviceAccess access({out});
  const int64_t n = out.numel();
  const Rounding rounding = CurrentRounding();
  if (out.scalar_type() == at::kFloat) {
    float* p = glue::DataAs<float>(out);
    if (faults.error != 0.0) {
      for (int64_t i = 0; i < n; ++i) p[i] *= ErrorFactor(faults.error, i);
    }
    if (faults.nan) p[0] = NAN;
  } else {
    uint16_t* p = glue::DataAs<uint16_t>(out);
    if (faults.error != 0.0) {
      for (int64_t i = 0; i < n; ++i) {
        p[i] = Dl16Encode(Dl16Decode(p[i]) * ErrorFactor(faults.error, i), rounding);
      }
    }
    if (faults.nan) p[0] = kDl16NanCode;
  }
}

namespace {

// The calling thread's /proc/thread-self/schedstat, opened once per thread
// (-2: not yet). A forked child inherits the descriptor of its parent's
// thread, so the child closes it and opens its own on its first reading.
struct SchedstatFile {
  int fd = -2;
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -2;
  }
  ~SchedstatFile() { Close(); }
};
thread_local SchedstatFile schedstat;

int SchedstatFd() {
  static const bool registered = [] {
    ::pthread_atfork(nullptr, nullptr, [] { schedstat.Close(); });
    return true;
  }();
  (void)registered;
  if (schedstat.fd == -2) schedstat.fd = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  return schedstat.fd;
}

}  // namespace

int64_t ThreadQueueWaitNs() {
  // One system call a reading (three with open and close).
  const int fd = SchedstatFd();
  if (fd < 0) return -1;
  char buf[128];
  const ssize_t n = ::pread(fd, buf, sizeof(buf) - 1, 0);
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

namespace {
// A preemption leaves a wait of a good part of a time slice (hundreds of
// microseconds and more): an op shorter than this waited for nothing, and
// a stretch shorter than this is seldom preempted. Each reading of the wait
// costs 1-3 us, so neither is read there.
constexpr int64_t kUnwaitedNs = 20'000;
// The least stretch worth two readings of the wait (one at the op's start,
// made up for, one as the stretch begins, inside it).
constexpr int64_t kReadWorthNs = 10'000;
}  // namespace

bool StretchReadsWait(double slow, int64_t recent_ns) {
  if (!(slow > 1.0)) return false;
  if (recent_ns < 0) return true;
  return recent_ns >= kUnwaitedNs &&
         static_cast<double>(recent_ns) * (slow - 1.0) >= static_cast<double>(kReadWorthNs);
}

int64_t NextRecentNs(int64_t recent_ns, int64_t own_ns) {
  return std::max(std::max<int64_t>(own_ns, 0), recent_ns - recent_ns / 16);
}

int64_t StretchOp(double slow, int64_t op_ns, int64_t queued_at_start_ns, int64_t overhead_ns,
                  const StretchClock& clock) {
  if (!(slow > 1.0)) return 0;
  const int64_t t0 = clock.now_ns();
  bool known = queued_at_start_ns >= 0;
  int64_t qref = queued_at_start_ns, op_wait = 0;
  if (known && op_ns >= kUnwaitedNs) {
    qref = clock.queued_ns();
    known = qref >= queued_at_start_ns;
    op_wait = known ? qref - queued_at_start_ns : 0;
  }
  // The op's own time, without the reading at its start, which the stretch
  // then makes up for: the op takes slow x its own time in all.
  const int64_t own = std::max<int64_t>(0, op_ns - overhead_ns - op_wait);
  const int64_t extra =
      std::max<int64_t>(0, std::llround(static_cast<double>(own) * (slow - 1.0)) - overhead_ns);
  // A sleep overshoots by the timer slack (~60 us here), which would turn
  // slow=1.05 on a 10 us kernel into x7: sleep only the bulk of a long wait,
  // and spin the rest.
  constexpr int64_t kSpinNs = 1'000'000;
  if (extra > 2 * kSpinNs) clock.sleep_ns(extra - kSpinNs);
  const bool check = known && extra >= kUnwaitedNs;
  int64_t waited = 0;  // run-queue wait since t0, as last read
  for (;;) {
    const int64_t wall = clock.now_ns() - t0;
    if (wall < extra + waited) continue;  // the own time is at most wall - waited
    if (!check) break;
    const int64_t q = clock.queued_ns();
    if (q < qref) break;  // the reading failed: wall time
    waited = std::max(waited, q - qref);
    if (wall - waited >= extra) break;
  }
  return extra;
}

WallStretch::WallStretch(double slow, const std::string& op) : slow_(slow) {
  if (!(slow_ > 1.0)) return;
  // Elements of an unordered_map stay where they are when it grows.
  thread_local std::unordered_map<std::string, int64_t> recent;
  recent_ns_ = &recent.try_emplace(op, -1).first->second;
  if (!StretchReadsWait(slow_, *recent_ns_)) return;
  const auto before = std::chrono::steady_clock::now();
  queued_at_start_ns_ = ThreadQueueWaitNs();
  overhead_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                     std::chrono::steady_clock::now() - before)
                     .count();
}

void WallStretch::Apply(const glue::KernelTimer& timer) const {
  if (!(slow_ > 1.0)) return;
  static const StretchClock kThreadClock{
      [] {
        return static_cast<int64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
      },
      [] { return ThreadQueueWaitNs(); },
      [](int64_t ns) { std::this_thread::sleep_for(std::chrono::nanoseconds(ns)); }};
  auto op_ns = static_cast<int64_t>(timer.ElapsedNs());
  // Unread, a preemption would be stretched with the op: take at most
  // twice what the op's recent calls took.
  if (queued_at_start_ns_ < 0 && *recent_ns_ >= 0) op_ns = std::min(op_ns, 2 * *recent_ns_);
  StretchOp(slow_, op_ns, queued_at_start_ns_, overhead_ns_, kThreadClock);
  *recent_ns_ = NextRecentNs(*recent_ns_, op_ns - overhead_ns_);
}

void KernelCall::Finish(at::ArrayRef<at::Tensor> inputs, const at::Tensor& out,
                        const KernelCost& cost) {
  PerturbOutput(faults_, out);
  stretch_.Apply(timer_);
  uint64_t bytes = 0;
  for (const at::Tensor& t : inputs) {
    if (t.defined()) bytes += PaddedDeviceBytes(t.sizes().vec(), t.element_size());
  }
  if (out.defined()) bytes += PaddedDeviceBytes(out.sizes().vec(), out.element_size());
  const auto modeled = static_cast<uint64_t>(std::llround(cost.total_ns * faults_.slow));
  glue::RecordKernel(op_, inputs, out, modeled, cost.split.cores(), bytes, timer_);
}

}  // namespace spyre_emu::device_kernels
