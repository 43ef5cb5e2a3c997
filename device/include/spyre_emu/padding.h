#pragma once
// Stick padding (torch-free, no state): how many device bytes a tensor
// occupies. A tensor takes product(dims[:-1]) * round_up(dims[-1],
// 128 / elem_size) * elem_size bytes; a 0-d tensor takes one stick, a tensor
// with a zero dim none. Part of the cost-model library (spyre_cost_model),
// which the timing case kinds use without loading the device.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace spyre_emu {

constexpr uint64_t kStickBytes = 128;

// Device bytes of a tensor with these sizes and element size.
uint64_t PaddedDeviceBytes(const std::vector<int64_t>& sizes, size_t elem_size);

}  // namespace spyre_emu
