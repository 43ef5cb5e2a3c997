#pragma once
// Vector DL16 paths (dl16_simd.cpp). Internal to the core: callers use the
// dispatching functions of spyre_emu/dl16.h. Each function handles any n
// (the tail goes through the scalar codec) and is bit-identical to it.
#include <cstddef>
#include <cstdint>

#include "spyre_emu/config.h"

namespace spyre_emu::simd {

// The host-side format of the other array in a conversion.
enum class HostFormat { kFp32, kFp16, kBf16 };

bool HaveAvx2();    // the CPU (and OS) support AVX2 and F16C
bool HaveAvx512();  // ... AVX-512F

// src holds n values in `from` (fp16/bf16 as raw bit patterns); dst n DL16 codes.
void EncodeAvx2(HostFormat from, const void* src, uint16_t* dst, size_t n, Rounding rounding);
void EncodeAvx512(HostFormat from, const void* src, uint16_t* dst, size_t n, Rounding rounding);
// src holds n DL16 codes; dst n values in `to`.
void DecodeAvx2(HostFormat to, const uint16_t* src, void* dst, size_t n);
void DecodeAvx512(HostFormat to, const uint16_t* src, void* dst, size_t n);

}  // namespace spyre_emu::simd
