#pragma once
// Device kernels over raw buffers (torch-free): the Spyre numerics.
//
// Element types: kDl16 buffers hold DL16 codes (how fp16/bf16 tensors live on
// the device); kFp32 buffers hold IEEE fp32. Every kernel:
//   - decodes DL16 operands to fp32 exactly (DL16 values are fp32 values),
//   - computes and accumulates in fp32,
//   - rounds each DL16 output once, with the Exec's rounding mode.
// fp32 tensors follow the same path without any DL16 rounding: they stay fp32
// in, through and out (the vector unit and the accumulators are fp32; we do
// not pretend an fp32 model is a DL16 one). Scalar operands (x * 0.5) are fp32
// constants, not rounded to DL16.
// Special functions (exp, log, tanh, sigmoid, erf, gelu, silu) run
// DL16 -> fp32 -> polynomial approximation -> DL16; see special_math.h for the
// approximations and their errors (within 1 DL16 ULP of the correctly rounded
// result over every DL16 input).
//
// Results never depend on the emulated core count: it changes modeled time
// only (cost_model.h). Nor on the host thread count: every kernel cuts its
// work into the same pieces for a given shape (up to 32, one per emulated
// core, whatever SPYRE_EMU_CORES says) and Exec::parallel_for only decides
// which host thread runs which piece. Reductions have a canonical order (8-lane
// accumulation over 128-element blocks, block sums combined pairwise within
// fixed 4096-element chunks, chunks summed in order) and
// parallelism only splits independent outputs, so they do not depend on the
// host thread count either. Matmul is one BLAS sgemm per block of output rows
// (the block depends on the shape only) over the whole K, its DL16 decode
// and rounding on the calling thread (the host threads are the BLAS's): its
// last bits follow the host BLAS, whose own thread count
// (OPENBLAS_NUM_THREADS) can change them, as it does for native CPU matmul.
//
// Shapes: all buffers are contiguous row-major unless strides are given.
// Strides are in elements; 0 broadcasts. Empty tensors (a zero dim) are no-ops.
#include <cstdint>
#include <functional>
#include <vector>

#include "spyre_emu/config.h"

