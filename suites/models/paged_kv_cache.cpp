// The paged KV cache: block pools on the device, read through block tables.
#include "paged_kv_cache.h"

#include <algorithm>
#include <limits>

namespace suites {

PagedKvCache::PagedKvCache(const ModelConfig& config, int64_t blocks, int64_t block_size,
                           c10::Device device, at::ScalarType dtype)
    : blocks_(blocks), block_size_(block_size) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t l = 0; l < config.layers; ++l) {
    const std::vector<int64_t> shape = {blocks, config.kv_heads, block_size, config.head_dim()};
    keys_.push_back(at::full(shape, nan, at::TensorOptions().dtype(dtype)).to(device));
    values_.push_back(at::full(shape, nan, at::TensorOptions().dtype(dtype)).to(device));
  }
}

void PagedKvCache::Write(int64_t layer, const std::vector<int64_t>& table, int64_t position,
                         const at::Tensor& k, const at::Tensor& v) {
  const int64_t n = k.size(2);
  TORCH_CHECK((position + n + block_size_ - 1) / block_size_ <= static_cast<int64_t>(table.size()),
              "PagedKvCache::Write: positions up to ", position + n, " need more than the ",
              table.size(), " blocks of the block table");
  const at::Tensor ks = k.select(0, 0), vs = v.select(0, 0);
  for (int64_t i = 0; i < n;) {
    const int64_t p = position + i, block = table[p / block_size_], offset = p % block_size_;
    const int64_t m = std::min(block_size_ - offset, n - i);
    keys_[layer].select(0, block).narrow(1, offset, m).copy_(ks.narrow(1, i, m));
    values_[layer].select(0, block).narrow(1, offset, m).copy_(vs.narrow(1, i, m));
    i += m;
  }
}

std::pair<at::Tensor, at::Tensor> PagedKvCache::Read(int64_t layer,
                                                     const std::vector<int64_t>& table,
                                                     int64_t length) const {
  const int64_t used = (length + block_size_ - 1) / block_size_;
  TORCH_CHECK(used <= static_cast<int64_t>(table.size()), "PagedKvCache::Read: ", length,
              " positions need more than the ", table.size(), " blocks of the block table");
  std::vector<at::Tensor> ks, vs;
  for (int64_t b = 0; b < used; ++b) {
    ks.push_back(keys_[layer].select(0, table[b]));
    vs.push_back(values_[layer].select(0, table[b]));
  }
  // [kv_heads, used * block_size, head_dim], cut to the sequence's length.
  auto gather = [&](const std::vector<at::Tensor>& parts) {
    const at::Tensor all = parts.size() == 1 ? parts[0] : at::cat(parts, 1);
    return all.narrow(1, 0, length).contiguous().unsqueeze(0);
  };
  return {gather(ks), gather(vs)};
}

void PagedKvCache::Poison(const std::vector<int64_t>& blocks) {
  for (const int64_t b : blocks) {
    for (size_t l = 0; l < keys_.size(); ++l) {
      keys_[l].select(0, b).fill_(std::numeric_limits<double>::quiet_NaN());
      values_[l].select(0, b).fill_(std::numeric_limits<double>::quiet_NaN());
    }
  }
}

}  // namespace suites
