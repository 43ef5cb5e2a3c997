#pragma once
// Iterating a contiguous output while reading broadcast / strided operands:
// dims are coalesced first (merged where every operand is contiguous across
// them, size-1 dims dropped), then the work is split into (row, piece)
// items of at most kChunk elements of the last dim, run through
// Exec::parallel_for. The split never changes what a single element computes.
#include <array>
#include <cstdint>
#include <vector>

#include "core/kernels/chunk_io.h"

namespace spyre_emu::kernels {

constexpr int kMaxOperands = 3;

struct BroadcastPlan {
  std::vector<int64_t> shape;                              // coalesced
  std::array<std::vector<int64_t>, kMaxOperands> strides;  // per operand
  int operands = 0;
  int64_t rows() const {
    int64_t r = 1;
    for (size_t i = 0; i + 1 < shape.size(); ++i) r *= shape[i];
    return r;
  }
  int64_t cols() const { return shape.empty() ? 1 : shape.back(); }
};

inline BroadcastPlan PlanBroadcast(const std::vector<int64_t>& shape,
                                   const std::vector<const std::vector<int64_t>*>& strides) {
  BroadcastPlan plan;
  plan.operands = static_cast<int>(strides.size());
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    const bool merge = !plan.shape.empty() && [&] {
      for (int o = 0; o < plan.operands; ++o) {
        // The previous kept dim must step exactly over this one.
        if (plan.strides[o].back() != (*strides[o])[d] * shape[d]) return false;
      }
      return true;
    }();
    if (merge) {
      plan.shape.back() *= shape[d];
      for (int o = 0; o < plan.operands; ++o) plan.strides[o].back() = (*strides[o])[d];
    } else {
      plan.shape.push_back(shape[d]);
      for (int o = 0; o < plan.operands; ++o) plan.strides[o].push_back((*strides[o])[d]);
    }
  }
  if (plan.shape.empty()) {
    plan.shape.push_back(1);
    for (int o = 0; o < plan.operands; ++o) plan.strides[o].push_back(0);
  }
  return plan;
}

// body(out_offset, offsets[operands], last_dim_strides[operands], n) for every
// piece of at most kChunk elements along the last dim.
template <typename Body>
void ForEachPiece(const BroadcastPlan& plan, const Exec& exec, Body body) {
  const int64_t cols = plan.cols();
  const int64_t pieces_per_row = (cols + kChunk - 1) / kChunk;
  const int64_t items = plan.rows() * pieces_per_row;
  const int dims = static_cast<int>(plan.shape.size());
  ParallelRange(exec, items, GrainFor(std::min(cols, kChunk)), [&](int64_t begin, int64_t end) {
    std::array<int64_t, kMaxOperands> off{};
    std::array<int64_t, kMaxOperands> last{};
    for (int o = 0; o < plan.operands; ++o) last[o] = plan.strides[o][dims - 1];
    for (int64_t item = begin; item < end; ++item) {
      int64_t row = item / pieces_per_row;
      const int64_t start = (item % pieces_per_row) * kChunk;
      const int64_t n = std::min(kChunk, cols - start);
      off.fill(0);
      for (int d = dims - 2; d >= 0; --d) {
        const int64_t i = row % plan.shape[d];
        row /= plan.shape[d];
        for (int o = 0; o < plan.operands; ++o) off[o] += i * plan.strides[o][d];
      }
      for (int o = 0; o < plan.operands; ++o) off[o] += start * last[o];
      body((item / pieces_per_row) * cols + start, off.data(), last.data(), n);
    }
  });
}

}  // namespace spyre_emu::kernels
