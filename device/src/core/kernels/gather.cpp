// Data movement kernels: row-block copies (cat) and row gathers (embedding,
// index_select). Same-type moves copy bits; a type change goes through fp32
// and rounds once.
#include <cstring>

#include "core/kernels/chunk_io.h"

namespace spyre_emu {
namespace {

// out[dst .. dst + n) = in[src .. src + n), converting the type if needed.
void MoveRange(const void* in, DType in_type, int64_t src, void* out, DType out_type, int64_t dst,
               int64_t n, Rounding rounding) {
  if (in_type == out_type) {
    const size_t eb = static_cast<size_t>(ElemBytes(in_type));
    std::memcpy(static_cast<char*>(out) + dst * eb, static_cast<const char*>(in) + src * eb,
                static_cast<size_t>(n) * eb);
    return;
  }
  float buf[kernels::kChunk];
  for (int64_t i = 0; i < n; i += kernels::kChunk) {
    const int64_t len = std::min(kernels::kChunk, n - i);
    kernels::LoadRange(in, in_type, src + i, len, buf);
    kernels::StoreRange(buf, len, out, out_type, dst + i, rounding);
  }
}

}  // namespace

void RunCopyBlock(const void* in, DType in_type, void* out, DType out_type, int64_t outer,
                  int64_t cols, int64_t out_cols, int64_t offset, const Exec& exec) {
  const int64_t grain = kernels::GrainFor(cols);
  kernels::ParallelRange(exec, outer, grain, [&](int64_t begin, int64_t end) {
    for (int64_t o = begin; o < end; ++o) {
      MoveRange(in, in_type, o * cols, out, out_type, o * out_cols + offset, cols, exec.rounding);
    }
  });
}

void RunGatherRows(const void* in, DType type, const int64_t* index, int64_t n_index, void* out,
                   int64_t outer, int64_t in_rows, int64_t row, const Exec& exec) {
  const int64_t grain = kernels::GrainFor(row);
  kernels::ParallelRange(exec, outer * n_index, grain, [&](int64_t begin, int64_t end) {
    for (int64_t item = begin; item < end; ++item) {
      const int64_t o = item / n_index, i = item % n_index;
      MoveRange(in, type, (o * in_rows + index[i]) * row, out, type, item * row, row,
                Rounding::kNearestAway);
    }
  });
}

}  // namespace spyre_emu
