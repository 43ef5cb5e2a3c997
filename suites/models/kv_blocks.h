#pragma once
// The paged KV cache's bookkeeping, torch-free: how many device bytes one
// block takes, how many blocks a sequence needs, and the pool of block
// numbers that requests take and give back.
//
//   KvBlockShape shape;             // layers 2, kv_heads 2, head_dim 32,
//   ...                             // block_size 16, elem_bytes 2 (fp16)
//   KvBlockBytes(shape);            // 2 * 2 * 2 * 16 * 128 = 16384 (sticks)
//   BlockAllocator pool(8);
//   std::optional<int64_t> b = pool.Allocate();   // 0, then 1, ...
//   pool.Free(*b);                                 // 0 is handed out next
//
// A block holds `block_size` consecutive token positions of one sequence,
// keys and values, every layer and KV head. The device stores a tensor's
// last dimension in whole 128-byte sticks, so a block row of head_dim
// elements takes round_up(head_dim * elem_bytes, 128) bytes however few
// of them hold data.
#include <cstdint>
#include <optional>
#include <set>

namespace suites {

inline constexpr int64_t kStickBytes = 128;

struct KvBlockShape {
  int64_t layers = 1;
  int64_t kv_heads = 1;
  int64_t head_dim = 1;
  int64_t block_size = 16;  // token positions per block
  int64_t elem_bytes = 2;   // 2 for fp16 / bf16 (DL16 on the device), 4 for fp32
};

// Device bytes of one K/V row of head_dim elements, padded to whole sticks.
int64_t KvRowBytes(const KvBlockShape& s);
// Device bytes of one block: keys and values of every layer and KV head.
int64_t KvBlockBytes(const KvBlockShape& s);
// Blocks a sequence of `tokens` cached positions occupies (0 for 0 tokens).
int64_t BlocksForTokens(int64_t tokens, int64_t block_size);

// A pool of `blocks` block numbers 0..blocks-1. Allocate hands out the
// lowest free number (so reuse is predictable), nullopt when none is free.
// Freeing a number that is not allocated is a broken invariant: it aborts
// with a message rather than corrupting the pool.
class BlockAllocator {
 public:
  explicit BlockAllocator(int64_t blocks);

  std::optional<int64_t> Allocate();
  void Free(int64_t block);
  bool IsAllocated(int64_t block) const;

  int64_t capacity() const { return capacity_; }
  int64_t in_use() const { return capacity_ - static_cast<int64_t>(free_.size()); }
  int64_t free_blocks() const { return static_cast<int64_t>(free_.size()); }
  int64_t peak_in_use() const { return peak_; }

 private:
  int64_t capacity_;
  std::set<int64_t> free_;
  int64_t peak_ = 0;
};

}  // namespace suites
