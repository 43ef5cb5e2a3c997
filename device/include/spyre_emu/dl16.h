#pragma once
// DL16 (IBM DLFloat16, "NNP1"): the Spyre device's 16-bit floating format.
//
//   bit 15      sign
//   bits 14..9  exponent e, bias 31 (6 bits)
//   bits 8..0   fraction f (9 bits)
//
// Decode: magnitude bits all zero -> signed zero; 0x7FFF / 0xFFFF (e = 63,
// f = 511) -> NaN (the single NaN/Inf code); anything else is
// (-1)^s * 2^(e-31) * (1 + f/512), also for e = 0: there are no subnormals.
// Every DL16 value is exactly representable in fp32, so decoding is exact.
// Largest finite magnitude: 2^32 * (1 + 510/512) (0x7FFE); smallest nonzero:
// 2^-31 * (1 + 1/512) (0x0001).
//
// Encode from fp32 (the reference algorithm):
//   1. Inf, NaN, or |x| > 2^32 * (1 + 510/512)      -> the NaN/Inf code, keeping
//      the sign. The test is on |x| before rounding, in every rounding mode.
//   2. Round the fp32 fraction to 9 bits, carrying into the exponent:
//        kNearestAway  add 1 << 13 (ties away from zero; the reference default)
//        kNearestEven  ties to the even fraction
//        kTruncate     drop the low 14 bits (toward zero)
//   3. Rebiased exponent (e_fp32 - 127 + 31) negative -> signed zero. A value
//      that rounds to exactly 2^-31 encodes as magnitude 0 too (signed zero):
//      that bit pattern is zero, not 2^-31.
// fp32 subnormals and zeros become signed zero.
//
// fp16 and bf16 are passed as raw IEEE bit patterns (uint16_t) so the core
// stays torch-free. Every fp16 value lies inside DL16's range, so fp16 -> DL16
// only decides fp16's 10th fraction bit, and each such value is exact or a tie.
// The device's input path drops that bit (-2.002 -> -2.0),
// whatever the rounding setting: host->device copies of fp16 use
// kFp16InputRounding. The rounding setting governs fp32 -> DL16 (kernel
// outputs, fp32 host data copied into fp16/bf16 device tensors). bf16 -> DL16
// is exact inside DL16's range (bf16 has 7 fraction bits); outside it, the
// range rules above apply.
// DL16 -> fp16 rounds to nearest-even in fp16: magnitudes >= 65520 become Inf,
// magnitudes below 2^-14 become fp16 subnormals or zero, and the NaN/Inf code
// becomes a quiet NaN. DL16 -> bf16 rounds the 10-bit significand to bf16's 8
// (nearest-even); bf16 values inside DL16's range survive the round trip
// bf16 -> DL16 -> bf16 exactly.
//
// Array conversions use the fastest instruction set this CPU has (AVX-512,
// AVX2, portable) and are bit-identical to the scalar functions; the *WithIsa
// variants exist so tests and benchmarks can compare the paths. Source and
// destination may not overlap (except for the in-place RoundThroughDl16).
#include <cstddef>
#include <cstdint>

#include "spyre_emu/config.h"

namespace spyre_emu {

constexpr uint16_t kDl16NanCode = 0x7FFF;       // NaN/Inf; 0xFFFF is the negative form
constexpr uint16_t kDl16MaxFinite = 0x7FFE;     // 2^32 * (1 + 510/512)
constexpr float kDl16MaxValue = 8573157376.0f;  // 2^32 * (1 + 510/512)
// How host fp16 data enters the device (see above).
constexpr Rounding kFp16InputRounding = Rounding::kTruncate;

// Scalar codec with an explicit rounding mode.
uint16_t Dl16Encode(float x, Rounding rounding);
float Dl16Decode(uint16_t bits);
// Dl16Decode(Dl16Encode(x, rounding)): the value x takes on the device.
float RoundToDl16(float x, Rounding rounding);

// The documented scalar functions (docs/device.md): the current rounding
// setting of the emulator (SPYRE_EMU_ROUNDING).
uint16_t dl16_from_float(float x);
float dl16_to_float(uint16_t bits);

// Instruction-set paths of the array conversions.
enum class Isa { kPortable, kAvx2, kAvx512 };
const char* IsaName(Isa isa);  // "portable" | "avx2" | "avx512"
Isa BestIsa();                 // the fastest path this CPU supports
bool IsaSupported(Isa isa);

// Array conversions (n elements), on BestIsa().
void Dl16FromFp32(const float* src, uint16_t* dst, size_t n, Rounding rounding);
void Dl16ToFp32(const uint16_t* src, float* dst, size_t n);
void Dl16FromFp16(const uint16_t* src, uint16_t* dst, size_t n, Rounding rounding);
void Dl16ToFp16(const uint16_t* src, uint16_t* dst, size_t n);
void Dl16FromBf16(const uint16_t* src, uint16_t* dst, size_t n, Rounding rounding);
void Dl16ToBf16(const uint16_t* src, uint16_t* dst, size_t n);
// data[i] = RoundToDl16(data[i]) in place: fp32 values as the device holds them.
void RoundThroughDl16(float* data, size_t n, Rounding rounding);

// The same on a chosen path; an unsupported path falls back to kPortable.
// The portable fp16 paths use 64K-entry tables built from the scalar codec.
void Dl16FromFp32WithIsa(Isa isa, const float* src, uint16_t* dst, size_t n, Rounding rounding);
void Dl16ToFp32WithIsa(Isa isa, const uint16_t* src, float* dst, size_t n);
void Dl16FromFp16WithIsa(Isa isa, const uint16_t* src, uint16_t* dst, size_t n, Rounding rounding);
void Dl16ToFp16WithIsa(Isa isa, const uint16_t* src, uint16_t* dst, size_t n);
void Dl16FromBf16WithIsa(Isa isa, const uint16_t* src, uint16_t* dst, size_t n, Rounding rounding);
void Dl16ToBf16WithIsa(Isa isa, const uint16_t* src, uint16_t* dst, size_t n);

}  // namespace spyre_emu
