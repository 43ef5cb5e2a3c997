// Matmul on the BLAS: operands decoded from DL16 (exact) into fp32 panels,
// one sgemm per output matrix accumulating the whole K in fp32, output
// rounded to DL16 once. The canonical order is the BLAS's own fixed K
// blocking for the given shape, which does not depend on the emulated core
// count (the device's K split lives in the cost model only; tests/kernels
// check 1/4/16/32 cores). OpenBLAS's own thread count can change the last bits
// (measured: 1 vs 2 OpenBLAS threads differ, for native at::mm too), so a
// result is reproducible for a given host BLAS configuration, which the
// environment fingerprint records.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/kernels/blas.h"
#include "core/kernels/chunk_io.h"

namespace spyre_emu {
namespace {

// Gives a [rows, cols] operand with strides (row, col) to the BLAS as fp32:
// fp32 operands contiguous along either dim are used in place; others are
// decoded into a panel contiguous along the operand's own contiguous dim
// (so decoding streams), or gathered when neither dim is contiguous.
const float* Panel(const void* data, DType type, int64_t base, int64_t rows, int64_t cols,
                   int64_t row_stride, int64_t col_stride, const Exec& exec,
                   std::unique_ptr<float[]>* storage, int64_t* ld, bool* transposed) {
  const bool row_major = col_stride == 1 || cols == 1;
  const bool col_major = !row_major && (row_stride == 1 || rows == 1);
  if (type == DType::kFp32 && row_major && row_stride >= cols) {
    *ld = std::max<int64_t>(1, row_stride);
    *transposed = false;
    return static_cast<const float*>(data) + base;
  }
  if (type == DType::kFp32 && col_major && col_stride >= rows) {
    *ld = std::max<int64_t>(1, col_stride);
    *transposed = true;
    return static_cast<const float*>(data) + base;
  }
  storage->reset(new float[static_cast<size_t>(std::max<int64_t>(1, rows * cols))]);
  float* p = storage->get();
  // Lines are rows (row-major panel) or columns (column-major panel).
  const int64_t lines = col_major ? cols : rows, len = col_major ? rows : cols;
  const int64_t line_stride = col_major ? col_stride : row_stride;
  const int64_t elem_stride = col_major ? row_stride : col_stride;
  kernels::ParallelRange(exec, lines, kernels::GrainFor(len), [&](int64_t begin, int64_t end) {
    for (int64_t l = begin; l < end; ++l) {
      kernels::LoadStrided(data, type, base + l * line_stride, elem_stride, len, p + l * len);
    }
  });
  *ld = std::max<int64_t>(1, len);
  *transposed = col_major;
  return p;
}

}  // namespace

// Output rows per sgemm call: at most 4M fp32 results (16 MiB) of scratch, so
// a DL16 output never needs an fp32 copy of the whole matrix. The block size
// depends on the shape only, so it cannot make a result depend on threads or
// cores.
constexpr int64_t kBlockResults = int64_t{1} << 22;

void RunMatmul(const MatmulArgs& g, const Exec& host_exec) {
  if (g.batch == 0 || g.m == 0 || g.n == 0) return;
  // The host threads are the BLAS's here: the decode and rounding loops
  // around each sgemm stay on the calling thread. Run on the host thread
  // pool, they alternated with the BLAS's own pool, whose idle threads spin
  // for a while after each call, and the two pools took the cores from each
  // other (bmm, one sgemm per batch, the worst).
  const Exec exec{host_exec.rounding, {}};
  const int64_t block_rows = std::max<int64_t>(1, std::min(g.m, kBlockResults / g.n));
  // fp32 outputs take the results in place; DL16 outputs go through scratch
  // that is kept per thread between calls (no page faults per call).
  thread_local std::vector<float> scratch;
  if (g.out_type != DType::kFp32) {
    scratch.resize(static_cast<size_t>(block_rows * g.n));
  }
  for (int64_t b = 0; b < g.batch; ++b) {
    std::unique_ptr<float[]> w_store;
    int64_t ldw = 0;
    bool tw = false;
    const float* w = g.k > 0 ? Panel(g.w, g.w_type, b * g.w_strides[0], g.k, g.n, g.w_strides[1],
                                     g.w_strides[2], exec, &w_store, &ldw, &tw)
                             : nullptr;
    for (int64_t r0 = 0; r0 < g.m; r0 += block_rows) {
      const int64_t rows = std::min(block_rows, g.m - r0);
      const int64_t out_base = (b * g.m + r0) * g.n;
      float* c =
          g.out_type == DType::kFp32 ? static_cast<float*>(g.out) + out_base : scratch.data();
      // Start from beta * bias (or nothing), then C += alpha * A . W.
      float beta = 0.0f;
      if (g.bias != nullptr && g.beta != 0.0f) {
        for (int64_t r = 0; r < rows; ++r) {
          kernels::LoadStrided(g.bias, g.bias_type,
                               b * g.bias_strides[0] + (r0 + r) * g.bias_strides[1],
                               g.bias_strides[2], g.n, c + r * g.n);
          if (g.beta != 1.0f) {
            for (int64_t j = 0; j < g.n; ++j) c[r * g.n + j] *= g.beta;
          }
        }
        beta = 1.0f;
      }
      if (g.k > 0) {
        std::unique_ptr<float[]> a_store;
        int64_t lda = 0;
        bool ta = false;
        const float* a = Panel(g.a, g.a_type, b * g.a_strides[0] + r0 * g.a_strides[1], rows, g.k,
                               g.a_strides[1], g.a_strides[2], exec, &a_store, &lda, &ta);
        // Row-major C = A . W is column-major C^T = W^T . A^T.
        const int m = static_cast<int>(g.n), n = static_cast<int>(rows), k = static_cast<int>(g.k);
        const int ldc = m, lda_i = static_cast<int>(ldw), ldb_i = static_cast<int>(lda);
        const char transa = tw ? 'T' : 'N', transb = ta ? 'T' : 'N';
        kernels::Sgemm()(&transa, &transb, &m, &n, &k, &g.alpha, w, &lda_i, a, &ldb_i, &beta, c,
                         &ldc);
      } else if (beta == 0.0f) {
        std::memset(c, 0, static_cast<size_t>(rows * g.n) * sizeof(float));
      }
      if (g.out_type == DType::kFp32) continue;
      kernels::ParallelRange(exec, rows * g.n, kernels::kPieceElements,
                             [&](int64_t begin, int64_t end) {
                               kernels::StoreRange(c + begin, end - begin, g.out, g.out_type,
                                                   out_base + begin, exec.rounding);
                             });
    }
  }
}

}  // namespace spyre_emu
