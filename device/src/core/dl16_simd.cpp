// AVX2 and AVX-512 DL16 conversion, compiled for those targets function by
// function (__attribute__((target))) so the rest of the library stays
// portable; dl16_arrays.cpp picks a path at run time with
// __builtin_cpu_supports. The arithmetic mirrors Dl16Encode/Dl16Decode step
// by step on 32-bit lanes holding fp32 bit patterns; fp16 enters and leaves
// through the F16C conversions (exact in, nearest-even out, as FloatToFp16)
// and bf16 through a shift in and FloatToBf16's rounding out.
#include "core/dl16_simd.h"

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32(), which
// trips -Wmaybe-uninitialized (a known false positive in the headers).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <cpuid.h>
#include <immintrin.h>

#include "spyre_emu/dl16.h"
#include "spyre_emu/float16.h"

namespace spyre_emu::simd {

namespace {

constexpr int kMaxFiniteFp32Bits = (159 << 23) | (510 << 14);
constexpr int kRebias = 127 - 31;
constexpr int kToHalf = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

// Scalar tails, one element in the given host format.
uint16_t EncodeOne(HostFormat from, const void* src, size_t i, Rounding rounding) {
  switch (from) {
    case HostFormat::kFp16:
      return Dl16Encode(Fp16ToFloat(static_cast<const uint16_t*>(src)[i]), rounding);
    case HostFormat::kBf16:
      return Dl16Encode(Bf16ToFloat(static_cast<const uint16_t*>(src)[i]), rounding);
    case HostFormat::kFp32:
      break;
  }
  return Dl16Encode(static_cast<const float*>(src)[i], rounding);
}

void DecodeOne(HostFormat to, uint16_t code, void* dst, size_t i) {
  const float v = Dl16Decode(code);
  switch (to) {
    case HostFormat::kFp16:
      static_cast<uint16_t*>(dst)[i] = FloatToFp16(v);
      return;
    case HostFormat::kBf16:
      static_cast<uint16_t*>(dst)[i] = FloatToBf16(v);
      return;
    case HostFormat::kFp32:
      static_cast<float*>(dst)[i] = v;
      return;
  }
}

// ---- AVX2: 8 lanes ----

#define SPYRE_AVX2 __attribute__((target("avx2,f16c")))

SPYRE_AVX2 __m256i EncodeLanes(__m256i b, Rounding rounding) {
  const __m256i sign = _mm256_and_si256(_mm256_srli_epi32(b, 16), _mm256_set1_epi32(0x8000));
  const __m256i mag = _mm256_and_si256(b, _mm256_set1_epi32(0x7FFFFFFF));
  const __m256i over = _mm256_cmpgt_epi32(mag, _mm256_set1_epi32(kMaxFiniteFp32Bits));
  __m256i rounded = mag;
  if (rounding == Rounding::kNearestAway) {
    rounded = _mm256_add_epi32(mag, _mm256_set1_epi32(1 << 13));
  } else if (rounding == Rounding::kNearestEven) {
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(mag, 14), _mm256_set1_epi32(1));
    rounded = _mm256_add_epi32(_mm256_add_epi32(mag, _mm256_set1_epi32(0x1FFF)), odd);
  }
  const __m256i under =
      _mm256_cmpgt_epi32(_mm256_set1_epi32(kRebias), _mm256_srli_epi32(rounded, 23));
  __m256i r = _mm256_sub_epi32(_mm256_srli_epi32(rounded, 14), _mm256_set1_epi32(kRebias << 9));
  r = _mm256_andnot_si256(under, r);
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32(kDl16NanCode), over);
  return _mm256_or_si256(r, sign);
}

SPYRE_AVX2 __m256i DecodeLanes(__m256i h) {
  const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(h, _mm256_set1_epi32(0x8000)), 16);
  const __m256i mag = _mm256_and_si256(h, _mm256_set1_epi32(0x7FFF));
  __m256i r = _mm256_slli_epi32(_mm256_add_epi32(mag, _mm256_set1_epi32(kRebias << 9)), 14);
  r = _mm256_andnot_si256(_mm256_cmpeq_epi32(mag, _mm256_setzero_si256()), r);
  r = _mm256_blendv_epi8(r, _mm256_set1_epi32(0x7FC00000),
                         _mm256_cmpeq_epi32(mag, _mm256_set1_epi32(kDl16NanCode)));
  return _mm256_or_si256(r, sign);
}

