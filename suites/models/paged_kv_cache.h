#pragma once
// The serving kind's KV cache on the device: per layer one pool of keys and
// one of values, [blocks, kv_heads, block_size, head_dim] in the model's
// dtype, and the block tables (kv_blocks.h, serving_scheduler.h) that say
// which blocks hold a sequence's positions, in order.
//
//   PagedKvCache cache(config, /*blocks=*/32, /*block_size=*/16, device, at::kHalf);
//   cache.Write(layer, table, /*position=*/0, k, v);     // k, v [1, kv_heads, n, head_dim]
//   auto [keys, values] = cache.Read(layer, table, n);   // [1, kv_heads, n, head_dim]
//   cache.Poison(freed_blocks);
//
// Every block starts poisoned, and a freed block is poisoned again: its
// positions hold NaN (DL16's one NaN/Inf code), so a sequence that reads a
// block it does not own, or a position nobody wrote, computes NaN logits
// instead of plausible ones.
#include <cstdint>
#include <utility>
#include <vector>

#include <ATen/ATen.h>

#include "suites/models/model_config.h"

namespace suites {

class PagedKvCache {
 public:
  PagedKvCache(const ModelConfig& config, int64_t blocks, int64_t block_size, c10::Device device,
               at::ScalarType dtype);

  // Stores k and v [1, kv_heads, n, head_dim] at positions position ..
  // position + n - 1 of the sequence whose blocks `table` lists.
  void Write(int64_t layer, const std::vector<int64_t>& table, int64_t position,
             const at::Tensor& k, const at::Tensor& v);
  // Positions 0 .. length - 1 of that sequence, keys and values
  // [1, kv_heads, length, head_dim], gathered through its block table.
  std::pair<at::Tensor, at::Tensor> Read(int64_t layer, const std::vector<int64_t>& table,
                                         int64_t length) const;
  void Poison(const std::vector<int64_t>& blocks);

  int64_t block_size() const { return block_size_; }
  int64_t blocks() const { return blocks_; }

 private:
  int64_t blocks_;
  int64_t block_size_;
  std::vector<at::Tensor> keys_, values_;  // per layer
};

}  // namespace suites
