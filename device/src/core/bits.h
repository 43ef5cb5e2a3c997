#pragma once
// Bit casts between float and uint32_t (memcpy: the defined way in C++17).
#include <cstdint>
#include <cstring>

namespace spyre_emu {

inline uint32_t FloatBits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

inline float BitsFloat(uint32_t b) {
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

}  // namespace spyre_emu
