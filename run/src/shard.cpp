#include "run/shard.h"

#include <regex>

#include "base/sha256.h"

namespace harness {

std::string Shard::ToString() const { return std::to_string(index) + "/" + std::to_string(count); }

StatusOr<Shard> ParseShard(const std::string& text) {
  static const std::regex kShard("([0-9]{1,5})/([0-9]{1,5})");
  std::smatch m;
  if (std::regex_match(text, m, kShard)) {
    Shard s{std::stoi(m[1]), std::stoi(m[2])};
    if (s.count >= 1 && s.count <= 10000 && s.index >= 1 && s.index <= s.count) return s;
  }
  return UsageError("--shard '" + text + "' is not I/N with 1 <= I <= N: e.g. --shard 2/3");
}

int ShardOf(const std::string& suite, const std::string& case_id, int count) {
  const std::string hex = Sha256Hex(suite + "/" + case_id);
  const uint64_t h = std::stoull(hex.substr(0, 16), nullptr, 16);
  return 1 + static_cast<int>(h % static_cast<uint64_t>(count));
}

bool InShard(const std::string& suite, const std::string& case_id, const Shard& shard) {
  return shard.all() || ShardOf(suite, case_id, shard.count) == shard.index;
}

}  // namespace harness
