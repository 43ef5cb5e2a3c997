// The torch-free kernels against double-precision references computed from
// the same DL16 operands, and their invariance to how work is spread over
// host threads. (The ATen-level per-op tests are in kernel_ops_test.cpp.)
#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core/kernels/chunk_io.h"
#include "core/kernels/special_math.h"
#include "spyre_emu/dl16.h"
#include "spyre_emu/kernels.h"

namespace {

using namespace spyre_emu;

std::vector<uint16_t> RandomDl16(size_t n, uint32_t seed, float lo = -3, float hi = 3) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<uint16_t> v(n);
  for (auto& x : v) x = Dl16Encode(d(rng), Rounding::kNearestAway);
  return v;
}

float Val(const std::vector<uint16_t>& v, size_t i) { return Dl16Decode(v[i]); }

int OrderedCode(uint16_t c) { return (c & 0x8000) ? -(c & 0x7FFF) : (c & 0x7FFF); }
int UlpDistance(uint16_t a, uint16_t b) { return std::abs(OrderedCode(a) - OrderedCode(b)); }

// Spreads pieces over real threads, in an odd order with odd piece sizes.
Exec ThreadedExec() {
  Exec e;
  e.parallel_for = [](int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body) {
    std::vector<std::thread> threads;
    const int64_t piece = std::max<int64_t>(grain, n / 3 + 1);
    for (int64_t b = n; b > 0; b -= piece) {
      threads.emplace_back([&body, b, piece] { body(std::max<int64_t>(0, b - piece), b); });
    }
    for (auto& t : threads) t.join();
  };
  return e;
}

// Hands out [0, n) in blocks of `block` indices, last block first, to
// `threads` threads that take the next block as they come free (the shape of
// the device's host thread pool, with any thread count and any order).
Exec RunnerExec(int threads, int64_t block) {
  Exec e;
  e.parallel_for = [threads, block](int64_t n, int64_t,
                                    const std::function<void(int64_t, int64_t)>& body) {
    const int64_t blocks = (n + block - 1) / block;
    std::atomic<int64_t> next{0};
    auto work = [&] {
      for (int64_t b = next.fetch_add(1); b < blocks; b = next.fetch_add(1)) {
        const int64_t first = (blocks - 1 - b) * block;
        body(first, std::min(n, first + block));
      }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
  };
  return e;
}

std::vector<Exec> Runners() {
  return {Exec{},           ThreadedExec(),   RunnerExec(1, 1), RunnerExec(2, 1),
          RunnerExec(2, 3), RunnerExec(4, 1), RunnerExec(7, 5)};
}

// What a kernel body sees: the pieces of [0, n), whatever runs them.
TEST(KernelCoreTest, WorkIsCutIntoTheSamePiecesForAnyRunner) {
  for (int64_t n : {1, 5, 31, 33, 1000, 65537, 4194304}) {
    for (int64_t grain : {1, 7, 4096, 16384}) {
      std::vector<std::pair<int64_t, int64_t>> reference;
      for (const Exec& exec : Runners()) {
        std::mutex mu;
        std::vector<std::pair<int64_t, int64_t>> pieces;
        kernels::ParallelRange(exec, n, grain, [&](int64_t b, int64_t e) {
          std::lock_guard<std::mutex> lock(mu);
          pieces.emplace_back(b, e);
        });
        std::sort(pieces.begin(), pieces.end());
        ASSERT_FALSE(pieces.empty());
        EXPECT_LE(pieces.size(), static_cast<size_t>(kMaxCores)) << n << " / " << grain;
        EXPECT_EQ(pieces.front().first, 0);
        EXPECT_EQ(pieces.back().second, n);
        for (size_t i = 1; i < pieces.size(); ++i) {
          EXPECT_EQ(pieces[i].first, pieces[i - 1].second);
        }
        if (reference.empty()) {
          reference = pieces;
        } else {
          EXPECT_EQ(pieces, reference) << n << " / " << grain;
        }
      }
    }
  }
}

TEST(KernelCoreTest, BinaryBroadcastIsCorrectlyRounded) {
  const std::vector<int64_t> shape = {3, 70, 129};
  const auto a = RandomDl16(3 * 70 * 129, 1);
  const auto b = RandomDl16(129, 2, 0.5, 2);  // broadcast along the last dim
  std::vector<uint16_t> out(a.size());
  Operand oa{a.data(), DType::kDl16, {70 * 129, 129, 1}, 0};
  Operand ob{b.data(), DType::kDl16, {0, 0, 1}, 0};
  for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kSub, BinaryOp::kMul, BinaryOp::kDiv}) {
    RunBinary(op, 1.0f, oa, ob, out.data(), DType::kDl16, shape, Exec{});
    for (size_t i = 0; i < out.size(); ++i) {
      const double x = Val(a, i), y = Val(b, i % 129);
      const double ref = op == BinaryOp::kAdd   ? x + y
                         : op == BinaryOp::kSub ? x - y
                         : op == BinaryOp::kMul ? x * y
                                                : x / y;
      ASSERT_LE(UlpDistance(out[i], Dl16Encode(static_cast<float>(ref), Rounding::kNearestAway)), 1)
          << static_cast<int>(op) << " at " << i;
    }
  }
}

