#include "packed_rounds.h"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace harness::store_internal {
namespace {

constexpr unsigned char kFormat = 1;
constexpr unsigned char kHasWaits = 1;
constexpr unsigned char kRaw = 2;
constexpr unsigned char kHasOpWall = 4;

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

bool GetVarint(const std::string& in, size_t* at, uint64_t* v) {
  *v = 0;
  for (int shift = 0; shift < 64 && *at < in.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in[(*at)++]);
    *v |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

void PutValue(double x, std::string* out) {
  // Whole nanoseconds: what a steady_clock duration in microseconds holds.
  if (x >= 0 && x < 9.0e12 && !std::signbit(x)) {
    const double k = std::nearbyint(x * 1000.0);
    if (static_cast<double>(static_cast<uint64_t>(k)) / 1000.0 == x) {
      PutVarint(static_cast<uint64_t>(k) << 1, out);
      return;
    }
  }
  PutVarint(1, out);
  uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
}

bool GetValue(const std::string& in, size_t* at, double* x) {
  uint64_t v;
  if (!GetVarint(in, at, &v)) return false;
  if ((v & 1) == 0) {
    *x = static_cast<double>(v >> 1) / 1000.0;
    return true;
  }
  if (v != 1 || in.size() - *at < 8) return false;
  uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) {
    bits |= static_cast<uint64_t>(static_cast<unsigned char>(in[*at + static_cast<size_t>(i)]))
            << (8 * i);
  }
  *at += 8;
  std::memcpy(x, &bits, sizeof bits);
  return true;
}

}  // namespace

std::string PackRounds(const PackedRounds& rounds) {
  std::string out;
  const bool waits = !rounds.queue_us.empty();
  const bool ops = !rounds.op_wall_us.empty();
  out.push_back(static_cast<char>(kFormat));
  out.push_back(static_cast<char>((waits ? kHasWaits : 0) | (rounds.raw ? kRaw : 0) |
                                  (ops ? kHasOpWall : 0)));
  PutVarint(rounds.wall_us.size(), &out);
  for (double x : rounds.wall_us) PutValue(x, &out);
  if (waits) {
    for (double x : rounds.queue_us) PutValue(x, &out);
  }
  if (ops) {
    PutVarint(rounds.op_wall_us.size(), &out);
    for (const auto& [op, values] : rounds.op_wall_us) {
      PutVarint(op.size(), &out);
      out += op;
      PutVarint(values.size(), &out);
      for (double x : values) PutValue(x, &out);
    }
  }
  return out;
}

std::optional<PackedRounds> UnpackRounds(const std::string& blob) {
  if (blob.size() < 3 || static_cast<unsigned char>(blob[0]) != kFormat) return std::nullopt;
  const auto flags = static_cast<unsigned char>(blob[1]);
  if ((flags & ~(kHasWaits | kRaw | kHasOpWall)) != 0) return std::nullopt;
  size_t at = 2;
  uint64_t n;
  if (!GetVarint(blob, &at, &n) || n > blob.size()) return std::nullopt;
  PackedRounds out;
  out.raw = (flags & kRaw) != 0;
  out.wall_us.resize(n);
  for (double& x : out.wall_us) {
    if (!GetValue(blob, &at, &x)) return std::nullopt;
  }
  if ((flags & kHasWaits) != 0) {
    out.queue_us.resize(n);
    for (double& x : out.queue_us) {
      if (!GetValue(blob, &at, &x)) return std::nullopt;
    }
  }
  if ((flags & kHasOpWall) != 0) {
    uint64_t ops;
    if (!GetVarint(blob, &at, &ops) || ops == 0 || ops > blob.size()) return std::nullopt;
    for (uint64_t i = 0; i < ops; ++i) {
      uint64_t len, count;
      if (!GetVarint(blob, &at, &len) || len > blob.size() - at) return std::nullopt;
      std::string op = blob.substr(at, len);
      at += len;
      if (!GetVarint(blob, &at, &count) || count > blob.size()) return std::nullopt;
      std::vector<double>& values = out.op_wall_us[op];
      values.resize(count);
      for (double& x : values) {
        if (!GetValue(blob, &at, &x)) return std::nullopt;
      }
    }
  }
  if (at != blob.size()) return std::nullopt;
  return out;
}

}  // namespace harness::store_internal
