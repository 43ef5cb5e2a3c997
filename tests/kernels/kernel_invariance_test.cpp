// Every device kernel gives bit-identical results on 1 and 2 host threads
// and on 1, 4, 16 and 32 emulated cores; only the modeled time (and the cores
// used) may change. Also checks the trace event each kernel records.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

#include "glue/kernels/kernel_support.h"
#include "op_test_util.h"

namespace {

using kernels_test::Random;
using kernels_test::ToDevice;

struct Case {
  const char* op;  // the op name the trace event carries
  std::function<at::Tensor()> run;
};

std::vector<Case> AllKernels() {
  // Inputs are built once; each case runs one kernel on them.
  static const at::Tensor a = ToDevice(Random({67, 300}, 1));
  static const at::Tensor b = ToDevice(Random({300, 129}, 2));
  static const at::Tensor w = ToDevice(Random({129, 300}, 3));
  static const at::Tensor bias = ToDevice(Random({129}, 4));
  static const at::Tensor q = ToDevice(Random({4, 33, 64}, 5));
  static const at::Tensor k = ToDevice(Random({4, 64, 70}, 6));
  static const at::Tensor x = ToDevice(Random({5, 100, 150}, 7));
  static const at::Tensor y = ToDevice(Random({150}, 8, 0.5, 2));
  static const at::Tensor mask = (Random({5, 100, 150}, 9) > 0).to(spyre_emu::device());
  static const at::Tensor ids = at::tensor({1, 66, 0, 5}, at::kLong).to(spyre_emu::device());
  static const at::Tensor lw = ToDevice(Random({150}, 10)), lb = ToDevice(Random({150}, 11));
  return {
      {"mm", [] { return at::mm(a, b); }},
      {"addmm", [] { return at::linear(a, w, bias); }},
      {"bmm", [] { return at::bmm(q, k); }},
      {"baddbmm",
       [] {
         return at::baddbmm(ToDevice(Random({4, 33, 70}, 12)), q, k);
       }},
      {"add", [] { return at::add(x, y, 2); }},
      {"sub", [] { return at::sub(x, y); }},
      {"rsub", [] { return at::rsub(x, y); }},
      {"mul", [] { return x * y; }},
      {"div", [] { return x / y; }},
      {"pow", [] { return at::pow(y, x); }},
      {"maximum", [] { return at::maximum(x, y); }},
      {"minimum", [] { return at::minimum(x, y); }},
      {"neg", [] { return -x; }},
      {"abs", [] { return at::abs(x); }},
      {"exp", [] { return at::exp(x); }},
      {"log", [] { return at::log(y); }},
      {"sqrt", [] { return at::sqrt(y); }},
      {"rsqrt", [] { return at::rsqrt(y); }},
      {"reciprocal", [] { return at::reciprocal(y); }},
      {"tanh", [] { return at::tanh(x); }},
      {"sigmoid", [] { return at::sigmoid(x); }},
      {"relu", [] { return at::relu(x); }},
      {"gelu", [] { return at::gelu(x); }},
      {"gelu", [] { return at::gelu(x, "tanh"); }},
      {"silu", [] { return at::silu(x); }},
      {"erf", [] { return at::erf(x); }},
      {"sin", [] { return at::sin(x); }},
      {"cos", [] { return at::cos(x * 300); }},
      {"pow", [] { return at::pow(x, 2); }},
      {"clamp", [] { return at::clamp(x, -1, 1); }},
      {"where", [] { return at::where(mask, x, y); }},
      {"gt", [] { return (x > y).to(at::kHalf); }},
      {"triu", [] { return x.triu(3); }},
      {"masked_fill_", [] { return x.clone().masked_fill_(mask, -5.0); }},
      {"_softmax", [] { return at::softmax(x, -1); }},
      {"_softmax", [] { return at::softmax(x, 1); }},
      {"_log_softmax", [] { return at::log_softmax(x, -1); }},
      {"native_layer_norm", [] { return at::layer_norm(x, {150}, lw, lb, 1e-5); }},
      {"sum",
       [] {
         return at::sum(x, at::IntArrayRef{0, 2});
       }},
      {"sum",
       [] {
         return at::sum(at::cat({x, x, x}, 0).view({-1}));
       }},
      {"mean", [] { return at::mean(x, at::IntArrayRef{-1}); }},
      {"amax", [] { return at::amax(x, at::IntArrayRef{1}); }},
      {"max", [] { return x.max(); }},
      {"max", [] { return std::get<0>(at::max(x, 1)); }},
      {"argmax", [] { return at::argmax(x, -1).to(at::kFloat); }},
      {"min", [] { return std::get<1>(at::min(x, -1)).to(at::kFloat); }},
      {"var", [] { return at::var(x, at::IntArrayRef{-1}); }},
      {"cat",
       [] {
         return at::cat({x, x}, 1);
       }},
      {"index_select", [] { return at::embedding(a, ids); }},
      {"arange",
       [] {
         return at::arange(0, 300, 0.25,
                           at::TensorOptions().dtype(at::kHalf).device(spyre_emu::device()));
       }},
  };
}

// Restores libtorch's intra-op thread count (the device's host threads).
struct ScopedHostThreads {
  explicit ScopedHostThreads(int n) : saved(at::get_num_threads()) { at::set_num_threads(n); }
  ~ScopedHostThreads() { at::set_num_threads(saved); }
  int saved;
};

TEST(KernelInvarianceTest, EveryKernelIsBitIdenticalOn1And2HostThreadsAnd1_4_16_32Cores) {
  for (const Case& c : AllKernels()) {
    at::Tensor reference;
    for (int threads : {1, 2}) {
      ScopedHostThreads host(threads);
      for (int cores : {1, 4, 16, 32}) {
        kernels_test::ScopedCores scoped(cores);
        const uint64_t fallbacks = spyre_emu::stats().fallback_calls();
        spyre_emu::TraceScope trace;
        const at::Tensor out = c.run();
        EXPECT_EQ(spyre_emu::stats().fallback_calls(), fallbacks) << c.op << " fell back";
        bool seen = false;
        for (const spyre_emu::TraceEvent& e : trace.events()) {
          if (e.op != c.op || e.kind != spyre_emu::EventKind::kKernel) continue;
          seen = true;
          EXPECT_GT(e.modeled_ns, 0u) << c.op;
          EXPECT_GE(e.cores_used, 1) << c.op;
          EXPECT_LE(e.cores_used, cores) << c.op;
          EXPECT_FALSE(e.fallback);
        }
        EXPECT_TRUE(seen) << "no kernel event for " << c.op;
        if (!reference.defined()) {
          reference = out;
        } else {
          EXPECT_TRUE(kernels_test::BitIdentical(out, reference))
              << c.op << " on " << threads << " host threads, " << cores << " cores";
        }
      }
    }
  }
}

// The kernels' pieces really are spread over the host threads: with two,
// the first block waits until another thread has taken one (no timing: it
// fails only if no second thread ever comes, after a minute).
TEST(KernelInvarianceTest, TwoHostThreadsBothRunPieces) {
  ScopedHostThreads host(2);
  std::mutex mu;
  std::set<std::thread::id> ids;
  std::atomic<bool> other{false};
  std::atomic<int64_t> covered{0};
  spyre_emu::device_kernels::RunOnHostThreads(32, 1, [&](int64_t begin, int64_t end) {
    covered += end - begin;
    {
      std::lock_guard<std::mutex> lock(mu);
      ids.insert(std::this_thread::get_id());
      if (ids.size() > 1) other = true;
    }
    if (begin == 0) {
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(1);
      while (!other && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    }
  });
  EXPECT_EQ(covered.load(), 32);
  EXPECT_EQ(ids.size(), 2u);
  // One host thread: the caller's alone.
  ScopedHostThreads one(1);
  ids.clear();
  covered = 0;
  spyre_emu::device_kernels::RunOnHostThreads(32, 1, [&](int64_t begin, int64_t end) {
    covered += end - begin;
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_EQ(covered.load(), 32);
  EXPECT_EQ(ids, std::set<std::thread::id>{std::this_thread::get_id()});
}

TEST(KernelInvarianceTest, CoresChangeModeledTimeOnly) {
  const at::Tensor a = ToDevice(Random({512, 1024}, 20)), b = ToDevice(Random({1024, 1024}, 21));
  std::vector<uint64_t> modeled;
  std::vector<int> used;
  for (int cores : {1, 32}) {
    kernels_test::ScopedCores scoped(cores);
    spyre_emu::TraceScope trace;
    at::mm(a, b);
    for (const auto& e : trace.events()) {
      if (e.op == "mm") modeled.push_back(e.modeled_ns), used.push_back(e.cores_used);
    }
  }
  ASSERT_EQ(modeled.size(), 2u);
  EXPECT_EQ(used[0], 1);
  EXPECT_GT(used[1], 1);
  EXPECT_GT(modeled[0], 4 * modeled[1]);  // the split pays off
}

// The matmul cost is memoized per shape (the split search ran inside the
// kernel's wall time): every call must still get the cost of the profile and
// core count in force at that call, in any order of switches.
TEST(KernelInvarianceTest, MatmulCostFollowsProfileAndCoresAtEveryCall) {
  const at::Tensor a = ToDevice(Random({31, 70}, 30)), b = ToDevice(Random({70, 96}, 31));
  const spyre_emu::MatmulShape shape{1, 31, 96, 70, 2};
  const spyre_emu::Config saved = spyre_emu::CurrentConfig();
  const std::pair<spyre_emu::Profile, int> settings[] = {
      {spyre_emu::Profile::kInductor, 32}, {spyre_emu::Profile::kSendnn, 32},
      {spyre_emu::Profile::kInductor, 32}, {spyre_emu::Profile::kInductor, 4},
      {spyre_emu::Profile::kSendnn, 4},    {spyre_emu::Profile::kInductor, 32}};
  std::set<uint64_t> distinct;
  for (const auto& [profile, cores] : settings) {
    spyre_emu::Config c = saved;
    c.profile = profile;
    c.cores = cores;
    spyre_emu::SetConfig(c);
    const spyre_emu::KernelCost want =
        spyre_emu::ModelMatmul(shape, spyre_emu::CostProfileFor(profile), cores);
    for (int call = 0; call < 2; ++call) {
      spyre_emu::TraceScope trace;
      at::mm(a, b);
      int seen = 0;
      for (const spyre_emu::TraceEvent& e : trace.events()) {
        if (e.op != "mm" || e.kind != spyre_emu::EventKind::kKernel) continue;
        ++seen;
        EXPECT_EQ(e.modeled_ns, static_cast<uint64_t>(std::llround(want.total_ns)))
            << spyre_emu::ProfileName(profile) << " on " << cores << " cores, call " << call;
        EXPECT_EQ(e.cores_used, want.split.cores());
        distinct.insert(e.modeled_ns);
      }
      EXPECT_EQ(seen, 1);
    }
  }
  spyre_emu::SetConfig(saved);
  EXPECT_GE(distinct.size(), 3u);  // the settings do give different costs
}

}  // namespace
