#pragma once
// IEEE binary16 (fp16) and bfloat16 bit conversions, torch-free.
// fp16/bf16 -> fp32 is exact. fp32 -> fp16/bf16 rounds to nearest-even,
// overflows to Inf, keeps NaN a (quiet) NaN with its sign, and produces
// fp16 subnormals where IEEE does.
#include <cstdint>

namespace spyre_emu {

float Fp16ToFloat(uint16_t bits);
uint16_t FloatToFp16(float x);
float Bf16ToFloat(uint16_t bits);
uint16_t FloatToBf16(float x);

}  // namespace spyre_emu
