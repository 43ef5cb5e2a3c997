#pragma once
// SHA-256 (FIPS 180-4), used for input digests in golden metadata and for the
// environment fingerprint hash. Written for this project; tested against the
// FIPS example vectors.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace harness {

class Sha256 {
 public:
  Sha256();
  void Update(const void* data, size_t size);
  void Update(std::string_view s) { Update(s.data(), s.size()); }
  // Finishes and returns the 32-byte digest; the object must not be updated after.
  std::array<uint8_t, 32> Finish();
  // Finishes and returns the digest as 64 lowercase hex characters.
  std::string FinishHex();

 private:
  void Block(const uint8_t* p);
  uint32_t h_[8];
  uint8_t buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

// Hex SHA-256 of a byte string.
std::string Sha256Hex(std::string_view data);

}  // namespace harness
