// KV cache blocks: sizes in sticks and the pool of block numbers.
#include "kv_blocks.h"

#include <cstdio>
#include <cstdlib>

namespace suites {

int64_t KvRowBytes(const KvBlockShape& s) {
  const int64_t bytes = s.head_dim * s.elem_bytes;
  return (bytes + kStickBytes - 1) / kStickBytes * kStickBytes;
}

int64_t KvBlockBytes(const KvBlockShape& s) {
  return 2 * s.layers * s.kv_heads * s.block_size * KvRowBytes(s);
}

int64_t BlocksForTokens(int64_t tokens, int64_t block_size) {
  return tokens <= 0 ? 0 : (tokens + block_size - 1) / block_size;
}

BlockAllocator::BlockAllocator(int64_t blocks) : capacity_(blocks) {
  for (int64_t b = 0; b < blocks; ++b) free_.insert(free_.end(), b);
}

std::optional<int64_t> BlockAllocator::Allocate() {
  if (free_.empty()) return std::nullopt;
  const int64_t b = *free_.begin();
  free_.erase(free_.begin());
  if (in_use() > peak_) peak_ = in_use();
  return b;
}

bool BlockAllocator::IsAllocated(int64_t block) const {
  return block >= 0 && block < capacity_ && free_.count(block) == 0;
}

void BlockAllocator::Free(int64_t block) {
  if (!IsAllocated(block)) {
    std::fprintf(stderr, "BlockAllocator: block %lld freed while not allocated (pool of %lld)\n",
                 static_cast<long long>(block), static_cast<long long>(capacity_));
    std::abort();
  }
  free_.insert(block);
}

}  // namespace suites
