#include "core/kernels/canonical_sum.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/kernels/vector_clones.h"

namespace spyre_emu::kernels {
namespace {

float Tree(const float* acc) {
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

}  // namespace

namespace {

// One block of at most kBlock elements: 8 lanes accumulate elements i % 8,
// combined as a fixed tree.
SPYRE_VECTOR_CLONES float BlockSum(const float* x, int64_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) acc[j] += x[i + j];
  }
  for (int j = 0; i + j < n; ++j) acc[j] += x[i + j];
  return Tree(acc);
}

SPYRE_VECTOR_CLONES float BlockDeviation(const float* x, int64_t n, float center) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) acc[j] += x[i + j] - center;
  }
  for (int j = 0; i + j < n; ++j) acc[j] += x[i + j] - center;
  return Tree(acc);
}

SPYRE_VECTOR_CLONES float BlockSquaredDeviation(const float* x, int64_t n, float center) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) {
      const float d = x[i + j] - center;
      acc[j] += d * d;
    }
  }
  for (int j = 0; i + j < n; ++j) {
    const float d = x[i + j] - center;
    acc[j] += d * d;
  }
  return Tree(acc);
}

// The block results of x[0..n) combined as a balanced tree (the first half
// of the blocks, then the second): each term passes through about
// kBlock / 8 + log2(n / kBlock) additions instead of n / 8, so a long fp32
// sum is as accurate as the CPU's cascade summation.
template <typename F>
float Pairwise(const float* x, int64_t n, const F& block) {
  if (n <= kBlock) return block(x, n);
  const int64_t blocks = (n + kBlock - 1) / kBlock;
  const int64_t left = (blocks / 2) * kBlock;
  return Pairwise(x, left, block) + Pairwise(x + left, n - left, block);
}

}  // namespace

float ChunkSum(const float* x, int64_t n) {
  return Pairwise(x, n, [](const float* p, int64_t m) { return BlockSum(p, m); });
}

float CanonicalSum(const float* x, int64_t n) {
  float total = 0;
  for (int64_t c = 0; c < n; c += kSumChunk) total += ChunkSum(x + c, std::min(kSumChunk, n - c));
  return total;
}

float ChunkDeviation(const float* x, int64_t n, float center) {
  return Pairwise(x, n,
                  [center](const float* p, int64_t m) { return BlockDeviation(p, m, center); });
}

float CanonicalDeviation(const float* x, int64_t n, float center) {
  float total = 0;
  for (int64_t c = 0; c < n; c += kSumChunk) {
    total += ChunkDeviation(x + c, std::min(kSumChunk, n - c), center);
  }
  return total;
}

float ChunkSquaredDeviation(const float* x, int64_t n, float center) {
  return Pairwise(
      x, n, [center](const float* p, int64_t m) { return BlockSquaredDeviation(p, m, center); });
}

float CanonicalSquaredDeviation(const float* x, int64_t n, float center) {
  float total = 0;
  for (int64_t c = 0; c < n; c += kSumChunk) {
    total += ChunkSquaredDeviation(x + c, std::min(kSumChunk, n - c), center);
  }
  return total;
}

// 8 lanes: lane j sees elements i % 8 == j of the whole vectors, lane 0 the
// tail; then the lanes in order. The selects keep the first of equal values
// (+0 before -0) lane by lane, and the NaN lanes add up every NaN seen, so the
// result is one fixed function of x whatever the instruction set.
SPYRE_VECTOR_CLONES float Extreme(const float* x, int64_t n, bool max) {
  typedef float Lanes __attribute__((vector_size(32)));
  Lanes acc;
  for (int j = 0; j < 8; ++j) acc[j] = x[0];  // not Lanes{} + x[0]: that makes -0 +0
  Lanes nan = {};                             // becomes NaN once a lane sees one
  int64_t i = 0;
  if (max) {
    for (; i + 8 <= n; i += 8) {
      Lanes v;
      std::memcpy(&v, x + i, sizeof v);
      acc = v > acc ? v : acc;
      nan += v != v ? v : Lanes{};
    }
  } else {
    for (; i + 8 <= n; i += 8) {
      Lanes v;
      std::memcpy(&v, x + i, sizeof v);
      acc = v < acc ? v : acc;
      nan += v != v ? v : Lanes{};
    }
  }
  float a[8], nans[8];
  std::memcpy(a, &acc, sizeof a);
  std::memcpy(nans, &nan, sizeof nans);
  for (; i < n; ++i) {
    a[0] = max ? (x[i] > a[0] ? x[i] : a[0]) : (x[i] < a[0] ? x[i] : a[0]);
    nans[0] += (x[i] != x[i]) ? x[i] : 0.0f;
  }
  float best = a[0];
  for (int j = 1; j < 8; ++j) best = max ? std::max(best, a[j]) : std::min(best, a[j]);
  return std::isnan(Tree(nans)) ? Tree(nans) : best;
}

}  // namespace spyre_emu::kernels
