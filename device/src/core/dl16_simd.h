#pragma once
// Vector DL16 paths (dl16_simd.cpp). Internal to the core: callers use the
// dispatching functions of spyre_emu/dl16.h. Each function handles any n
// (the tail goes through the scalar codec) and is bit-identical to it.
#include <cstddef>
#include <cstdint>

#include "spyre_emu/config.h"

namespace spyre_emu::simd {

bool HaveAvx2();    // the CPU (and OS) support AVX2
bool HaveAvx512();  // ... AVX-512F

void EncodeFp32Avx2(const float* src, uint16_t* dst, size_t n, Rounding rounding);
void DecodeFp32Avx2(const uint16_t* src, float* dst, size_t n);
void EncodeFp32Avx512(const float* src, uint16_t* dst, size_t n, Rounding rounding);
void DecodeFp32Avx512(const uint16_t* src, float* dst, size_t n);

}  // namespace spyre_emu::simd