template <HostFormat kFrom>
SPYRE_AVX2 __m256i LoadLanes(const void* src, size_t i) {
  if constexpr (kFrom == HostFormat::kFp32) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(static_cast<const float*>(src) + i));
  } else {
    const __m128i h =
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(static_cast<const uint16_t*>(src) + i));
    if constexpr (kFrom == HostFormat::kFp16) return _mm256_castps_si256(_mm256_cvtph_ps(h));
    return _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
  }
}

// Packs 8 lanes of 16-bit values (held in 32-bit lanes) into 128 bits.
SPYRE_AVX2 __m128i Pack16(__m256i v) {
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0xD8));
}

template <HostFormat kTo>
SPYRE_AVX2 void StoreLanes(__m256i fp32_bits, void* dst, size_t i) {
  if constexpr (kTo == HostFormat::kFp32) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<float*>(dst) + i), fp32_bits);
  } else {
    __m128i out;
    if constexpr (kTo == HostFormat::kFp16) {
      out = _mm256_cvtps_ph(_mm256_castsi256_ps(fp32_bits), kToHalf);
    } else {
      // FloatToBf16's nearest-even; decoded DL16 is never a NaN other than
      // 0x7FC00000, which this rounding maps to the quiet bf16 NaN as well.
      const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(fp32_bits, 16), _mm256_set1_epi32(1));
      const __m256i r =
          _mm256_add_epi32(_mm256_add_epi32(fp32_bits, _mm256_set1_epi32(0x7FFF)), odd);
      out = Pack16(_mm256_srli_epi32(r, 16));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint16_t*>(dst) + i), out);
  }
}

template <HostFormat kFrom>
SPYRE_AVX2 void EncodeLoopAvx2(const void* src, uint16_t* dst, size_t n, Rounding rounding) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i codes = EncodeLanes(LoadLanes<kFrom>(src, i), rounding);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i), Pack16(codes));
  }
  for (; i < n; ++i) dst[i] = EncodeOne(kFrom, src, i, rounding);
}

template <HostFormat kTo>
SPYRE_AVX2 void DecodeLoopAvx2(const uint16_t* src, void* dst, size_t n) {
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i h =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    StoreLanes<kTo>(DecodeLanes(h), dst, i);
  }
  for (; i < n; ++i) DecodeOne(kTo, src[i], dst, i);
}

// ---- AVX-512: 16 lanes ----

#define SPYRE_AVX512 __attribute__((target("avx512f")))

SPYRE_AVX512 __m512i EncodeLanes512(__m512i b, Rounding rounding) {
  const __m512i sign = _mm512_and_si512(_mm512_srli_epi32(b, 16), _mm512_set1_epi32(0x8000));
  const __m512i mag = _mm512_and_si512(b, _mm512_set1_epi32(0x7FFFFFFF));
  const __mmask16 over = _mm512_cmpgt_epi32_mask(mag, _mm512_set1_epi32(kMaxFiniteFp32Bits));
  __m512i rounded = mag;
  if (rounding == Rounding::kNearestAway) {
    rounded = _mm512_add_epi32(mag, _mm512_set1_epi32(1 << 13));
  } else if (rounding == Rounding::kNearestEven) {
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(mag, 14), _mm512_set1_epi32(1));
    rounded = _mm512_add_epi32(_mm512_add_epi32(mag, _mm512_set1_epi32(0x1FFF)), odd);
  }
  const __mmask16 keep =
      _mm512_cmpge_epi32_mask(_mm512_srli_epi32(rounded, 23), _mm512_set1_epi32(kRebias));
  __m512i r =
      _mm512_maskz_sub_epi32(keep, _mm512_srli_epi32(rounded, 14), _mm512_set1_epi32(kRebias << 9));
  r = _mm512_mask_mov_epi32(r, over, _mm512_set1_epi32(kDl16NanCode));
  return _mm512_or_si512(r, sign);
}

SPYRE_AVX512 __m512i DecodeLanes512(__m512i h) {
  const __m512i sign = _mm512_slli_epi32(_mm512_and_si512(h, _mm512_set1_epi32(0x8000)), 16);
  const __m512i mag = _mm512_and_si512(h, _mm512_set1_epi32(0x7FFF));
  const __mmask16 nonzero = _mm512_test_epi32_mask(mag, mag);
  __m512i r =
      _mm512_maskz_slli_epi32(nonzero, _mm512_add_epi32(mag, _mm512_set1_epi32(kRebias << 9)), 14);
  const __mmask16 nan = _mm512_cmpeq_epi32_mask(mag, _mm512_set1_epi32(kDl16NanCode));
  r = _mm512_mask_mov_epi32(r, nan, _mm512_set1_epi32(0x7FC00000));
  return _mm512_or_si512(r, sign);
}

