// AVX2 and AVX-512 DL16 conversion, compiled for those targets function by
// function (__attribute__((target))) so the rest of the library stays
// portable; dl16_arrays.cpp picks a path at run time with
// __builtin_cpu_supports. The arithmetic mirrors Dl16Encode/Dl16Decode step
// by step on 32-bit lanes.
#include "core/dl16_simd.h"

// GCC 12's AVX-512 intrinsics start from _mm512_undefined_epi32(), which
// trips -Wmaybe-uninitialized (a known false positive in the headers).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "spyre_emu/dl16.h"

namespace spyre_emu::simd {

namespace {
constexpr int kMaxFiniteFp32Bits = (159 << 23) | (510 << 14);
constexpr int kRebias = 127 - 31;
}  // namespace

bool HaveAvx2() { return __builtin_cpu_supports("avx2"); }
bool HaveAvx512() { return __builtin_cpu_supports("avx512f"); }

// ---- AVX2: 8 lanes ----

__attribute__((target("avx2"))) static __m256i EncodeLanesAvx2(__m256i b, Rounding rounding) {
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

__attribute__((target("avx2"))) void EncodeFp32Avx2(const float* src, uint16_t* dst, size_t n,
                                                     Rounding rounding) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256i a = EncodeLanesAvx2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)), rounding);
    const __m256i b = EncodeLanesAvx2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i + 8)), rounding);
    // packus interleaves the 128-bit halves; the permute restores order.
    const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(a, b), 0xD8);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), packed);
  }
  for (; i < n; ++i) dst[i] = Dl16Encode(src[i], rounding);
}

__attribute__((target("avx2"))) void DecodeFp32Avx2(const uint16_t* src, float* dst, size_t n) {
  size_t i = 0;
  const __m256i nan = _mm256_set1_epi32(0x7FC00000);
  for (; i + 8 <= n; i += 8) {
    const __m256i h =
        _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(h, _mm256_set1_epi32(0x8000)), 16);
    const __m256i mag = _mm256_and_si256(h, _mm256_set1_epi32(0x7FFF));
    __m256i r = _mm256_slli_epi32(_mm256_add_epi32(mag, _mm256_set1_epi32(kRebias << 9)), 14);
    r = _mm256_andnot_si256(_mm256_cmpeq_epi32(mag, _mm256_setzero_si256()), r);
    r = _mm256_blendv_epi8(r, nan, _mm256_cmpeq_epi32(mag, _mm256_set1_epi32(kDl16NanCode)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_or_si256(r, sign));
  }
  for (; i < n; ++i) dst[i] = Dl16Decode(src[i]);
}

// ---- AVX-512: 16 lanes ----

__attribute__((target("avx512f"))) void EncodeFp32Avx512(const float* src, uint16_t* dst,
                                                         size_t n, Rounding rounding) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i b = _mm512_loadu_si512(src + i);
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
    __m512i r = _mm512_maskz_sub_epi32(keep, _mm512_srli_epi32(rounded, 14),
                                       _mm512_set1_epi32(kRebias << 9));
    r = _mm512_mask_mov_epi32(r, over, _mm512_set1_epi32(kDl16NanCode));
    r = _mm512_or_si512(r, sign);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm512_cvtepi32_epi16(r));
  }
  for (; i < n; ++i) dst[i] = Dl16Encode(src[i], rounding);
}

__attribute__((target("avx512f"))) void DecodeFp32Avx512(const uint16_t* src, float* dst,
                                                         size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i h =
        _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    const __m512i sign = _mm512_slli_epi32(_mm512_and_si512(h, _mm512_set1_epi32(0x8000)), 16);
    const __m512i mag = _mm512_and_si512(h, _mm512_set1_epi32(0x7FFF));
    const __mmask16 nonzero = _mm512_test_epi32_mask(mag, mag);
    __m512i r = _mm512_maskz_slli_epi32(
        nonzero, _mm512_add_epi32(mag, _mm512_set1_epi32(kRebias << 9)), 14);
    const __mmask16 nan = _mm512_cmpeq_epi32_mask(mag, _mm512_set1_epi32(kDl16NanCode));
    r = _mm512_mask_mov_epi32(r, nan, _mm512_set1_epi32(0x7FC00000));
    _mm512_storeu_si512(dst + i, _mm512_or_si512(r, sign));
  }
  for (; i < n; ++i) dst[i] = Dl16Decode(src[i]);
}

}  // namespace spyre_emu::simd

#pragma GCC diagnostic pop
