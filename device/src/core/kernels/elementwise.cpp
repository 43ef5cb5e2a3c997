// Element-wise kernels: unary maps, broadcast binary ops, where.
#include <array>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>

#include "core/kernels/broadcast.h"
#include "core/kernels/special_arrays.h"
#include "core/kernels/special_math.h"
#include "core/kernels/vector_clones.h"

namespace spyre_emu {
namespace {

using kernels::kChunk;

// The special function a unary op applies to each element alone, if any.
bool SpecialFnOf(UnaryOp op, special::Fn* fn) {
  switch (op) {
    case UnaryOp::kExp: *fn = special::Fn::kExp; return true;
    case UnaryOp::kLog: *fn = special::Fn::kLog; return true;
    case UnaryOp::kTanh: *fn = special::Fn::kTanh; return true;
    case UnaryOp::kSigmoid: *fn = special::Fn::kSigmoid; return true;
    case UnaryOp::kErf: *fn = special::Fn::kErf; return true;
    case UnaryOp::kGelu: *fn = special::Fn::kGelu; return true;
    case UnaryOp::kGeluTanh: *fn = special::Fn::kGeluTanh; return true;
    case UnaryOp::kSilu: *fn = special::Fn::kSilu; return true;
    default: return false;
  }
}

SPYRE_VECTOR_CLONES void ApplyUnary(UnaryOp op, UnaryParams p, float* x, int64_t n) {
  special::Fn fn;
  if (SpecialFnOf(op, &fn)) {
    special::ApplyArray(fn, x, n);
    return;
  }
  switch (op) {
    case UnaryOp::kNeg:
      for (int64_t i = 0; i < n; ++i) x[i] = -x[i];
      break;
    case UnaryOp::kAbs:
      for (int64_t i = 0; i < n; ++i) x[i] = std::fabs(x[i]);
      break;
    case UnaryOp::kSqrt:
      for (int64_t i = 0; i < n; ++i) x[i] = std::sqrt(x[i]);
      break;
    case UnaryOp::kRsqrt:
      for (int64_t i = 0; i < n; ++i) x[i] = 1.0f / std::sqrt(x[i]);
      break;
    case UnaryOp::kReciprocal:
      for (int64_t i = 0; i < n; ++i) x[i] = 1.0f / x[i];
      break;
    case UnaryOp::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : (x[i] != x[i] ? x[i] : 0.0f);
      break;
    case UnaryOp::kSin:
      for (int64_t i = 0; i < n; ++i) x[i] = special::Sin(x[i]);
      break;
    case UnaryOp::kCos:
      for (int64_t i = 0; i < n; ++i) x[i] = special::Cos(x[i]);
      break;
    case UnaryOp::kPowScalar:
      if (p.p0 == 2.0f) {
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] * x[i];
      } else if (p.p0 == 1.0f) {
      } else if (p.p0 == 0.5f) {
        for (int64_t i = 0; i < n; ++i) x[i] = std::sqrt(x[i]);
      } else {
        for (int64_t i = 0; i < n; ++i) x[i] = std::pow(x[i], p.p0);
      }
      break;
    case UnaryOp::kClamp:
      // NaN inputs stay NaN (comparisons with NaN are false).
      if (p.p0 == p.p0)
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] < p.p0 ? p.p0 : x[i];
      if (p.p1 == p.p1)
        for (int64_t i = 0; i < n; ++i) x[i] = x[i] > p.p1 ? p.p1 : x[i];
      break;
    case UnaryOp::kFill:
      for (int64_t i = 0; i < n; ++i) x[i] = p.p0;
      break;
    default:  // the special functions, applied above
      break;
  }
}

SPYRE_VECTOR_CLONES void ApplyBinary(BinaryOp op, float alpha, const float* a, const float* b,
                                     float* out, int64_t n) {
  switch (op) {
    case BinaryOp::kAdd:
      if (alpha == 1.0f) {
        for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
      } else {
        for (int64_t i = 0; i < n; ++i) out[i] = a[i] + alpha * b[i];
      }
      break;
    case BinaryOp::kSub:
      if (alpha == 1.0f) {
        for (int64_t i = 0; i < n; ++i) out[i] = a[i] - b[i];
      } else {
        for (int64_t i = 0; i < n; ++i) out[i] = a[i] - alpha * b[i];
      }
      break;
    case BinaryOp::kMul:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] * b[i];
      break;
    case BinaryOp::kDiv:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] / b[i];
      break;
    case BinaryOp::kPow:
      for (int64_t i = 0; i < n; ++i) out[i] = std::pow(a[i], b[i]);
      break;
    // torch.maximum / minimum propagate NaN from either side.
    case BinaryOp::kMaximum:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = (a[i] != a[i] || b[i] != b[i]) ? a[i] + b[i] : (a[i] > b[i] ? a[i] : b[i]);
      }
      break;
    case BinaryOp::kMinimum:
      for (int64_t i = 0; i < n; ++i) {
        out[i] = (a[i] != a[i] || b[i] != b[i]) ? a[i] + b[i] : (a[i] < b[i] ? a[i] : b[i]);
      }
      break;
  }
}

SPYRE_VECTOR_CLONES void ApplyCompare(CompareOp op, const float* a, const float* b, uint8_t* out,
                                      int64_t n) {
  switch (op) {
    case CompareOp::kEq:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] == b[i];
      break;
    case CompareOp::kNe:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] != b[i];
      break;
    case CompareOp::kLt:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] < b[i];
      break;
    case CompareOp::kLe:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] <= b[i];
      break;
    case CompareOp::kGt:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] > b[i];
      break;
    case CompareOp::kGe:
      for (int64_t i = 0; i < n; ++i) out[i] = a[i] >= b[i];
      break;
  }
}

