// Softmax, log-softmax and layer norm: one row at a time in fp32 scratch,
// with the canonical sums, rows spread over host threads.
#include <cmath>
#include <vector>

#include "core/kernels/canonical_sum.h"
#include "core/kernels/chunk_io.h"
#include "core/kernels/special_arrays.h"
#include "core/kernels/special_math.h"
#include "core/kernels/vector_clones.h"

namespace spyre_emu {
namespace {

SPYRE_VECTOR_CLONES void Scale(float* x, int64_t n, float divisor) {
  for (int64_t i = 0; i < n; ++i) x[i] = x[i] / divisor;
}

// log_softmax as (x - max) - log(sum): x - max is exact for x near the max
// (Sterbenz) and the small log(sum) is subtracted from the small difference.
// Subtracting max + log(sum) in one step would round that sum at the
// magnitude of max first: for a row near 1e4 that loses log(sum) to ~1e-3.
SPYRE_VECTOR_CLONES void ShiftTwice(float* x, int64_t n, float shift, float log_sum) {
  for (int64_t i = 0; i < n; ++i) x[i] = (x[i] - shift) - log_sum;
}

SPYRE_VECTOR_CLONES void Normalize(float* x, int64_t n, float mean, float rstd, const float* w,
                                   const float* b) {
  for (int64_t i = 0; i < n; ++i) x[i] = (x[i] - mean) * rstd * w[i] + b[i];
}

// Row r of [outer, dim, inner] starts at (r / inner) * dim * inner + r % inner.
int64_t RowStart(int64_t r, int64_t dim, int64_t inner) {
  return (r / inner) * dim * inner + r % inner;
}

void StoreRow(std::vector<float>& row, void* out, DType type, int64_t start, int64_t stride,
              Rounding rounding) {
  const int64_t n = static_cast<int64_t>(row.size());
  if (stride == 1) return kernels::StoreRange(row.data(), n, out, type, start, rounding);
  for (int64_t i = 0; i < n; ++i) {
    if (type == DType::kDl16) {
      static_cast<uint16_t*>(out)[start + i * stride] = Dl16Encode(row[i], rounding);
    } else {
      static_cast<float*>(out)[start + i * stride] = row[i];
    }
  }
}

}  // namespace

void RunSoftmax(bool log, const void* in, void* out, DType type, int64_t outer, int64_t dim,
                int64_t inner, const Exec& exec) {
  if (dim == 0) return;
  const int64_t rows = outer * inner;
  const int64_t grain = kernels::GrainFor(dim);
  kernels::ParallelRange(exec, rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> row(static_cast<size_t>(dim)), e(log ? static_cast<size_t>(dim) : 0);
    for (int64_t r = begin; r < end; ++r) {
      const int64_t start = RowStart(r, dim, inner);
      kernels::LoadStrided(in, type, start, inner, dim, row.data());
      const float max = kernels::Extreme(row.data(), dim, true);
      // An all -inf row has no finite max: shift by 0 (gives NaN like ATen).
      const float shift = std::isinf(max) ? 0.0f : max;
      if (log) {
        // log_softmax needs the row itself after the sum of its exponentials.
        std::copy(row.begin(), row.end(), e.begin());
        special::ExpShiftedArray(e.data(), dim, shift);
        ShiftTwice(row.data(), dim, shift, special::Log(kernels::CanonicalSum(e.data(), dim)));
      } else {
        special::ExpShiftedArray(row.data(), dim, shift);
        Scale(row.data(), dim, kernels::CanonicalSum(row.data(), dim));
      }
      StoreRow(row, out, type, start, inner, exec.rounding);
    }
  });
}

void RunLayerNorm(const void* in, const void* weight, const void* bias, void* out, void* mean,
                  void* rstd, DType type, int64_t rows, int64_t cols, float eps, const Exec& exec) {
  std::vector<float> w(static_cast<size_t>(cols), 1.0f), b(static_cast<size_t>(cols), 0.0f);
  if (weight != nullptr) kernels::LoadRange(weight, type, 0, cols, w.data());
  if (bias != nullptr) kernels::LoadRange(bias, type, 0, cols, b.data());
  const int64_t grain = kernels::GrainFor(cols);
  kernels::ParallelRange(exec, rows, grain, [&](int64_t begin, int64_t end) {
    std::vector<float> row(static_cast<size_t>(cols));
    for (int64_t r = begin; r < end; ++r) {
      kernels::LoadRange(in, type, r * cols, cols, row.data());
      float mu = 0, inv = NAN;
      if (cols > 0) {
        mu = kernels::CanonicalSum(row.data(), cols) / static_cast<float>(cols);
        // The fp32 mean of a row far from zero is off by up to half its
        // spacing: the deviations' sum corrects it before x - mean is taken.
        mu += kernels::CanonicalDeviation(row.data(), cols, mu) / static_cast<float>(cols);
        const float var = kernels::CanonicalSquaredDeviation(row.data(), cols, mu) / cols;
        inv = 1.0f / std::sqrt(var + eps);
        Normalize(row.data(), cols, mu, inv, w.data(), b.data());
        kernels::StoreRange(row.data(), cols, out, type, r * cols, exec.rounding);
      }
      float stats[2] = {mu, inv};
      if (mean != nullptr) kernels::StoreRange(&stats[0], 1, mean, type, r, exec.rounding);
      if (rstd != nullptr) kernels::StoreRange(&stats[1], 1, rstd, type, r, exec.rounding);
    }
  });
}

}  // namespace spyre_emu
