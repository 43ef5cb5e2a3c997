#pragma once
// `--shard I/N`: a deterministic split of a suite's cases over N machines.
// A case belongs to shard 1 + (H mod N), where H is the first 8 bytes of
// SHA-256("<suite>/<case id>"): it depends on the id only, never on the order
// or number of other cases, so adding a case moves no other case, and the
// union of shards 1..N is exactly the unsharded case set.
#include <string>

#include "base/status.h"

namespace harness {

struct Shard {
  int index = 1;  // 1-based
  int count = 1;
  bool all() const { return count == 1; }
  std::string ToString() const;  // "I/N"
};

// Parses "I/N" with 1 <= I <= N <= 10000; anything else is a usage error.
StatusOr<Shard> ParseShard(const std::string& text);

// The shard (1..count) a case belongs to.
int ShardOf(const std::string& suite, const std::string& case_id, int count);
bool InShard(const std::string& suite, const std::string& case_id, const Shard& shard);

}  // namespace harness