namespace spyre_emu {

enum class DType { kDl16, kFp32 };

// Runs body(begin, end) over [0, n) in pieces of at least `grain`, possibly in
// parallel, in any order, on any threads; every index exactly once. The
// kernels hand it the indices of their own fixed work pieces (at most
// kMaxCores per call, their bounds set by the shape alone), so how a runner
// splits [0, n) never changes a result.
using ParallelFor = std::function<void(int64_t n, int64_t grain,
                                       const std::function<void(int64_t, int64_t)>& body)>;

struct Exec {
  Rounding rounding = Rounding::kNearestAway;
  ParallelFor parallel_for;  // empty: run serially
};

enum class UnaryOp {
  kNeg,
  kAbs,
  kExp,
  kLog,
  kSqrt,
  kRsqrt,
  kReciprocal,
  kTanh,
  kSigmoid,
  kRelu,
  kGelu,
  kGeluTanh,
  kSilu,
  kErf,
  kSin,
  kCos,
  kPowScalar,  // x ^ p0
  kClamp,      // min(max(x, p0), p1); a NaN bound (p0 or p1) means none
  kFill,       // p0, ignoring x (in may be null)
};
struct UnaryParams {
  float p0 = 0;
  float p1 = 0;
};
// out[i] = op(in[i]), i < n. in and out may alias exactly (in-place).
void RunUnary(UnaryOp op, UnaryParams params, const void* in, DType in_type, void* out,
              DType out_type, int64_t n, const Exec& exec);

enum class BinaryOp { kAdd, kSub, kMul, kDiv, kPow, kMaximum, kMinimum };
// A broadcast operand over the output shape, or a scalar when data is null.
struct Operand {
  const void* data = nullptr;
  DType type = DType::kFp32;
  std::vector<int64_t> strides;  // one per output dim
  float scalar = 0;
};
// out = a op (alpha * b) for add/sub, a op b otherwise; out contiguous with
// `shape`. out may alias a or b when that operand is contiguous over shape.
void RunBinary(BinaryOp op, float alpha, const Operand& a, const Operand& b, void* out,
               DType out_type, const std::vector<int64_t>& shape, const Exec& exec);

enum class CompareOp { kEq, kNe, kLt, kLe, kGt, kGe };
// out = (a op b) as bytes 0 / 1 (bool), compared in fp32 (DL16 values decode
// exactly; NaN compares unequal to everything).
void RunCompare(CompareOp op, const Operand& a, const Operand& b, uint8_t* out,
                const std::vector<int64_t>& shape, const Exec& exec);

// out = cond ? a : b, cond bytes (0 / non-zero) broadcast like an Operand.
void RunWhere(const uint8_t* cond, const std::vector<int64_t>& cond_strides, const Operand& a,
              const Operand& b, void* out, DType out_type, const std::vector<int64_t>& shape,
              const Exec& exec);

// out[b] = alpha * a[b] . w[b] + beta * bias, for b < batch. a is [m, k] with
// strides (a_batch, a_row, a_col), w is [k, n] likewise; out is contiguous
// [batch, m, n]. bias (may be null) is broadcast over out by bias_strides
// (3 strides: batch, row, col).
struct MatmulArgs {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  const void* a = nullptr;
  DType a_type = DType::kFp32;
  int64_t a_strides[3] = {0, 0, 0};
  const void* w = nullptr;
  DType w_type = DType::kFp32;
  int64_t w_strides[3] = {0, 0, 0};
  const void* bias = nullptr;
  DType bias_type = DType::kFp32;
  int64_t bias_strides[3] = {0, 0, 0};
  float alpha = 1, beta = 1;
  void* out = nullptr;
  DType out_type = DType::kFp32;
};
void RunMatmul(const MatmulArgs& args, const Exec& exec);

// Softmax / log-softmax along the middle dim of a contiguous [outer, dim, inner].
void RunSoftmax(bool log, const void* in, void* out, DType type, int64_t outer, int64_t dim,
                int64_t inner, const Exec& exec);

// Layer norm over the last `cols` elements of `rows` rows. weight/bias may be
// null (then 1 / 0). mean and rstd (rows each, may be null) are written in
// `type` too (rstd = 1 / sqrt(var + eps), biased variance).
void RunLayerNorm(const void* in, const void* weight, const void* bias, void* out, void* mean,
                  void* rstd, DType type, int64_t rows, int64_t cols, float eps, const Exec& exec);

enum class ReduceOp { kSum, kMean, kMax, kMin, kVar };
// Reduces the middle dim of a contiguous [outer, len, inner] into [outer, inner].
// kVar uses `correction` (1 = unbiased). len 0: sum 0, mean/var NaN, max/min
// are the caller's error to report.
void RunReduce(ReduceOp op, const void* in, DType in_type, void* out, DType out_type, int64_t outer,
               int64_t len, int64_t inner, int64_t correction, const Exec& exec);

// Max (or min) along the middle dim of [outer, len, inner] with the index of
// the first extreme element (a NaN wins and reports its first index), as
// max.dim does. len >= 1. values in `type`, indices int64.
void RunReduceWithIndex(bool max, const void* in, DType type, void* values, int64_t* indices,
                        int64_t outer, int64_t len, int64_t inner, const Exec& exec);

// Copies row blocks: out[o, offset + j] = in[o, j] for a contiguous [outer, cols]
// input into a contiguous [outer, out_cols] output (the building block of cat).
void RunCopyBlock(const void* in, DType in_type, void* out, DType out_type, int64_t outer,
                  int64_t cols, int64_t out_cols, int64_t offset, const Exec& exec);

// Gathers rows: out[o, i, :] = in[o, index[i], :] for contiguous in
// [outer, in_rows, row] and out [outer, n_index, row]. Indices were checked.
void RunGatherRows(const void* in, DType type, const int64_t* index, int64_t n_index, void* out,
                   int64_t outer, int64_t in_rows, int64_t row, const Exec& exec);

// Number of bytes of one element of `type`.
inline int ElemBytes(DType type) { return type == DType::kDl16 ? 2 : 4; }

}  // namespace spyre_emu