TEST(KernelCoreTest, MatmulMeetsTheReductionBound) {
  // Bound: |out - ref| <= 1 DL16 ULP of ref + k * 2^-23 * sum |a||w|, with ref
  // the exact product of the DL16 operands (fp32 accumulation error).
  const int64_t m = 37, n = 101, k = 300;
  const auto a = RandomDl16(m * k, 3), w = RandomDl16(k * n, 4);
  std::vector<uint16_t> out(m * n);
  MatmulArgs g;
  g.m = m, g.n = n, g.k = k;
  g.a = a.data(), g.a_type = DType::kDl16, g.a_strides[1] = k, g.a_strides[2] = 1;
  // w stored transposed ([n, k] row-major), as linear's weight is.
  std::vector<uint16_t> wt(k * n);
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j) wt[j * k + i] = w[i * n + j];
  g.w = wt.data(), g.w_type = DType::kDl16, g.w_strides[1] = 1, g.w_strides[2] = k;
  g.out = out.data(), g.out_type = DType::kDl16;
  RunMatmul(g, Exec{});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double ref = 0, mag = 0;
      for (int64_t p = 0; p < k; ++p) {
        ref += double(Val(a, i * k + p)) * Val(w, p * n + j);
        mag += std::fabs(double(Val(a, i * k + p)) * Val(w, p * n + j));
      }
      const double got = Dl16Decode(out[i * n + j]);
      const double ulp = std::ldexp(1.0, std::ilogb(ref) - 9);
      EXPECT_LE(std::fabs(got - ref), ulp + k * std::ldexp(mag, -23)) << i << "," << j;
    }
  }
}

TEST(KernelCoreTest, ThreadsNeverChangeAResult) {
  const int64_t rows = 61, cols = 4500;  // longer than one canonical chunk
  const auto x = RandomDl16(rows * cols, 5);
  const auto y = RandomDl16(cols, 6, 0.5, 2);
  // Every kernel that splits its work, each result kept per runner.
  auto results = [&](const Exec& exec) {
    std::vector<std::vector<uint16_t>> r;
    std::vector<uint16_t> out(rows * cols), red(rows), col(cols);
    std::vector<int64_t> idx(rows);
    for (bool log : {false, true}) {
      RunSoftmax(log, x.data(), out.data(), DType::kDl16, rows, cols, 1, exec);
      r.push_back(out);
      RunSoftmax(log, x.data(), out.data(), DType::kDl16, 1, rows, cols, exec);  // inner dim
      r.push_back(out);
    }
    RunLayerNorm(x.data(), nullptr, nullptr, out.data(), red.data(), nullptr, DType::kDl16, rows,
                 cols, 1e-5f, exec);
    r.push_back(out);
    r.push_back(red);
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean, ReduceOp::kMax, ReduceOp::kVar}) {
      RunReduce(op, x.data(), DType::kDl16, red.data(), DType::kDl16, rows, cols, 1, 1, exec);
      r.push_back(red);
      // Reducing the first dim ([1, rows, cols] -> cols outputs) too.
      RunReduce(op, x.data(), DType::kDl16, col.data(), DType::kDl16, 1, rows, cols, 1, exec);
      r.push_back(col);
    }
    RunReduceWithIndex(true, x.data(), DType::kDl16, red.data(), idx.data(), rows, cols, 1, exec);
    r.push_back(red);
    for (UnaryOp op : {UnaryOp::kExp, UnaryOp::kTanh, UnaryOp::kSigmoid, UnaryOp::kGelu,
                       UnaryOp::kGeluTanh, UnaryOp::kSilu, UnaryOp::kErf, UnaryOp::kSin}) {
      RunUnary(op, {}, x.data(), DType::kDl16, out.data(), DType::kDl16, rows * cols, exec);
      r.push_back(out);
    }
    Operand a{x.data(), DType::kDl16, {cols, 1}, 0}, b{y.data(), DType::kDl16, {0, 1}, 0};
    for (BinaryOp op : {BinaryOp::kAdd, BinaryOp::kMul, BinaryOp::kDiv}) {
      RunBinary(op, 1.0f, a, b, out.data(), DType::kDl16, {rows, cols}, exec);
      r.push_back(out);
    }
    return r;
  };
  const auto reference = results(Exec{});
  for (const Exec& exec : Runners()) {
    const auto got = results(exec);
    ASSERT_EQ(got.size(), reference.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], reference[i]) << "kernel " << i;
  }
}

