// The array loops of the special functions, compiled three times: for
// AVX-512, for AVX2 (each 16-lane vector is two registers there) and for the
// SSE2 baseline (four). The path is chosen per call from BestIsa().
#include "core/kernels/special_arrays.h"

#include "core/kernels/special_math.h"
#include "core/kernels/special_math_vec.h"

namespace spyre_emu::special {
namespace {

using vec::F;
using vec::kLanes;

SPYRE_SPECIAL F Load(const float* p) {
  F v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
SPYRE_SPECIAL void Store(F v, float* p) { std::memcpy(p, &v, sizeof v); }

// Full vectors through the vector function, the tail (< 16 elements) through
// the scalar one: the same bits either way. (A macro, not a lambda: a
// lambda's body would be compiled for the baseline, not the caller's target.)
#define SPYRE_ARRAY_LOOP(vector_fn, scalar_fn)                                 \
  do {                                                                         \
    int64_t i = 0;                                                             \
    for (; i + kLanes <= n; i += kLanes) Store(vector_fn(Load(x + i)), x + i); \
    for (; i < n; ++i) x[i] = scalar_fn(x[i]);                                 \
  } while (false)

SPYRE_SPECIAL void Apply(Fn fn, float* x, int64_t n) {
  switch (fn) {
    case Fn::kExp:
      SPYRE_ARRAY_LOOP(vec::Exp, Exp);
      return;
    case Fn::kLog:
      SPYRE_ARRAY_LOOP(vec::Log, Log);
      return;
    case Fn::kTanh:
      SPYRE_ARRAY_LOOP(vec::Tanh, Tanh);
      return;
    case Fn::kSigmoid:
      SPYRE_ARRAY_LOOP(vec::Sigmoid, Sigmoid);
      return;
    case Fn::kErf:
      SPYRE_ARRAY_LOOP(vec::Erf, Erf);
      return;
    case Fn::kGelu:
      SPYRE_ARRAY_LOOP(vec::Gelu, Gelu);
      return;
    case Fn::kGeluTanh:
      SPYRE_ARRAY_LOOP(vec::GeluTanh, GeluTanh);
      return;
    case Fn::kSilu:
      SPYRE_ARRAY_LOOP(vec::Silu, Silu);
      return;
  }
}

SPYRE_SPECIAL void ExpShifted(float* x, int64_t n, float shift) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) Store(vec::Exp(Load(x + i) - shift), x + i);
  for (; i < n; ++i) x[i] = Exp(x[i] - shift);
}

#undef SPYRE_ARRAY_LOOP

__attribute__((target("avx512f"))) void ApplyAvx512(Fn fn, float* x, int64_t n) { Apply(fn, x, n); }
__attribute__((target("avx2"))) void ApplyAvx2(Fn fn, float* x, int64_t n) { Apply(fn, x, n); }
void ApplyPortable(Fn fn, float* x, int64_t n) { Apply(fn, x, n); }

__attribute__((target("avx512f"))) void ExpShiftedAvx512(float* x, int64_t n, float shift) {
  ExpShifted(x, n, shift);
}
__attribute__((target("avx2"))) void ExpShiftedAvx2(float* x, int64_t n, float shift) {
  ExpShifted(x, n, shift);
}
void ExpShiftedPortable(float* x, int64_t n, float shift) { ExpShifted(x, n, shift); }

}  // namespace

void ApplyArrayWithIsa(Isa isa, Fn fn, float* x, int64_t n) {
  if (isa == Isa::kAvx512 && IsaSupported(Isa::kAvx512)) return ApplyAvx512(fn, x, n);
  if (isa != Isa::kPortable && IsaSupported(Isa::kAvx2)) return ApplyAvx2(fn, x, n);
  ApplyPortable(fn, x, n);
}

void ExpShiftedArrayWithIsa(Isa isa, float* x, int64_t n, float shift) {
  if (isa == Isa::kAvx512 && IsaSupported(Isa::kAvx512)) return ExpShiftedAvx512(x, n, shift);
  if (isa != Isa::kPortable && IsaSupported(Isa::kAvx2)) return ExpShiftedAvx2(x, n, shift);
  ExpShiftedPortable(x, n, shift);
}

void ApplyArray(Fn fn, float* x, int64_t n) { ApplyArrayWithIsa(BestIsa(), fn, x, n); }
void ExpShiftedArray(float* x, int64_t n, float shift) {
  ExpShiftedArrayWithIsa(BestIsa(), x, n, shift);
}

}  // namespace spyre_emu::special