void LoadOperand(const Operand& o, int64_t offset, int64_t stride, int64_t n, float* dst) {
  if (o.data == nullptr) {
    std::fill(dst, dst + n, o.scalar);
    return;
  }
  kernels::LoadStrided(o.data, o.type, offset, stride, n, dst);
}

// A special function from DL16 to DL16 as a table of its 65,536 results: a
// DL16 input has no other values, so out[c] = round(fn(decode(c))) gives
// every element exactly the bits of the decode, the vector function and the
// rounding, at one load per element. Filled on first use (a fraction of a
// millisecond), one table per function and rounding mode.
constexpr size_t kFnCount = 8, kRoundingCount = 3;
const uint16_t* Dl16Table(special::Fn fn, Rounding rounding) {
  using Table = std::array<uint16_t, 65536>;
  static std::unique_ptr<Table> tables[kFnCount][kRoundingCount];
  static std::once_flag once[kFnCount][kRoundingCount];
  const size_t f = static_cast<size_t>(fn), r = static_cast<size_t>(rounding);
  std::call_once(once[f][r], [&] {
    auto table = std::make_unique<Table>();
    std::vector<uint16_t> codes(65536);
    for (size_t c = 0; c < codes.size(); ++c) codes[c] = static_cast<uint16_t>(c);
    std::vector<float> values(65536);
    Dl16ToFp32(codes.data(), values.data(), values.size());
    special::ApplyArray(fn, values.data(), static_cast<int64_t>(values.size()));
    Dl16FromFp32(values.data(), table->data(), values.size(), rounding);
    tables[f][r] = std::move(table);
  });
  return tables[f][r]->data();
}

const std::vector<int64_t>& StridesOf(const Operand& o, const std::vector<int64_t>& zeros) {
  return o.data == nullptr ? zeros : o.strides;
}

}  // namespace

void RunUnary(UnaryOp op, UnaryParams params, const void* in, DType in_type, void* out,
              DType out_type, int64_t n, const Exec& exec) {
  special::Fn fn;
  if (in != nullptr && in_type == DType::kDl16 && out_type == DType::kDl16 && SpecialFnOf(op, &fn)) {
    const uint16_t* table = Dl16Table(fn, exec.rounding);
    const uint16_t* src = static_cast<const uint16_t*>(in);
    uint16_t* dst = static_cast<uint16_t*>(out);
    kernels::ParallelRange(exec, n, kernels::kPieceElements, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) dst[i] = table[src[i]];
    });
    return;
  }
  kernels::ParallelRange(exec, n, kernels::kPieceElements, [&](int64_t begin, int64_t end) {
    float buf[kChunk];
    for (int64_t i = begin; i < end; i += kChunk) {
      const int64_t len = std::min(kChunk, end - i);
      if (in != nullptr && op != UnaryOp::kFill) kernels::LoadRange(in, in_type, i, len, buf);
      ApplyUnary(op, params, buf, len);
      kernels::StoreRange(buf, len, out, out_type, i, exec.rounding);
    }
  });
}

void RunBinary(BinaryOp op, float alpha, const Operand& a, const Operand& b, void* out,
               DType out_type, const std::vector<int64_t>& shape, const Exec& exec) {
  const std::vector<int64_t> zeros(shape.size(), 0);
  const auto plan = kernels::PlanBroadcast(shape, {&StridesOf(a, zeros), &StridesOf(b, zeros)});
  kernels::ForEachPiece(plan, exec,
                        [&](int64_t out_off, const int64_t* off, const int64_t* step, int64_t n) {
                          float fa[kChunk], fb[kChunk];
                          LoadOperand(a, off[0], step[0], n, fa);
                          LoadOperand(b, off[1], step[1], n, fb);
                          ApplyBinary(op, alpha, fa, fb, fa, n);
                          kernels::StoreRange(fa, n, out, out_type, out_off, exec.rounding);
                        });
}

void RunCompare(CompareOp op, const Operand& a, const Operand& b, uint8_t* out,
                const std::vector<int64_t>& shape, const Exec& exec) {
  const std::vector<int64_t> zeros(shape.size(), 0);
  const auto plan = kernels::PlanBroadcast(shape, {&StridesOf(a, zeros), &StridesOf(b, zeros)});
  kernels::ForEachPiece(plan, exec,
                        [&](int64_t out_off, const int64_t* off, const int64_t* step, int64_t n) {
                          float fa[kChunk], fb[kChunk];
                          LoadOperand(a, off[0], step[0], n, fa);
                          LoadOperand(b, off[1], step[1], n, fb);
                          ApplyCompare(op, fa, fb, out + out_off, n);
                        });
}

void RunWhere(const uint8_t* cond, const std::vector<int64_t>& cond_strides, const Operand& a,
              const Operand& b, void* out, DType out_type, const std::vector<int64_t>& shape,
              const Exec& exec) {
  const std::vector<int64_t> zeros(shape.size(), 0);
  const auto plan =
      kernels::PlanBroadcast(shape, {&cond_strides, &StridesOf(a, zeros), &StridesOf(b, zeros)});
  kernels::ForEachPiece(plan, exec,
                        [&](int64_t out_off, const int64_t* off, const int64_t* step, int64_t n) {
                          float fa[kChunk], fb[kChunk];
                          LoadOperand(a, off[1], step[1], n, fa);
                          LoadOperand(b, off[2], step[2], n, fb);
                          const uint8_t* c = cond + off[0];
                          for (int64_t i = 0; i < n; ++i) fa[i] = c[i * step[0]] ? fa[i] : fb[i];
                          kernels::StoreRange(fa, n, out, out_type, out_off, exec.rounding);
                        });
}

}  // namespace spyre_emu