TEST(KernelCoreTest, ReductionsMeetTheirBound) {
  const int64_t outer = 3, len = 9000, inner = 5;
  const auto x = RandomDl16(outer * len * inner, 6);
  std::vector<float> sum(outer * inner), var(outer * inner), mx(outer * inner);
  RunReduce(ReduceOp::kSum, x.data(), DType::kDl16, sum.data(), DType::kFp32, outer, len, inner, 0,
            Exec{});
  RunReduce(ReduceOp::kVar, x.data(), DType::kDl16, var.data(), DType::kFp32, outer, len, inner, 1,
            Exec{});
  RunReduce(ReduceOp::kMax, x.data(), DType::kDl16, mx.data(), DType::kFp32, outer, len, inner, 0,
            Exec{});
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double s = 0, mag = 0, m = -1e30;
      for (int64_t l = 0; l < len; ++l) {
        const double v = Val(x, (o * len + l) * inner + i);
        s += v, mag += std::fabs(v), m = std::max(m, v);
      }
      double sq = 0;
      for (int64_t l = 0; l < len; ++l) {
        const double d = Val(x, (o * len + l) * inner + i) - s / len;
        sq += d * d;
      }
      // fp32 accumulation: error <= len * 2^-24 * sum |x| (a loose, safe bound).
      EXPECT_NEAR(sum[o * inner + i], s, len * std::ldexp(mag, -24));
      EXPECT_NEAR(var[o * inner + i], sq / (len - 1), 1e-4 * sq / (len - 1));
      EXPECT_EQ(mx[o * inner + i], static_cast<float>(m));
    }
  }
}

TEST(KernelCoreTest, EmptyAndFp32PathsBehave) {
  std::vector<float> in = {1.5f, -2.25f, 3.0f}, out(3);
  RunUnary(UnaryOp::kNeg, {}, in.data(), DType::kFp32, out.data(), DType::kFp32, 3, Exec{});
  EXPECT_EQ(out, (std::vector<float>{-1.5f, 2.25f, -3.0f}));
  // fp32 stays fp32: 1/3 is not rounded to DL16.
  std::vector<float> third(1);
  const std::vector<float> one = {1.0f}, three = {3.0f};
  RunBinary(BinaryOp::kDiv, 1, Operand{one.data(), DType::kFp32, {1}, 0},
            Operand{three.data(), DType::kFp32, {1}, 0}, third.data(), DType::kFp32, {1}, Exec{});
  EXPECT_EQ(third[0], 1.0f / 3.0f);
  RunUnary(UnaryOp::kExp, {}, in.data(), DType::kFp32, out.data(), DType::kFp32, 0, Exec{});
  MatmulArgs empty;
  RunMatmul(empty, Exec{});  // m = n = 0: nothing to do, nothing touched
}

// DL16 in, DL16 out: the special functions read their results from a table
// of all 65,536 inputs. Every input, every rounding mode, serial and spread
// over threads, in place and not: the bits of the scalar function between
// the DL16 decode and the rounding.
TEST(KernelCoreTest, SpecialFunctionsOnDl16GiveTheScalarBitsForEveryInput) {
  struct Case {
    UnaryOp op;
    float (*scalar)(float);
  };
  const Case cases[] = {{UnaryOp::kExp, special::Exp},         {UnaryOp::kLog, special::Log},
                        {UnaryOp::kTanh, special::Tanh},       {UnaryOp::kSigmoid, special::Sigmoid},
                        {UnaryOp::kErf, special::Erf},         {UnaryOp::kGelu, special::Gelu},
                        {UnaryOp::kGeluTanh, special::GeluTanh}, {UnaryOp::kSilu, special::Silu}};
  std::vector<uint16_t> all(65536);
  for (size_t c = 0; c < all.size(); ++c) all[c] = static_cast<uint16_t>(c);
  for (const Case& k : cases) {
    for (Rounding r : {Rounding::kNearestAway, Rounding::kNearestEven, Rounding::kTruncate}) {
      std::vector<uint16_t> want(all.size());
      for (size_t c = 0; c < all.size(); ++c) want[c] = Dl16Encode(k.scalar(Dl16Decode(all[c])), r);
      Exec serial;
      serial.rounding = r;
      std::vector<uint16_t> out(all.size());
      RunUnary(k.op, {}, all.data(), DType::kDl16, out.data(), DType::kDl16,
               static_cast<int64_t>(all.size()), serial);
      Exec threaded = ThreadedExec();
      threaded.rounding = r;
      std::vector<uint16_t> in_place = all;
      RunUnary(k.op, {}, in_place.data(), DType::kDl16, in_place.data(), DType::kDl16,
               static_cast<int64_t>(in_place.size()), threaded);
      int wrong = 0;
      for (size_t c = 0; c < all.size(); ++c) {
        if (out[c] != want[c] || in_place[c] != want[c]) {
          if (++wrong <= 3) {
            ADD_FAILURE() << "op " << static_cast<int>(k.op) << " rounding " << static_cast<int>(r)
                          << " input 0x" << std::hex << c << ": 0x" << out[c] << " / 0x"
                          << in_place[c] << ", scalar path 0x" << want[c];
          }
        }
      }
      EXPECT_EQ(wrong, 0);
    }
  }
}

}  // namespace
