#pragma once
// Internal helpers of the kernels: moving chunks between device buffers (DL16
// or fp32) and fp32 scratch, and the fixed partition of the work into pieces
// that Exec::parallel_for spreads over host threads.
#include <algorithm>
#include <cstring>

#include "spyre_emu/dl16.h"
#include "spyre_emu/kernels.h"

namespace spyre_emu::kernels {

// Elements per scratch chunk: 4 KiB of fp32 stays in L1 with its operands.
constexpr int64_t kChunk = 1024;

// dst[0..n) = fp32 values of src[offset .. offset + n).
inline void LoadRange(const void* src, DType type, int64_t offset, int64_t n, float* dst) {
  if (type == DType::kDl16) {
    Dl16ToFp32(static_cast<const uint16_t*>(src) + offset, dst, static_cast<size_t>(n));
  } else {
    std::memcpy(dst, static_cast<const float*>(src) + offset, static_cast<size_t>(n) * 4);
  }
}

// dst[i] = fp32 value of src[offset + i * stride]; stride 0 broadcasts.
inline void LoadStrided(const void* src, DType type, int64_t offset, int64_t stride, int64_t n,
                        float* dst) {
  if (stride == 1) return LoadRange(src, type, offset, n, dst);
  if (type == DType::kDl16) {
    const uint16_t* s = static_cast<const uint16_t*>(src) + offset;
    if (stride == 0) {
      std::fill(dst, dst + n, Dl16Decode(s[0]));
      return;
    }
    for (int64_t i = 0; i < n; ++i) dst[i] = Dl16Decode(s[i * stride]);
  } else {
    const float* s = static_cast<const float*>(src) + offset;
    for (int64_t i = 0; i < n; ++i) dst[i] = s[i * stride];
  }
}

// dst[offset .. offset + n) = src rounded to the buffer's type. src may be
// clobbered (it is scratch).
inline void StoreRange(float* src, int64_t n, void* dst, DType type, int64_t offset,
                       Rounding rounding) {
  if (type == DType::kDl16) {
    Dl16FromFp32(src, static_cast<uint16_t*>(dst) + offset, static_cast<size_t>(n), rounding);
  } else {
    std::memcpy(static_cast<float*>(dst) + offset, src, static_cast<size_t>(n) * 4);
  }
}

// The fixed partition of [0, n) into work pieces: up to kMaxPieces pieces of
// at least `grain` items (fewer for small n), their bounds a function of n and
// grain only. A kernel body sees exactly these pieces whichever host thread
// runs them, in whatever order, so a result never depends on the host thread
// count, the emulated core count or the runner of Exec::parallel_for.
constexpr int64_t kMaxPieces = kMaxCores;
// The least work of a piece, in elements: a kernel runs on more than one host
// thread only from twice this on (as libtorch's element-wise kernels, from
// 32768), since handing pieces to threads costs microseconds.
constexpr int64_t kPieceElements = 16 * kChunk;

// The grain, in items, for items of `elements` elements each.
inline int64_t GrainFor(int64_t elements) {
  return std::max<int64_t>(1, kPieceElements / std::max<int64_t>(1, elements));
}

inline int64_t PieceCount(int64_t n, int64_t grain) {
  const int64_t g = std::max<int64_t>(1, grain);
  return std::max<int64_t>(1, std::min(kMaxPieces, n / g));
}
inline int64_t PieceBegin(int64_t n, int64_t pieces, int64_t p) { return n * p / pieces; }

inline void ParallelRange(const Exec& exec, int64_t n, int64_t grain,
                          const std::function<void(int64_t, int64_t)>& body) {
  if (n <= 0) return;
  const int64_t pieces = PieceCount(n, grain);
  auto run = [&](int64_t first, int64_t last) {
    for (int64_t p = first; p < last; ++p) {
      body(PieceBegin(n, pieces, p), PieceBegin(n, pieces, p + 1));
    }
  };
  if (!exec.parallel_for || pieces == 1) return run(0, pieces);
  exec.parallel_for(pieces, 1, run);
}

}  // namespace spyre_emu::kernels
