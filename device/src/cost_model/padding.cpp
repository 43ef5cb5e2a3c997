#include "spyre_emu/padding.h"

namespace spyre_emu {

uint64_t PaddedDeviceBytes(const std::vector<int64_t>& sizes, size_t elem_size) {
  if (elem_size == 0) return 0;
  const uint64_t per_stick = kStickBytes >= elem_size ? kStickBytes / elem_size : 1;
  if (sizes.empty()) return per_stick * elem_size;  // a 0-d tensor takes one stick
  uint64_t rows = 1;
  for (size_t i = 0; i + 1 < sizes.size(); ++i) rows *= static_cast<uint64_t>(sizes[i]);
  const uint64_t last = static_cast<uint64_t>(sizes.back());
  return rows * ((last + per_stick - 1) / per_stick * per_stick) * elem_size;
}

}  // namespace spyre_emu