template <HostFormat kFrom>
SPYRE_AVX512 __m512i LoadLanes512(const void* src, size_t i) {
  if constexpr (kFrom == HostFormat::kFp32) {
    return _mm512_loadu_si512(static_cast<const float*>(src) + i);
  } else {
    const __m256i h =
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(static_cast<const uint16_t*>(src) + i));
    if constexpr (kFrom == HostFormat::kFp16) return _mm512_castps_si512(_mm512_cvtph_ps(h));
    return _mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16);
  }
}

template <HostFormat kTo>
SPYRE_AVX512 void StoreLanes512(__m512i fp32_bits, void* dst, size_t i) {
  if constexpr (kTo == HostFormat::kFp32) {
    _mm512_storeu_si512(static_cast<float*>(dst) + i, fp32_bits);
  } else {
    __m256i out;
    if constexpr (kTo == HostFormat::kFp16) {
      out = _mm512_cvtps_ph(_mm512_castsi512_ps(fp32_bits), kToHalf);
    } else {
      const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(fp32_bits, 16), _mm512_set1_epi32(1));
      const __m512i r =
          _mm512_add_epi32(_mm512_add_epi32(fp32_bits, _mm512_set1_epi32(0x7FFF)), odd);
      out = _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<uint16_t*>(dst) + i), out);
  }
}

template <HostFormat kFrom>
SPYRE_AVX512 void EncodeLoopAvx512(const void* src, uint16_t* dst, size_t n, Rounding rounding) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i codes = EncodeLanes512(LoadLanes512<kFrom>(src, i), rounding);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_cvtepi32_epi16(codes));
  }
  for (; i < n; ++i) dst[i] = EncodeOne(kFrom, src, i, rounding);
}

template <HostFormat kTo>
SPYRE_AVX512 void DecodeLoopAvx512(const uint16_t* src, void* dst, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i h =
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    StoreLanes512<kTo>(DecodeLanes512(h), dst, i);
  }
  for (; i < n; ++i) DecodeOne(kTo, src[i], dst, i);
}

}  // namespace

// clang 14's __builtin_cpu_supports does not know "f16c" (a compile error), so
// F16C is read from CPUID leaf 1 directly, as GCC's builtin does.
namespace {
bool HaveF16c() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & bit_F16C) != 0;
}
}  // namespace

bool HaveAvx2() { return __builtin_cpu_supports("avx2") && HaveF16c(); }
bool HaveAvx512() { return __builtin_cpu_supports("avx512f"); }

void EncodeAvx2(HostFormat from, const void* src, uint16_t* dst, size_t n, Rounding rounding) {
  switch (from) {
    case HostFormat::kFp32:
      EncodeLoopAvx2<HostFormat::kFp32>(src, dst, n, rounding);
      return;
    case HostFormat::kFp16:
      EncodeLoopAvx2<HostFormat::kFp16>(src, dst, n, rounding);
      return;
    case HostFormat::kBf16:
      EncodeLoopAvx2<HostFormat::kBf16>(src, dst, n, rounding);
      return;
  }
}

void EncodeAvx512(HostFormat from, const void* src, uint16_t* dst, size_t n, Rounding rounding) {
  switch (from) {
    case HostFormat::kFp32:
      EncodeLoopAvx512<HostFormat::kFp32>(src, dst, n, rounding);
      return;
    case HostFormat::kFp16:
      EncodeLoopAvx512<HostFormat::kFp16>(src, dst, n, rounding);
      return;
    case HostFormat::kBf16:
      EncodeLoopAvx512<HostFormat::kBf16>(src, dst, n, rounding);
      return;
  }
}

void DecodeAvx2(HostFormat to, const uint16_t* src, void* dst, size_t n) {
  switch (to) {
    case HostFormat::kFp32:
      DecodeLoopAvx2<HostFormat::kFp32>(src, dst, n);
      return;
    case HostFormat::kFp16:
      DecodeLoopAvx2<HostFormat::kFp16>(src, dst, n);
      return;
    case HostFormat::kBf16:
      DecodeLoopAvx2<HostFormat::kBf16>(src, dst, n);
      return;
  }
}

void DecodeAvx512(HostFormat to, const uint16_t* src, void* dst, size_t n) {
  switch (to) {
    case HostFormat::kFp32:
      DecodeLoopAvx512<HostFormat::kFp32>(src, dst, n);
      return;
    case HostFormat::kFp16:
      DecodeLoopAvx512<HostFormat::kFp16>(src, dst, n);
      return;
    case HostFormat::kBf16:
      DecodeLoopAvx512<HostFormat::kBf16>(src, dst, n);
      return;
  }
}

}  // namespace spyre_emu::simd

#pragma GCC diagnostic pop
