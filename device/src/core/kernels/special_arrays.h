#pragma once
// The special functions over fp32 arrays, 16 lanes at a time
// (special_math_vec.h), on the fastest instruction set this CPU has. Every
// element gets exactly the bits of the scalar function in special_math.h, so
// the kernels keep their DL16 semantics (DL16 -> fp32 -> approximation ->
// DL16, the rounding to DL16 done by the caller) on every path. The *WithIsa
// forms exist so tests can hold each path to the scalar code.
#include <cstdint>

#include "spyre_emu/dl16.h"

namespace spyre_emu::special {

enum class Fn { kExp, kLog, kTanh, kSigmoid, kErf, kGelu, kGeluTanh, kSilu };

// x[i] = fn(x[i]) for i < n.
void ApplyArray(Fn fn, float* x, int64_t n);
// x[i] = Exp(x[i] - shift) for i < n: softmax's exponentials.
void ExpShiftedArray(float* x, int64_t n, float shift);

void ApplyArrayWithIsa(Isa isa, Fn fn, float* x, int64_t n);
void ExpShiftedArrayWithIsa(Isa isa, float* x, int64_t n, float shift);

}  // namespace spyre_emu::special
