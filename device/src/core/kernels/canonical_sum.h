#pragma once
// The canonical reduction order shared by every kernel that sums: the
// reduced length is cut into fixed 4096-element chunks; a chunk into
// 128-element blocks, in which 8 fp32 lanes accumulate elements i % 8 and
// are combined as a fixed tree; a chunk's block sums are combined pairwise
// (a balanced tree over the blocks); the chunk sums are added in chunk
// order. The order depends only on the length, never on the core count or on
// which thread runs which chunk.
#include <cstdint>

namespace spyre_emu::kernels {

constexpr int64_t kSumChunk = 4096;
constexpr int64_t kBlock = 128;

// Sum of one chunk (n <= kSumChunk) in the canonical lane order.
float ChunkSum(const float* x, int64_t n);
// Sum of x[0..n) in the canonical order.
float CanonicalSum(const float* x, int64_t n);
// Sum of x[i] - center in the same order: what a mean computed as `center`
// is still off by, times n (a variance refines its mean with it).
float ChunkDeviation(const float* x, int64_t n, float center);
float CanonicalDeviation(const float* x, int64_t n, float center);
// Sum of (x[i] - center)^2 in the same order (for variances).
float ChunkSquaredDeviation(const float* x, int64_t n, float center);
float CanonicalSquaredDeviation(const float* x, int64_t n, float center);
// Max (or min) of x[0..n), n >= 1; any NaN makes the result NaN.
float Extreme(const float* x, int64_t n, bool max);

}  // namespace spyre_emu::kernels
