// Reductions over the middle dim of [outer, len, inner]. Every (output,
// chunk) pair is an independent work item whose partial result lands in its
// own slot; the slots are then combined in chunk order, so the result is the
// canonical one however the items were spread over threads.
#include <cmath>
#include <vector>

#include "core/kernels/canonical_sum.h"
#include "core/kernels/chunk_io.h"

namespace spyre_emu {
namespace {

using kernels::kSumChunk;

struct Layout {
  int64_t outer, len, inner, chunks;
  int64_t outputs() const { return outer * inner; }
};

// partials[out * chunks + c] = f(chunk c of output `out`, as fp32).
template <typename F>
std::vector<float> ChunkPartials(const void* in, DType type, const Layout& l, const Exec& exec,
                                 F f) {
  std::vector<float> partials(static_cast<size_t>(l.outputs() * l.chunks));
  const int64_t grain = kernels::GrainFor(std::min(l.len, kSumChunk));
  kernels::ParallelRange(exec, l.outputs() * l.chunks, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> buf(static_cast<size_t>(kSumChunk));
    for (int64_t item = begin; item < end; ++item) {
      const int64_t out = item / l.chunks, c = item % l.chunks;
      const int64_t o = out / l.inner, i = out % l.inner;
      const int64_t n = std::min(kSumChunk, l.len - c * kSumChunk);
      const int64_t start = (o * l.len + c * kSumChunk) * l.inner + i;
      kernels::LoadStrided(in, type, start, l.inner, n, buf.data());
      partials[static_cast<size_t>(item)] = f(buf.data(), n, out);
    }
  });
  return partials;
}

std::vector<float> CombineSums(const std::vector<float>& partials, const Layout& l) {
  std::vector<float> out(static_cast<size_t>(l.outputs()), 0.0f);
  for (int64_t o = 0; o < l.outputs(); ++o) {
    for (int64_t c = 0; c < l.chunks; ++c) out[o] += partials[o * l.chunks + c];
  }
  return out;
}

}  // namespace

void RunReduce(ReduceOp op, const void* in, DType in_type, void* out, DType out_type, int64_t outer,
               int64_t len, int64_t inner, int64_t correction, const Exec& exec) {
  const Layout l{outer, len, inner, std::max<int64_t>(1, (len + kSumChunk - 1) / kSumChunk)};
  if (l.outputs() == 0) return;
  std::vector<float> result(static_cast<size_t>(l.outputs()), 0.0f);
  if (len == 0) {
    std::fill(result.begin(), result.end(), op == ReduceOp::kSum ? 0.0f : NAN);
  } else if (op == ReduceOp::kMax || op == ReduceOp::kMin) {
    const bool max = op == ReduceOp::kMax;
    const auto partials = ChunkPartials(
        in, in_type, l, exec,
        [max](const float* x, int64_t n, int64_t) { return kernels::Extreme(x, n, max); });
    for (int64_t o = 0; o < l.outputs(); ++o) {
      result[o] = kernels::Extreme(&partials[o * l.chunks], l.chunks, max);
    }
  } else {
    const auto sums = CombineSums(
        ChunkPartials(in, in_type, l, exec,
                      [](const float* x, int64_t n, int64_t) { return kernels::ChunkSum(x, n); }),
        l);
    const float n = static_cast<float>(len);
    for (int64_t o = 0; o < l.outputs(); ++o) {
      result[o] = op == ReduceOp::kSum ? sums[o] : sums[o] / n;
    }
    if (op == ReduceOp::kVar) {
      // The fp32 mean is off by up to half a spacing of the sum / n; the
      // deviations' own sum corrects it (a far-from-zero row of 1e4 +- 3
      // otherwise adds n * error^2 to the squares).
      std::vector<float> means = result;
      const auto residuals =
          CombineSums(ChunkPartials(in, in_type, l, exec,
                                    [&means](const float* x, int64_t m, int64_t o) {
                                      return kernels::ChunkDeviation(x, m, means[o]);
                                    }),
                      l);
      for (int64_t o = 0; o < l.outputs(); ++o) means[o] += residuals[o] / n;
      const auto squares =
          CombineSums(ChunkPartials(in, in_type, l, exec,
                                    [&means](const float* x, int64_t m, int64_t o) {
                                      return kernels::ChunkSquaredDeviation(x, m, means[o]);
                                    }),
                      l);
      const float dof = static_cast<float>(std::max<int64_t>(0, len - correction));
      for (int64_t o = 0; o < l.outputs(); ++o) result[o] = squares[o] / dof;
    }
  }
  kernels::StoreRange(result.data(), l.outputs(), out, out_type, 0, exec.rounding);
}

void RunReduceWithIndex(bool max, const void* in, DType type, void* values, int64_t* indices,
                        int64_t outer, int64_t len, int64_t inner, const Exec& exec) {
  const int64_t outputs = outer * inner;
  std::vector<float> result(static_cast<size_t>(outputs));
  kernels::ParallelRange(exec, outputs, kernels::GrainFor(len), [&](int64_t begin, int64_t end) {
    std::vector<float> buf(static_cast<size_t>(len));
    for (int64_t out = begin; out < end; ++out) {
      const int64_t o = out / inner, i = out % inner;
      kernels::LoadStrided(in, type, o * len * inner + i, inner, len, buf.data());
      int64_t best = 0;
      for (int64_t l = 1; l < len && buf[best] == buf[best]; ++l) {
        const float v = buf[l];
        if (v != v || (max ? v > buf[best] : v < buf[best])) best = l;
      }
      result[out] = buf[best];
      indices[out] = best;
    }
  });
  kernels::StoreRange(result.data(), outputs, values, type, 0, exec.rounding);
}

}  // namespace spyre_emu
