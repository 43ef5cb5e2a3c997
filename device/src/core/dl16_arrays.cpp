// Array DL16 conversions: dispatch to the fastest path, plus the portable
// loops and the fp16 lookup tables. Every path is generated from, or tested
// bit for bit against, the scalar codec in dl16.cpp.
#include <array>
#include <memory>

#include "core/dl16_simd.h"
#include "spyre_emu/dl16.h"
#include "spyre_emu/float16.h"

namespace spyre_emu {

namespace {

using Table = std::array<uint16_t, 65536>;
using simd::HostFormat;

// fp16 -> DL16, one table per rounding mode, built from the scalar codec on
// first use (thread-safe static initialisation).
const Table& Fp16ToDl16Table(Rounding rounding) {
  static const std::unique_ptr<Table[]> tables = [] {
    std::unique_ptr<Table[]> t(new Table[3]);
    const Rounding modes[] = {Rounding::kNearestAway, Rounding::kNearestEven, Rounding::kTruncate};
    for (int m = 0; m < 3; ++m) {
      for (uint32_t h = 0; h < 65536; ++h) {
        t[m][h] = Dl16Encode(Fp16ToFloat(static_cast<uint16_t>(h)), modes[m]);
      }
    }
    return t;
  }();
  return tables[static_cast<int>(rounding)];
}

const Table& Dl16ToFp16Table() {
  static const std::unique_ptr<Table> table = [] {
    std::unique_ptr<Table> t(new Table);
    for (uint32_t d = 0; d < 65536; ++d)
      (*t)[d] = FloatToFp16(Dl16Decode(static_cast<uint16_t>(d)));
    return t;
  }();
  return *table;
}

Isa Usable(Isa isa) { return IsaSupported(isa) ? isa : Isa::kPortable; }

// Runs a vector path when `isa` has one; returns false for kPortable.
bool EncodeVector(Isa isa, HostFormat from, const void* src, uint16_t* dst, size_t n,
                  Rounding rounding) {
  switch (Usable(isa)) {
    case Isa::kAvx512:
      simd::EncodeAvx512(from, src, dst, n, rounding);
      return true;
    case Isa::kAvx2:
      simd::EncodeAvx2(from, src, dst, n, rounding);
      return true;
    case Isa::kPortable:
      return false;
  }
  return false;
}

bool DecodeVector(Isa isa, HostFormat to, const uint16_t* src, void* dst, size_t n) {
  switch (Usable(isa)) {
    case Isa::kAvx512:
      simd::DecodeAvx512(to, src, dst, n);
      return true;
    case Isa::kAvx2:
      simd::DecodeAvx2(to, src, dst, n);
      return true;
    case Isa::kPortable:
      return false;
  }
  return false;
}

}  // namespace

const char* IsaName(Isa isa) {
  switch (isa) {
    case Isa::kPortable:
      return "portable";
    case Isa::kAvx2:
      return "avx2";
    case Isa::kAvx512:
      return "avx512";
  }
  return "portable";
}

bool IsaSupported(Isa isa) {
  switch (isa) {
    case Isa::kPortable:
      return true;
    case Isa::kAvx2:
      return simd::HaveAvx2();
    case Isa::kAvx512:
      return simd::HaveAvx512();
  }
  return false;
}

Isa BestIsa() {
  static const Isa best = IsaSupported(Isa::kAvx512) ? Isa::kAvx512
                          : IsaSupported(Isa::kAvx2) ? Isa::kAvx2
                                                     : Isa::kPortable;
  return best;
}

void Dl16FromFp32WithIsa(Isa isa, const float* src, uint16_t* dst, size_t n, Rounding rounding) {
  if (EncodeVector(isa, HostFormat::kFp32, src, dst, n, rounding)) return;
  for (size_t i = 0; i < n; ++i) dst[i] = Dl16Encode(src[i], rounding);
}

void Dl16ToFp32WithIsa(Isa isa, const uint16_t* src, float* dst, size_t n) {
  if (DecodeVector(isa, HostFormat::kFp32, src, dst, n)) return;
  for (size_t i = 0; i < n; ++i) dst[i] = Dl16Decode(src[i]);
}

void Dl16FromFp16WithIsa(Isa isa, const uint16_t* src, uint16_t* dst, size_t n, Rounding rounding) {
  if (EncodeVector(isa, HostFormat::kFp16, src, dst, n, rounding)) return;
  const Table& t = Fp16ToDl16Table(rounding);
  for (size_t i = 0; i < n; ++i) dst[i] = t[src[i]];
}

void Dl16ToFp16WithIsa(Isa isa, const uint16_t* src, uint16_t* dst, size_t n) {
  if (DecodeVector(isa, HostFormat::kFp16, src, dst, n)) return;
  const Table& t = Dl16ToFp16Table();
  for (size_t i = 0; i < n; ++i) dst[i] = t[src[i]];
}

void Dl16FromBf16WithIsa(Isa isa, const uint16_t* src, uint16_t* dst, size_t n, Rounding rounding) {
  if (EncodeVector(isa, HostFormat::kBf16, src, dst, n, rounding)) return;
  for (size_t i = 0; i < n; ++i) dst[i] = Dl16Encode(Bf16ToFloat(src[i]), rounding);
}

void Dl16ToBf16WithIsa(Isa isa, const uint16_t* src, uint16_t* dst, size_t n) {
  if (DecodeVector(isa, HostFormat::kBf16, src, dst, n)) return;
  for (size_t i = 0; i < n; ++i) dst[i] = FloatToBf16(Dl16Decode(src[i]));
}

void Dl16FromFp32(const float* src, uint16_t* dst, size_t n, Rounding rounding) {
  Dl16FromFp32WithIsa(BestIsa(), src, dst, n, rounding);
}
void Dl16ToFp32(const uint16_t* src, float* dst, size_t n) {
  Dl16ToFp32WithIsa(BestIsa(), src, dst, n);
}
void Dl16FromFp16(const uint16_t* src, uint16_t* dst, size_t n, Rounding rounding) {
  Dl16FromFp16WithIsa(BestIsa(), src, dst, n, rounding);
}
void Dl16ToFp16(const uint16_t* src, uint16_t* dst, size_t n) {
  Dl16ToFp16WithIsa(BestIsa(), src, dst, n);
}
void Dl16FromBf16(const uint16_t* src, uint16_t* dst, size_t n, Rounding rounding) {
  Dl16FromBf16WithIsa(BestIsa(), src, dst, n, rounding);
}
void Dl16ToBf16(const uint16_t* src, uint16_t* dst, size_t n) {
  Dl16ToBf16WithIsa(BestIsa(), src, dst, n);
}

void RoundThroughDl16(float* data, size_t n, Rounding rounding) {
  // Chunks through a small stack buffer keep the vector paths in use.
  constexpr size_t kChunk = 1024;
  uint16_t buffer[kChunk];
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t m = n - i < kChunk ? n - i : kChunk;
    Dl16FromFp32(data + i, buffer, m, rounding);
    Dl16ToFp32(buffer, data + i, m);
  }
}

}  // namespace spyre_emu
